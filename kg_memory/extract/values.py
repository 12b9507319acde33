"""A value as said: the words of its phrase up to its head, then what the surface glues on after
it (a hyphen or dot run, a number after a name, a unit after a number, a bound after a target). The
parse gives the head; these functions give the words."""

from __future__ import annotations

import re
from typing import Any

from ..core.timeutil import MONTHS
from . import parse
from .dates import is_time_word

# the determiners and possessives no value starts with (the clause reader drops them from phrases too)
DETS = frozenset({"the", "a", "an", "our", "my", "their", "its", "his", "her", "this", "that", "your"})
# a time said inside the value's phrase, which belongs to the clause's date ("Memcached last sprint")
WHEN_TAIL = re.compile(r"\s+(?:last|next|this|every|each)\s+\w+$", re.I)


def _dated_through(doc: Any, end: int) -> int:
    """A day's number that goes on through its month and year, which the parser hung elsewhere ("17 May 2026")."""
    if end + 1 < len(doc) and doc[end].like_num and doc[end + 1].lower_ in MONTHS and doc[end + 1].text[:1].isupper():
        end += 1
        if end + 1 < len(doc) and re.fullmatch(r"\d{4}", doc[end + 1].text):
            end += 1
    return end


def _named_through(doc: Any, end: int) -> int:
    """A name that goes on through "the" or "of" to another capital ("Read the Docs", "Bank of Ireland")."""
    while end + 2 < len(doc) and doc[end].text[:1].isupper() and doc[end + 1].lower_ in ("the", "of") \
            and doc[end + 1].text.islower() and doc[end + 2].text[:1].isupper() and doc[end + 2].is_alpha:
        end += 2
    return versus_through(doc, end)


_VERSUS = frozenset({"v", "v.", "vs", "vs.", "versus"})


def versus_through(doc: Any, end: int) -> int:
    """A case named by its parties goes on through "v" ("R v Okoro", "Smith v Jones Ltd")."""
    if end + 2 < len(doc) and doc[end].text[:1].isupper() and doc[end + 1].lower_ in _VERSUS \
            and doc[end + 1].text.islower() and doc[end + 2].text[:1].isupper():
        end += 2
        while end + 1 < len(doc) and doc[end + 1].pos_ == "PROPN" and doc[end + 1].head.i in (end, end + 2):
            end += 1  # ("Smith v Jones Ltd")
    return end


# the words that say another clause's time by an end ("joined KPMG after leaving Deloitte"): the end is a clause
TIME_OF_AN_END = frozenset({"after", "since"})


def value_text(tok: Any) -> str:
    """A value as said: the words of its phrase up to its head (no determiner or possessive before
    them), then what the surface glues on after it: a hyphen or dot run ("555-0134", "6.5"), a
    number after a name or number ("Zone 2", "555 300 1122"), a unit after a number ("500 mg",
    "six and a half hours") and a bound after a target ("A1C under 6.5")."""
    doc, start = tok.doc, tok.i
    inside = {t.i for t in tok.subtree} - {t.i for k in tok.children if k.dep_ in _NOT_OF_VALUE
                                           and not _named_owner(k, tok) for t in k.subtree}
    while True:
        before = doc[start - 1] if start > 0 else None  # (a possessive's apostrophe: "the kids' routes")
        if before is not None and start - 1 in inside and (
                not before.is_punct or _glued(before) or before.tag_ == "POS"):
            start -= 1
        elif start - 2 in inside and _glued(doc[start - 1]):
            start -= 2  # a slash or hyphen the parse hung elsewhere ("Pub/Sub")
        else:
            break
    if start == tok.i and tok.dep_ == "dobj" and tok.head.i == start - 1 and tok.head.tag_ == "VBG" \
            and tok.head.dep_ == "pcomp" and tok.head.head.lower_ not in TIME_OF_AN_END:
        start -= 1  # a compound the parser took for a gerund and its object ("for coding club")
    end = _value_end(doc, tok.i)
    if _closing_possessive(doc, end):
        end += 1
    end = _dated_through(doc, _named_through(doc, end))
    words = doc[start:end + 1]
    while len(words) > 1 and words[0].lower_ in DETS:
        words = words[1:]
    if len(words) > 1 and words[0].tag_ == "VBN" and words[0].dep_ == "amod" and words[0].i > 0 \
            and doc[words[0].i - 1].lemma_ == "be":
        words = words[1:]  # a passive the parser took for a participle of the value ("is fed mealworms")
    text = "".join(t.text_with_ws for t in words).strip()
    if end == len(doc) - 1 and text.endswith(".") and not text.endswith(".."):
        text = text[:-1]  # the sentence's full stop, which the tokenizer kept on a word it took for a short form
    return parse.TIME_TAIL.sub("", WHEN_TAIL.sub("", text)).strip()


