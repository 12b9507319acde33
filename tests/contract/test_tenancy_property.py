"""Tenancy as a property: random interleaved operations on two groups (adds that wait or
not, flushes, retries of failed extractions, edits and erasure by id, reads); after every
operation on one group, the other group reads exactly as before, and no call made for
one group reaches the other's ids. Both stores; the example count is bounded."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kg_memory.core.models import Episode
from kg_memory.errors import ConfigError, ExtractionError, NotFoundError
from kg_memory.extract.base import Extraction
from kg_memory.extract.rules import RulesExtractor
from kg_memory.memory import Memory
from kg_memory.settings import Settings

EXAMPLES = int(os.environ.get("KGMEM_TENANCY_EXAMPLES", "4"))
TEXTS = ["I live in Leeds.", "I live in York.", "I have a dog named Rex.", "I work at Acme.", "explode now",
         "I play the violin.", "My sister Ines lives in Porto."]


class Refuses(RulesExtractor):
    """The offline extractor, failing on turns that say "explode" (so retries have work)."""

    def __init__(self) -> None:
        super().__init__(use_parser=False)

    def extract(self, episode: Episode, context: Any = None) -> Extraction:
        if "explode" in episode.content:
            raise ExtractionError("refused")
        return super().extract(episode, context)


ops = st.lists(st.tuples(st.sampled_from(["add", "add-bg", "flush", "retry", "correct", "retire", "forget",
                                          "recall", "cross"]),
                         st.sampled_from([0, 1]), st.integers(0, 100)), min_size=3, max_size=8)


def _snapshot(mem: Memory, group: str) -> tuple[Any, ...]:
    facts = mem.facts(group=group, all_versions=True)
    return (mem.store.counts(group), [(f.id, f.expired_at) for f in facts],
            [t.id for t in mem.tombstones(group=group)])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])
@given(plan=ops)
@example(plan=[("add", 0, 0), ("add", 0, 0), ("add-bg", 0, 81)])  # a refused turn left for the last flush
def test_one_group_never_sees_or_moves_another(store, embedder, plan):
    import uuid

    tag = uuid.uuid4().hex[:8]
    groups = [f"ten-{tag}-a", f"ten-{tag}-b"]
    mem = Memory(store, settings=Settings(), embedder=embedder, extractor=Refuses())
    day = 1
    for op, gi, n in plan:
        g, other = groups[gi], groups[1 - gi]
        try:
            mem.flush(timeout=60)  # background work of earlier steps lands before the snapshot
        except ExtractionError:
            pass
        mine = mem.facts(group=g)
        theirs = mem.facts(group=other)
        before = _snapshot(mem, other)
        day += 1
        at = f"2025-01-{min(day, 28):02d}T10:00:00Z"
        try:
            if op == "add":
                mem.add(TEXTS[n % len(TEXTS)], group=g, occurred_at=at)
            elif op == "add-bg":
                mem.add(TEXTS[n % len(TEXTS)], group=g, occurred_at=at, wait=False)
            elif op == "flush":
                mem.flush(timeout=60)
            elif op == "retry":
                mem.process_pending(g, retry_failed=True)
            elif op == "correct" and mine:
                mem.correct(mine[n % len(mine)].id, "Bath", group=g)
            elif op == "retire" and mine:
                mem.retire(mine[n % len(mine)].id, group=g)
            elif op == "forget":
                eps = mem.search_text("I", group=g, k=5)
                if eps:
                    mem.forget(episode=eps[n % len(eps)].episode.id, group=g)
            elif op == "recall":
                res = mem.recall("Where do I live?", group=g)
                assert all(sf.fact.group_id == g for sf in res.facts)
                assert all(se.episode.group_id == g for se in res.episodes)
            elif op == "cross" and theirs:  # reach for the other group's fact from this group
                target = theirs[n % len(theirs)].id
                for attempt, args in ((mem.correct, (target, "Bath")), (mem.retire, (target,)),
                                      (mem.related, (target,)), (mem.fact_history, (target,))):
                    with pytest.raises(NotFoundError):
                        attempt(*args, group=g)
        except ExtractionError:
            pass  # a flush reports the refused turn; it stays stored and failed
        except ConfigError:
            pass  # an edit that changes nothing (already that value, or no longer holds)
        assert _snapshot(mem, other) == before, (op, g)  # the worker, too, drains only g
    try:
        mem.flush(timeout=60)
    except ExtractionError:
        pass  # the last step added a refused turn in the background: it stays stored and failed
    for g in groups:
        for f in mem.facts(group=g, all_versions=True):
            assert f.group_id == g
            assert not set(f.episode_ids) & {e.id for e in mem.store.get_episodes(groups[0] if g != groups[0]
                                                                                   else groups[1], f.episode_ids)}
