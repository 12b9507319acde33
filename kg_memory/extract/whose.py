"""Whose slot a clause speaks of, read off the parse: a slot's noun's owner ("our contact at Hooli",
"the gateway's maintainer", "our contact there"), a subject the parser hung elsewhere, and the speaker's
own things and household ("my cell", "Ana and I", "our family")."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .base import ExtractedFact
from .values import is_name, noun_phrase, numeric, pobj

# who acts on a thing without being its slot's subject ("the team ported billing to Kotlin")
AGENTS = frozenset({"team", "someone", "somebody", "they", "everyone", "engineering", "ops", "devops", "platform",
                    "council", "management", "board", "landlord", "government", "company", "owners", "hr"})
# (and the bodies that set a thing's terms: "The council has raised pupil lunches to £2.45")
FIRST = frozenset({"i", "we"})


def numbered(noun: Any) -> bool:
    """A noun named by its number ("Laptop 7", "van 4"): a thing of its own, not a slot's noun."""
    return any(k.dep_ == "nummod" and k.i > noun.i for k in noun.children)


def hung_subject(verb: Any) -> Any | None:
    """A subject the parser hung on the clause before as a conj ("Hooli is on the Starter plan and our
    contact there is Gavin Belson": "contact" a conj of the first "is"): the noun right before the
    verb's expletive "there"."""
    expl = next((k for k in verb.children if k.dep_ == "expl" and k.i < verb.i), None)
    prev = verb.doc[expl.i - 1] if expl is not None and expl.i > 0 else None
    if prev is not None and prev.pos_ == "NOUN" and prev.dep_ == "conj":
        return prev
    # a name that opens the clause, which the parser took for an adverb ("Raj now reports to Victor")
    first = next(iter(verb.subtree), None)
    if first is not None and first.dep_ == "advmod" and first.i < verb.i and first.text.istitle() \
            and first.lower_ not in OPENING_ADVERBS and not first.lower_.endswith("ly"):
        return first
    # a noun said with its owner, which the parser took for an adverb ("Billing's datastore is MySQL")
    owned = next((k for k in verb.children if k.dep_ == "advmod" and k.i < verb.i
                  and any(c.dep_ == "poss" for c in k.children)), None)
    # or a noun that opens the clause, which it took for the verb's adjective ("Aqua fit starts at 9:30")
    return owned or next((k for k in verb.children if k.dep_ == "amod" and k.pos_ == "NOUN" and k.i < verb.i
                          and min(t.i for t in k.subtree) == min(t.i for t in verb.subtree)), None)


# adverbs that open a clause with a capital ("Now", "Then"): no name the parser took for one
OPENING_ADVERBS = frozenset({"now", "then", "also", "today", "still", "lately", "yesterday", "again", "finally", "soon",
                             "here", "there", "so", "just", "anyway", "meanwhile", "sometimes", "often", "already",
                             "yet", "maybe", "perhaps", "actually", "basically", "honestly", "later", "tomorrow",
                             "once", "twice", "eventually", "nowadays", "instead", "otherwise", "anyhow", "besides",
                             "thus", "hence"})


def my_thing(subj: Any, types: frozenset[str], people: frozenset[str]) -> bool:
    """A common noun the speaker possesses, that is no one (not "my brother") and no thing the group
    keeps as an entity ("my billing service") nor a team: what is said of it is said of the speaker."""
    low = subj.lemma_.lower()
    return subj.pos_ == "NOUN" and any(k.dep_ == "poss" and k.lower_ == "my" for k in subj.children) \
        and low not in people and subj.lower_ not in people and low not in types and low not in AGENTS


