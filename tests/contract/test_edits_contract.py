"""Listing facts and editing them by id (correct, change, retire), on both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kg_memory.core.temporal import visible
from kg_memory.core.timeutil import FixedClock
from kg_memory.errors import ConfigError, NotFoundError
from kg_memory.recall.history import closing

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _memory(make_memory, group):
    clock = FixedClock(T0)
    mem = make_memory(clock=clock)
    mem.add("I live in Manchester and I work at Northwind Labs.", group=group, occurred_at="2024-11-18T19:00:00Z")
    mem.add("I have a dog named Rex.", group=group, occurred_at="2024-12-01T10:00:00Z")
    clock.advance(timedelta(hours=1))
    return mem, clock


def _one(facts, predicate):
    (f,) = [f for f in facts if f.predicate == predicate]
    return f


def test_facts_lists_what_is_visible_and_every_version(store, group, make_memory):
    mem, clock = _memory(make_memory, group)
    now = mem.facts(group=group)
    assert {(f.subject, f.predicate, f.object) for f in now} >= {
        ("User", "lives_in", "Manchester"), ("User", "works_at", "Northwind Labs")}
    assert all(f.episode_ids for f in now)
    assert [f.predicate for f in mem.facts(group=group, predicate="lives_in")] == ["lives_in"]
    assert {f.object for f in mem.facts(group=group, entity="Rex")} == {"Rex"}
    assert mem.facts(group=group, as_of="2024-01-01") == []
    assert mem.facts(group=group, known_at=T0 - timedelta(days=1)) == []
    assert mem.facts(group=f"{group}-other") == []
    home = _one(now, "lives_in")
    mem.change(home.id, "Salford", "2025-03-01", group=group)
    every = mem.facts(group=group, all_versions=True)
    assert len(every) > len(now)
    assert [f.id for f in every] == [f.id for f in sorted(every, key=lambda f: (f.created_at, f.id))]
    at = mem.clock.now()
    assert {f.id for f in mem.facts(group=group)} == {f.id for f in every if visible(f, at, at)}
    with pytest.raises(NotFoundError):
        mem.facts(group=group, entity="Nobody Here")
    with pytest.raises(ConfigError):
        mem.facts(group=group, all_versions=True, as_of="2025-01-01")


def test_correct_closes_the_belief_and_keeps_valid_time(store, group, make_memory):
    mem, clock = _memory(make_memory, group)
    home = _one(mem.facts(group=group), "lives_in")
    before = clock.now()
    clock.advance(timedelta(hours=1))
    done = mem.correct(home.fact_id, "Salford", reason="I misspoke", group=group)
    (new,) = done.written
    assert done.closed == [home.id]
    assert (new.object, new.valid_from, new.valid_to) == ("Salford", home.valid_from, home.valid_to)
    assert new.episode_ids == (done.episode_id,)
    assert [f.object for f in mem.facts(group=group, predicate="lives_in")] == ["Salford"]
    assert [f.object for f in mem.facts(group=group, predicate="lives_in", known_at=before)] == ["Manchester"]
    old = next(v for v in store.fact_versions(group, [home.id]))
    assert old.expired_by == new.id
    lineage = mem.fact_history(home.id, group=group)
    assert {v.id for v in lineage} == {home.id, new.id}
    by_id = {v.id: v for v in lineage}
    assert closing(by_id[home.id], by_id).kind == "corrected"
    (ep,) = store.get_episodes(group, [done.episode_id])
    assert ep.role == "system" and "I misspoke" in ep.content and ep.status == "done"
    with pytest.raises(ConfigError, match="no longer believed"):
        mem.correct(home.id, "Leeds", group=group)
    with pytest.raises(ConfigError, match="nothing to correct"):
        mem.correct(new.id, "salford", group=group)


def test_change_supersedes_from_the_given_time(store, group, make_memory):
    mem, clock = _memory(make_memory, group)
    job = _one(mem.facts(group=group), "works_at")
    done = mem.change(job.id, "Acme Robotics", "2025-06-01", group=group)
    assert done.closed == [job.id]
    assert [f.object for f in mem.facts(group=group, predicate="works_at")] == ["Acme Robotics"]
    assert [f.object for f in mem.facts(group=group, predicate="works_at", as_of="2025-01-01")] == ["Northwind Labs"]
    ended = [v for v in done.written if v.object == "Northwind Labs"]
    assert [v.valid_to for v in ended] == [datetime(2025, 6, 1, tzinfo=UTC)]
    history = mem.fact_history(job.fact_id, group=group)
    assert {v.object for v in history} == {"Northwind Labs", "Acme Robotics"}
    with pytest.raises(ConfigError, match="not after the fact started"):
        mem.change(done.written[0].id, "Initech", "2020-01-01", group=group)


def test_retire_closes_both_intervals_and_keeps_history(store, group, make_memory):
    mem, clock = _memory(make_memory, group)
    pet = _one(mem.facts(group=group), "has_pet")
    clock.advance(timedelta(hours=1))
    done = mem.retire(pet.id, at="2025-09-01", group=group)
    (succ,) = done.written
    assert succ.valid_to == datetime(2025, 9, 1, tzinfo=UTC) and succ.fact_id == pet.fact_id
    assert mem.facts(group=group, predicate="has_pet") == []
    assert [f.object for f in mem.facts(group=group, predicate="has_pet", as_of="2025-05-01")] == ["Rex"]
    assert len(mem.facts(group=group, predicate="has_pet", all_versions=True)) == 2
    with pytest.raises(ConfigError):
        mem.retire(succ.id, at="2026-06-01", group=group)  # it had already stopped by then


def test_edits_stay_in_their_group(store, group, make_memory):
    mem, clock = _memory(make_memory, group)
    home = _one(mem.facts(group=group), "lives_in")
    other = f"{group}-b"
    for edit in (lambda: mem.correct(home.id, "Leeds", group=other),
                 lambda: mem.change(home.id, "Leeds", "2025-01-01", group=other),
                 lambda: mem.retire(home.id, group=other),
                 lambda: mem.fact_history(home.id, group=other)):
        with pytest.raises(NotFoundError):
            edit()
    with pytest.raises(ConfigError, match="empty"):
        mem.correct(home.id, "  ", group=group)
    with pytest.raises(ConfigError):
        mem.change(home.id, "Leeds", "not a date", group=group)
    assert [f.object for f in mem.facts(group=group, predicate="lives_in")] == ["Manchester"]
    assert store.counts(other)["facts"] == 0


def test_related_follows_links_written_with_each_new_fact(store, group, make_memory, embedder):
    import numpy as np

    clock = FixedClock(T0)
    mem = make_memory(clock=clock)
    for i, text in enumerate(["I play the violin.", "I also play the cello.", "I live in Porto.",
                              "I have a dog named Rex.", "I also play the viola."]):
        mem.add(text, group=group, occurred_at=f"2025-01-0{i + 1}T10:00:00Z")
        clock.advance(timedelta(minutes=5))
    mem.add("I play the violin too.", group=f"{group}-b", occurred_at="2025-01-01T10:00:00Z")
    facts = mem.facts(group=group)
    vecs = {f.fact_id: embedder.embed([f.statement])[0] for f in facts}
    violin = next(f for f in facts if f.object == "violin")

    def cos(a, b):
        return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))

    want = {f.fact_id for f in facts
            if f.fact_id != violin.fact_id and cos(vecs[f.fact_id], vecs[violin.fact_id]) >= 0.75}
    got = mem.related(violin.id, k=5, group=group)
    assert want and {f.fact_id for f, _ in got} == want
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    assert all(f.group_id == group for f, _ in got)
    assert "Porto" not in {f.object for f, _ in got}
    assert len(mem.related(violin.id, k=1, group=group)) == 1
    with pytest.raises(NotFoundError):
        mem.related(violin.id, group=f"{group}-b")


def test_tool_calls_answer_errors_instead_of_raising(store, group, make_memory):
    from kg_memory.agent.tools import MemoryTools, call

    mem, _ = _memory(make_memory, group)
    tools = MemoryTools(mem, group, wait=True)
    assert "unknown tool" in call(tools, "drop_table", {})["error"]
    assert "JSON" in call(tools, "recall", "{not json")["error"]
    assert "no argument 'group'" in call(tools, "recall", {"query": "x", "group": "other"})["error"]
    assert "bad arguments" in call(tools, "recall", {"query": "x", "k": "many"})["error"]
    assert "bad arguments" in call(tools, "recall", {})["error"]
    assert "no fact" in call(tools, "delete_memory", {"fact_id": "fv_nope"})["error"]
    assert "unknown tool" in call(tools, "save_memory", {"content": "x"}, read_only=True)["error"]
    home = call(tools, "get_memories", '{"predicate": "lives_in"}')["facts"][0]
    assert call(tools, "update_memory", {"fact_id": home["id"], "value": "Leeds"})["kind"] == "correct"
    assert [f["object"] for f in call(tools, "get_memories", {"predicate": "lives_in"})["facts"]] == ["Leeds"]
    saved = call(tools, "save_memory", {"content": "I have a cat named Tom.", "occurred_at": "2025-02-01"})
    assert saved["extracted"] and saved["facts_added"] == 1
