"""Subject-relation-object structure from a dependency parse, for the offline extractor.

The parser is spaCy with an English pipeline, both optional: without them
:func:`load_parser` returns None and the rules extractor works from its phrase
patterns alone. A clause gives a fact only when it is a statement (not a question,
not negated, not a wish or a plan), its subject is the speaker, a relative of the
speaker or a named person, and its object is a noun phrase that is not a pronoun.
Mapping the relation onto the vocabulary is the canonicalizer's job."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import Any

from .dates import is_time_word
from .lexicon import LIGHT_VERBS, STOP_OBJECTS
from .spacy_pipeline import PIPELINE as PIPELINE
from .spacy_pipeline import load_parser as load_parser
from .spacy_pipeline import parsed as parsed
from .spacy_pipeline import parser_available as parser_available
from .spacy_pipeline import parser_version as parser_version

log = logging.getLogger(__name__)

# ...unless the object makes the clause specific: these verbs stay when their object is a noun phrase.
OBJECT_VERBS = {"love", "like", "enjoy", "go", "take", "share"}
# Light verbs that report an event when they are past or in progress and take a concrete object
# ("I ran a charity race", "I made this bowl", "we had a picnic", "we're putting together a show").
EVENT_VERBS = {"run", "make", "do", "have", "pass", "put", "bring", "take", "get", "spend"}
# Objects that make an event verb say nothing durable ("it took some work", "I had a blast").
EVENT_STOP = {"work", "effort", "courage", "guts", "step", "steps", "peek", "setback", "trouble", "mess",
              "sure", "sense", "use", "progress", "rest", "nap", "sec", "second", "minute", "minutes", "hour",
              "hours", "week", "month", "year", "years", "while", "ages", "pity", "struggle", "struggles"}
# Time words that end an object phrase and belong to the clause's date ("a new group last Tuesday").
# Number words left behind when "three years ago" loses its tail; lower case only, so "Studio One" and
# "Route 66" keep their names.
TIME_TAIL = re.compile(r"(?:\s+(?:(?i:last|next|this|yesterday|today|tonight|ago|recently|lately|earlier|now|nowadays|"
                       r"these\s+days|at\s+the\s+moment)|"
                       r"one|two|three|four|five|six|seven|eight|nine|ten))+\s*$")
QUOTES = {"'", '"', "‘", "’", "“", "”", "`", "``", "''"}
# Verbs that put a new value in place of an old one ("switched schools to Purdue").
REPLACE_VERBS = {"switch", "change", "swap", "trade", "exchange", "upgrade"}
# Objects that name nothing, so that no other phrase of the clause stands in for them.
VAGUE = {"stuff", "thing", "things", "something", "everything", "anything", "nothing"}
# Nouns that are only what they are of ("a group of conservatives", "a team of volunteers").
GROUPS = {"group", "team", "crowd", "circle", "community", "club", "set", "series", "collection"}
AMOUNTS = {"lot", "lots", "loads", "load", "tons", "ton", "bunch", "plenty", "couple"}
CHILDHOOD = {"kid", "child", "teen", "teenager", "girl", "boy", "youngster"}
# Light verbs that a particle or preposition makes specific ("looking into adoption agencies").
PHRASAL = {"look": {"into", "for", "after"}}
# Verbs of an aim that say something durable when the aim is a verb with an object of its own
# ("I want to become a counselor"), not a passing wish ("I want to thank you").
AIM_VERBS = {"want", "hope", "aim", "dream"}
# Verbs whose present tense states a durable preference, but whose past tense is an opinion about an event.
PREFERENCE_VERBS = {"love", "like", "enjoy"}
FAVORITE = {"favorite", "favourite"}
MODALS = {"would", "could", "should", "might", "may", "must", "'d", "will", "'ll", "shall", "can", "ca", "gon",
          "wanna", "gonna"}
_FIRST = {"i", "we"}
_DETS = {"a", "an", "the", "some", "this", "that", "these", "those", "my", "our", "your", "his", "her",
         "their", "its", "any", "another", "both", "either", "all"}


_TRAILING = re.compile(r"(?:\s+(?:that|to|which|who|and|or|but|so|because|the|a|an))+\s*$", re.I)


@dataclass(frozen=True)
class Clause:
    subject: str
    relation: str  # lemma phrase, e.g. "relocate to", "be", "pick up"
    surface: str  # the same as written, e.g. "relocated to"
    object: str
    statement: str
    past: bool
    copula_noun: str = ""  # "my home is X": the possessed noun ("home"), for the copular form


def clauses(sentence: str, speaker: str, relations: dict[str, str],
            activities: frozenset[str] = frozenset()) -> list[Clause]:
    """The clauses of ``sentence`` that state a fact. ``relations`` are the kinship and role nouns of
    the vocabulary; ``activities`` the words of its activity class, which an ongoing verb with no
    object names ("I've been running" is the activity running, relation "practise")."""
    nlp = load_parser()
    if nlp is None or not sentence.strip() or sentence.rstrip().endswith("?"):
        return []
    out: list[Clause] = []
    for sent in parsed(sentence).sents:
        if sent.text.rstrip().endswith("?"):
            continue
        for verb in _verbs(sent):
            clause = _clause(verb, speaker, relations) or _ongoing(verb, speaker, relations, activities)
            if clause is not None:
                out.append(clause)
                out.extend(_shared(clause, verb, speaker))
    return out


def _ongoing(verb: Any, speaker: str, relations: dict[str, str], activities: frozenset[str]) -> Clause | None:
    """"I've been running farther to de-stress": an activity kept up, when the verb names one and has no
    object of its own."""
    if verb.tag_ != "VBG" or verb.lower_ not in activities or not _is_statement(verb) \
            or not any(k.dep_ == "aux" and k.lower_ == "been" for k in verb.children) \
            or any(k.dep_ == "dobj" and k.lemma_.lower() not in AMOUNTS for k in verb.children):
        return None
    who = _subject(verb, speaker, relations)
    if who is None or who[1]:
        return None
    return Clause(who[0], "practise", "practises", verb.lower_, f"{who[0]} has been {verb.lower_}", False)


def _shared(clause: Clause, verb: Any, speaker: str) -> list[Clause]:
    """The same clause for each other name of a joined subject ("Ana and Ben adopted a puppy"): the
    speaker when named, or a name, never a pronoun."""
    subj = _nsubj(verb) or (_nsubj(verb.head) if verb.dep_ == "conj" else None)
    if subj is None or clause.copula_noun or not clause.statement.startswith(clause.subject + " "):
        return []
    names = [t.text for t in subj.conjuncts if t.i > subj.i and (t.pos_ == "PROPN" or t.text == speaker)]
    if any(t.lower_ in _FIRST for t in subj.conjuncts):
        names.append(speaker)  # "Ben and I"
    rest = clause.statement[len(clause.subject):]
    return [replace(clause, subject=n, statement=n + rest) for n in dict.fromkeys(names) if n != clause.subject]


def _verbs(sent: Any) -> list[Any]:
    """The root, the verbs conjoined with it ("I sold X and bought Y"), and any
    other verb with a subject of its own ("I'm so glad I went to the parade", "the book I read")."""
    root = sent.root
    verbs = [root] + [t for t in root.conjuncts if t.pos_ in ("VERB", "AUX")]
    for t in sent:
        if t not in verbs and t.pos_ == "VERB" and t.dep_ in ("ccomp", "advcl", "conj", "xcomp", "relcl") \
                and any(k.dep_ in ("nsubj", "nsubjpass") for k in t.children):
            verbs.append(t)
    return verbs


def _is_statement(verb: Any) -> bool:
    if not _asserted(verb):
        return False
    lemma = verb.lemma_.lower()
    if lemma in PREFERENCE_VERBS and verb.tag_ in ("VBD", "VBN") and not _childhood(verb):
        return False  # "I loved the concert": an opinion about something that passed
    return lemma not in LIGHT_VERBS or lemma in OBJECT_VERBS or _event(verb) or _phrasal(verb) or _aim(verb) \
        or _considered(verb) is not None


def _asserted(verb: Any) -> bool:
    """Not denied, wished, planned or supposed: no negation, no modal, no "if"."""
    kids = list(verb.children)
    after = verb.doc[verb.i + 1].lower_ if verb.i + 1 < len(verb.doc) else ""
    if after in ("ta", "na"):
        return False  # "gotta", "gonna", "wanna", split by the tokenizer: a plan or a need
    if any(k.dep_ == "neg" for k in kids):
        return False
    if any(k.dep_ in ("aux", "auxpass") and k.lower_ in MODALS for k in kids):
        return False
    return not any(k.dep_ == "mark" and k.lower_ in ("if", "whether", "unless") for k in kids)


def _considered(verb: Any) -> tuple[Any, str] | None:
    """"We're thinking about going camping": a plan under way, its activity and preposition (not
    "thinking about my family": a thought, not a plan)."""
    if verb.lemma_.lower() not in ("think", "consider"):
        return None
    for k in verb.children:
        if k.dep_ == "prep" and k.lower_ in ("about", "of"):
            act = next((c for c in k.children if c.dep_ == "pcomp" and c.tag_ == "VBG"
                        and any(o.dep_ == "dobj" and o.pos_ in ("NOUN", "PROPN") for o in c.children)), None)
            if act is not None:
                return act, k.lower_
    return None


def _childhood(verb: Any) -> bool:
    """"I loved horses as a kid", "... growing up": a liking of a whole period, not of one event."""
    return "growing up" in verb.sent.text.lower() or any(
        k.lower_ == "as" and any(p.dep_ == "pobj" and p.lemma_.lower() in CHILDHOOD for p in k.children)
        for k in verb.subtree)


def _phrasal(verb: Any) -> bool:
    """A light verb made specific by its preposition ("looking into adoption agencies")."""
    preps = PHRASAL.get(verb.lemma_.lower(), set())
    return any(k.dep_ in ("prep", "prt") and k.lower_ in preps for k in verb.children)


def _aim(verb: Any) -> bool:
    """An aim with a verb that does something ("wants to become a counselor"), not a courtesy."""
    return verb.lemma_.lower() in AIM_VERBS and verb.tag_ in ("VBP", "VBZ") and any(
        k.dep_ == "xcomp" and k.pos_ in ("VERB", "AUX") and k.lemma_.lower() not in LIGHT_VERBS
        for k in verb.children)


def _habit(verb: Any) -> Any | None:
    """"Ana used to ride horses": the verb of the habit ("ride"), read as a past clause of its own."""
    if verb.lemma_.lower() != "use" or verb.tag_ != "VBD":
        return None
    return next((k for k in verb.children if k.dep_ == "xcomp" and k.pos_ == "VERB"
                 and any(a.lower_ == "to" for a in k.children)), None)


def _event(verb: Any) -> bool:
    """An event verb reporting what happened or is under way: past, perfect or progressive."""
    if verb.lemma_.lower() not in EVENT_VERBS:
        return False
    progressive = verb.tag_ == "VBG" and any(k.dep_ == "aux" and k.lemma_ == "be" for k in verb.children)
    return verb.tag_ in ("VBD", "VBN") or progressive


def _subject(verb: Any, speaker: str, relations: dict[str, str]) -> tuple[str, str] | None:
    """(subject name, possessed noun of a copular subject) or None."""
    subj = _nsubj(verb)
    if subj is None and verb.dep_ == "conj":
        subj = _nsubj(verb.head)
    if subj is None and verb.dep_ == "xcomp" and verb.head.lemma_ == "use":
        subj = _nsubj(verb.head)  # "Ana used to ride horses": the subject of "used"
    if subj is None:
        # "Packed everything up and moved to Dublin": chat drops the "I" before a leading verb
        before = verb.doc[verb.sent.start:verb.i]
        lead = all(t.pos_ in ("ADV", "INTJ", "PUNCT") for t in before)
        if verb.dep_ == "conj":
            lead = verb.head.i == verb.sent.start
        return (speaker, "") if lead and verb.tag_ in ("VBD", "VBN") else None
    if subj.lower_ in _FIRST:
        return speaker, ""
    if subj.pos_ == "PROPN" or subj.text == speaker:  # the small pipeline tags some names NOUN ("Caroline")
        parts = [t for t in subj.subtree if t.dep_ in ("compound", "flat") or t == subj]
        return " ".join(t.text for t in parts), ""
    poss = next((k for k in subj.children if k.dep_ == "poss"), None)
    for_me = any(k.dep_ == "prep" and k.lower_ == "for" and any(p.lower_ in ("me", "us") for p in k.children)
                 for k in subj.children)
    # "my home", and in a restated turn "Ana's home": the speaker's own noun
    if (poss is not None and (poss.lower_ in ("my", "our") or poss.text == speaker)) or (
            for_me and verb.lemma_ == "be"):
        noun = subj.lemma_.lower()
        if noun in relations:
            return f"{speaker}'s {noun}", ""
        if any(k.dep_ == "amod" and k.lower_ in FAVORITE for k in subj.children):
            return speaker, f"favorite {noun}"  # "my favorite book is X"
        return speaker, _compounded(subj, noun)  # "my home is X", "my car is X", "my mobile number is X"
    return None


# adjectives that say which of its values a slot had when, not what the slot is ("my new dentist")
_WHEN_ADJ = frozenset({"new", "old", "current", "previous", "former", "latest", "last", "first", "next", "present"})


def _compounded(noun_tok: Any, noun: str) -> str:
    """The possessed noun with the nouns before it ("mobile number"), which name the attribute; the
    vocabulary's keywords are looked up by its last word."""
    return " ".join([k.lower_ for k in noun_tok.subtree if k.i < noun_tok.i and (
        k.dep_ == "compound" or (k.dep_ == "amod" and k.tag_ == "JJ" and k.lower_ not in _WHEN_ADJ))] + [noun])