def there(noun: Any, slot_words: frozenset[str]) -> str | None:
    """"Alice left Umbrella; our contact there is Carlos": "there" is the last name said before, that
    is no slot's value ("Hooli is on the Starter plan and our contact there ...": Hooli)."""
    doc = noun.doc
    if not any(t.lower_ == "there" for t in (*noun.children, *noun.head.children)) \
            and not (noun.i + 1 < len(doc) and doc[noun.i + 1].lower_ == "there"):
        return None
    # (a name the small parser tagged a noun counts: "Lars left Vandelay")
    names = [t for t in noun.doc[:noun.i] if (t.pos_ == "PROPN" or t.pos_ == "NOUN" and t.text[:1].isupper()
                                              and t.i > 0) and t.dep_ != "compound"
             and not (noun.dep_ == "attr" and t.head == noun.head)  # (not the copula's own subject)
             and not (t.head.lemma_.lower() in slot_words and t.dep_ in ("compound", "amod"))]
    return None if not names else " ".join(w.text for w in names[-1].subtree if w.dep_ in ("compound", "flat")
                                           or w == names[-1])


def said_as_own(noun: Any, verb: Any) -> bool:
    """A slot's noun the speaker says without an owner, as their own: bare and given a value ("Home is
    Denver for now"; not "Reports switched to Kinesis", a thing named by a common noun that acts) or
    picked out by what the speaker does ("The band I love most is Wilco")."""
    if not any(k.dep_ in ("det", "poss") for k in noun.children):
        return (noun.i == 0 or noun.doc[noun.i - 1].is_punct) and verb.lemma_ == "be"
    return any(k.dep_ == "relcl" and any(g.dep_ == "nsubj" and g.lower_ in FIRST for g in k.children)
               for k in noun.children)


def with_me(subj: Any) -> bool:
    """"Ana and I", "my wife and I", "our family": the speaker's "we"."""
    return any(k.dep_ == "conj" and k.lower_ in ("i", "me") for k in subj.children) or (
        subj.lemma_.lower() in _HOUSEHOLD and any(k.dep_ == "poss" and k.lower_ == "our" for k in subj.children))


_HOUSEHOLD = frozenset({"family", "household", "home"})  # "our family moved": the speaker moved


def mine_said_as(subj: Any, verb: Any, people: frozenset[str]) -> bool:
    """"My vitamin D is 1000 IU", "my cell is 555-4400": a thing of the speaker's that the copula gives
    a value is the speaker's slot; not a person of theirs ("my brother is a nurse" is the brother's)."""
    return verb.lemma_ == "be" and subj.lemma_.lower() not in people and any(
        k.dep_ == "poss" and k.lower_ in ("my", "our") for k in subj.children) and any(
        numeric(t) or (t.dep_ == "attr" and is_name(t)) for t in verb.subtree if t.i > subj.i)
    # (a number or a name: "my roommate is into board games" is not; "my cardiologist is Dr. Weiss" is)


def of_thing(noun: Any, types: frozenset[str]) -> str | None:
    """The thing a slot's noun is of, said as a common noun ("the owner of search")."""
    obj = next((o for k in noun.children if k.dep_ == "prep" and k.lower_ in ("of", "for")
                if (o := pobj(k)) is not None and o.pos_ == "NOUN"), None)
    return None if obj is None else noun_phrase(obj, types)