def _closing_possessive(doc: Any, end: int) -> bool:
    """A name that ends in a possessive with nothing possessed after it, said as an object ("to St Mary's",
    "at McDonald's"; not "Billing is Noor's", whose possessive says whose the subject is)."""
    after = end + 2 == len(doc) or end + 2 < len(doc) and doc[end + 2].pos_ not in ("NOUN", "PROPN", "ADJ")
    of_one = doc[end].head.lower_ == "of" and doc[end].head.head.lower_ in _ONE_OF  # ("one of Ollie's": his routes)
    return end + 1 < len(doc) and doc[end + 1].lower_ in ("'s", "’s") and doc[end + 1].head.i == end \
        and doc[end].pos_ == "PROPN" and doc[end].dep_ in ("pobj", "dobj") and after and not of_one


def _named_owner(k: Any, head: Any) -> bool:
    """A name's possessive that is part of the name ("Gold's Gym", "Trader Joe's Market"), or says which one is meant
    (``says_which``: "the Thursday improvers' class")."""
    return k.dep_ == "poss" and k.pos_ == "PROPN" and head.text[:1].isupper() or says_which(k)


def says_which(k: Any) -> bool:
    """A plural noun's possessive said with a bare apostrophe, which says which one is meant, as a word of its name
    ("the kids' routes", "the Thursday improvers' class"; not one's own: "my parents' place" is theirs)."""
    return k.dep_ == "poss" and k.tag_ == "NNS" and k.text.islower() \
        and any(c.dep_ == "case" and c.text in ("'", "’") for c in k.children) \
        and not any(c.dep_ == "poss" for c in k.children)


# dependents of a value's head that are not part of the value ("my doctor's", "the", "a")
_NOT_OF_VALUE = frozenset({"det", "poss", "predet", "case", "relcl", "acl", "prep", "appos", "punct", "cc", "aux"})
# the units a number is said with; the closed class that makes "500" the value "500 mg"
UNITS = frozenset({"mg", "mcg", "µg", "g", "kg", "lb", "lbs", "pound", "pounds", "iu", "ml", "unit", "units",
                   "hour", "hours", "hr", "hrs", "minute", "minutes", "min", "mins", "km", "k", "mile", "miles",
                   "percent", "%", "bpm", "gb", "tb", "ms", "seats", "users", "steps", "reps"})
_BOUNDS = frozenset({"under", "below", "above", "over"})

def _glued(t: Any) -> bool:
    """A token written against the next with no space: a hyphen or slash run ("555-0134", "sub-two-hour")."""
    return t.whitespace_ == "" and t.text in ("-", "–", "/", ".") and t.i + 1 < len(t.doc) \
        and t.doc[t.i + 1].text[:1].isalnum()


def _ampersand(doc: Any, end: int) -> bool:
    """A name joined to the next by "&" is one name with it ("Hale & Sons")."""
    return end + 2 < len(doc) and doc[end + 1].text == "&" and doc[end].text[:1].isupper() \
        and doc[end + 2].text[:1].isupper()


