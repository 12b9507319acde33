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


def _snapshot_rows(store: SQLiteStore, group: str) -> list[tuple[int, int]]:
    return store.conn.execute("SELECT part, seq FROM index_snapshots WHERE group_id = ? ORDER BY part",
                              (group,)).fetchall()


def _large_groups_from(monkeypatch, rows: int) -> None:
    """Treat groups of ``rows`` episodes as large (``SNAPSHOT_FROM``), with the pre-scan on any size
    and many code blocks and snapshot parts, so the paths of a 100k group run on a small one."""
    from kg_memory.store.index import vectors
    from kg_memory.store.sqlite import held, snapshots

    monkeypatch.setattr(vectors, "QUANTIZED_FROM", 0)
    monkeypatch.setattr(vectors, "QUANTIZE_BLOCK", 8)
    monkeypatch.setattr(held, "SNAPSHOT_FROM", rows)
    monkeypatch.setattr(snapshots, "PART_ROWS", 16)


def _filled(tmp_path: Path, embedder, n: int = 60) -> None:
    writer = SQLiteStore(tmp_path / "kg.db", dim=384)
    writer.migrate()
    mem = Memory(writer, settings=Settings(), embedder=embedder)
    for i in range(n):
        mem.add(f"Turn {i}: lunch with Ana at the harbour cafe number {i}.", group="a",
                occurred_at=f"2024-0{i % 9 + 1}-{i % 28 + 1:02d}T10:00:00Z")
    mem.add("I had lunch with Bo at the harbour cafe.", group="b", occurred_at="2024-01-01T10:00:00Z")
    mem.close()


QUERIES = ["where did I have lunch?", "harbour cafe 12", "Ana"]


def _answers(store: SQLiteStore, embedder, group: str = "a") -> list[list[str]]:
    reader = Memory(store, settings=Settings(), embedder=embedder, owns_store=False)
    return [[e.episode.id for e in reader.recall(q, group=group, k=5).episodes] for q in QUERIES]


def test_a_large_group_is_coded_on_a_thread_kept_as_a_snapshot_and_restored_with_the_same_answers(
        tmp_path: Path, embedder, monkeypatch):
    """A large group loaded whole gets its int8 codes on a thread (searches scan float32
    meanwhile), which then writes the group's snapshot; a new handle restores it, scores
    candidates with vectors read for them until its own are read (``settle``), and every
    recall on the way answers as a small-group store that coded at once."""
    import numpy as np

    from kg_memory.store.sqlite import held

    _filled(tmp_path, embedder)
    eager_store = SQLiteStore(tmp_path / "kg.db", dim=384)
    monkeypatch.setattr(held, "SNAPSHOT_FROM", 10**9)
    eager = _answers(eager_store, embedder)  # the plain load: coded at once, no snapshot
    assert eager_store._indexes.peek("a")[0].uncoded is None and not _snapshot_rows(eager_store, "a")

    _large_groups_from(monkeypatch, 10)
    loader = SQLiteStore(tmp_path / "kg.db", dim=384)
    first = _answers(loader, embedder)
    loader.settle()
    idx = loader._indexes.peek("a")[0]
    assert idx.uncoded is None and np.array_equal(idx.codes[:idx.n], eager_store._indexes.peek("a")[0].codes[:idx.n])
    parts = _snapshot_rows(loader, "a")
    assert len(parts) == 4 and {seq for _, seq in parts} == {idx.seq}  # 60 rows in parts of 16
    assert not _snapshot_rows(loader, "b")  # one episode: not large

    restored = SQLiteStore(tmp_path / "kg.db", dim=384)
    reads = _traced(restored)
    during = _answers(restored, embedder)
    ridx = restored._indexes.peek("a")[0]
    assert ridx.n == 60 and not any("e.embedding" in s for s in reads)  # no row nor vector read whole
    assert np.array_equal(ridx.codes[:60], idx.codes[:60]) and (ridx.qerr, ridx.qnorm) == (idx.qerr, idx.qnorm)
    restored.settle()
    assert ridx.fetch_vecs is None and np.array_equal(ridx.vecs[:60], eager_store._indexes.peek("a")[0].vecs[:60])
    after = _answers(restored, embedder)
    assert first == during == after == eager and all(eager)
    for s in (eager_store, loader, restored):
        s.close()


