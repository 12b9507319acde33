"""The SQLite store's in-memory group indexes follow writes incrementally: a
write to one group costs another group's next read nothing, and a write to the
same group reads only the rows it changed. Observed through the SQL the store
runs (a trace), on a real file with a real model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from kg_memory.core.timeutil import FixedClock
from kg_memory.memory import Memory
from kg_memory.settings import Settings
from kg_memory.store.base import TimeFilter, WriteBatch
from kg_memory.store.sqlite import SQLiteStore


def _traced(store: SQLiteStore) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    return seen


def test_writes_to_another_group_cost_nothing_and_same_group_writes_are_incremental(tmp_path: Path, embedder):
    store = SQLiteStore(tmp_path / "kg.db", dim=384, max_groups=2)
    store.migrate()
    clock = FixedClock(datetime(2025, 1, 1, tzinfo=UTC))
    mem = Memory(store, settings=Settings(), embedder=embedder, clock=clock)
    for i in range(30):
        mem.add(f"Turn {i}: I went hiking near lake {i}.", group="a", occurred_at=f"2024-01-{i % 28 + 1:02d}T10:00:00Z")
    mem.add("I live in Leeds.", group="b", occurred_at="2024-02-01T10:00:00Z")
    assert "Leeds" not in mem.recall("where do I live?", group="a").context_block()

    seen = _traced(store)
    clock.advance(timedelta(minutes=1))
    mem.add("I moved to York.", group="b", occurred_at="2024-03-01T10:00:00Z")  # another group
    seen.clear()
    mem.recall("lake hiking", group="a")
    full = [s for s in seen if "WHERE e.group_id" in s or "WHERE f.group_id" in s]
    reread = [s for s in seen if "FROM episodes e LEFT JOIN" in s or "FROM facts f LEFT JOIN" in s]
    assert full == [] and reread == []  # group a's index was not touched by b's write

    mem.add("I moved to Bath.", group="a", occurred_at="2024-04-01T10:00:00Z")  # the same group
    seen.clear()
    res = mem.recall("where do I live?", group="a")
    assert res.facts and res.facts[0].fact.object == "Bath"  # the new row is in the index
    reread = [s for s in seen if "FROM episodes e LEFT JOIN" in s]
    assert reread and all("e.rowid IN (" in s for s in reread)  # only the changed rows, never the whole group
    listed = [s.split("e.rowid IN (", 1)[1].split(")", 1)[0].split(",") for s in reread]
    assert max(len(rows) for rows in listed) == 1  # one turn added: one row read

    mem.recall("anything", group="b")
    mem.recall("anything", group="c")  # a third group: the least recently used index (a) is dropped
    assert store._indexes.groups() == ["b", "c"]
    assert mem.recall("where do I live?", group="a").facts[0].fact.object == "Bath"  # rebuilt on demand


def test_the_change_log_is_pruned_and_an_index_behind_the_cut_reloads(tmp_path: Path, embedder):
    """Two processes' worth of stores on one file. The writer keeps a short change log; the
    reader's index of the group last read the log before the writer cut it, so it reloads the
    group, and sees what another index built from nothing sees, erased rows included."""
    writer = SQLiteStore(tmp_path / "kg.db", dim=384, changes_kept=20)
    writer.migrate()
    reader = SQLiteStore(tmp_path / "kg.db", dim=384)
    clock = FixedClock(datetime(2025, 1, 1, tzinfo=UTC))
    w = Memory(writer, settings=Settings(), embedder=embedder, clock=clock)
    r = Memory(reader, settings=Settings(), embedder=embedder, clock=clock)
    w.add("I live in Leeds.", group="a", occurred_at="2024-01-01T10:00:00Z")
    w.add("I work at Acme.", group="a", occurred_at="2024-01-02T10:00:00Z")
    assert r.recall("where do I live?", group="a").facts[0].fact.object == "Leeds"  # the reader's index is built
    for i in range(12):
        w.add(f"Turn {i}: I went hiking near lake {i}.", group="a", occurred_at=f"2024-02-{i + 1:02d}T10:00:00Z")
    w.add("I moved to York.", group="a", occurred_at="2024-03-01T10:00:00Z")
    (acme,) = [e.id for e in writer.list_episodes("a", 100) if "Acme" in e.content]
    w.forget(episode=acme, group="a")
    clock.advance(timedelta(minutes=1))

    kept = writer.conn.execute("SELECT COUNT(*), MIN(seq) FROM changes").fetchone()
    assert kept[0] <= 20 + 2 + 40 and writer._pruned_upto() >= kept[1] - 1 > 0  # cut, in steps
    seen = _traced(reader)
    got = r.recall("where do I live and work?", group="a", k=20)
    assert any("WHERE e.group_id" in s for s in seen)  # behind the cut: the whole group was read again
    fresh = Memory(SQLiteStore(tmp_path / "kg.db", dim=384), settings=Settings(), embedder=embedder, clock=clock)
    want = fresh.recall("where do I live and work?", group="a", k=20)
    assert [s.episode.id for s in got.episodes] == [s.episode.id for s in want.episodes]
    assert [f.fact.id for f in got.facts] == [f.fact.id for f in want.facts]
    assert got.facts[0].fact.object == "York" and "Acme" not in got.context_block()
    for m in (w, r, fresh):
        m.close()


def _reads_of(seen: list[str], table: str) -> list[str]:
    return [s for s in seen if f"FROM {table} WHERE rowid IN" in s]


def test_built_rows_and_term_postings_are_reused_and_follow_every_change(tmp_path: Path, embedder):
    """A repeated recall reads no rows and no postings again; then each kind of change a read
    can see (a body rewritten by archiving, a status, provenance cut by erasure) reaches the
    cached rows and postings, through the change log, and matches what a fresh store reads."""
    store = SQLiteStore(tmp_path / "kg.db", dim=384)
    store.migrate()
    clock = FixedClock(datetime(2025, 1, 1, tzinfo=UTC))
    mem = Memory(store, settings=Settings(), embedder=embedder, clock=clock)
    mem.add("I went hiking near the lake.", group="a", occurred_at="2024-01-01T10:00:00Z")
    mem.add("I live in Leeds.", group="a", occurred_at="2024-01-02T10:00:00Z")
    mem.add("Yes, I live in Leeds.", group="a", occurred_at="2024-01-03T10:00:00Z")
    first = mem.recall("lake hiking, where do I live?", group="a")

    seen = _traced(store)
    again = mem.recall("lake hiking, where do I live?", group="a")
    assert [s.episode.id for s in again.episodes] == [s.episode.id for s in first.episodes]
    assert not any("group_concat(rowid)" in s for s in seen)  # every term's postings from the cache
    assert not _reads_of(seen, "episodes") and not _reads_of(seen, "facts")  # every row already built

    now = datetime(2025, 1, 2, tzinfo=UTC)
    tf = TimeFilter(as_of=now, known_at=now)
    (lake,) = [e for e in store.list_episodes("a", 10) if "lake" in e.content]
    store.set_bodies("a", [(lake.id, "Archived: a walk by the mountain.", "ref-1")])  # as archiving does
    seen.clear()
    assert lake.id not in dict(store.search("a", "lake", None, 10, tf).episode_text)
    rechecked = [s for s in seen if "MATCH" in s]
    assert rechecked and all("AND rowid = " in s for s in rechecked)  # one row checked, not the term read again
    hits = store.search("a", "mountain walk", None, 10, tf)
    assert lake.id in dict(hits.episode_text)
    assert hits.episodes[lake.id].content == "Archived: a walk by the mountain."
    assert hits.episodes[lake.id].archive_ref == "ref-1"

    store.write(WriteBatch(statuses=[("a", lake.id, "failed", "re-extraction failed")]))
    assert store.search("a", "mountain", None, 10, tf).episodes[lake.id].status == "failed"

    leeds = [f for f, _ in store.search("a", "Leeds", None, 10, tf).fact_text if f.predicate == "lives_in"]
    assert leeds and len(leeds[0].episode_ids) == 2  # restated: two turns support it, now cached
    (restated,) = [e.id for e in store.list_episodes("a", 10) if e.content.startswith("Yes")]
    mem.forget(episode=restated, group="a")  # erasure rewrites the version's provenance in place
    fresh = SQLiteStore(tmp_path / "kg.db", dim=384)
    for s in (store, fresh):
        (fact,) = [f for f, _ in s.search("a", "Leeds", None, 10, tf).fact_text if f.predicate == "lives_in"]
        assert fact.episode_ids == tuple(i for i in leeds[0].episode_ids if i != restated)
    assert store.search("a", "live Leeds lake mountain", None, 10, tf) == fresh.search(
        "a", "live Leeds lake mountain", None, 10, tf)
    mem.close()
    fresh.close()


def test_a_large_first_load_codes_on_a_thread_and_answers_the_same(tmp_path: Path, embedder, monkeypatch):
    """A group loaded whole for the first time gives its rows their int8 codes on a thread
    (``DEFER_CODES_FROM``): the recall that loaded it, those made while the codes are given and
    those after (``settle``) return the same as a store that coded them at once."""
    import numpy as np

    from kg_memory.store.index import vectors
    from kg_memory.store.sqlite import held

    monkeypatch.setattr(vectors, "QUANTIZED_FROM", 0)  # the pre-scan on any size
    monkeypatch.setattr(vectors, "QUANTIZE_BLOCK", 8)  # many blocks: searches fall between them
    writer = SQLiteStore(tmp_path / "kg.db", dim=384)
    writer.migrate()
    mem = Memory(writer, settings=Settings(), embedder=embedder)
    for i in range(60):
        mem.add(f"Turn {i}: lunch with Ana at the harbour cafe number {i}.", group="a",
                occurred_at=f"2024-0{i % 9 + 1}-{i % 28 + 1:02d}T10:00:00Z")
    mem.close()
    queries = ["where did I have lunch?", "harbour cafe 12", "Ana"]

    def answers(defer_from: int) -> tuple[list[list[str]], SQLiteStore]:
        monkeypatch.setattr(held, "DEFER_CODES_FROM", defer_from)
        store = SQLiteStore(tmp_path / "kg.db", dim=384)
        reader = Memory(store, settings=Settings(), embedder=embedder, owns_store=False)
        out = [[e.episode.id for e in reader.recall(q, group="a", k=5).episodes] for q in queries]
        return out, store

    eager, eager_store = answers(10**9)
    assert eager_store._indexes.peek("a")[0].uncoded is None  # coded while loading
    deferred, store = answers(0)
    idx = store._indexes.peek("a")[0]
    store.settle()
    assert idx.uncoded is None and np.array_equal(idx.codes[:idx.n], eager_store._indexes.peek("a")[0].codes[:idx.n])
    after = [[e.episode.id for e in Memory(store, settings=Settings(), embedder=embedder, owns_store=False)
              .recall(q, group="a", k=5).episodes] for q in queries]
    assert deferred == eager == after and all(eager)
    eager_store.close()
    store.close()