def _nsubj(verb: Any) -> Any | None:
    """The subject of ``verb``; where the small pipeline took a verb for an auxiliary ("Ana loves reading
    books" parsed as loves/aux reading/ROOT), the subject hangs on that auxiliary."""
    found = next((k for k in verb.children if k.dep_ in ("nsubj", "nsubjpass")), None)
    if found is None:
        aux = next((k for k in verb.children if k.dep_ == "aux" and _preference(k)), None)
        found = None if aux is None else next((k for k in aux.children if k.dep_ == "nsubj"), None)
    return found


def _preference(tok: Any) -> bool:
    """"loves", "enjoys" (tagged AUX, the lemma is then the word itself)."""
    low = tok.lower_
    return tok.lemma_.lower() in PREFERENCE_VERBS or low in PREFERENCE_VERBS or low[:-1] in PREFERENCE_VERBS


def _object(verb: Any) -> tuple[Any, str] | None:
    """The object's head token and the prepositions between verb and object."""
    kids = list(verb.children)
    if verb.lemma_.lower() in ("take", "bring"):  # "I took the kids to the museum": where they went
        for k in kids:
            pobj = _pobj(k)
            if k.lower_ == "to" and pobj is not None and _noun(pobj):
                return pobj, "to"
    planned = _considered(verb)
    if planned is not None:
        return planned
    if _relative(verb):  # "this book I read last year", "the parade I went to": the noun it tells of
        stranded = next((k.lower_ for k in kids if k.dep_ == "prep" and _pobj(k) is None), "")
        return (verb.head, stranded) if _noun(verb.head) else None
    if verb.lemma_.lower() == "go":  # "we went camping": the activity, however the pipeline tagged it
        for k in kids:
            if k.dep_ in ("advcl", "xcomp", "dobj", "npadvmod", "acomp", "ccomp") and k.lower_.endswith("ing") \
                    and k.is_alpha and len(k.text) > 5 and k.i == verb.i + 1:
                return k, ""
    if any(k.dep_ == "dobj" and k.pos_ == "PRON" for k in kids):
        return None  # "I made it in pottery class": what was made is unnamed, the class is not it
    for k in kids:
        if k.dep_ == "dobj" and k.lemma_.lower() in AMOUNTS:  # "lots of kids' books": the books
            inner = next((_pobj(p) for p in k.children if p.lower_ == "of" and _pobj(p) is not None), None)
            if inner is not None and _noun(inner):
                return inner, ""
        if (k.dep_ in ("dobj", "attr", "oprd") or k.dep_ == "acomp" and _numbered_name(k)) and _noun(k):
            return k, ""  # (a name said with its number may be tagged as a state: "my address is Flat 2")
    if any(k.dep_ == "dobj" and k.lemma_.lower() in VAGUE for k in kids):
        return None  # "got some good stuff from the event": the object names nothing, the event is not it
    for k in kids:
        if k.lower_ not in ("like", "as", "than"):  # a comparison, not a relation
            pobj = _pobj(k)
            if pobj is not None and _noun(pobj) and not is_time_word(pobj.text):  # not "on Monday"
                return pobj, k.lower_
    for k in kids:
        if k.dep_ == "acomp":
            for p in k.children:
                pobj = _pobj(p)
                if pobj is not None and _noun(pobj):
                    return pobj, f"{k.lower_} {p.lower_}"
    for k in kids:
        if k.dep_ == "xcomp" and k.pos_ == "VERB" and verb.lemma_ not in ("be", "have") and (
                k.lemma_.lower() not in LIGHT_VERBS or k.lemma_.lower() in OBJECT_VERBS):
            if k.tag_ == "VBG" and verb.lemma_.lower() in PREFERENCE_VERBS and _object(k) is not None:
                return k, ""  # "I love creating art": what is loved is the activity, "creating art"
            inner = _object(k)
            if inner is not None:
                return inner[0], (f"{k.lemma_.lower()} {inner[1]}").strip()
            if k.tag_ == "VBG" and not any(c.dep_ == "dobj" and c.i == k.i + 1 for c in k.children):
                return k, ""  # "I love painting" (not "I'm helping create ...": an aim, not a thing;
                # not "taking care of myself": an idiom whose object names nothing)
    return None