def owner(noun: Any, speaker: str, types: frozenset[str]) -> str | None:
    """Whose slot a noun that names the slot speaks of: "my doctor" the speaker's, "Hooli's contract"
    and "the Hooli contract" Hooli's, "our contact at Hooli" Hooli's."""
    the = any(k.dep_ == "det" and k.lower_ == "the" for k in noun.children)
    for k in noun.children:  # (and "in" a named thing, of "the" slot's noun: "the prosecutor in R v Lyle")
        if k.dep_ == "prep" and (k.lower_ in ("at", "with", "for", "of", "on") or k.lower_ == "in" and the):
            obj = pobj(k)
            if obj is not None and obj.lower_ in ("me", "us"):
                return speaker  # "home for me is Minneapolis"
            if obj is not None and (is_name(obj) or obj.lemma_.lower() in types):  # "of the billing service"
                return noun_phrase(obj, types)
            appos = next((a for a in obj.children if a.dep_ == "appos" and a.pos_ == "PROPN"), None) \
                if obj is not None else None
            if appos is not None:  # "the keeper of the camel Omar": Omar's
                return noun_phrase(appos, types)
            if obj is not None and k.lower_ in ("for", "on") and obj.pos_ == "NOUN" \
                    and any(d.lower_ == "the" for d in obj.children):  # "our architect for the extension"
                return noun_phrase(obj, types)
            if obj is not None and k.lower_ == "of" and obj.pos_ == "NOUN":
                inner = owner(obj, speaker, types)  # "our point of contact at Initech": the contact's owner
                if inner is not None and inner != speaker:
                    return inner
    named = next((k for k in noun.children if k.dep_ == "compound" and (k.pos_ == "PROPN" or k.pos_ == "VERB" and
                                                                        k.text.istitle())), None)
    # (a name the parser took for a verb: "Speke fire station is ...")
    for k in noun.children:
        if k.dep_ == "poss":
            if k.lower_ in ("my", "our"):
                return speaker if named is None else noun_phrase(named, types)  # ("our Initech contact")
            if is_name(k) or k.pos_ == "NOUN" or numeric(k) and any(is_name(c) for c in k.children):
                # ("the gateway's maintainer": the gateway's; "Flat 2's rent": Flat 2's)
                return noun_phrase(k, types).removesuffix("'s").removesuffix("’s").strip()
    return None if named is None else noun_phrase(named, types)  # ("Neville Hill depot": Neville Hill's)


def only_its_noun(subject: str, text: str, predicate: str, keywords: tuple[str, ...] = ()) -> bool:
    """A subject that is only the slot's own noun or one of its keywords, said with no owner at the start of a
    clause ("The date has changed: ...", "home is a cottage in Peebles now"; not "Flat 2's rent", which the
    parser may split): the speaker's."""
    noun = subject.lower()
    if noun not in keywords and not ("_" in predicate and noun == predicate.split("_")[-1]):
        return False
    return re.search(rf"(?:^|[.:;]\s*)(?:(?:the|our|my)\s+)?{re.escape(noun)}\b", text, re.I) is not None


def me_with(verb: Any, prep: str) -> bool:
    """Does the verb do something to the speaker with the preposition ("put me on", "took me off")?"""
    return any(k.dep_ == "dobj" and k.lower_ in ("me", "us") for k in verb.children) \
        and any(k.dep_ == "prep" and k.lower_ == prep for k in verb.children)


def role_of(role: Any, types: frozenset[str], slot_words: frozenset[str]) -> Any | None:
    """The common noun a role of the speaker's is said with, which says what the role is of ("our health
    correspondent", "our transport correspondent"): not a name, a type or a slot's own word."""
    return next((k for k in role.children if k.dep_ == "compound" and k.pos_ == "NOUN" and k.text.islower()
                 and k.lemma_.lower() not in types | slot_words), None)


def a_slot_noun(noun: Any, slot_words: frozenset[str]) -> bool:
    """A slot's own word, or the noun of its state ("sponsorship" of "sponsor", "management" of "manage", "funding" said
    with whose, of "funds"). (Not
    ``a_slot_word``'s stems: as a clause's subject, "account" would then be the slot noun of "accounts".)"""
    low = noun.lemma_.lower()
    owned = any(k.dep_ == "prep" and k.lower_ in ("for", "of") for k in noun.children)
    state = re.sub(r"(?:ship|ment|ing)$" if owned else r"(?:ship|ment)$", "", low)  # ("funding for X" of "funds")
    return low in slot_words or noun.lower_ in slot_words or state != low and (state in slot_words
                                                                               or state + "s" in slot_words)


def agent_noun(word: str, slot_words: frozenset[str]) -> bool:
    """A noun for the one who does a slot's verb ("manager" of "manages", "editor" of "edits"; not "boiler",
    said only as itself)."""
    stem = word[:-2] if word.endswith(("er", "or")) else ""
    return len(stem) >= 3 and any(w.startswith(stem) and w not in (word, word + "s") for w in slot_words)


def a_slot_word(word: str, slot: frozenset[str] | set[str]) -> bool:
    """Is the word one of a slot's words, or of their stem ("insurance" of the insurer's "insures")?"""
    if word in slot or word.removesuffix("s") in slot:
        return True
    return len(word) >= 5 and any(len(w) >= 5 and shared_stem(word, w) >= max(5, 0.7 * min(len(word), len(w)))
                                  for w in slot)


