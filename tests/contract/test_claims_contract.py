"""Extraction claims (pending -> claimed with a lease and an owner), and concurrent
writers: processes and threads on one group, with a reader, on both stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kg_memory.core.models import Episode
from kg_memory.core.vocab import load_vocabulary
from kg_memory.ingest.leases import dead_owners
from kg_memory.store.base import WriteBatch

from ..conftest import neo4j_url

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _episodes(group: str, n: int) -> list[Episode]:
    return [Episode(group_id=group, content=f"turn {i}", occurred_at=T0 + timedelta(minutes=i), created_at=T0)
            for i in range(n)]


def test_claims_are_exclusive_until_the_lease_ends(store, group):
    store.add_episodes(_episodes(group, 6) + _episodes(f"{group}-b", 2))
    until = T0 + timedelta(minutes=30)
    a = store.claim_pending(group, 4, "host/1/a", T0, until)
    b = store.claim_pending(group, 4, "host/2/b", T0, until)
    assert [e.content for e in a] == ["turn 0", "turn 1", "turn 2", "turn 3"]
    assert [e.content for e in b] == ["turn 4", "turn 5"]  # never one of a's
    assert store.claim_pending(group, 4, "host/3/c", T0, until) == []
    assert store.claim_owners(group) == ["host/1/a", "host/2/b"]
    assert [e.content for e in store.claim_pending(group, 9, "host/1/a", T0, until)][:4] == [e.content for e in a]
    # a dead owner's claims are taken over at once; a live one's only when its lease ends
    taken = store.claim_pending(group, 9, "host/3/c", T0, until, steal_from=["host/2/b"])
    assert {e.id for e in taken} == {e.id for e in b}
    late = store.claim_pending(group, 9, "host/4/d", until, until + timedelta(minutes=30))
    assert {e.id for e in late} == {e.id for e in a + b}
    # a status write clears the claim; a release gives claims back; other groups were never touched
    store.write(WriteBatch(statuses=[(group, late[0].id, "done", None)]))
    store.release_claims(group, "host/4/d", [e.id for e in late[1:3]])
    again = store.claim_pending(group, 9, "host/5/e", until, until + timedelta(minutes=30))
    assert {e.id for e in again} == {e.id for e in late[1:3]}
    assert len(store.claim_pending(f"{group}-b", 9, "host/5/e", T0, until)) == 2


def test_dead_owners_are_processes_of_this_machine_that_are_gone():
    import socket

    here = socket.gethostname()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    owners = [f"{here}/{dead_pid}/x", f"{here}/{os.getppid()}/y", f"elsewhere/{dead_pid}/z", "garbage"]
    assert dead_owners(owners) == [f"{here}/{dead_pid}/x"]


HOMES = ["Leeds", "York", "Bath", "Hull", "Ely"]
PETS = ["Rex", "Tom", "Bo", "Kit", "Pip", "Max", "Zed"]


def _turns(n: int) -> list[tuple[str, str]]:
    """Turns about one person, each at its own time: homes (single-valued) and pets (multi)."""
    out = []
    for i in range(n):
        at = (T0 - timedelta(days=400) + timedelta(hours=7 * i)).isoformat()
        text = f"I live in {HOMES[i % len(HOMES)]}." if i % 3 else f"I have a dog named {PETS[i % len(PETS)]}."
        out.append((at, text))
    return out


WRITER = """
import json, sys
from kg_memory import Memory
url, group, turns = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with Memory.open(url) as m:
    for at, text in turns:
        m.add(text, group=group, occurred_at=at)
