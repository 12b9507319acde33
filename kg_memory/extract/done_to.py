"""Clauses done to someone: what another does to the speaker that gives the speaker a value ("they made me a
senior developer", "Gareth manages me now"), or to a named one it puts onto a value ("the locum put Biscuit on
Metacam")."""

from __future__ import annotations

from typing import Any

from .reading import PRONOUNS, STOP, Reading, clause_text, made
from .values import is_name, noun_phrase, pobj
from .values import value_text as _text
from .whose import FIRST, me_with

_VALUE_PREPS = frozenset({"from", "to", "into", "onto", "for", "with"})  # what a change said to one names


def done_to_me(verb: Any, speaker: str) -> Reading | None:
    """A clause someone else does to the speaker that gives the speaker a value: "you can reach me at
    555 201 7788", "they made me a senior developer", "the board named me treasurer"; or ends one
    ("the doctor took me off lisinopril")."""
    given = _given_me(verb, speaker) or _let_me_go(verb, speaker)
    if given is not None:
        return given
    me = next((k for k in verb.children if k.dep_ == "dobj" and k.lower_ in ("me", "us")), None)
    taken = _taken_from(verb, speaker) if me is not None else None
    if taken is not None:
        return taken
    if me is not None:
        prep, value = next(((k.lower_, o) for k in verb.children if k.dep_ == "prep"
                            and k.lower_ in ("at", "on", "as", "off") if (o := pobj(k)) is not None), ("", None))
        # "took me off lisinopril and put me on amlodipine": off ends a value, and on after an off changes it
        shape = "end" if prep == "off" else "change" if prep == "on" and _taken_off(verb) else "plain"
        onto = _put_onto_after(verb, value) if prep == "off" else None
        if onto is not None:  # "moved me off sertraline onto citalopram": the one put onto, in place of the other
            return Reading(speaker, verb.lemma_.lower(), _text(onto), clause_text(verb), "change",
                           onto.pos_ == "PROPN", _text(value))
        if value is not None:
            return made(speaker, verb.lemma_.lower(), value, clause_text(verb), shape)
        # "Gareth manages me now": the one who does it is the speaker's value; "Domino dropped us": one who ends it
        # was (not "my GP changed me from X to Y", which says its values)
        shape = "end" if verb.lemma_.lower() in STOP else "change" if _after_a_dismissal(verb) else "plain"
        doer = _named_doer(verb) if shape != "plain" or not any(
            k.dep_ == "prep" and k.lower_ in _VALUE_PREPS for k in verb.children) else None
        return None if doer is None else made(speaker, verb.lemma_.lower(), doer, clause_text(verb), shape)
    after_me = any(k.dep_ == "prep" and any(g.dep_ == "pobj" and g.lower_ in ("me", "us") for g in k.children)
                   for k in verb.children)
    subj = next((k for k in verb.children if k.dep_ == "nsubj"), None)
    if after_me and subj is not None and is_name(subj) and subj.pos_ == "PROPN":
        # "Dr. Moreau looks after me now", "Kim works with us": the one who does it is the speaker's value;
        # "Ashcombe Manor cancelled on us": one who stops on the speaker was it
        shape = "end" if verb.lemma_.lower() in STOP else "plain"
        return made(speaker, verb.lemma_.lower(), subj, clause_text(verb), shape)
    small = next((k for k in verb.children if k.dep_ in ("ccomp", "oprd") and k.pos_ == "NOUN"
                  and any(g.dep_ == "nsubj" and g.lower_ in ("me", "us") for g in k.children)), None)
    return None if small is None else made(speaker, verb.lemma_.lower(), small, clause_text(verb), "change")


def _put_onto_after(verb: Any, off: Any) -> Any | None:
    """The value an "off ..." is followed by ("off sertraline onto citalopram"), hung on the verb or on the one left."""
    return next((o for c in (off, verb) for k in c.children if k.dep_ == "prep" and k.lower_ in ("onto", "on", "to")
                 if (o := pobj(k)) is not None), None)


def _given_me(verb: Any, speaker: str) -> Reading | None:
    """"The GP gave me lansoprazole instead", "stopped my X and gave me Y": what another gives the speaker in place
    of what it ended is the speaker's value (not what merely gives one something: "Shellfish gives me a rash")."""
    instead = any(k.dep_ == "advmod" and k.lower_ == "instead" for k in verb.children) \
        or verb.dep_ == "conj" and verb.head.lemma_.lower() in STOP
    if not instead or not any(k.dep_ == "dative" and k.lower_ in ("me", "us") for k in verb.children):
        return None
    thing = next((k for k in verb.children if k.dep_ == "dobj" and k.lower_ not in PRONOUNS), None)
    return None if thing is None else made(speaker, verb.lemma_.lower(), thing, clause_text(verb), "plain")


def _let_me_go(verb: Any, speaker: str) -> Reading | None:
    """"Yodel let me go", "Argos laid me off", "Boots made me redundant": the one who let the speaker go held the
    speaker's slot, which ends."""
    doer = next((k for k in verb.children if k.dep_ in ("nsubj", "npadvmod") and k.i < verb.i
                 and k.text[:1].isupper() and k.lower_ not in PRONOUNS | FIRST), None)
    return made(speaker, verb.lemma_.lower(), doer, clause_text(verb), "end") \
        if doer is not None and _dismissed(verb) else None