def numeric(t: Any) -> bool:
    return bool(t.like_num) or any(c.isdigit() for c in t.text)


def counted(t: Any) -> bool:
    """A number, or a noun said with one ("twelve months")."""
    return numeric(t) or any(k.dep_ == "nummod" and numeric(k) for k in t.children)


def _value_end(doc: Any, end: int) -> int:
    """The last token of a value whose head is ``doc[end]``: the surface runs of ``_text``'s doc."""
    while end + 1 < len(doc):
        cur, nxt = doc[end], doc[end + 1]
        joined = cur.whitespace_ == "" and (nxt.is_alpha or numeric(nxt) or _glued(nxt)) \
            and not nxt.text.startswith(("'", "’")) and (cur.text in ("-", "–", "/", ".") or _glued(nxt)
                                                          or numeric(cur) or numeric(nxt))
        if joined or (_glued(cur) and end + 1 < len(doc)):
            end += 1
        elif numeric(nxt) and (numeric(cur) or cur.pos_ in ("PROPN", "NOUN") or cur.text[:1].isupper()
                               or nxt.dep_ == "nummod" and nxt.head.i == cur.i) \
                and not (end + 2 < len(doc) and doc[end + 2].lower_ in UNITS):
            end += 1  # "555 300 1122", "Zone 2", "iPhone 12", "bed 3" (not "bed 3 km": a number with its unit)
        elif numeric(cur) and nxt.lower_ in UNITS:
            end += 1
        elif _ampersand(doc, end):
            end += 2
        elif numeric(cur) and [t.lower_ for t in doc[end + 1:end + 4]] == ["and", "a", "half"]:
            end += 3
        elif nxt.lower_ in _BOUNDS and end + 2 < len(doc) and numeric(doc[end + 2]) and not cur.like_num:
            end += 2
        else:
            break
    return end


# -- noun phrases: the words of a name, a thing, or what a preposition or a role takes ------------------
def pobj(prep: Any) -> Any | None:
    """A preposition's object; or the name right after it, which the small parser sometimes hangs
    elsewhere ("switched to CockroachDB": CockroachDB/advmod of the verb)."""
    if prep.dep_ == "prt":
        return None
    found = next((k for k in prep.children if k.dep_ in ("pobj", "pcomp")), None)
    if found is None and prep.i + 1 < len(prep.doc):
        after = prep.doc[prep.i + 1]
        if after.text[:1].isupper() and after.is_alpha and after.dep_ in ("advmod", "npadvmod", "dobj", "attr"):
            return after
    if found is not None and found.pos_ == "VERB":  # "changed to finishing a sprint triathlon": what it is of
        return next((k for k in found.children if k.dep_ == "dobj"), found)
    return found if found is None or is_name(found) else called(found)  # ("at a little independent called Grind")


def is_name(tok: Any) -> bool:
    """A proper noun, or a word with a capital: not a plural one a sentence opens with ("Orchids are Bea's job";
    but "Rumours is ...", said as one, is a title)."""
    opening = tok.i == 0 and tok.pos_ == "NOUN" and tok.tag_ == "NNS" and tok.head.tag_ != "VBZ"  # ("Rumours is")
    return tok.pos_ == "PROPN" or any(c.isupper() for c in (tok.text[1:] if opening else tok.text))


_OPENERS = frozenset({"finally", "now", "then", "so", "also", "still", "sadly", "luckily", "today", "yesterday",
                      "recently", "last", "next", "new", "old", "our", "my", "the"})


_MODIFIERS = frozenset({"compound", "amod", "flat", "nmod"})


def _modifies(t: Any, tok: Any) -> bool:
    """Is ``t`` a word of ``tok``'s own name, through modifiers only ("Mr" of "Mr Osei's care" is not care's)?"""
    while t.head != tok and t.head != t:
        t = t.head
        if t.dep_ not in _MODIFIERS:
            return False
    return True


