"""A slot's earlier value read again, loosely: when a later turn changes a one-value slot that nothing holds, the
earlier turns are read once more for that slot alone ("I'm on the tills at Morrisons", too plain a state to take
alone, before "I've swapped Morrisons for a job at Waitrose"). A part of ``MeaningReader``, kept apart so each
stays readable; it leans on the reader's readings, scores and value checks, declared below for the type checker."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core.models import normalize_name
from ..core.vocab import Vocabulary
from . import parse
from .clauses import readings
from .reading import Reading
from .surface import clauses_of, surface_readings
from .thresholds import MEANING_MARGIN, MEANING_THRESHOLD, SLOT_BAND, VERIFY_FLOOR


def _said_again(value: str, later: str) -> bool:
    """Does the later turn say the value again ("swapped Morrisons for a job at Waitrose")?"""
    return bool(later) and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", later, re.I) is not None


class Loose:
    """An earlier value of one slot, read loosely (mixed into ``MeaningReader``)."""

    if TYPE_CHECKING:
        vocab: Vocabulary
        types: frozenset[str]
        people: frozenset[str]
        ends: frozenset[str]

        @property
        def preps(self) -> frozenset[tuple[str, str]]: ...
        @property
        def states(self) -> frozenset[str]: ...
        @property
        def verbs(self) -> frozenset[str]: ...
        @property
        def _reading_words(self) -> frozenset[str]: ...
        def _scores(self, r: Reading, things_only: bool = False, classed: bool = True,
                    among: frozenset[str] | None = None) -> dict[str, float]: ...
        def _takes(self, predicate: str, value: str) -> bool: ...
        def whose(self, subject: str) -> str: ...

    def said_loosely(self, sentence: str, speaker: str, subject: str, predicate: str, named: str) -> str | None:
        """The value an earlier sentence gives the subject's ``predicate``: the one a clause of the subject's says,
        of the slot's kind, when the slot is the nearest in meaning (``MEANING_THRESHOLD``, clearly nearest); or,
        when the later turn (``named``) says that value again ("swapped Morrisons for ..."), near enough among the
        nearest (above chat's ``VERIFY_FLOOR``, within ``SLOT_BAND``)."""
        doc = parse.parsed(sentence)
        found = readings(doc, speaker, self.types, self._reading_words, self.people, self.ends, self.preps,
                         self.states) or [r for part in clauses_of(sentence, doc) for r in surface_readings(
                             part, speaker, self.types, self._reading_words, self.people, self.verbs, self.preps)]
        for r in found:
            whose = speaker if r.subject == speaker else self.whose(r.subject)
            again = _said_again(r.object, named)
            # (a thing of the speaker's said as the subject, "We've got a house share going in Headingley", is the
            # speaker's when the later turn says the value again)
            mine_said = again and subject == speaker and r.subject.islower() and r.subject not in self.people
            if r.shape not in ("plain", "change") or not r.object or r.any_value or not self._takes(
                    predicate, r.object) or normalize_name(whose) != normalize_name(subject) and not mine_said:
                continue
            ranked = sorted(self._scores(r).items(), key=lambda kv: -kv[1])
            mine = dict(ranked).get(predicate, 0.0)
            if not ranked:
                continue
            if again and mine >= VERIFY_FLOOR and ranked[0][1] - mine <= SLOT_BAND:
                return r.object
            runner = ranked[1][1] if len(ranked) > 1 else -1.0
            if ranked[0][0] == predicate and mine >= MEANING_THRESHOLD and mine - runner >= MEANING_MARGIN:
                return r.object
        return None
