"""Clauses said after an end in the same sentence: the successor they name ("Domino dropped us, and we signed with
Bella Union"; "Priya no longer handles it; Sam does"), and whether a clause follows an end at all; and an end said
as one's last spell somewhere ("My last shift at Greggs was on Friday")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .reading import Reading, clause_text, is_verb, made
from .values import is_name, pobj


def after_an_end(verb: Any, subject: str | None, out: list[Reading]) -> Reading | None:
    """The successor a clause said after an end names: one who "does" so ("...; Sam does"), or a name the clause
    joined to the end takes "with" ("Domino dropped us, and we signed with Bella Union")."""
    if subject is None or not out or out[-1].shape != "end":
        return None
    return _does_so(verb, subject, out[-1]) or _signed_with(verb, subject)


def _does_so(verb: Any, subject: str, ended: Reading) -> Reading | None:
    """"Priya no longer handles Northwind's invoices; Sam does": the name that does so now is the ended one's
    successor, as its doer (the one said first: the value of a slot its value does, or the clause's subject)."""
    if verb.lemma_ != "do" or not subject[:1].isupper() or verb.tag_ not in ("VBZ", "VBP") or not all(
            k.dep_ in ("nsubj", "punct") or k.lower_ == "now" or k.i < verb.i and k.dep_ in ("ccomp", "parataxis")
            for k in verb.children):
        return None
    if ended.text.startswith(ended.object):
        return replace(ended, object=subject, shape="change", said_by=None,
                       text=ended.text.replace(ended.object, subject, 1))
    return replace(ended, subject=subject, shape="change", said_by=None,
                   text=ended.text.replace(ended.subject, subject, 1))


def _signed_with(verb: Any, subject: str) -> Reading | None:
    """A clause joined to an end, with no value but a name after "with" ("... and we signed with Bella Union")."""
    if verb.dep_ != "conj":
        return None
    named = next((o for k in verb.children if k.dep_ == "prep" and k.lower_ == "with"
                  if (o := pobj(k)) is not None and is_name(o) and o.pos_ == "PROPN"), None)
    return None if named is None else made(subject, verb.lemma_.lower(), named, clause_text(verb), "change")


def follows_an_end(verb: Any) -> bool:
    """A clause joined after an end ("sold my Civic and bought a Tesla"), or one said after it with the end under it
    ("the Astra died, so I bought a Kia"); not what the ended one was ("sold my car, it was a Civic")."""
    if verb.lemma_ == "be" and verb.tag_ == "VBD":
        return False
    return verb.dep_ == "conj" or any(k.dep_ in ("ccomp", "advcl", "parataxis") and k.i < verb.i and is_verb(k)
                                      for k in verb.children)


_LAST = frozenset({"last", "final"})
_SPELLS = frozenset({"day", "shift", "week", "term", "semester", "month", "season", "lesson", "class", "match"})


def last_spell(verb: Any, speaker: str) -> Reading | None:
    """"My last shift at Greggs was in September", "finished my final term at Hillhead": the speaker's last spell at a
    name is the end of their time there (a leaving; which slot, the meaning reader and the held values settle)."""
    spell = next((k for k in verb.children if k.dep_ in ("nsubj", "dobj") and k.lemma_.lower() in _SPELLS
                  and any(a.lower_ in _LAST for a in k.children) and any(
                      p.dep_ == "poss" and p.lower_ in ("my", "our") for p in k.children)), None)
    at = next((o for k in spell.children if k.dep_ == "prep" and k.lower_ in ("at", "with")
               if (o := pobj(k)) is not None and is_name(o)), None) if spell is not None else None
    return None if at is None else made(speaker, "leave", at, clause_text(verb), "end")