def noun_phrase(tok: Any, types: frozenset[str]) -> str:
    """A noun phrase without its determiners, and without a closing word that only names its
    entity type ("the billing service" is "billing" when the ontology has the type service)."""
    words = [t for t in tok.subtree if t == tok or _whose_kind(t, tok, types) or t.dep_ in _MODIFIERS
             and _modifies(t, tok)]
    words = sorted({*words, *_saying_which(tok)}, key=lambda t: t.i)
    words = [t for t in words if t.i <= tok.i and t.lower_ not in DETS]
    words = _with_hyphened(words)
    if tok.text.istitle() and tok.pos_ == "PROPN":  # a name is made of names ("after the reorg Sofia": Sofia)
        words = [t for t in words if t == tok or not t.text.islower()]
    doc, end = tok.doc, tok.i
    before = doc[tok.i - 1] if tok.i > 0 else None
    if tok.pos_ == "PROPN" and words == [tok] and before is not None and before.text.istitle() and before.is_alpha \
            and before.pos_ in ("ADV", "ADJ", "VERB") and before.lower_ not in _OPENERS:
        words = [before, tok]  # a first name the parser took for an adverb ("Raj Mehta took over")
    if numeric(tok) and words == [tok] and before is not None and before.is_alpha \
            and before.text[:1].isupper() and before.pos_ in ("ADJ", "ADV", "NOUN", "PROPN"):
        words = [before, tok]  # a name the parser took for a word of its own before its number ("Flat 1")
    if tok.pos_ == "NOUN" and end + 1 < len(doc) and doc[end + 1].dep_ == "amod" and doc[end + 1].head == tok:
        end += 1  # a noun's noun the parser took for an adjective after it ("the basement flat")
    if end + 1 < len(doc) and doc[end + 1].dep_ == "appos" and doc[end + 1].head == tok \
            and doc[end + 1].pos_ == "PROPN" and tok.pos_ == "NOUN":
        end += 1  # a name the parser set beside its noun ("the studio Mac": "studio", then "Mac")
    while end + 1 < len(doc) and numeric(doc[end + 1]) and (is_name(doc[end]) or numeric(doc[end]) or (
            doc[end] == tok and tok.lower_ in types)):
        end += 1  # a number after a name is part of it ("Van 4", "Building 7"), or after a type's noun ("unit 333 004")
    if _ampersand(doc, end):
        end += 2
    end = versus_through(doc, end)
    said = [*words, *doc[tok.i + 1:end + 1]]
    gaps = {i for i in range(said[0].i, said[-1].i + 1)} - {t.i for t in said} if said else set()
    if gaps and all(doc[i].lower_ in _VERSUS for i in gaps):
        said = list(doc[said[0].i:said[-1].i + 1])  # ("R v Lyle", the parser hanging "R" on "Lyle" and "v" on "R")
    if len(said) > 1 and said[-1].lower_ in types and (said[-2].dep_ == "compound" or said[-2].tag_ == "VBG"):
        said = said[:-1]  # (not "the first team", nor "the women's team": those words only say which one)
    return _joined(said).replace(" 's", "'s").replace(" ’s", "’s")


def _saying_which(tok: Any) -> list[Any]:
    """The words of a possessive that says which one is meant (``says_which``), with its own modifiers."""
    return [w for k in tok.children if says_which(k) for w in k.subtree]


def _with_hyphened(words: list[Any]) -> list[Any]:
    """A modifier said with a hyphen keeps the word before it ("peat-free compost", "part-time barista")."""
    doc, out = words[0].doc if words else None, list(words)
    for t in words:
        if doc is not None and t.i >= 2 and doc[t.i - 1].text == "-" and not doc[t.i - 1].whitespace_ \
                and not doc[t.i - 2].whitespace_ and doc[t.i - 2].head == t:
            out += [w for w in (doc[t.i - 2], doc[t.i - 1]) if w not in out]
    return sorted(out, key=lambda t: t.i)