def _dismissed(verb: Any) -> bool:
    """Does the verb let the speaker go ("let me go", "laid me off", "made me redundant", "fired me")?"""
    lemma, kids = verb.lemma_.lower(), list(verb.children)
    me = any(k.dep_ == "dobj" and k.lower_ in ("me", "us") for k in kids)
    said = {k.lower_ for k in kids if k.dep_ in ("ccomp", "xcomp", "oprd", "acomp")
            and (me or any(c.dep_ == "nsubj" and c.lower_ in ("me", "us") for c in k.children))
            and not any(c.lower_ in _GONE_TO for c in k.children)}  # (not "Dad let me go to the party")
    return lemma == "let" and "go" in said or lemma == "make" and "redundant" in said \
        or me and (lemma == "fire" or lemma == "lay" and any(k.dep_ == "prt" and k.lower_ == "off" for k in kids))


_GONE_TO = frozenset({"to", "into", "out", "home", "with", "on", "for", "abroad", "there"})


def _after_a_dismissal(verb: Any) -> bool:
    """A clause joined to one that let the speaker go ("Boots made me redundant, and Superdrug hired me"): what it
    gives the speaker comes in place of what ended."""
    return verb.dep_ == "conj" and (_dismissed(verb.head) or verb.head.lemma_.lower() in STOP)


def _named_doer(verb: Any) -> Any | None:
    """The clause's subject when it is a name of its own ("Gareth"; not "my GP")."""
    return next((k for k in verb.children if k.dep_ == "nsubj" and is_name(k) and k.pos_ == "PROPN"
                 and not any(g.dep_ == "poss" for g in k.children)), None)


def put_onto(verb: Any, speaker: str = "User") -> Reading | None:
    """"The locum put Biscuit on Metacam", "Pepper has been moved onto a renal diet", "I've been put on
    topiramate", "the doctor put me on X": the one a verb of placing puts onto a value holds it now (read as
    "Biscuit is now on Metacam"; not the one who put it there)."""
    them = next((k for k in verb.children if (k.dep_ == "dobj" or k.dep_ == "nsubjpass" and verb.tag_ == "VBN")
                 and (k.pos_ == "PROPN" or k.lower_ in _ME)), None) \
        if verb.lemma_.lower() in _PLACING else None
    value = next((o for k in verb.children if k.dep_ in ("prep", "prt") and k.lower_ in ("to", "on", "onto")
                  if (o := pobj(k) or next((c for c in k.children if c.dep_ == "pobj"), None)) is not None), None)
    # (the small parser takes the "on" of "been put on X" for a particle, its object under it)
    if them is None or value is None or them.lower_ in _ME and any(d.dep_ == "det" for d in value.children) \
            or any(k.dep_ == "prep" and k.lower_ == "from" for k in verb.children):
        return None  # (the speaker put on a thing, not a value: "I was moved to the night shift"; a change from one
        # value to another is read with both: "moved me from warfarin to apixaban")
    who = speaker if them.lower_ in _ME else noun_phrase(them, frozenset())  # (the whole name: "Late Night Jazz")
    return made(who, "be", value, f"{who} is now on {_text(value)}", "change")


_PLACING = frozenset({"switch", "put", "move", "start", "change", "transfer", "swap", "have", "keep"})  # ("has me on")
_ME = FIRST | {"me", "us"}


def _taken_from(verb: Any, speaker: str) -> Reading | None:
    """"Initech poached me from Globex", "Acme hired us away from Hooli": the one who took the speaker
    is the speaker's new value, and the one they were taken from the old."""
    subj = next((k for k in verb.children if k.dep_ == "nsubj"), None)
    source = next((o for k in verb.subtree if k.dep_ == "prep" and k.lower_ == "from"
                   if (o := pobj(k)) is not None and is_name(o)), None)
    if subj is None or source is None or not is_name(subj) or subj.lower_ in PRONOUNS | FIRST:
        return None
    return Reading(speaker, verb.lemma_.lower(), noun_phrase(subj, frozenset()), clause_text(verb), "change", True,
                   noun_phrase(source, frozenset()))


def _taken_off(verb: Any) -> bool:
    """Does the sentence also take the speaker off something ("took me off X and put me on Y"), or stop a
    thing ("stopped the metformin and started me on Y")?"""
    return any(t != verb and (me_with(t, "off") or t.lemma_.lower() in STOP and any(
        k.dep_ == "dobj" and k.lower_ not in ("me", "us") for k in t.children)) for t in verb.doc)


REMOVE = frozenset({"rip", "pull", "remove", "strip", "take", "yank", "drop", "cut"})  # ("ripped X out of Y")


def taken_out_of(verb: Any, dobj: Any | None) -> Any | None:
    """"We ripped Crashlytics out of the Android app", "removed Mixpanel from the web app": a name taken out of a
    thing, the thing (whose value it was, and is no more); not out of a name ("took Sam off Ward 4")."""
    if dobj is None or verb.lemma_.lower() not in REMOVE or not dobj.text[:1].isupper() or not is_name(dobj):
        return None
    source = next((o for k in verb.children if k.dep_ == "prep" and k.lower_ in ("out", "from")
                   for o in ([pobj(g) for g in k.children if g.lower_ == "of"] if k.lower_ == "out" else [pobj(k)])
                   if o is not None), None)
    return source if source is not None and source.pos_ == "NOUN" and source.text.islower() else None
