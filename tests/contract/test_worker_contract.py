"""add(wait=False), the background worker and flush(), on both stores."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest

from kg_memory.core.models import Episode
from kg_memory.core.timeutil import FixedClock
from kg_memory.errors import ConfigError, ExtractionError, FlushTimeout
from kg_memory.extract.base import Extraction
from kg_memory.extract.rules import RulesExtractor
from kg_memory.memory import Memory
from kg_memory.settings import Settings

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class GatedRules(RulesExtractor):
    """The rules extractor, held at a gate (so a test sees the worker mid-flight),
    failing on turns that contain "explode"."""

    def __init__(self) -> None:
        super().__init__(use_parser=False)
        self.gate = threading.Event()
        self.gate.set()
        self.seen: list[str] = []

    def extract(self, episode: Episode, context=None) -> Extraction:  # type: ignore[override]
        self.gate.wait(30)
        self.seen.append(episode.group_id)
        if "explode" in episode.content:
            raise ExtractionError("the extractor refused this turn")
        return super().extract(episode, context)


def _memory(store, embedder, **settings) -> tuple[Memory, GatedRules]:
    ext = GatedRules()
    return Memory(store, settings=Settings(**settings), embedder=embedder, extractor=ext, clock=FixedClock(T0)), ext


def test_add_without_waiting_is_durable_and_flush_gives_read_after_write(store, group, embedder):
    mem, ext = _memory(store, embedder)
    ext.gate.clear()  # the worker cannot extract yet
    stats = mem.add("I live in Lisbon.", group=group, occurred_at="2025-01-01", wait=False)
    mem.add("I have a dog named Rex.", group=group, occurred_at="2025-01-02", wait=False)
    assert stats.episodes_added == 1 and stats.episodes_extracted == 0
    assert store.counts(group)["episodes"] == 2  # committed before add returned
    with pytest.raises(FlushTimeout):
        mem.flush(timeout=0.2)
    ext.gate.set()
    done = mem.flush(timeout=60)
    assert done.episodes_extracted == 2 and store.counts(group)["episodes_pending"] == 0
    assert {f.object for f in mem.facts(group=group)} >= {"Lisbon", "Rex"}
    assert "Lisbon" in mem.recall("Where do I live?", group=group).context_block()
    assert mem.flush(timeout=1).episodes_extracted == 0  # nothing new


def test_worker_errors_surface_in_flush_and_the_episode_stays(store, group, embedder):
    mem, ext = _memory(store, embedder)
    mem.add("This one will explode.", group=group, occurred_at="2025-01-01", wait=False)
    mem.add("I work at Acme.", group=group, occurred_at="2025-01-02", wait=False)
    with pytest.raises(ExtractionError, match="refused"):
        mem.flush(timeout=60)
    counts = store.counts(group)
    assert counts["episodes"] == 2 and counts["episodes_failed"] == 1 and counts["episodes_pending"] == 0
    assert mem.doctor()["worker"]["errors"] == []  # reported once, by the flush
    mem.flush(timeout=1)


def test_the_worker_resumes_pending_episodes_of_its_group_only(store, group, embedder):
    other = f"{group}-other"
    left = [Episode(group_id=g, content=f"I live in {city}.", occurred_at=T0, created_at=T0)
            for g, city in ((group, "Porto"), (other, "Oslo"))]
    store.add_episodes(left)  # what a process that died before extracting leaves behind
    mem, ext = _memory(store, embedder)
    mem.add("I play the violin.", group=group, occurred_at="2025-01-02", wait=False)
    mem.flush(timeout=60)
    assert store.counts(group)["episodes_pending"] == 0
    assert {f.object for f in mem.facts(group=group)} >= {"Porto", "violin"}
    assert store.counts(other)["episodes_pending"] == 1 and set(ext.seen) == {group}


def test_back_pressure_blocks_instead_of_dropping(store, group, embedder):
    mem, ext = _memory(store, embedder, worker_max_waiting=2)
    ext.gate.clear()
    mem.add("I live in Leeds.", group=group, occurred_at="2025-01-01", wait=False)
    mem.add("I work at Initech.", group=group, occurred_at="2025-01-02", wait=False)
    third = threading.Thread(target=mem.add, args=("I have a cat named Tom.",),
                             kwargs={"group": group, "occurred_at": "2025-01-03", "wait": False})
    third.start()
    for _ in range(600):  # the third turn is committed first (durable), then it waits for room
        if store.counts(group)["episodes"] == 3:
            break
        time.sleep(0.05)
    assert store.counts(group)["episodes"] == 3
    third.join(2)  # without back-pressure it would be submitted within microseconds of its commit
    assert third.is_alive() and mem.worker().state.waiting == 2  # blocked: two episodes already wait
    ext.gate.set()
    third.join(30)
    mem.flush(timeout=60)
    assert store.counts(group)["episodes"] == 3 and store.counts(group)["episodes_pending"] == 0


def test_bad_adds_are_refused_before_anything_is_stored(store, group, embedder):
    mem, _ = _memory(store, embedder)
    for content, at in (("", None), ("   ", None), ("fine", "not a date")):
        with pytest.raises(ConfigError):
            mem.add(content, group=group, occurred_at=at, wait=False)
    assert store.counts(group)["episodes"] == 0
