"""The maintenance jobs on both stores: entity resolution (merge, review, unmerge),
archiving (archive, restore), shadow re-extraction (build, promote, rollback), the
lock and the run records. Each job's second run is a no-op."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kg_memory.core.timeutil import FixedClock
from kg_memory.errors import ConfigError, KgMemError
from kg_memory.maintenance.nightly import Maintenance
from kg_memory.maintenance.runner import JobBusy
from kg_memory.maintenance.shadow import shadow_of
from kg_memory.memory import Memory
from kg_memory.store.base import Store, TimeFilter

from ..conftest import SAMPLE

START = datetime(2026, 3, 1, tzinfo=UTC)


def _write(tmp_path: Path, name: str, turns: list[tuple[str, str]]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps({"role": "user", "content": text, "occurred_at": at, "session_id": "s1"})
                              for at, text in turns) + "\n", encoding="utf-8")
    return path


ACME = [("2024-01-10T09:00:00Z", "I work at Acme Corp as an engineer."),
        ("2024-02-10T09:00:00Z", "My sister Ines lives in Porto."),
        ("2024-06-01T09:00:00Z", "I work at ACME Inc. now, same team."),
        ("2024-06-02T09:00:00Z", "I live in Leeds.")]


def _memory(make_memory, **settings: object) -> Memory:
    return make_memory(clock=FixedClock(START), **settings)


def _tick(mem: Memory) -> None:
    mem.clock.advance(timedelta(seconds=1))  # type: ignore[attr-defined]


def _beliefs(store: Store, group: str) -> list[tuple[object, ...]]:
    """What is believed now, without the version ids and belief times that an undo renews."""
    return sorted((v.fact_id, v.subject_id, v.predicate, v.object_id, v.valid_from, v.valid_to, v.episode_ids,
                   v.statement, v.reinforcement_count)
                  for v in store.list_facts(group, None) if v.expired_at is None)


def _graph(store: Store, group: str) -> tuple[object, ...]:
    eps = [e.id for e in store.list_episodes(group, 1000)]
    ents = [(e.id, e.name, e.aliases, e.merged_into) for e in store.entities(group)]
    return _beliefs(store, group), store.mentions(group, eps), ents


# -- entity resolution -----------------------------------------------------------------------
def test_merge_joins_the_false_job_change_and_unmerge_restores_the_exact_prior_state(
        store, group, make_memory, tmp_path):
    mem = _memory(make_memory)
    mem.ingest_files([_write(tmp_path, "acme.jsonl", ACME)], group=group)
    jobs = Maintenance(mem)
    before = _graph(store, group)
    works = [v for v in mem.facts(group=group, predicate="works_at", all_versions=True) if v.expired_at is None]
    assert len(works) == 2  # the false job change: Acme Corp until June, then ACME Inc

    _tick(mem)
    report = jobs.resolve_entities(group)
    assert len(report.merged) == 1 and report.queued == []
    merge = report.merged[0]
    assert {merge["survivor"], merge["absorbed"]} == {"Acme Corp", "ACME Inc"} and merge["by"] == "job:resolve-entities"
    merged_at = mem.clock.now()
    works = [v for v in mem.facts(group=group, predicate="works_at", all_versions=True) if v.expired_at is None]
    assert len(works) == 1, works  # one employment, from January, open, with both turns as evidence
    assert works[0].valid_from == datetime(2024, 1, 10, 9, tzinfo=UTC) and works[0].valid_to is None
    assert works[0].object == merge["survivor"] and len(works[0].episode_ids) == 2
    for name in ("Acme Corp", "ACME Inc", "acme corp"):  # any alias finds the survivor
        assert [v.id for v in mem.facts(group=group, entity=name)] == [v.id for v in mem.facts(
            group=group, entity=merge["survivor"])]
    survivor = next(e for e in store.entities(group) if e.id == merge["survivor_id"])
    assert merge["absorbed"] in survivor.aliases
    assert "Acme" in mem.recall("Where do I work?", group=group).context_block()

    _tick(mem)
    again = jobs.resolve_entities(group)
    assert again.merged == [] and again.queued == []  # a second run is a no-op

    _tick(mem)
    preview = jobs.unmerge(group, merge["id"], dry_run=True)
    assert preview["status"] == "merged" and len(preview["restored"]) == len(merge["closed"])
    assert jobs.resolver().merge_record(group, merge["id"]).body["status"] == "merged"  # nothing written
    undone = jobs.unmerge(group, merge["id"])
    assert undone["status"] == "unmerged"
    assert _graph(store, group) == before  # facts, mentions, names and pointers as they were
    during = TimeFilter(as_of=mem.clock.now(), known_at=merged_at)  # the audit trail keeps the merged belief
    assert len([v for v in store.list_facts(group, during) if v.predicate == "works_at"]) == 1
    with pytest.raises(ConfigError, match="already undone"):
        jobs.unmerge(group, merge["id"])
    assert [r.job for r in jobs.status(group)] == ["resolve-entities"]


PEOPLE = [("2024-01-10T09:00:00Z", "My friend Jonathan Smith lives in Leeds."),
          ("2024-02-10T09:00:00Z", "My friend Jon Smith plays the cello.")]
CONFLICT = [("2024-01-10T09:00:00Z", "My friend Jonathan Smith lives in Leeds."),
            ("2024-02-10T09:00:00Z", "My friend Jon Smith lives in Porto.")]


def test_a_middle_score_waits_for_review_and_a_decided_pair_is_never_proposed_again(
        store, group, make_memory, tmp_path):
    mem = _memory(make_memory, resolve_merge_at=0.95, resolve_review_at=0.7)
    mem.ingest_files([_write(tmp_path, "people.jsonl", PEOPLE)], group=group)
    jobs = Maintenance(mem)
    report = jobs.resolve_entities(group)
    assert report.merged == [] and len(report.queued) == 1
    pair = report.queued[0]
    assert {pair["a_name"], pair["b_name"]} == {"Jonathan Smith", "Jon Smith"}
    assert pair["evidence"]["shared_neighbours"] >= 1  # both are the user's friends
    queue = jobs.resolver().queue(group)
    assert [r.id for r in queue] == [f"{pair['a']}|{pair['b']}"]
    assert jobs.resolve_entities(group).queued == []  # queued once

    _tick(mem)
    decided = jobs.review_decide(group, queue[0].id[:10], accept=True)
    assert decided["status"] == "accepted" and decided["merge_id"].startswith("merge_")
    assert jobs.resolver().queue(group) == []
    names = {v.subject for v in mem.facts(group=group) if v.predicate in ("lives_in", "plays")}
    assert len(names) == 1  # one person lives in Leeds and plays the cello
    with pytest.raises(ConfigError, match="already accepted"):
        jobs.review_decide(group, queue[0].id, accept=False)

    _tick(mem)
    jobs.unmerge(group, decided["merge_id"])
    assert jobs.resolve_entities(group).queued == []  # decided: never proposed again


def test_a_rejected_pair_stays_rejected_and_conflicting_facts_keep_entities_apart(
        store, group, make_memory, tmp_path):
    mem = _memory(make_memory, resolve_merge_at=0.95, resolve_review_at=0.7)
    mem.ingest_files([_write(tmp_path, "people.jsonl", PEOPLE)], group=group)
    jobs = Maintenance(mem)
    key = jobs.resolve_entities(group).queued[0]
    jobs.review_decide(group, f"{key['a']}|{key['b']}", accept=False)
    assert jobs.resolve_entities(group).queued == [] and jobs.resolver().queue(group) == []
    assert len(jobs.resolver().queue(group, include_decided=True)) == 1

    other = f"{group}-conflict"  # the same names, but two places to live now: two people
    mem.ingest_files([_write(tmp_path, "conflict.jsonl", CONFLICT)], group=other)
    report = jobs.resolve_entities(other, dry_run=True)
    assert report.merged == [] and report.queued == []


# -- archiving ----------------------------------------------------------------------------------
def test_archive_then_restore_round_trips_the_bytes(store, group, make_memory, tmp_path):
    mem = _memory(make_memory, archive_url=str(tmp_path / "archive"))
    mem.ingest_files([SAMPLE], group=group)
    jobs = Maintenance(mem)
    original = {e.id: e.content for e in store.list_episodes(group, 1000)}
    beliefs = _beliefs(store, group)
    assert jobs.archive(group, timedelta(days=10_000)).episodes == 0  # nothing that old

    report = jobs.archive(group, timedelta(days=1))
    assert report.episodes == len(original) and report.bytes == sum(len(c.encode()) for c in original.values())
    stored = store.list_episodes(group, 1000)
    assert all(e.archived and e.content == "" for e in stored)
    files = sorted((tmp_path / "archive").rglob("*.txt"))
    assert {f.stem: f.read_text(encoding="utf-8") for f in files} == original
    assert store.list_episodes(group, 1000, archived=False) == []
    assert _beliefs(store, group) == beliefs  # facts and vectors stay
    result = mem.recall("Where does the user live?", group=group)
    assert result.facts and result.episodes and all(s.episode.archived for s in result.episodes)
    assert "[archived" in result.context_block()
    everything = TimeFilter(as_of=START, known_at=START)
    assert store.episode_text_search(group, "Manchester", 5, everything) == []  # the body left the text index
    assert jobs.archive(group, timedelta(days=1)).episodes == 0  # a second run is a no-op

    done = jobs.restore(group)
    assert done.episodes == len(original) and done.errors == []
    assert {e.id: e.content for e in store.list_episodes(group, 1000)} == original
    assert not any(e.archived for e in store.list_episodes(group, 1000))
    assert store.episode_text_search(group, "Manchester", 5, everything)  # and came back
    assert jobs.restore(group).episodes == 0 and list((tmp_path / "archive").rglob("*.txt")) == []
    assert {h.job for h in jobs.status(group)} == {"archive", "restore"}


def test_a_damaged_archive_body_is_refused_and_erasure_removes_archived_bodies(store, group, make_memory, tmp_path):
    mem = _memory(make_memory, archive_url=str(tmp_path / "archive"))
    mem.ingest_files([SAMPLE], group=group)
    jobs = Maintenance(mem)
    jobs.archive(group, timedelta(days=1))
    files = sorted((tmp_path / "archive").rglob("*.txt"))
    files[0].write_text("something else", encoding="utf-8")
    report = jobs.restore(group)
    assert len(report.errors) == 1 and "does not match" in report.errors[0]
    assert [e.id for e in store.list_episodes(group, 1000, archived=True)] == [files[0].stem]

    mem.forget(episode=files[0].stem, group=group)
    assert not files[0].exists()
    jobs.archive(group, timedelta(days=1))
    mem.forget(whole_group=True, group=group)
    assert list((tmp_path / "archive").rglob("*.txt")) == []


# -- shadow re-extraction ------------------------------------------------------------------------
def test_shadow_reextraction_changes_nothing_live_until_promotion_and_rollback_restores(
        store, group, make_memory, tmp_path):
    mem = _memory(make_memory)
    mem.ingest_files([SAMPLE], group=group)
    pet = next(v for v in mem.facts(group=group) if v.predicate == "has_pet")
    _tick(mem)
    mem.retire(pet.id, group=group)  # live now differs from what a replay of the turns says
    _tick(mem)
    jobs = Maintenance(mem)
    live_before = _graph(store, group)
    live_ids = {e.id for e in store.list_episodes(group, 1000)}

    report = jobs.reextract(group, "rules")
    assert report.episodes == len(live_ids) and not report.noop
    assert _graph(store, group) == live_before  # the live group is untouched
    added = report.diff.added if report.diff else {}
    assert any(pet.object in s for s in added.get("has_pet", [])), report.diff
    assert jobs.reextract(group, "rules").noop  # a second run is a no-op

    _tick(mem)
    jobs.promote(group)
    promoted_ids = {e.id for e in store.list_episodes(group, 1000)}
    assert promoted_ids.isdisjoint(live_ids) and len(promoted_ids) == len(live_ids)
    assert {e.id for e in store.list_episodes(shadow_of(group), 1000)} == live_ids
    hits = mem.recall("pet", group=group)  # the searches read the promoted group
    assert hits.episodes and {s.episode.id for s in hits.episodes} <= promoted_ids
    assert any(v.predicate == "has_pet" for v in mem.facts(group=group))

    _tick(mem)
    jobs.rollback(group)
    assert _graph(store, group) == live_before
    assert {s.episode.id for s in mem.recall("pet", group=group).episodes} <= live_ids
    with pytest.raises(ConfigError, match="no promoted shadow"):
        jobs.rollback(group)


def test_a_partial_or_stale_shadow_cannot_be_promoted(store, group, make_memory):
    mem = _memory(make_memory)
    mem.ingest_files([SAMPLE], group=group)
    jobs = Maintenance(mem)
    first = min(e.occurred_at for e in store.list_episodes(group, 1000))
    later = [e for e in store.list_episodes(group, 1000) if e.occurred_at > first]
    dry = jobs.reextract(group, "rules", since=first + timedelta(seconds=1), dry_run=True)
    assert dry.episodes == len(later) and store.counts(shadow_of(group))["episodes"] == 0  # nothing built
    jobs.reextract(group, "rules", since=first + timedelta(seconds=1))
    with pytest.raises(ConfigError, match="part of the group"):
        jobs.promote(group)
    jobs.reextract(group, "rules", rebuild=True)
    mem.add("I adopted a cat named Miso.", group=group)
    with pytest.raises(ConfigError, match="changed after the shadow was built"):
        jobs.promote(group)


# -- the lock, the schedule ---------------------------------------------------------------------
def test_the_jobs_lock_refuses_an_overlapping_run_until_it_ends_or_expires(store, group, make_memory):
    t = START
    assert store.try_lock(group, "jobs", "a", t, t + timedelta(hours=1)) == "a"
    assert store.try_lock(group, "jobs", "a", t, t + timedelta(hours=2)) == "a"  # the holder renews
    assert store.try_lock(group, "jobs", "b", t + timedelta(minutes=30), t + timedelta(hours=3)) == "a"
    assert store.try_lock(f"{group}-other", "jobs", "b", t, t + timedelta(hours=1)) == "b"  # locks are per group
    assert store.try_lock(group, "jobs", "b", t + timedelta(hours=2), t + timedelta(hours=3)) == "b"  # expired: taken
    store.unlock(group, "jobs", "a")  # not the holder: nothing happens
    assert store.try_lock(group, "jobs", "c", t + timedelta(hours=2), t + timedelta(hours=3)) == "b"
    assert store.try_lock(group, "jobs", "c", t + timedelta(hours=2), t + timedelta(hours=3),
                          steal_from=["x", "y"]) == "b"  # only a named owner is taken over
    assert store.try_lock(group, "jobs", "c", t + timedelta(hours=2), t + timedelta(hours=3),
                          steal_from=["b"]) == "c"  # a dead holder is taken over before its time
    store.unlock(group, "jobs", "c")
    assert store.try_lock(group, "jobs", "c", t + timedelta(hours=2), t + timedelta(hours=3)) == "c"
    store.unlock(group, "jobs", "c")

    mem = _memory(make_memory)
    mem.ingest_files([SAMPLE], group=group)
    other = Maintenance(mem, owner="someone-else")
    with other.jobs.locked(group):
        with pytest.raises(JobBusy):
            Maintenance(mem).resolve_entities(group)
        report = Maintenance(mem).nightly([group])
        assert [r["outcome"] for r in report.runs] == ["failed"] * 4
    report = Maintenance(mem).nightly([group])
    assert [(r["job"], r["outcome"]) for r in report.runs] == [
        ("resolve-entities", "ok"), ("archive", "ok"), ("hubs", "ok"), ("reextract", "ok")]
    assert report.runs[3]["counts"] == {"stale": 0}  # its facts are as today's extractor makes them
    again = Maintenance(mem).nightly([group])  # a second run finds nothing new
    assert [r["counts"] for r in again.runs][:2] == [
        {"entities": report.runs[0]["counts"]["entities"], "candidates": 0, "merged": 0, "queued": 0},
        {"episodes": 0, "bytes": 0, "errors": 0}]
    status = {r.job: r for r in Maintenance(mem).status(group)}
    assert set(status) == {"resolve-entities", "archive", "hubs", "reextract"} and all(
        r.outcome == "ok" for r in status.values())
    assert isinstance(JobBusy("x"), KgMemError) and JobBusy.exit_code == 8


def test_a_dead_local_runs_lock_is_taken_over_at_once(store, group, make_memory):
    """A nightly run that crashed leaves its lock; the next run on this machine takes it over at once
    (the holder's process is gone), while a live holder, or one of another machine, still blocks."""
    import socket
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mem = _memory(make_memory)
    now = datetime.now(UTC)
    gone = f"{socket.gethostname()}/{dead.pid}/crashed"
    assert store.try_lock(group, "jobs", gone, now, now + timedelta(hours=6)) == gone
    report = Maintenance(mem).nightly([group])
    assert [r["outcome"] for r in report.runs] == ["ok"] * 4
    for holder in (f"{socket.gethostname()}/{os.getpid()}/alive", f"elsewhere/{dead.pid}/crashed"):
        assert store.try_lock(group, "jobs", holder, now, now + timedelta(hours=6)) == holder
        with pytest.raises(JobBusy, match="holds group"):
            Maintenance(mem).resolve_entities(group)
        store.unlock(group, "jobs", holder)