def _pobj(tok: Any) -> Any | None:
    """The object of ``tok`` when it is a preposition ("to" -> "the museum"), else None."""
    if tok.dep_ != "prep":
        return None
    return next((p for p in tok.children if p.dep_ == "pobj"), None)


def _noun(tok: Any) -> bool:
    return (tok.pos_ in ("NOUN", "PROPN") and (tok.is_alpha or tok.pos_ == "PROPN" and tok.text.isalnum())
            and (len(tok.text) > 2 or _numbered_name(tok) or any(k.dep_ == "nummod" for k in tok.children))
            # (a model's name may hold digits: "Galaxy S21"; an amount's unit is short: "50 mg")
            and (_named_with(tok) or tok.lemma_.lower() not in STOP_OBJECTS and tok.lower_ not in STOP_OBJECTS))


def _numbered_name(tok: Any) -> bool:
    return tok.pos_ == "PROPN" and tok.text[:1].isupper() and any(k.dep_ == "nummod" for k in tok.children)


def _named_with(tok: Any) -> bool:
    """A word that ends a name said with its other words ("17 Mill Road", "Kings Place"): a name, whatever the word."""
    return tok.pos_ == "PROPN" and tok.text[:1].isupper() and any(k.dep_ in ("compound", "nummod") and k.i < tok.i
                                                                 for k in tok.children)