def _joined(said: list[Any]) -> str:
    """The words as said: a hyphen between two words without spaces keeps them joined."""
    out = ""
    for n, t in enumerate(said):
        glued = n > 0 and (t.text == "-" or said[n - 1].text == "-" or t.tag_ == "POS") and not said[n - 1].whitespace_
        out += t.text if n == 0 or glued else " " + t.text
    return out


def _whose_kind(t: Any, head: Any, types: frozenset[str]) -> bool:
    """A common noun's possessive that says which one of an entity type is meant ("the women's team"), and
    its "'s"."""
    if head.lower_ not in types:
        return False
    poss = t if t.dep_ == "poss" and t.head == head else t.head if t.dep_ == "case" and t.head.head == head else None
    return poss is not None and poss.dep_ == "poss" and poss.pos_ == "NOUN" and poss.text.islower()


def held_at(role: Any) -> Any:
    """A role's value is the name it is held at ("a member at Gold's Gym", "a patient of Dr. Sato", "a job
    at Superdrug"); a role held nowhere named is itself."""
    return next((o for k in role.children if k.dep_ == "prep" and k.lower_ in ("at", "of", "with", "for")
                 if (o := pobj(k)) is not None and is_name(o)), role)


# -- what a clause's words take as the value ------------------------------------------------------
def called(noun: Any) -> Any:
    """The name a noun is said to be called ("a climbing gym called Boulder Barn", "a band named
    Low"), else the noun."""
    for k in noun.children:
        if k.dep_ == "acl" and k.lemma_.lower() in ("call", "name"):
            name = next((g for g in k.children if g.dep_ in ("oprd", "attr", "dobj", "xcomp") and is_name(g)), None)
            if name is not None:
                return name
    return noun


def amount_in(verb: Any) -> Any | None:
    """A unit with its number in the clause ("500 mg", "eight hours"), wherever the parser hung it."""
    return next((t for t in verb.subtree if t.lower_ in UNITS and t != verb
                 and any(numeric(k) for k in t.children if k.dep_ == "nummod")), None)


def someone(tok: Any) -> bool:
    """A recipient a thing can be handed to: a name or a known one ("Tom", "the SRE team"), not any
    one ("give all my love to a child"), nor a code ("transferred the saison to FV6": a place, not a person)."""
    if tok is None or any(c.isdigit() for c in tok.text):
        return False
    return is_name(tok) or not any(k.lower_ in ("a", "an", "some", "any") for k in tok.children)


def antecedent(verb: Any, dobj: Any | None) -> Any | None:
    """"Took the Elm Road house away from Savills and gave it to Hunters": "it" in a clause joined to
    another is the other's object; so is it in a verb that clause goes on with ("... but the Bell has started
    selling it")."""
    joined = verb
    while joined.dep_ == "xcomp" and joined.head is not joined:
        joined = joined.head
    if dobj is None or dobj.lower_ not in ("it", "them"):
        return dobj
    if joined.dep_ != "conj":
        return _named_before(verb, dobj)
    before = next((k for k in joined.head.children if k.dep_ == "dobj" and k.pos_ in ("NOUN", "PROPN")), None)
    return before if before is not None else dobj


def _named_before(verb: Any, it: Any) -> Any:
    """"Becky's off the early swim now; Callum leads it": "it" in a clause said after another clause of the sentence
    is the thing that clause named last (a common noun: "it" names no one)."""
    start = next((t.i for t in reversed(verb.doc[:verb.i]) if t.text in (";", ",")), None)
    before = [t for t in verb.doc[:start] if t.pos_ == "NOUN" and t.dep_ in ("dobj", "pobj", "nsubj")
              and not is_time_word(t.text)] if start is not None else []
    return before[-1] if before else it