def test_a_restored_group_reads_what_changed_since_its_snapshot(tmp_path: Path, embedder, monkeypatch):
    """Turns added after a snapshot are read from the change log on restore; a snapshot too far
    behind is not restored (the group loads whole and writes a new one)."""
    from kg_memory.store.sqlite import held

    _large_groups_from(monkeypatch, 10)
    _filled(tmp_path, embedder)
    loader = SQLiteStore(tmp_path / "kg.db", dim=384)
    _answers(loader, embedder)
    loader.settle()
    (_, seq), *_ = _snapshot_rows(loader, "a")
    mem = Memory(loader, settings=Settings(), embedder=embedder, owns_store=False)
    mem.add("Turn 99: lunch with Ana at the harbour cafe number 12, again.", group="a",
            occurred_at="2024-05-05T10:00:00Z")
    (new,) = [e.id for e in loader.list_episodes("a", 100) if e.content.startswith("Turn 99")]
    restored = SQLiteStore(tmp_path / "kg.db", dim=384)
    got = Memory(restored, settings=Settings(), embedder=embedder, owns_store=False).recall(
        "harbour cafe number 12 again", group="a", k=3)
    assert new in [e.episode.id for e in got.episodes]
    assert restored._indexes.peek("a")[0].n == 61
    monkeypatch.setattr(held, "RESTORE_BEHIND_MAX", 0)  # now too far behind: loaded whole, snapshot rewritten
    again = SQLiteStore(tmp_path / "kg.db", dim=384)
    _answers(again, embedder)
    again.settle()
    assert again._indexes.peek("a")[0].fetch_vecs is None
    assert {s for _, s in _snapshot_rows(again, "a")} != {seq}
    for s in (loader, restored, again):
        s.close()


def test_a_snapshot_never_keeps_an_erased_episode(tmp_path: Path, embedder, monkeypatch):
    """Erasing an episode drops its group's snapshot (a trigger), a snapshot is not written over
    an episode deleted since the index it comes from was read, and one written after the erasure
    holds no row of it; a group swap drops both groups' snapshots."""
    import numpy as np

    _large_groups_from(monkeypatch, 10)
    _filled(tmp_path, embedder)
    store = SQLiteStore(tmp_path / "kg.db", dim=384)
    mem = Memory(store, settings=Settings(), embedder=embedder, owns_store=False)
    _answers(store, embedder)
    store.settle()
    assert _snapshot_rows(store, "a")
    (gone,) = [e for e in store.list_episodes("a", 100) if e.content.startswith("Turn 7:")]
    row = store.conn.execute("SELECT rowid FROM episodes WHERE id = ?", (gone.id,)).fetchone()[0]

    stale = SQLiteStore(tmp_path / "kg.db", dim=384)  # holds the group as it was before the erasure
    _answers(stale, embedder)
    mem.forget(episode=gone.id, group="a")
    assert not _snapshot_rows(store, "a")
    stale._after_search()
    stale._unsnapped.append(("a", stale._indexes.peek("a")[0]))
    stale.settle()  # its snapshot would hold the erased row: not written
    assert not _snapshot_rows(store, "a")

    fresh = SQLiteStore(tmp_path / "kg.db", dim=384)
    _answers(fresh, embedder)
    fresh.settle()
    bodies = [b for (b,) in store.conn.execute("SELECT body FROM index_snapshots WHERE group_id = 'a'")]
    from kg_memory.store.sqlite.snapshots import decode
    snap = decode(0, bodies, 384)
    assert snap is not None and snap.rows == 59 and row not in snap.keys.tolist()
    assert not np.isin(snap.keys, [row]).any()
    store.swap_groups("a", "b")
    assert not _snapshot_rows(store, "a") and not _snapshot_rows(store, "b")
    for s in (store, stale, fresh):
        s.close()


def test_closing_a_store_finishes_the_snapshot_it_began(tmp_path: Path, embedder, monkeypatch):
    """A one-shot process (a CLI recall) closes right after its first recall: the close waits
    for the snapshot being written, so the next process restores it."""
    _large_groups_from(monkeypatch, 10)
    _filled(tmp_path, embedder)
    once = SQLiteStore(tmp_path / "kg.db", dim=384)
    _answers(once, embedder)
    once.close()
    after = SQLiteStore(tmp_path / "kg.db", dim=384)
    assert len(_snapshot_rows(after, "a")) == 4
    _answers(after, embedder)
    assert after._indexes.peek("a")[0].n == 60
    after.close()