def _specific(head: Any) -> bool:
    """Does an event's object name one thing ("a picnic", "my own pots", "the adoption interviews"), not
    a vague amount ("strong connections", "some cool projects")?"""
    return head.pos_ == "PROPN" or head.tag_ == "VBG" or any(
        (k.dep_ == "det" and k.lower_ in _SPECIFIC_DETS) or k.dep_ in ("poss", "compound", "nummod")
        for k in head.children)


# Determiners that pick out one thing; possessives count through their dependency ("poss") in _specific.
_SPECIFIC_DETS = _DETS - {"some", "any", "my", "our", "your", "his", "her", "their", "its", "both", "either", "all"}


def _fan_of(verb: Any, head: Any) -> Any | None:
    """"I'm a big fan of pottery": the thing liked, when the copula's object is "fan of X"."""
    if verb.lemma_ != "be" or head.lemma_.lower() != "fan":
        return None
    for k in head.children:
        pobj = _pobj(k)
        if k.lower_ == "of" and pobj is not None and pobj.pos_ in ("NOUN", "PROPN") and pobj.is_alpha:
            return pobj
    return None


def _phrase(head: Any) -> str:
    toks = [t for t in head.subtree if t.dep_ not in ("relcl", "acl", "punct", "cc", "conj", "appos")
            or t == head]
    end = _right(head)
    toks = [t for t in toks if head.left_edge.i <= t.i <= end]
    while toks and toks[0].lower_ in _DETS:
        toks = toks[1:]
    return _words(toks).strip(" ,.;:!-'\"")


