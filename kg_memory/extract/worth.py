"""What is worth keeping: the rules an open fact (one no ontology predicate takes) must pass
before it is written, so that recall shows what a person would want remembered.

Each rule is a function that returns why a clause is refused, or None; docs/labelling.md gives the
classes these rules keep out (its "junk" and "weak" examples), and tests/unit/test_worth.py holds a
test for each rule. The rules read the parse of the sentence, never a list of whole phrasings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import parse

# Verbs of the chat itself: what the speakers do to each other, not what they are or did in the world.
CHAT_VERBS = {"thank", "appreciate", "admire", "congratulate", "compliment", "greet", "notice", "ask", "wonder",
              "apologize", "apologise", "welcome", "praise", "reply", "answer", "text", "message"}
# Verbs of an errand that passes (fetching, carrying, noticing, tidying): a fact only when a date, an amount or
# a named thing makes it an event worth keeping ("picked up a Zeiss lens"). Outings and making things ("went
# to the beach", "made a bowl") are not here: people ask about them later (LoCoMo's facts-only recall fell
# from 42.6 to 38.6 with them in; docs/benchmarks.md, "Fact precision").
PASSING_VERBS = {"grab", "gather", "bring", "pick", "fetch", "carry", "notice", "put", "send", "post", "snap", "check",
                 "open", "close", "clean", "wash", "pack", "stop", "order", "drink"}
# People an object may name only by their tie to the subject: a placeholder unless a name comes with it.
PEOPLE_NOUNS = {"friend", "friends", "buddy", "pal", "partner", "colleague", "coworker", "co-worker", "neighbor",
                "neighbour", "boss", "roommate", "classmate", "teammate", "mate"}
# Verbs too general to be an activity on their own ("likes going", "enjoys playing"; "running" is one).
GENERIC_VERBS = {"go", "do", "play", "try", "start", "get", "make", "take", "have", "be", "keep", "practice",
                 "practise", "work", "learn", "use", "come", "put", "give", "let", "see", "look"}
NUMBER_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "dozen", "half"}


@dataclass(frozen=True)
class Said:
    """A clause with what the rules read beside it: the sentence, whether it names a date, the speakers."""

    clause: parse.Clause
    sentence: str
    dated: bool
    speakers: frozenset[str]
    relations: frozenset[str]


Rule = Callable[[Said], "str | None"]


def chat_move(s: Said) -> str | None:
    """A compliment, thanks, a question or a noticing: "I love your creativity" is about the listener."""
    c = s.clause
    if c.relation.split()[0] in CHAT_VERBS:
        return f"a chat move ({c.relation})"
    head = c.object.split()[-1] if c.object else ""
    if head and re.search(rf"\byour\s+(?:[\w'-]+\s+){{0,3}}{re.escape(head)}\b", s.sentence, re.I):
        return f"about the listener ('your {head}')"
    return None


def passing_act(s: Said) -> str | None:
    """A passing act with nothing that makes it an event: no date said, no amount, no named thing."""
    c = s.clause
    if c.relation.split()[0] not in PASSING_VERBS or not c.past:
        return None
    if s.dated or _amount(c.object) or _named(c.object):
        return None
    return f"a passing act ({c.surface} {c.object})"


def placeholder(s: Said) -> str | None:
    """An object that names a person only by a tie ("a friend", "Maren's partner"): a mention, not a fact."""
    words = [w for w in re.split(r"\s+", s.clause.object.lower()) if w not in parse._DETS]
    if not words:
        return None
    tie = words[-1].removesuffix("'s")
    possessor = len(words) == 2 and words[0].endswith("'s")
    if (tie in PEOPLE_NOUNS or tie in s.relations) and (len(words) == 1 or possessor):
        return f"a placeholder ({s.clause.object})"
    return None


def pointed_at(s: Said) -> str | None:
    """An object named only by pointing at it ("made this bowl", "had that performance"): a thing the chat shows or
    has just said, which the fact alone does not name; a name with it names it ("this year's Glastonbury")."""
    obj = s.clause.object
    pointed = re.search(rf"\b(?:this|that|these|those)\s+(?:[a-z][\w-]*\s+)?{re.escape(obj)}\b", s.clause.statement,
                        re.I) if obj else None
    if pointed is not None and not any(w[:1].isupper() for w in obj.split()):
        return f"named only by pointing at it ({pointed.group(0)})"
    return None


def empty_object(s: Said) -> str | None:
    """An object that is only a verb, a pronoun or a dangling word ("likes going", "practicing every")."""
    doc = parse.parsed(s.clause.object) if parse.load_parser() is not None else None
    if doc is None or len(doc) == 0 or parse.an_address(s.clause.object):  # (the tagger takes "jo@x.io" for a DET)
        return None
    toks = [t for t in doc if not t.is_punct]
    if not toks:
        return "an empty object"
    if toks[-1].pos_ in ("DET", "ADP", "CCONJ", "SCONJ", "PART") or toks[-1].lower_ in parse._DETS | DANGLING:
        return f"a dangling object ({s.clause.object})"
    content = [t for t in toks if t.pos_ not in ("DET", "ADJ", "ADV")]
    if content and all(t.pos_ == "PRON" for t in content):
        return f"a pronoun object ({s.clause.object})"
    if len(content) == 1 and content[0].tag_ == "VBG" and content[0].lemma_.lower() in GENERIC_VERBS:
        return f"a verb object ({s.clause.object})"
    return None


def general_knowledge(s: Said) -> str | None:
    """A subject that is no one in the conversation: a speaker, a speaker's relative or a named person
    ("Greyhounds are the fastest breed", "the Eisenhower Matrix sorts tasks" are not memories)."""
    subject = s.clause.subject
    if subject in s.speakers or "'s " in subject:
        return None
    doc = parse.parsed(s.sentence) if parse.load_parser() is not None else None
    if doc is None:
        return None
    people = {e.text for e in doc.ents if e.label_ == "PERSON"}
    if any(subject == p or subject in p.split() or p in subject.split() for p in people):
        return None
    return f"not about anyone in the conversation ({subject})"


RULES: tuple[Rule, ...] = (chat_move, passing_act, placeholder, empty_object, pointed_at, general_knowledge)
# The rules that hold of a fact whatever its predicate. An ontology's predicates are durable by design, so a
# passing act does not apply to them, and their subjects may be anything the group keeps (a service, a deal).
ANY_FACT: tuple[Rule, ...] = (chat_move, placeholder, empty_object)
_NOW_WORDS = re.compile(r"\b(?:today|tonight|now|right now|this (?:morning|afternoon|evening))\b", re.I)


def dated(sentence: str, span: object | None) -> bool:
    """Whether the sentence says when: a day, month or date it names, or a time the date resolver read
    (``span``), but not only "today" (which is when the turn was said)."""
    if _WHEN.search(sentence):
        return True
    return span is not None and not _NOW_WORDS.search(sentence)


_WHEN = re.compile(r"\d|\b(?:last|ago|yesterday|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|"
                   r"april|may|june|july|august|september|october|november|december)\b", re.I)
# Words an object cannot end on: it was cut short ("practicing every").
DANGLING = {"every", "each", "some", "any", "all", "more", "most", "much", "many", "such", "very", "so", "too"}


def refused(said: Said, rules: Iterable[Rule] = RULES) -> str | None:
    """Why the clause is not worth keeping as an open fact, or None."""
    for rule in rules:
        why = rule(said)
        if why is not None:
            return why
    return None


def _amount(text: str) -> bool:
    return bool(re.search(r"\d", text)) or any(w in NUMBER_WORDS for w in text.lower().split())


def _named(text: str) -> bool:
    """A capitalised word in the object (the parse keeps a name's case; common nouns are lower-cased)."""
    return any(w[:1].isupper() for w in text.split())


def is_question(sentence: str) -> bool:
    """A sentence that asks ("Jonas still lives in Rotterdam, right?"): it states nothing."""
    return sentence.rstrip().rstrip("\"')”’").endswith("?")