def shared_stem(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


WHICH_ONE = frozenset({"new", "old", "current", "former", "next", "previous", "interim", "acting", "permanent"})


def owner_before_slot_noun(moved: str | None, slot_words: frozenset[str]) -> str | None:
    """A thing worked on said as its owner and a slot's noun ("raised the bathroom budget to £11k"): the owner."""
    words = (moved or "").split()
    which = slot_words | WHICH_ONE  # (not "the phone number": a slot's two nouns; but "the back door code")
    if len(words) > 1 and words[-1].lower() in slot_words and (
            words[-2].lower() not in which or len(words) > 2 and words[-3].lower() not in which):
        return re.sub(r"['’]s$", "", " ".join(words[:-1]))  # ("Mrs Grant's recall": Mrs Grant)
    return moved


MOVES = frozenset({"move", "transfer", "switch", "go", "relocate"})  # what one who moves does (to a place)
PASSES = MOVES | {"pass"}  # and what a thing someone has does when it changes hands


def owner_of_passed(subj: Any, verb: Any, types: frozenset[str]) -> str | None:
    """"Mr Osei's care has passed to Dr Lin": a named one's thing (no slot's noun, no thing of the group's types)
    that passes to another is the named one's slot changing: the named one."""
    named = next((k for k in subj.children if k.dep_ == "poss" and is_name(k)), None)
    if named is None or subj.pos_ != "NOUN" or subj.lemma_.lower() in types or verb.lemma_.lower() not in PASSES \
            or not any(k.dep_ == "prep" and k.lower_ == "to" for k in verb.children):
        return None
    return noun_phrase(named, types)


def misread_verb(t: Any) -> bool:
    """A second verb the small parser took for a noun coordinated with the first clause's object
    ("uses MySQL and deploys to Heroku": "deploys" a conj of "MySQL", "to Heroku" on "uses")."""
    doc = t.doc
    return t.dep_ == "conj" and t.pos_ == "NOUN" and t.lower_.endswith("s") and not t.lower_.endswith("ss") \
        and t.i > 0 and doc[t.i - 1].lower_ == "and" and t.i + 2 < len(doc) \
        and (doc[t.i + 1].pos_ == "ADP" or doc[t.i + 1].lower_ in _PLACE_WORDS)


_PLACE_WORDS = frozenset({"to", "on", "in", "into", "onto", "at", "with", "from"})


def named_before(verb: Any, subj: Any | None) -> Any | None:
    """"Work gave me a Pixel 9, so that's my phone now": "that" (or "it", "this") is the name the clause it hangs
    on gives."""
    if subj is None or subj.lower_ not in ("that", "this", "it"):
        return subj
    # (the clause it hangs on, or the one the parser hung on it: "gave" a ccomp of "'s")
    said = [verb.head] if verb.head != verb else [k for k in verb.children if k.dep_ in ("ccomp", "advcl", "parataxis")
                                                  and k.i < verb.i]
    return next((k for c in said for k in c.children if k.dep_ == "dobj" and is_name(k) and k.pos_ == "PROPN"), subj)


# the speaker's elders, said as a name ("Dad got rid of the Volvo"): the speaker's own
KIN_AS_NAMES = frozenset({"mum", "mom", "mam", "mother", "dad", "father", "gran", "granny", "grandma", "nan", "nana",
                          "grandad", "granddad", "grandpa", "grandmother", "grandfather"})


def as_kin(f: ExtractedFact, speaker: str) -> ExtractedFact:
    """A fact whose subject is the speaker's elder said as a name ("Dad") said of the speaker's ("User's dad"),
    as "my dad" says it."""
    if f.subject.lower() not in KIN_AS_NAMES or not f.subject[:1].isupper():
        return f
    kin = f"{speaker}'s {f.subject.lower()}"
    said = f"{kin}{f.statement[len(f.subject):]}" if f.statement.startswith(f.subject) else f.statement
    return replace(f, subject=kin, statement=said)
