"""The shapes of a reading's own words that the meaning reader (``meaning.py``) asks about: the verb said after
a subject, a bare noun, whom a thing is done for, a provider named after a preposition, which of two
readings of one clause says the wider value, a name kept somewhere, a thing got (as bought) and a name said after
words that only describe it."""

from __future__ import annotations

import re
from dataclasses import replace

from ..core.vocab import Predicate
from .dates import CLAUSE_BREAK as CLAUSE_BREAK  # (the clause's end is the dates' too)
from .reading import Reading
from .succession import NAME as _NAME
from .thresholds import RIVAL_GAP, SHAPE_THRESHOLD, SLOT_BAND

# a thing's arrangement said ahead ("the wedding is going to be at Fernley Hall"): stated, not wished for
ARRANGED = re.compile(r"\b(?!(?:I|we|you|he|she|they)\b)\w+\s+(?:is|are)\s+(?:going to|gonna)\s+be\b", re.I)


def said_verb(text: str, r: Reading, verbs: frozenset[str]) -> str:
    """A reading's verb (lemma); for one read off the surface, the word after its subject as one of ``verbs``
    (the small parser takes "mentors" in "Hugo mentors Nadia", "hosts" in "Sophie hosts Night Shift", for a
    noun)."""
    if r.verb:
        return r.verb.lower()
    said = re.match(rf"(?:the\s+)?{re.escape(r.subject)}\s+(\w+)", text, re.I)
    word = said.group(1).lower() if said else ""
    forms = (word, word[:-1], word[:-2], word[:-3] + "y") if len(word) > 3 else ()
    return next((f for f in forms if f in verbs), "")


def near_rivals(scores: dict[str, float], chosen: str, alike: dict[str, float]) -> tuple[str, ...]:
    """The predicates nearly as near to a plain clause as the one meaning chose (within ``SLOT_BAND``), nearest
    first, whose example values are about as like its value (``alike``, within ``RIVAL_GAP``): another reader of the
    sentence (the model) may choose among them."""
    top, like = scores.get(chosen), alike.get(chosen, 0.0)
    return () if top is None else tuple(p for p, sc in sorted(scores.items(), key=lambda kv: -kv[1])
                                        if p != chosen and sc >= SHAPE_THRESHOLD and top - sc <= SLOT_BAND
                                        and alike.get(p, 0.0) >= like - RIVAL_GAP)


def bare(r: Reading) -> bool:
    """An object of one lowercase word said with no article, possessive or number before it ("gave notice",
    "took charge"); not one a pronoun stands for ("started selling it": said before, with its article)."""
    said = re.search(rf"\b{re.escape(r.object)}\b", r.text, re.I) is not None
    return said and r.object.islower() and " " not in r.object and re.search(
        rf"\b(?:the|a|an|our|my|their|his|her|its|this|that|these|those|[\w'’]+['’]s|\d+)\s+{re.escape(r.object)}\b",
        r.text, re.I) is None


def served(r: Reading) -> str | None:
    """The one an unnamed thing is said to be done for ("runs training for the under-15s", "the kit for the
    Harriers"): a name, or a word with a number in it, after "for"."""
    said = re.search(rf"\b{re.escape(r.object)}\s+for\s+(?:the\s+)?({_NAME[1:-1]}|[\w'’-]*\d[\w'’-]*)", r.text)
    return said.group(1) if said else None


PREPOSITION = re.compile(r"\b(?:on|at|with|in|to|from|through|via|under|into|onto)\b")
# a name a thing is had from ("from Mrs Patel", "through Bulb", "with Virgin Media"), not the old value of
# "from A to B"
PROVIDER = re.compile(rf"\b(?:from|with|through|via)\s+(?:the\s+)?{_NAME}(?![\w'’&-])(?!\s+(?:to|into|onto)\b)")
Slots = tuple[Predicate, tuple[str, ...], bool]  # the predicate, the other slots a change may be of, unsure


def words_of(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in re.findall(r"[A-Za-z]+", text))


def widest(matched: list[tuple[Reading, Slots]]) -> list[tuple[Reading, Slots]]:
    """One value per slot and clause shape: "I'm trying to lose fifteen pounds" reads "fifteen pounds"
    off "trying" and "lose fifteen pounds" off "lose"; the value the other's contains is dropped."""
    def inside(r: Reading, slot: str) -> bool:
        return any(o is not r and s[0].name == slot and o.subject == r.subject and o.shape == r.shape
                   and r.object and r.object != o.object and r.object.lower() in o.object.lower()
                   for o, s in matched)
    return [(r, s) for r, s in matched if not inside(r, s[0].name)]


# a name said to be kept, based or parked somewhere ("The older Land Rover is kept at the Glenridding base"): the
# name is done to (not "is leading on"), and is where the place says; not the place's value
_KEPT_AT = re.compile(r"\s+(?:is|are|was|were|has been|have been|gets|got)\s+(?:\w+ly\s+|now\s+|still\s+|also\s+)?"
                      r"(?![a-z]+ing\b)[a-z]+\s+(?:at|in|on|inside)\s+(?:the\s+|our\s+)?"
                      r"(?!(?:helm|charge|call)\b)", re.I)


def kept_somewhere(r: Reading) -> bool:
    """Is the reading's subject said to be kept, based or parked at a place (``_KEPT_AT``, right after its name)?"""
    at = r.text.find(r.subject)
    return at >= 0 and _KEPT_AT.match(r.text, at + len(r.subject), at + len(r.subject) + 60) is not None


def the_name(value: str) -> str:
    """A name said after words that only describe it ("a used Kia Picanto"): the name."""
    named = re.sub(r"^(?:[a-z][\w-]*\s+){1,2}(?=[A-Z])", "", value)
    said_as_a_name = any(len(w) > 1 and w[0].isupper() and w.isalpha() for w in named.split())  # (not a code said
    # with its noun: "pontoon C", "berth C12")
    return named if said_as_a_name and all(w[:1].isupper() or w[:1].isdigit() for w in named.split()) else value


_GOT = re.compile(r"\b(?:got|gotten|ordered|purchased)\b", re.I)


def as_bought(r: Reading) -> Reading:
    """"I got a used Kia Picanto": a named thing got, ordered or purchased is read as bought, the one word the slots'
    cues know for making a thing one's own (whether it is of a slot's kind, the meaning reader's
    ``_bought_as_its_kind`` says)."""
    if r.verb not in ("get", "order", "purchase") or not r.object_proper or not _GOT.search(r.text):
        return r
    return replace(r, verb="buy", text=_GOT.sub("bought", r.text))