def _object_text(head: Any) -> str:
    """The object phrase of ``head`` without a trailing time word ("a new group last Tuesday")."""
    return TIME_TAIL.sub("", _phrase(head)).strip()


def _words(toks: list[Any]) -> str:
    """Tokens as written ("Charlotte's Web", not "Charlotte 's Web"), one space at most between them, and
    no dash that ends a phrase ("books- classics")."""
    text = "".join((t.text.rstrip("-") if t.whitespace_ else t.text)
                   + (" " if t.whitespace_ or (i + 1 < len(toks) and toks[i + 1].i != t.i + 1) else "")
                   for i, t in enumerate(toks))
    return " ".join(text.split())


def _right(head: Any) -> int:
    """The end of the object phrase: stop before a relative clause or a conjunction."""
    end = head.i
    for t in head.subtree:
        if t.dep_ == "punct" and t.text in QUOTES:
            continue  # a quoted title goes on: reading 'Charlotte's Web'
        if t.i > head.i and t.dep_ == "prep" and t.lower_ == "of" and head.lemma_.lower() in GROUPS:
            continue  # "a group of religious conservatives": the group is of them
        if t.i > head.i and (t.dep_ in _ENDS_PHRASE or _in_clause(t, head)):
            break
        end = max(end, t.i)
    # "kids' books- classics, ...": a dash ends the phrase, wherever the pipeline put the head
    dash = next((t.i for t in head.doc[head.left_edge.i:end + 1] if t.text.endswith("-") and t.whitespace_
                 and len(t.text) > 1), None)
    return end if dash is None else dash


_ENDS_PHRASE = ("relcl", "acl", "cc", "conj", "punct", "advcl", "npadvmod", "prep")


def _in_clause(tok: Any, head: Any) -> bool:
    """Does ``tok`` belong to a clause that hangs on ``head`` (the "I" of "the book I read")?"""
    while tok.i != head.i and tok.head.i != tok.i:
        tok = tok.head
        if tok.i != head.i and tok.dep_ in ("relcl", "acl"):
            return True
    return False


def _clause(verb: Any, speaker: str, relations: dict[str, str], lead: Any | None = None) -> Clause | None:
    """The clause of ``verb``; ``lead`` is the verb of a habit that it continues ("used" of "used to ride")."""
    habit = _habit(verb)
    if habit is not None:
        if any(k.dep_ == "neg" for k in verb.children):
            return None
        inner = _clause(habit, speaker, relations, lead=verb)
        return None if inner is None else replace(inner, surface=f"used to {inner.surface}", past=True)
    if verb.pos_ not in ("VERB", "AUX") or verb.lower_ in MODALS:
        return None
    named = _new_one_named(verb, speaker, relations) or _supplanted(verb, speaker) or _titled_post(verb, speaker)
    if named is not None:
        return named
    if not _is_statement(verb):
        return None
    who = _subject(verb, speaker, relations)
    if who is not None and not who[1]:
        liked = next((_fan_of(verb, k) for k in verb.children if k.dep_ == "attr"), None)
        if liked is not None:
            obj = _phrase(liked)
            return Clause(who[0], "like", "likes", obj, f"{who[0]} is a fan of {obj}", False) if obj else None
    if who is not None and who[1].startswith("favorite ") and verb.lemma_ == "be":
        return _favorite(who[0], who[1], verb)
    if who is not None and not who[1]:
        swapped = _replacement(verb, who[0])
        if swapped is not None:
            return swapped
    found = _object(verb)
    if found is None and who is not None and who[1] and verb.lemma_ == "be":
        found = _numbered(verb) or _named(verb)  # "my mobile number is 07700 900123", "... a company called X"
    if who is None or found is None:
        return None
    subject, noun = who
    head, preps = found
    if verb.lemma_ == "be" and noun:
        head = _called(verb, head)  # "my accountant is a firm called Hargreaves Lane": the name
    loved = _misparsed_preference(verb)
    if loved is not None:
        return _loved(subject, loved, verb, head)
    if verb.lemma_ == "be" and not noun and subject != speaker:
        owned = _speakers_noun(head, relations)
        if owned:  # "Luis is my boss": the speaker's boss is Luis
            return Clause(speaker, "be", "is", subject, f"{speaker}'s {owned} is {subject}", False, owned)
    obj = _code(head) if head.pos_ == "NUM" and noun else _object_text(head)
    if not obj or len(obj.split()) > 8 or head.pos_ == "PRON" and not an_address(head.text):
        return None
    if _event(verb) and preps != "to" and (head.lemma_.lower() in EVENT_STOP or not _specific(head)):
        return None
    if verb.lemma_.lower() in PREFERENCE_VERBS and _pointed(head):
        return None  # "I love the colors", "love this theme": an opinion of the thing at hand, not a liking
    prt = " ".join(k.lower_ for k in verb.children if k.dep_ == "prt")
    lemma, said = ("have", "have") if _have_got(verb, prt, preps) else (verb.lemma_.lower(), verb.lower_)
    relation = " ".join(p for p in (lemma, prt, preps) if p)
    surface = " ".join(p for p in (said, prt, preps) if p)
    past = verb.tag_ in ("VBD", "VBN") and not any(k.lower_ in ("have", "'ve", "has") for k in verb.children)
    if _relative(verb):
        article = "" if obj[:1].isupper() or head.tag_ in ("NNS", "NNPS") else "a "
        statement = " ".join(w for w in (subject, verb.text, preps, f"{article}{obj}") if w)
        return Clause(subject, relation, surface, obj, statement, past, noun)
    statement = _statement(subject, lead or verb, head, speaker)
    if not statement or head.i < verb.i:
        return None  # an object before its verb is a question or a fragment ("Dance out of ...?")
    return Clause(subject, relation, surface, obj, statement, past, noun)


