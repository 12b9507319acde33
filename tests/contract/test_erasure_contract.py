"""Erasure (`forget`) on both stores: after it, no read, index or file returns the
planted content; a tombstone without content stays; other groups are untouched."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kg_memory.core.timeutil import FixedClock
from kg_memory.errors import ConfigError, NotFoundError
from kg_memory.store.base import TimeFilter

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MARKER = "Zorblaxian"  # planted; must vanish
OTHER = "Quentarian"  # in another group: must stay
TURNS = [
    ("2025-01-01T10:00:00Z", "I live in Leeds and I work at Northwind Labs."),
    ("2025-01-02T10:00:00Z", f"My sister {MARKER} lives in Porto."),
    ("2025-01-03T10:00:00Z", "I have a dog named Rex."),
    ("2025-01-04T10:00:00Z", f"{MARKER} plays the violin."),
    ("2025-01-05T10:00:00Z", "I live in Leeds, still."),
]


def _memory(make_memory, group):
    clock = FixedClock(T0)
    mem = make_memory(clock=clock)
    for at, text in TURNS:
        mem.add(text, group=group, occurred_at=at)
        clock.advance(timedelta(minutes=1))
    mem.add(f"My friend {OTHER} visited.", group=f"{group}-b", occurred_at="2025-01-01T10:00:00Z")
    return mem


def _everything(mem, store, group) -> str:
    """Every read a client can make, as one text."""
    far = TimeFilter(as_of=datetime(9999, 1, 1, tzinfo=UTC), known_at=datetime(9999, 1, 1, tzinfo=UTC))
    parts = [mem.recall(f"{MARKER} violin Porto sister", group=group, k=50).context_block()]
    parts += [e.episode.content for e in mem.search_text(MARKER, group=group, k=50)]
    parts += [e.episode.content for e in mem.search_semantic(f"{MARKER} sister", group=group, k=50)]
    parts += [f.statement + f.subject + f.object for f in mem.facts(group=group, all_versions=True)]
    parts += store.entity_names(group, 1000)
    parts += [e.content for e in store.get_episodes(group, store.episodes_about(group, [], MARKER.lower()))]
    parts += [f.statement for f, _ in store.fact_text_search(group, MARKER, 50, far)]
    parts += [e for e, _ in store.episode_text_search(group, MARKER, 50, far)]
    return "\n".join(parts)


def _files_with(store, marker: str) -> list[str]:
    if store.kind != "sqlite":
        return []
    base = Path(store.path)
    return [p.name for p in base.parent.glob(base.name + "*") if marker.encode() in p.read_bytes()]


def test_forget_an_entity_removes_it_everywhere(store, group, make_memory):
    mem = _memory(make_memory, group)
    assert MARKER in _everything(mem, store, group)
    before = store.counts(group)
    done = mem.forget(entity=MARKER, group=group, reason="user request #42")
    assert (done.kind, done.episodes, done.reason) == ("entity", 2, "user request #42")
    assert done.facts >= 2 and done.entities >= 1
    assert MARKER.lower() not in _everything(mem, store, group).lower()
    assert _files_with(store, MARKER) == []
    after = store.counts(group)
    assert after["episodes"] == before["episodes"] - 2
    # what the other turns said stays, and the other group is untouched
    assert {f.object for f in mem.facts(group=group)} >= {"Leeds", "Northwind Labs", "Rex"}
    assert "Porto" not in {f.object for f in mem.facts(group=group)}
    assert OTHER in " ".join(e.episode.content for e in mem.search_text(OTHER, group=f"{group}-b", k=5))
    assert _files_with(store, OTHER) in ([], ["kg.db"], ["kg.db-wal"], ["kg.db", "kg.db-wal"])
    (tomb,) = mem.tombstones(group=group)
    assert tomb.id == done.id and MARKER not in str(tomb.to_json())
    with pytest.raises(NotFoundError):
        mem.forget(entity=MARKER, group=group)


def test_forget_an_episode_keeps_facts_with_other_evidence(store, group, make_memory):
    mem = _memory(make_memory, group)
    first = mem.search_text("Northwind", group=group, k=1)[0].episode
    home = next(f for f in mem.facts(group=group) if f.predicate == "lives_in" and f.subject == "User")
    assert first.id in home.episode_ids and home.reinforcement_count == 2
    job = next(f for f in mem.facts(group=group) if f.predicate == "works_at")
    done = mem.forget(episode=first.id, group=group)
    assert (done.kind, done.episodes) == ("episode", 1)
    kept = next(f for f in mem.facts(group=group) if f.predicate == "lives_in" and f.subject == "User")
    assert first.id not in kept.episode_ids and kept.reinforcement_count == 1  # evidence follows provenance
    assert job.fact_id not in {f.fact_id for f in mem.facts(group=group, all_versions=True)}
    assert store.get_episodes(group, [first.id]) == []
    assert "Northwind" not in _everything(mem, store, group)
    assert _files_with(store, "Northwind") == []
    with pytest.raises(NotFoundError):
        mem.forget(episode=first.id, group=group)


def test_forget_a_whole_group(store, group, make_memory):
    mem = _memory(make_memory, group)
    done = mem.forget(whole_group=True, group=group)
    assert done.episodes == len(TURNS) and done.facts > 0 and done.entities > 0
    assert store.counts(group) == {"episodes": 0, "entities": 0, "facts": 0, "facts_current": 0,
                                   "episodes_pending": 0, "episodes_failed": 0}
    assert group not in dict(store.groups())
    assert [t.kind for t in mem.tombstones(group=group)] == ["group"]
    assert store.counts(f"{group}-b")["episodes"] == 1
    assert _files_with(store, "Northwind") == [] and _files_with(store, "Rex") == []
    with pytest.raises(ConfigError):
        mem.forget(group=group)  # nothing named
    with pytest.raises(ConfigError):
        mem.forget(episode="ep_x", entity="Rex", group=group)


def test_forgetting_a_short_name_erases_only_turns_that_name_it(store, group, make_memory):
    clock = FixedClock(T0)
    mem = make_memory(clock=clock)
    mem.add("My brother Al lives in Hull.", group=group, occurred_at="2025-01-01T10:00:00Z")
    mem.add("I also play the cello, and Al will call.", group=group, occurred_at="2025-01-02T10:00:00Z")
    mem.add("I also like tea.", group=group, occurred_at="2025-01-03T10:00:00Z")
    done = mem.forget(entity="Al", group=group)
    assert done.episodes == 2
    left = [e.episode.content for e in mem.search_text("also tea", group=group, k=5)]
    assert left == ["I also like tea."]
