"""A clause's reading, the unit the clause readers give and the meaning reader maps: who, the verb, the value
and its shape; and the small pieces every clause reader builds one with (the clause's own words, its value)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .values import TIME_OF_AN_END, compound_read_as_verb, placed
from .values import value_text as _text
from .whose import hung_subject, misread_verb

HAND_OVER = frozenset({"hand", "transfer", "pass", "reassign", "give", "sell", "lose"})  # ("lost the contract to")
# (with the past forms the small parser leaves unlemmatised)
REWRITE = frozenset({"rewrite", "write", "port", "reimplement", "rebuild", "build", "rebuilt", "rewrote", "rewritten"})
# verbs that make a thing over as another ("rebuilt Room 2 as a space station", "turned the loft into a gym")
REMADE = frozenset({"rebuild", "convert", "turn", "redo", "refit", "redesign", "rebrand", "remake",
                    "reinvent", "rename", "retheme", "redecorate", "repurpose", "relaunch", "reimagine", "transform",
                    "redress", "revamp", "reopen"})
WRITE = frozenset({"write", "rewrite", "rewrote", "rewritten"})  # of a language only "in" one; "to" a store is storage
CHANGE = frozenset({"switch", "move", "migrate", "change", "upgrade", "downgrade", "swap", "transition", "transfer",
                    "shift", "relocate",
                    # an amount that changed: "bumped my lisinopril to 20 mg", "raised it to 75 mcg"
                    "bump", "raise", "increase", "lower", "reduce", "cut", "double", "halve", "adjust", "up", "upped"})
MOTION = frozenset({"go", "come", "walk", "run", "drive", "climb", "head", "ride", "fly", "pop", "nip"})
REPLACE = frozenset({"trade", "swap", "exchange", "replace", "substitute"})
STOP = frozenset({"stop", "quit", "drop", "abandon", "retire", "remove", "deprecate", "sell", "cancel", "leave", "rid",
                  "ditch", "scrap", "sack", "dismiss", "resign"})


PRONOUNS = frozenset({"it", "they", "this", "that", "he", "she", "them", "me", "us", "you", "him", "her"})


@dataclass(frozen=True)
class Reading:
    subject: str
    verb: str
    object: str
    text: str  # the clause as words, for the embedding
    shape: str  # plain | change | hand_over | rewrite | end
    object_proper: bool
    old: str | None = None  # the value a change left ("from A to B": A), which ends
    moved: str | None = None  # what the clause acts on ("we moved the wiki to Notion": the wiki)
    any_value: bool = False  # an end of the slot whatever it holds ("I sold my car")
    # an end whose slot's noun names an owner ("lost the Initech deal": Initech's): who said the clause,
    # whose it is when the owner's name is the slot's value instead ("closed my Santander account")
    said_by: str | None = None


def is_verb(t: Any) -> bool:
    """A clause's verb; also a verb the small parser took for a noun coordinated with an object
    ("uses Postgres and deploys to Heroku": deploys/NOUN, conj of Postgres, with its own preposition)."""
    if t.pos_ in ("VERB", "AUX") and t.dep_ in ("ROOT", "conj", "ccomp", "advcl", "xcomp", "parataxis"):
        if t.dep_ == "xcomp" and t.head.lemma_.lower() in STOP:
            return False  # "stopped using Memcached": the stop is the clause, "using" its slot
        return not (t.dep_ == "xcomp" and t.head.lemma_.lower() in CHANGE and (not any(
            k.dep_ in ("dobj", "nsubj") for k in t.children) or compound_read_as_verb(t)))
        # ("migrating billing off": billing is a thing; "moved recycling collection to Thursdays": a compound)
    if t.dep_ == "pcomp" and t.pos_ == "VERB" and t.head.lower_ in TIME_OF_AN_END and t.lemma_.lower() in STOP:
        return True  # "joined KPMG after leaving Deloitte": an end said as the time of another clause
    return t.dep_ == "conj" and t.pos_ == "NOUN" and t.head.dep_ == "dobj" and any(
        k.dep_ == "prep" for k in t.children)


# a time is the clause's date, never a slot's value ("from 2018 to 2021")
WHEN = re.compile(r"^(?:last|next|this|every|each|that)\s|^(?:today|yesterday|tomorrow|now)$"
                   r"|^(?:nights|days|mornings|evenings|weekends|afternoons|(?:full|part)[- ]time)$"  # ("to nights")
                   r"|^(?:1[89]|20)\d\ds?$|^(?:mon|tues|wednes|thurs|fri|satur|sun)day$"
                   r"|^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
                   r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s+\d{1,4})?$",
                   re.I)  # (a month is its whole name or its abbreviation: "Marco" and "Augustus" are names)


def made(subject: str, verb: str, obj: Any, text: str, shape: str, timed: bool = False) -> Reading | None:
    """The reading of a clause; ``timed``: a time may be its value ("collected on Friday", as a group's examples
    give one)."""
    value = TO_AMOUNT.sub("", _text(obj))  # "went up to 10 mg": the amount it went to
    value = placed(obj, value) if shape == "change" else value
    if not value or value.lower() in PRONOUNS or not subject \
            or WHEN.match(value) and not timed and not (verb == "be" and value.isdigit()):  # ("the code is 1942")
        return None
    # a name keeps its case ("CockroachDB", which the small parser may tag a pronoun)
    named = obj.pos_ == "PROPN" or any(c.isupper() for c in value)
    return Reading(subject, verb, value, re.sub(r"\s+", " ", text).strip(), shape, named)


TO_AMOUNT = re.compile(r"^(?:up\s+|down\s+)?to\s+(?=[£$€]?\d)", re.I)  # where a number went, before the number


def said_no_more(verb: Any) -> bool:
    """Does the clause say its state is over ("no longer", "anymore", "any more")?"""
    words = [t.lower_ for t in own_words(verb)]
    return any(w in ("longer", "anymore") for w in words) or any(
        a == "any" and b == "more" for a, b in zip(words, words[1:], strict=False))


def own_words(verb: Any) -> list[Any]:
    """The verb's subtree without the other clauses coordinated with it or said under it
    ("The pipeline no longer uses Kafka; it uses Pulsar": the "no longer" is not the second's)."""
    # (a conj on the verb is another clause: "Hooli is on the Starter plan and our contact ..."; not a preposition
    # said with it: "moved out of A and into B")
    others = {t.i for k in verb.subtree if k != verb and (k.dep_ in ("conj", "ccomp", "parataxis")
              and (is_verb(k) or k.dep_ == "conj" and k.head == verb and k.pos_ != "ADP") or _time_clause(k)
              or _said_first_when(k, verb)) for t in k.subtree}
    return [t for t in verb.subtree if t.i not in others]


_TIME_MARKS = frozenset({"since", "when", "after", "before", "until", "till", "once", "while"})


def _said_first_when(k: Any, verb: Any) -> bool:
    """"From the 4.2 release the iOS app needs iOS 16": a "from" or "since" phrase said before the clause's subject
    says when (which ``dates`` reads), not what."""
    subject = next((s.i for s in verb.children if s.dep_ in ("nsubj", "nsubjpass")), -1)
    return k.dep_ == "prep" and k.head == verb and k.lower_ in ("from", "since") and k.i < subject


def _time_clause(k: Any) -> bool:
    """A clause under the verb that says when ("since my daughter started school"): the clause's time, which
    ``dates`` reads, not what it says."""
    return k.dep_ == "advcl" and k.pos_ in ("VERB", "AUX") and any(
        m.dep_ == "mark" and m.lower_ in _TIME_MARKS for m in k.children)


def clause_text(verb: Any, drop_negation: bool = False) -> str:
    """The clause's own words as said, with its subject when that hangs on another verb ("... and
    deploys to Heroku")."""
    skip = {"neg", "cc"} | ({"advmod"} if drop_negation else set())
    words = [t for t in own_words(verb) if t.dep_ not in skip and not t.is_punct]
    cut = next((t.i for t in words if t.i > verb.i and misread_verb(t)), None)
    if cut is not None:  # "uses MySQL and deploys to Heroku": the words from "deploys" on are its clause
        words = [t for t in words if t.i < cut]
    if not any(t.dep_ in ("nsubj", "nsubjpass") for t in words):
        head = verb.head
        subj = next((k for k in head.children if k.dep_ in ("nsubj", "nsubjpass")), None) or hung_subject(verb)
        if subj is not None:
            words = [*(t for t in subj.subtree if t not in words), *words]
    return " ".join(t.text for t in sorted(words, key=lambda t: t.i))