def _have_got(verb: Any, prt: str, preps: str) -> bool:
    """"I've got a Galaxy S21": "have got" is having."""
    return verb.lemma_.lower() == "get" and verb.tag_ == "VBN" and not prt and not preps \
        and any(k.dep_ == "aux" and k.lower_ in ("have", "'ve", "has", "'s", "’ve", "’s") for k in verb.children)


def _pointed(head: Any) -> bool:
    """Does an object point at a thing at hand ("this theme", "all the leaves", "the self-acceptance
    theme"), not at a kind of thing ("the beach", "the mountains")?"""
    dets = {k.lower_ for k in head.children if k.dep_ in ("det", "predet")}
    described = any(k.dep_ in ("amod", "compound", "nmod") for k in head.children)
    return bool(dets & {"this", "that", "these", "those"}) or ("the" in dets and described)


def _relative(verb: Any) -> bool:
    """A relative clause with no object of its own: its object is the noun it hangs on."""
    return verb.dep_ == "relcl" and not any(k.dep_ in ("dobj", "attr", "oprd") for k in verb.children) \
        and not any(k.tag_ in ("WDT", "WP", "WRB") for k in verb.children)


def _replacement(verb: Any, subject: str) -> Clause | None:
    """"I switched schools to Purdue", "I changed my major to economics": the noun that changed names the
    slot and the object of "to" or "for" is its new value, read as "my school is Purdue" would be."""
    if verb.lemma_.lower() not in REPLACE_VERBS:
        return None
    slot = next((k for k in verb.children if k.dep_ == "dobj" and k.pos_ == "NOUN"), None)
    new = next((_pobj(k) for k in verb.children if k.lower_ in ("to", "for") and _pobj(k) is not None), None)
    if slot is None or new is None or not _noun(new):
        return None
    obj = _object_text(new)
    noun = slot.lemma_.lower()
    return Clause(subject, "be", "is", obj, f"{subject}'s {noun} is {obj}", False, noun) if obj else None


# verbs by which a new one takes another's place in a role said with "as" ("replaced X as my GP")
SUPPLANTS = frozenset({"replace", "overtake", "supplant", "succeed", "displace", "oust", "take"})


def _supplanted(verb: Any, speaker: str) -> Clause | None:
    """"Past Lives has replaced Paddington 2 as my favourite film", "Dr Shah took over from Dr Lee as my GP": the
    one that took the place, read as "my favourite film is Past Lives" would be (a new one replaces the old)."""
    lemma = verb.lemma_.lower()
    if lemma not in SUPPLANTS and lemma not in ("become", "be") or lemma == "take" and not any(
            k.dep_ == "prt" and k.lower_ == "over" for k in verb.children):
        return None
    role = next((o for k in verb.children if k.dep_ == "prep" and k.lower_ == "as" if (o := _pobj(k)) is not None),
                None) if lemma not in ("become", "be") else next((k for k in verb.children if k.dep_ == "attr"), None)
    # ("Le Guin has become my favourite author": the one said to become it; "Rumours is my favourite album")
    if lemma == "be" and (role is None or not any(k.dep_ == "amod" and k.lower_ in FAVORITE for k in role.children)):
        return None
    new = _nsubj(verb)
    if role is None or new is None or new.pos_ == "PRON" or not any(
            k.dep_ == "poss" and k.lower_ in ("my", "our") for k in role.children):
        return None
    obj, noun = _object_text(new), role.lemma_.lower()
    if not obj:
        return None
    if any(k.dep_ == "amod" and k.lower_ in FAVORITE for k in role.children):
        return Clause(speaker, f"favorite {noun}", f"favorite {noun}", obj, f"{speaker}'s favorite {noun} is {obj}",
                      False)
    return Clause(speaker, "be", "is", obj, f"{speaker}'s {noun} is {obj}", False, noun)


