"""The prepositions a clause says its values with, each with its object, as the small parser hangs them and as they are
meant: "moved out of A in May and into B", "passed the group on to Ahmed", "rewrote the parser in Go", "went up to
50 mg", "moved his stall up to pitch 15" (moved from ``clauses``)."""

from __future__ import annotations

from typing import Any

from .objects import given_so, hung_on_the_thing, said_when
from .preps import WHEN_PREPS
from .reading import CHANGE, MOTION
from .reading import WHEN as _WHEN
from .reading import is_verb as _is_verb
from .values import UNITS, named_after
from .values import counted as _counted
from .values import held_at as _held_at
from .values import is_name as _is_name
from .values import pobj as _pobj

_WHERE_ABOUTS = frozenset({"back", "out", "over", "across", "round", "around"})  # ("are out on the sales bench")


def _numbered(word: Any) -> bool:
    """A word said with its number after it ("pitch 15", "gate 4"), which no verb is."""
    return any(k.dep_ == "nummod" and k.i > word.i for k in word.children)


def preps_said(verb: Any, lemma: str, kids: list[Any], dobj: Any | None, given: frozenset[tuple[str, str]]
               ) -> tuple[dict[str, Any], Any | None]:
    """Each preposition of the clause (and particle) and its object; ``given``: the (verb, preposition) pairs that give
    a value (``value_preps``); and the level a number moved to, if it did ("went up to 50 mg")."""
    joined = [c for k in kids if k.dep_ in ("prep", "conj") for c in (k, *k.conjuncts) if c.pos_ == "ADP"
              and c.dep_ == "conj"]
    preps = {k.lower_: _pobj(k) for k in (*kids, *joined) if (k.dep_ in ("prep", "agent", "prt", "dative") or k in
                                                             joined)  # ("moved out of A in May and into B")
             and not (k.lower_ in WHEN_PREPS and said_when(_pobj(k)) and not given_so(lemma, k, given))}
    # (a time is no value, unless the group's examples give one so: "General waste is collected on Friday")
    under = next((_pobj(g) for k in kids if k.lower_ in ("on", "over", "across") for g in k.children
                  if g.dep_ == "prep" and g.lower_ == "to"), None)
    if preps.get("to") is None and under is not None:  # "passed the group on to Ahmed": a "to" under the particle
        preps["to"] = under
    if preps.get("to") is not None and not _is_name(preps["to"]):  # "moved to a bigger venue, Manchester Central"
        preps["to"] = named_after(preps["to"]) or preps["to"]
    hung = hung_on_the_thing(dobj) if lemma in CHANGE else None
    if hung is not None and all(preps.get(p) is None for p in ("to", "into", "onto")):
        preps[hung[0]] = hung[1]
    if lemma in CHANGE and preps.get("to") is None and (preps.get("into") or preps.get("onto")) is not None:
        preps["to"] = preps.get("into") or preps.get("onto")  # "moved HIIT out of Studio 1 into the main hall"
        out_of = next((_pobj(g) for k in kids if k.lower_ == "out" for g in k.children if g.lower_ == "of"), None)
        if preps.get("from") is None and out_of is not None:
            preps["from"] = out_of
    for p in ("in", "on", "at") if lemma == "be" and dobj is None else ():
        role = preps.get(p)  # "is in charge of billing", "on the hook for auth": what the role is of
        inner = next((_pobj(g) for g in role.children if g.dep_ == "prep" and g.lower_ in ("of", "for")), None) \
            if role is not None and role.pos_ == "NOUN" and not _is_name(role) and role.lower_ not in UNITS else None
        at = _held_at(role) if role is not None and role.pos_ == "NOUN" and not _is_name(role) \
            and role.lower_ not in UNITS else role  # (not "on 10 mg of X": an amount's, read as one)
        if inner is not None or at is not role:  # ("on the tills at Morrisons": the name it is done at)
            preps[p] = inner if inner is not None else at
    for k in kids:  # "passed the auth service on to Dmitri": the parser hangs "to Dmitri" on the particle
        if k.dep_ == "prt" or k.dep_ == "advmod" and (k.pos_ == "ADP" or k.lower_ in _WHERE_ABOUTS):  # ("out on")
            preps.update({g.lower_: _pobj(g) for g in k.children if g.dep_ == "prep" and g.lower_ not in preps})
    if dobj is not None:  # "rewrote the parser in Go": the small parser hangs "in Go" on the object
        preps.update({k.lower_: _pobj(k) for k in dobj.children if k.dep_ == "prep" and k.lower_ not in preps
                      and (k.lower_ in ("in", "to", "over", "off") or k.lower_ == "at" and _WHEN.match(dobj.text))})
        # ("I do nights at the Royal Infirmary": where the time is worked)
    named_to = next((k for k in kids if k.dep_ in ("xcomp", "advcl") and (_is_name(k) and k.text[:1].isupper()
                                                                         or _numbered(k))
                     and any(a.dep_ == "aux" and a.lower_ == "to" for a in k.children)), None)
    if named_to is not None and preps.get("to") is None:  # "ported the scheduler to Go": "Go" read as a verb
        preps["to"] = named_to  # (or a numbered noun: "moved his stall up to pitch 15")
    source = next((k for k in kids if k.lower_ == "from"), None)
    if source is not None and preps.get("to") is None:  # "from A to B", the parser hanging "to B" on A
        preps["to"] = next((_pobj(k) for h in (source, preps.get("from")) if h is not None for k in h.children
                            if k.dep_ == "prep" and k.lower_ == "to"), None)
    # "cut it down to 10 mg", "went up to 50 mg": a level that moved, whatever the verb
    ups = [k for k in kids if k.lower_ in ("up", "down")]
    level = next((_pobj(p) for k in ups for p in k.children if p.dep_ == "prep" and p.lower_ == "to"), None) \
        or next((o for k in ups if (o := _pobj(k)) is not None and _counted(o)), None)  # ("up to £72": "to" a quantmod)
    if level is not None and preps.get("to") is None:
        preps["to"] = level
    elif level is None and lemma not in MOTION and any(k.lower_ in ("up", "down") and not list(k.children)
                                                        for k in kids):
        level = preps.get("to")  # ("stepped up to deputy head": "up" and "to" both the verb's; not "went up to")
    thing = next((k for k in kids if k.dep_ == "xcomp" and not _is_verb(k)), None) if lemma in CHANGE else None
    if thing is not None:  # "moved reporting from Snowflake to BigQuery": the parser took "reporting" for a verb
        preps.update({k.lower_: _pobj(k) for k in thing.children if k.dep_ == "prep" and k.lower_ not in preps})
    return preps, level
