"""Verbs and prepositions that together say what a clause does: the prepositions whose object is no value (where
from, what for, when), the verbs whose preposition names the value all the same ("training for a marathon", "looks
after the stout"), and a stop said as verb and particle ("gave up", "came off")."""

from __future__ import annotations

from typing import Any

# verbs of aiming, whose "for" names what is aimed at ("training for a marathon", "aim for eight hours")
AIM_PREPS = frozenset({("train", "for"), ("aim", "for"), ("prepare", "for"), ("shoot", "for"), ("go", "for"),
                       ("work", "toward"), ("work", "towards"),
                       # and of choosing, whose "for" names what is chosen ("signed up for Pro", "opted for X")
                       ("sign", "for"), ("opt", "for"), ("settle", "for"), ("pay", "for")})
# verbs of care, whose preposition names what is cared for ("Kofi looks after the stout")
CARE_PREPS = frozenset({("look", "after"), ("care", "for")})
CARE_VERBS = frozenset(v for v, _ in CARE_PREPS)

# a verb and particle that together say a stop ("give up", "come off", "go off", "walk away from")
PHRASAL_STOP = frozenset({("give", "up"), ("come", "off"), ("go", "off"), ("walk", "away"), ("back", "out"),
                          ("step", "down"), ("stand", "down")})


def phrasal_stop(verb: Any) -> str | None:
    """The particle of a stop said as verb and particle ("gave up", "came off"), else None."""
    for k in verb.children:
        if k.dep_ in ("prt", "prep", "advmod") and (verb.lemma_.lower(), k.lower_) in PHRASAL_STOP:
            return k.lower_
    return None


# prepositions whose object is not the slot's value (where from, what for, when)
WHEN_PREPS = frozenset({"on", "in", "at", "by", "until", "since"})  # the prepositions that may say when
NOT_VALUE = frozenset({"off", "from", "for", "since", "after", "before", "during", "until", "about", "with", "because",
                        "without"})