# a post said by its title before its noun ("got the ward manager job"), and the verbs that take one up
_POSTS = frozenset({"job", "role", "position", "post"})
_TAKEN_UP = frozenset({"get", "land", "take", "accept", "start", "win", "secure", "bag", "begin"})


def _titled_post(verb: Any, speaker: str) -> Clause | None:
    """"Got the ward manager job", "I've accepted the head of sales role": the speaker took up the post its title
    names, read as "my job is ward manager" would be."""
    post = next((k for k in verb.children if k.dep_ == "dobj" and k.lemma_.lower() in _POSTS), None)
    subj = _nsubj(verb)
    if post is None or verb.lemma_.lower() not in _TAKEN_UP or subj is not None and subj.lower_ not in _FIRST:
        return None
    title = [t for t in post.subtree if t.i < post.i and t.dep_ not in ("det", "poss", "punct")
             and t.lower_ not in ("new", "dream", "first", "full", "time", "part", "permanent", "temporary")]
    if not title or any(t.pos_ == "PROPN" for t in title):
        return None  # ("got the Acme job": where, not what)
    obj = " ".join(t.lower_ for t in title)
    return Clause(speaker, "be", "is", obj, f"{speaker}'s role is {obj}", False, "role")  # (a job is also where)


def _favorite(subject: str, noun: str, verb: Any) -> Clause | None:
    """"Ana's favorite book is Charlotte's Web": an open fact named for the noun (favorite_book). The
    object is the copula's complement whatever its tag (the small pipeline tags "Radiohead" ADJ)."""
    head = next((k for k in verb.children if k.dep_ in ("attr", "acomp", "oprd") and k.i > verb.i), None)
    if head is None or head.pos_ == "PRON" or head.lower_ in STOP_OBJECTS:
        return None
    obj = _object_text(head)
    if not obj or len(obj.split()) > 8:
        return None
    return Clause(subject, noun, noun, obj, f"{subject}'s {noun} is {obj}", False)


def _misparsed_preference(verb: Any) -> Any | None:
    """"Ana loves reading books", which the small pipeline parses with "loves" as the auxiliary of
    "reading": that "loves", when it is present tense (a past one is an opinion about an event)."""
    if verb.tag_ != "VBG":
        return None
    if verb.dep_ == "conj" and verb.head.tag_ == "VBG":
        return _misparsed_preference(verb.head)  # "... loves hiking and exploring forests"
    return next((k for k in verb.children if k.dep_ == "aux" and _preference(k) and k.tag_ not in ("VBD", "VBN")),
                None)


def _loved(subject: str, loved: Any, verb: Any, head: Any) -> Clause | None:
    """The activity loved, from its verb through its object ("hiking in the mountains")."""
    if head.pos_ == "PRON" or head.i < verb.i:
        return None
    toks = [t for t in verb.doc[verb.i:_right(head) + 1] if t.lower_ not in ("my", "our", "your")]
    activity = TIME_TAIL.sub("", _words(toks)).strip(" ,.;:!-'\"")
    if not activity:
        return None
    said = _third_person(loved.lower_) if loved.tag_ == "VBP" else loved.lower_
    return Clause(subject, "love", "loves", activity, f"{subject} {said} {activity}", False)


def _numbered(verb: Any) -> tuple[Any, str] | None:
    """The copula's complement when it is a number, a code or an address ("07700 900123", "LS6 2AB",
    "sam@lumen.io")."""
    head = next((k for k in verb.children if k.dep_ in ("attr", "acomp") and k.i > verb.i), None)
    if head is None or not (any(ch.isdigit() for ch in head.text) or an_address(head.text)):
        return None
    return head, ""


def an_address(text: str) -> bool:
    """An email address or a web address ("sam@lumen.io", "https://lumen.io"): a value as written."""
    return _ADDRESS.fullmatch(text.strip()) is not None


_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)\S+")


def _called(verb: Any, head: Any) -> Any:
    """The name the copula's complement is said to be called ("a firm called Hargreaves Lane"), else itself."""
    from .values import called  # values reads parse's phrases: imported when first used

    return called(head) if head.dep_ == "attr" and head.head.i == verb.i else head


def _named(verb: Any) -> tuple[Any, str] | None:
    """The name the copula's complement is said to be called ("our landlord is a company called Grainger")."""
    head = next((k for k in verb.children if k.dep_ == "attr" and k.i > verb.i), None)
    name = _called(verb, head) if head is not None else None
    return (name, "") if name is not None and name is not head else None


