"""Which word of a clause is its value: a place said with "the", a time said as one, a thing kept somewhere,
the named thing a charge is of, a thing's own part."""

from __future__ import annotations

from typing import Any

from . import dates
from .values import is_name, numeric, pobj

_CHARGE = frozenset({"command", "charge", "control", "helm", "reins", "ownership", "care"})


def a_room(noun: Any) -> bool:
    """A place said as a common noun with "the" ("in the upstairs studio"), not one said with "a" or none."""
    return noun.pos_ == "NOUN" and any(k.dep_ == "det" and k.lower_ == "the" for k in noun.children)


def said_when(obj: Any) -> bool:
    """A preposition's object that says when ("on Monday", "in March"), not a place or a value."""
    return obj is not None and dates.is_time_word(obj.text) and not any(k.dep_ == "poss" for k in obj.children)


def hung_on_the_thing(dobj: Any | None) -> tuple[str, Any] | None:
    """Where a thing is moved to when the small parser hangs it on the thing ("moved the 2023 Reserve into concrete
    eggs"): the preposition and its object."""
    return None if dobj is None else next(((k.lower_, o) for k in dobj.children if k.dep_ == "prep"
                                           and k.lower_ in ("to", "into", "onto") if (o := pobj(k)) is not None), None)


def in_charge_of(verb: Any, dobj: Any | None) -> Any | None:
    """The named thing one takes command, charge or control of ("took command of the Pride of Kent")."""
    return charge_of(dobj) if dobj is not None and verb.lemma_.lower() in ("take", "assume") else None


def charge_of(noun: Any) -> Any | None:
    """"command of the Arctic Tern", "Kandula's care": the named thing a charge is of."""
    if noun.lemma_.lower() not in _CHARGE:
        return None
    return next((o for k in noun.children if k.dep_ == "prep" and k.lower_ == "of"
                 if (o := pobj(k)) is not None and named_thing(o)), None) or next(
        (k for k in noun.children if k.dep_ == "poss" and k.pos_ == "PROPN"), None)


def named_by(noun: Any) -> bool:
    """A noun said with a word of a name before it ("the Egyptian collection", "the Carver Foods dispute")."""
    return any(k.dep_ in ("amod", "compound") and k.text[:1].isupper() for k in noun.children if k.i < noun.i)


def named_thing(noun: Any) -> bool:
    """A name, or a thing said with one ("the Carver Foods dispute")."""
    return is_name(noun) or named_by(noun)


def kept_in(dobj: Any | None, preps: dict[str, Any]) -> Any | None:
    """"Ana keeps her stuff in locker 9": one's own unnamed things said to be in a numbered place: the place."""
    if dobj is None or is_name(dobj) or not any(k.dep_ == "poss" and k.pos_ == "PRON" for k in dobj.children):
        return None
    return next((o for p in ("in", "on", "at") if (o := preps.get(p)) is not None
                 and any(numeric(k) for k in o.children)), None)


def bare_place(prep: str, obj: Any) -> bool:
    """"at uni", "at work": a lower-case word alone after "at" names a kind of place, not one of them."""
    return prep == "at" and obj.is_alpha and obj.text.islower() and not list(obj.children)


def given_so(lemma: str, prep: Any, given: frozenset[tuple[str, str]]) -> bool:
    """Do the group's examples give a value with the verb and preposition, or say its word of time is one?"""
    obj = pobj(prep)
    return (lemma, prep.lower_) in given or obj is not None and timed_word(obj, given)


def timed_word(word: Any, given: frozenset[tuple[str, str]]) -> bool:
    """A word of time the group's slots say is a value ("nights": ("", "nights"), as ``value_preps`` gives it)."""
    return ("", word.lower_) in given


def its_own(noun: Any) -> bool:
    """A thing said as its subject's own ("failed its MOT"): a part or an event of it."""
    return any(k.dep_ == "poss" and k.lower_ == "its" for k in noun.children)