def placed(obj: Any, value: str) -> str:
    """"Moved to the new 3G pitch at Hadley School": a place with no name is said with the named one it is at."""
    at = next((o for k in obj.children if k.dep_ == "prep" and k.lower_ == "at"
               if (o := pobj(k)) is not None and is_name(o)), None) if obj.pos_ == "NOUN" else None
    return value if at is None else f"{value} at {value_text(at)}"


# an amount as said: a number (digits or words, "and a half"), then a unit of UNITS
_NUMBER = (r"(?:[$£€]?\d[\d,.]*k?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
           r"thirty|forty|fifty|hundred)(?:\s+and\s+a\s+half)?")
PHONE = re.compile(r"\b\d{3}[-. ]\d{3,4}(?:[-. ]\d{3,4})?\b")


def _amount_rx() -> re.Pattern[str]:
    units = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
    return re.compile(rf"(?<![\w-]){_NUMBER}\s*(?:{units})(?![\w-])|[$£€]\d[\d,.]*k?\b", re.I)


def value_shape(value: str) -> str | None:
    """The shape of a value that says which slots may hold it: ``phone`` (555-0134), ``amount:<unit>``
    (500 mg, $40k), or None for words and names, which meaning alone places."""
    if PHONE.fullmatch(value.strip()):
        return "phone"
    found = AMOUNT.fullmatch(value.strip())
    if found is None:
        return None
    low = value.strip().lower()
    unit = low[0] if low[0] in "$£€" else re.sub(r"^[\d,.]+", "", low.split()[-1])  # (a currency is its unit)
    return f"amount:{unit[:-1] if len(unit) > 2 and unit.endswith('s') else unit}"


_NUMBER_WORD = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                          r"(?:thir|four|fif|six|seven|eigh|nine)teen|twenty|thirty|forty|fifty|sixty|seventy|"
                          r"eighty|ninety|hundred)\b", re.I)


def has_number(value: str) -> bool:
    return any(c.isdigit() for c in value) or bool(_NUMBER_WORD.search(value))


AMOUNT = _amount_rx()
AMOUNT_OF = re.compile(rf"^(?:{AMOUNT.pattern})\s+of\s+", re.I)  # "50 mg of ...": an amount of a thing


def names_its_slot(value: str, predicate: str) -> bool:
    """A value said with its slot's own noun after it ("a low carb diet", "a 10k plan")."""
    words = value.lower().split()
    return len(words) > 1 and words[-1].removesuffix("s") in predicate.split("_")


def an_amount(value: str) -> bool:
    """A value that is an amount ("20 mg", "5 mg of lisinopril"), not a thing an amount describes ("a 10k plan")."""
    found = AMOUNT.search(value)
    rest = value[found.end():].strip().lower() if found else ""
    return found is not None and (not rest or rest.startswith("of "))


def shape_share(kind: str | None, shapes: frozenset[str]) -> float:
    """How far a value of the shape ``kind`` leans to a predicate whose examples say ``shapes``: fully for the
    same unit, half for another amount ("1000 IU" for a dose said in mg)."""
    if kind is None:
        return 0.0
    return 1.0 if kind in shapes else 0.5 if kind.split(":")[0] in shapes else 0.0


def shapes_in(example: str) -> set[str]:
    """The value shapes an example sentence says."""
    out = {value_shape(m.group(0)) for m in AMOUNT.finditer(example)}
    out |= {"phone" for _ in PHONE.finditer(example)}
    return {s for s in out if s} | {s.split(":")[0] for s in out if s}


def named_after(noun: Any) -> Any | None:
    """The name said after a comma for a common noun ("a bigger venue, Manchester Central"), however the parser
    hung it."""
    appos = next((k for k in noun.children if k.dep_ == "appos" and k.pos_ == "PROPN"), None)
    if appos is not None:
        return appos
    doc, end = noun.doc, max(t.i for t in noun.subtree)
    if end + 3 >= len(doc) or doc[end + 1].text != ",":
        return None
    i = end + 2 + (doc[end + 2].lower_ == "the")  # (", the Lowry")
    while i + 1 < len(doc) and doc[i].dep_ == "compound" and doc[i].pos_ == "PROPN":
        i += 1
    return doc[i] if doc[i].pos_ == "PROPN" and doc[i].dep_ in ("appos", "npadvmod", "conj") else None