def _code(head: Any) -> str:
    """A number or code as written, with the parts the pipeline split off it ("07700 900123")."""
    start = end = head.i
    while start > 0 and head.doc[start - 1].pos_ == "NUM" and head.doc[start - 1].text.isalnum():
        start -= 1
    while end + 1 < len(head.doc) and head.doc[end + 1].text.isalnum() and head.doc[end + 1].pos_ in ("NUM", "PROPN",
                                                                                                        "NOUN", "X"):
        end += 1
    return _words(list(head.doc[start:end + 1]))


def _new_one_named(verb: Any, speaker: str, relations: dict[str, str]) -> Clause | None:
    """"I registered with a new dentist, Dr. Amin", "I have a new manager, Raj Patel": a new one of
    something, named beside it, is the subject's <noun> now, read as "my dentist is Dr. Amin" would be."""
    if not _asserted(verb):
        return None
    objects = [k for k in verb.children if k.dep_ == "dobj"] + [p for k in verb.children if k.dep_ == "prep"
                                                                 and (p := _pobj(k)) is not None]
    head = next((k for k in objects if k.pos_ == "NOUN" and any(a.dep_ == "amod" and a.lower_ == "new"
                                                                 for a in k.children)), None)
    who = _subject(verb, speaker, relations) if head is not None else None
    if head is None or who is None or who[1]:
        return None
    subject, doc = who[0], head.doc
    start = _named_beside(head)
    if start is None:
        return None
    first = doc[start]
    if any(ch.isdigit() for ch in first.text) or an_address(first.text):
        obj = _code(first)  # "a new number as of today: 07400 556677"
    else:
        end = start
        while end + 1 < len(doc) and doc[end + 1].pos_ == "PROPN":
            end += 1
        obj = _words(list(doc[start:end + 1])) if first.pos_ == "PROPN" else ""
    noun = _compounded(head, head.lemma_.lower())
    return Clause(subject, "be", "is", obj, f"{subject}'s {noun} is {obj}", False, noun) if obj else None


# words that may stand between a new one and its name, saying when it began ("a new number as of today: ...")
_SINCE = frozenset({"as", "of", "from", "since", "starting", "this", "next"})


def _named_beside(head: Any) -> int | None:
    """Where the name of a new one begins: after the comma or colon that follows it, or follows when it began."""
    doc, i = head.doc, head.i + 1
    while i < len(doc) and (doc[i].lower_ in _SINCE or is_time_word(doc[i].text)):
        i += 1
    return i + 1 if i + 1 < len(doc) and doc[i].text in (",", ":") else None


def _speakers_noun(head: Any, relations: dict[str, str]) -> str | None:
    """The noun of "my <noun>" when it is not a kinship word (those are relations, read elsewhere)."""
    mine = any(k.dep_ == "poss" and k.lower_ in ("my", "our") for k in head.children)
    noun = head.lemma_.lower()
    return noun if mine and noun not in relations else None


def _statement(subject: str, verb: Any, head: Any, speaker: str) -> str:
    """The clause in the third person: the subject, then the words from the verb
    through the object ("Caroline attended an LGBTQ support group")."""
    start = min([verb.i] + [k.i for k in verb.children if k.dep_ in ("aux", "auxpass") and k.i < verb.i])
    end = _right(head)
    words = ["is"] if start == verb.i and verb.tag_ == "VBG" else []  # "my friends helping me" -> "is helping"
    for t in verb.doc[start:end + 1]:
        low = t.lower_
        if t.text in QUOTES and t.dep_ == "punct":
            continue
        if low in ("my", "our"):
            words.append(f"{speaker}'s")
        elif low in ("me", "us") or low in _FIRST:
            words.append(speaker)
        elif low in ("am", "'m", "'re") or (low == "are" and ((words and words[-1] == speaker) or (
                t.i == start and subject == speaker))):
            words.append("is")  # "we are" -> "Ana is": the speaker stands for "we"
        elif low == "were" and t.i == start and subject == speaker:
            words.append("was")
        elif low in ("'ve",) or (low == "have" and t.i == start and t.tag_ == "VBP"):
            words.append("has")
        elif t.i == start and t.tag_ in ("VBP", "VB") and low == t.lemma_.lower() and not low.endswith("ed"):
            words.append(_third_person(t.text))  # "I plan events" -> "Ana plans events"
        elif t.i == start and t.pos_ != "PROPN":
            words.append(low)  # a sentence's first word is no name: "Started hitting the gym" -> "Jon started ..."
        else:
            words.append(t.text)
        if t.whitespace_ == "" and t.i < end and not words[-1].endswith("'s"):
            words[-1] += "\x00"  # no space after it as written ("kids' books-")
    text = " ".join(words).replace("\x00 ", "").replace("\x00", "")
    text = text.replace(" 's", "'s").replace(" n't", "n't").replace(" ,", ",")
    text = TIME_TAIL.sub("", _TRAILING.sub("", text)).strip(" ,.;:!-\"")
    return f"{subject} {text}" if text else ""


def _third_person(verb: str) -> str:
    """The third-person singular of a present-tense verb: plan -> plans, watch -> watches, try -> tries."""
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"
