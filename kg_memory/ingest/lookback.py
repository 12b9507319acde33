"""A one-value slot changed when nothing holds it: the earlier value was said, but too plainly or too loosely for the
reader to take alone ("I'm on the tills at Morrisons" before "I've swapped Morrisons for a job at Waitrose"). The
speaker's few turns before the change are read again for that slot alone (the extractor's ``earlier_value``), and
the value the latest of them gives is written as held from that turn until the change, with that turn as its
source."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..core.models import Entity, Episode, FactVersion, normalize_name
from ..core.vocab import Vocabulary
from ..extract.base import ExtractedFact, Extraction
from ..store.base import StoreCore

LOOK_BACK_TURNS = 4  # the turns before a change read again: what a chat changes it said a few turns before (the
# update sets say it one turn before; more turns cost a parse each and let in more loose readings)


def looked_back(store: StoreCore, group_id: str, vocab: Vocabulary, extractor: Any,
                extractions: dict[str, Extraction], eps: Sequence[Episode], known: dict[str, Entity],
                state: dict[tuple[str, str], dict[str, FactVersion]]) -> dict[str, Extraction]:
    """``extractions`` (of ``eps``, in time order) with each earlier value found put before the change it precedes;
    ``known`` and ``state``: the batch's entities by name key and the versions believed now of its (subject,
    predicate) pairs, as the pipeline read them (so that what is held costs no read of its own)."""
    reader = getattr(extractor, "rules", extractor)
    if not hasattr(reader, "earlier_value"):
        return extractions  # (an extractor with no loose reader: nothing is read again)
    out = dict(extractions)
    said: set[tuple[str, str]] = set()  # (the slots the batch already gave a value, in its earlier turns)
    for e in eps:
        found = extractions.get(e.id)
        if found is None:
            continue
        facts: list[ExtractedFact] = []
        for f in found.facts:
            key = (normalize_name(f.subject), f.predicate)
            if _a_value_of_one(f, vocab) and key not in said and not _held(f, known, state):
                facts.extend(_earlier(store, reader, group_id, e, f))
            if not f.ending:  # (an end of a value nothing holds ends nothing: "Moved out of A ... and into B")
                said.add(key)
            facts.append(f)
        if len(facts) > len(found.facts):
            out[e.id] = replace(found, facts=facts)
    return out if any(out[k] is not v for k, v in extractions.items()) else extractions  # (the same: none found)


def _a_value_of_one(f: ExtractedFact, vocab: Vocabulary) -> bool:
    return not f.ending and not f.any_object and bool(f.object) and f.predicate in vocab.predicates \
        and vocab.is_single(f.predicate)


def _held(f: ExtractedFact, known: dict[str, Entity], state: dict[tuple[str, str], dict[str, FactVersion]]) -> bool:
    """Has the subject held a value of the slot, or of another it may change (``alternatives``), as believed now (an
    ended one too)? Then the change has what it changes (or follows its end)."""
    subject = known.get(normalize_name(f.subject))
    return subject is not None and any(state.get((subject.id, p)) for p in (f.predicate, *f.alternatives))


def _earlier(store: StoreCore, reader: Any, group_id: str, e: Episode, f: ExtractedFact) -> list[ExtractedFact]:
    """The value the latest of the speaker's turns before ``e`` gives the fact's slot, as a fact of that turn."""
    turns = [t for t in store.previous_turns(group_id, e.session_id, e.occurred_at, LOOK_BACK_TURNS)
             if t.role == e.role and t.speaker == e.speaker]
    for turn in reversed(turns):
        if turn.occurred_at >= (f.started_by or f.valid_from):
            continue  # (a change that had begun by the turn: the value the turn gives held no time before it)
        value = reader.earlier_value(turn, f.subject, f.predicate, e.content)
        if value is not None and normalize_name(value) != normalize_name(f.object):
            statement = reader.vocab.predicates[f.predicate].render(f.subject, value)
            return [ExtractedFact(subject=f.subject, predicate=f.predicate, object=value, statement=statement,
                                  valid_from=turn.occurred_at, object_kind=f.object_kind, confidence=0.6,
                                  source_episode=turn.id)]
    return []