_ONE_OF = frozenset({"one", "some", "each", "any"})
_QUANTITIES = frozenset({"lot", "lots", "bunch", "couple", "plenty", "ton", "tons", "number", "load", "loads"})


def one_of(dobj: Any, types: frozenset[str]) -> Any:
    """What a copula's phrase names (or a "have"'s amount): "one of Dr Hughes's patients" is one of them; and one
    of the group's types said as someone's ("Dr Hughes's patient") names that someone, whose slot the subject's is."""
    verb = dobj.head
    if verb.lemma_ == "have":  # "Salt Marsh has a budget of £3 million": the amount of the noun is the value
        amount = next((o for k in dobj.children if k.dep_ == "prep" and k.lower_ == "of"
                       if (o := pobj(k)) is not None and (numeric(o) or dobj.lower_ in _QUANTITIES)), None)
        return dobj if amount is None or dobj.pos_ != "NOUN" else amount  # (and "a lot of fans" has fans)
    if dobj.dep_ == "attr" and dobj.lower_ in _ONE_OF:
        dobj = next((o for k in dobj.children if k.dep_ == "prep" and k.lower_ == "of"
                     if (o := pobj(k)) is not None), dobj)
    if dobj.lemma_.lower() in types and any(k.dep_ == "nsubj" and k.pos_ == "PROPN" for k in verb.children):
        # (of someone: "Retrieval is Dr. Chen's project" is a thing Dr. Chen is responsible for)
        owner = next((k for k in dobj.children if k.dep_ == "poss" and is_name(k)), None)
        return dobj if owner is None else owner
    return dobj


def compound_read_as_verb(t: Any) -> bool:
    """A gerund right after its verb with its object right after it ("moved recycling collection to ..."): a noun
    compound the parser read as a verb and its object."""
    return t.tag_ == "VBG" and t.i == t.head.i + 1 and any(k.dep_ == "dobj" and k.i == t.i + 1 for k in t.children)


def product_name(value: str) -> str | None:
    """A value said as a name of several words, each with a capital or a model number ("Samsung Galaxy A52", "an
    old iPhone 11": iPhone 11), without the words that describe it before it."""
    words = value.split()
    while len(words) > 2 and words[0].islower() and not any(c.isdigit() for c in words[0]):
        words = words[1:]
    named = len(words) > 1 and all(any(c.isupper() or c.isdigit() for c in w) for w in words)
    return " ".join(words) if named else None


def of_its_slot_noun(verb: Any, value: str, slot_words: frozenset[str]) -> Any | None:
    """"Pip was switched onto a diet of trout", "I'm on a course of antibiotics", "a degree in history": a value said
    as one of a slot's own
    nouns ("a diet", "a course") of what it holds, which is the value (only after "a": "the manager of the
    Leeds branch" names whose manager)."""
    words = value.lower().split()
    if len(words) != 1 or words[0] not in slot_words:
        return None
    noun = next((t for t in verb.subtree if t.lower_ == words[0] and t.pos_ == "NOUN"), None)
    if noun is None or not any(k.dep_ == "det" and k.lower_ in ("a", "an") for k in noun.children):
        return None
    after = [k for k in verb.children if k.i == noun.i + 1]  # (the parser may hang "in history" on the verb)
    return next((o for k in (*noun.children, *after) if k.dep_ == "prep" and (o := pobj(k)) is not None
                 and (k.lower_ == "of" or k.lower_ == "in" and o.pos_ == "NOUN")), None)  # ("a degree in history";
    # not "a job in London")