"""


def _invariants(store, mem, group: str, n_turns: int) -> None:
    counts = store.counts(group)
    assert counts["episodes"] == n_turns and counts["episodes_pending"] == 0 and counts["episodes_failed"] == 0
    every = mem.facts(group=group, all_versions=True, limit=100_000)
    assert len({v.id for v in every}) == len(every)
    for v in every:  # evidence never exceeds what the provenance shows (no episode counted twice)
        assert v.reinforcement_count == len(v.episode_ids) == len(set(v.episode_ids)), v
    now = mem.facts(group=group)
    single = {p for p, spec in load_vocabulary().predicates.items() if spec.single_valued}
    slots = Counter((v.subject_id, v.predicate) for v in now if v.predicate in single)
    assert all(n == 1 for n in slots.values()), slots


def test_processes_and_threads_writing_one_group(store, group, make_memory, tmp_path: Path):
    url = f"sqlite:///{store.path}" if store.kind == "sqlite" else neo4j_url()
    turns = _turns(60)
    procs_turns, thread_turns = turns[:36], turns[36:]
    env = {**os.environ, "KGMEM_HOME": str(tmp_path / "home")}
    # two `kgmem ingest` processes and one writing through the API, all into the same group
    procs = []
    for i in range(2):
        part = tmp_path / f"part{i}.jsonl"
        part.write_text("\n".join(json.dumps({"content": t, "occurred_at": at}) for at, t in procs_turns[i::3]))
        procs.append(subprocess.Popen([sys.executable, "-m", "kg_memory", "ingest", str(part), "--group", group,
                                       "--store", url, "--quiet"], env=env, stderr=subprocess.PIPE, text=True))
    procs.append(subprocess.Popen([sys.executable, "-c", WRITER, url, group, json.dumps(procs_turns[2::3])],
                                  env=env, stderr=subprocess.PIPE, text=True))
    mem = make_memory()
    errors: list[BaseException] = []
    stop = threading.Event()

    def write(part: list[tuple[str, str]]) -> None:
        try:
            for at, text in part:
                mem.add(text, group=group, occurred_at=at)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    def read() -> None:
        try:
            while not stop.is_set():
                mem.recall("Where do I live?", group=group)
                stop.wait(0.05)  # reads keep interleaving without taking a core from the writers
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(thread_turns[i::4],)) for i in range(4)]
    reader = threading.Thread(target=read)
    for t in [*threads, reader]:
        t.start()
    for t in threads:
        t.join(600)
    outs = [p.communicate(timeout=600)[1] for p in procs]
    stop.set()
    reader.join(60)
    assert errors == [] and [p.returncode for p in procs] == [0, 0, 0], (errors, outs)
    assert not any("Traceback" in o for o in outs), outs
    _invariants(store, mem, group, len(turns))

    # the same turns written by one writer in time order reach the same beliefs now
    ref = f"{group}-sequential"
    for at, text in turns:
        mem.add(text, group=ref, occurred_at=at)
    _invariants(store, mem, ref, len(turns))

    def now_state(g: str) -> set[tuple[str, str, str]]:
        return {(v.subject, v.predicate, v.object) for v in mem.facts(group=g)}

    assert now_state(group) == now_state(ref)
    # Evidence may differ: a turn that arrives after a later restatement of the same value, with another
    # value between them, counts as evidence for the later one (docs/guarantees.md, "Not promised").


class _FailingOnFacts:
    """A real embedder that fails when asked for the new facts' statements about York (after the
    turn itself and the extraction were embedded), as a remote embedding API might between calls."""

    def __init__(self, inner) -> None:
        self.inner, self.dim = inner, inner.dim

    def embed(self, texts: list[str]):
        if any("York" in t for t in texts) and "I moved to York." not in texts:
            raise ConnectionError("embedding service went away")
        return self.inner.embed(texts)


def test_an_add_alone_in_its_group_is_one_write_that_keeps_the_turn_whatever_fails(store, group, embedder):
    """An add with no pending episode in its group stores the turn and its facts in one write, with
    no claim; the same turn again is skipped (no second episode, no second fact); should the work
    after extraction fail, the turn is stored all the same (pending), and the next add extracts it first."""
    import pytest

    from kg_memory.memory import Memory
    from kg_memory.settings import Settings

    mem = Memory(store, settings=Settings(), embedder=embedder, owns_store=False)
    first = mem.add("I live in Leeds.", group=group, occurred_at="2024-01-01T10:00:00Z")
    assert (first.episodes_added, first.episodes_extracted, first.facts_added) == (1, 1, 1), first
    (ep,) = store.list_episodes(group, 10)
    assert ep.status == "done" and not store.claim_owners(group)
    again = mem.add("I live in Leeds.", group=group, occurred_at="2024-01-01T10:00:00Z")
    assert (again.episodes_added, again.episodes_skipped, again.facts_added) == (0, 1, 0), again
    assert store.counts(group)["episodes"] == 1 and len(store.list_facts(group, None)) == 1

    flaky = Memory(store, settings=Settings(), embedder=_FailingOnFacts(embedder), owns_store=False)
    with pytest.raises(ConnectionError):
        flaky.add("I moved to York.", group=group, occurred_at="2024-02-01T10:00:00Z")
    kept = [e for e in store.list_episodes(group, 10) if e.content == "I moved to York."]
    assert [e.status for e in kept] == ["pending"] and len(store.list_facts(group, None)) == 1
    later = mem.add("I love hiking.", group=group, occurred_at="2024-03-01T10:00:00Z")
    assert later.episodes_extracted == 2, later  # the pending turn first, in its order
    assert [f.object for f in store.list_facts(group, None) if f.predicate == "lives_in" and f.expired_at is None
            and f.valid_to is None] == ["York"]
    assert all(e.status == "done" for e in store.list_episodes(group, 10))
