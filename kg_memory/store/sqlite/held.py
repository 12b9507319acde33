"""The SQLite store's held indexes: each group's episodes and fact versions in memory (times,
codes and vectors, ``VectorIndex``), loaded once and then brought up to date from the change log,
which the store's searches filter through. Mixed into :class:`SQLiteStore`."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, cast

import numpy as np

from ...core.models import Episode, FactVersion
from ..index.cache import GroupCache
from ..index.vectors import NEG_INF_TIME, POS_INF_TIME, VectorIndex, pre_scan_available
from .rows import (
    EP_COLS,
    FACT_COLS,
    chunks,
    doc_len,
    doc_lens,
    micros_array,
    stored_micros,
)
from .snapshots import decode, encode, taken

LOAD_CHUNK = 4096  # rows read at a time on a first load: 6 MB of vectors, inside a core's cache share
# A group of this many episodes keeps a snapshot of its held index (``snapshots.py``): reading 100k
# episodes' rows and vectors was most of a cold group's 535 ms first recall (docs/benchmarks.md, "The public
# path, round two").
SNAPSHOT_FROM = 50_000
RESTORE_BEHIND_MAX = 8_192  # a snapshot more rows behind the change log than this is not restored...
RESNAPSHOT_BEHIND = 2_048  # ...and one this far behind is written anew once restored
# Episodes of the group deleted or moved since a snapshot's position (a swap marks its rows -1): a snapshot
# is not written over them, so it never holds the codes of an erased episode.
_GONE_SINCE = ("SELECT COUNT(*) FROM changes c WHERE c.group_id = ? AND c.tbl = 'e' AND c.seq > ? AND (c.row < 0 "
               "OR NOT EXISTS (SELECT 1 FROM episodes e WHERE e.rowid = c.row AND e.group_id = c.group_id))")


class SQLiteHeld:
    """The held indexes of :class:`SQLiteStore`, which gives the connection and lock declared here."""

    conn: sqlite3.Connection
    dim: int
    _lock: threading.RLock
    _writes: int
    _entity_codes: dict[str, int]
    _predicate_codes: dict[str, int]
    _indexes: GroupCache[tuple[VectorIndex, VectorIndex]]
    _pruned_upto: Callable[[], int]
    _tx: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _fillers: list[threading.Thread]  # threads of ``_after_search``: restored vectors read, snapshots written
    _unfilled: list[VectorIndex]  # restored indexes whose vectors are not being read yet
    _unsnapped: list[tuple[str, VectorIndex]]  # loaded indexes whose group's snapshot is to be written
    _closing: bool
    _episode: Callable[[sqlite3.Row], Episode]
    _fact: Callable[[sqlite3.Row], FactVersion]

    def _episodes_by_rowid(self, idx: VectorIndex | None, rowids: list[int]) -> dict[int, Episode]:
        return cast(dict[int, Episode], self._by_rowid(idx, "episodes", rowids))

    def _stamp(self) -> tuple[int, int]:
        """Changes whenever this connection or another one commits."""
        return (self._writes, self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _changed_rows(self, group_id: str, tbl: str, idx: VectorIndex) -> list[int] | None:
        """The rows of the group to (re)load into ``idx``: None the first time (all of
        them), else those the change log lists since the index last read it. Moves ``idx.seq``."""
        seq = self.conn.execute("SELECT MAX(seq) FROM changes WHERE group_id = ?", (group_id,)).fetchone()[0] or 0
        if idx.seq is not None and idx.seq < self._pruned_upto():  # the log no longer reaches back to it
            idx.clear()
        if idx.seq is None:
            idx.seq = seq
            return None
        rows = [r[0] for r in self.conn.execute(
            "SELECT DISTINCT row FROM changes WHERE group_id = ? AND tbl = ? AND seq > ? AND seq <= ?",
            (group_id, tbl, idx.seq, seq))]
        idx.seq = seq
        if any(r < 0 for r in rows):  # the group's rows were exchanged (swap_groups): every row, old and new
            table = "episodes" if tbl == "e" else "facts"
            now = [r[0] for r in self.conn.execute(f"SELECT rowid FROM {table} WHERE group_id = ?", (group_id,))]
            return sorted({*(k for k in idx.keys if isinstance(k, int)), *now})
        return rows

    def _held_index(self, group_id: str, tbl: str) -> VectorIndex | None:
        """The group's episode ("e") or fact ("f") index brought up to date when this
        process already holds it loaded (a recall made it), else None: a read that
        only wants its rows cached need not load the whole group."""
        held = self._indexes.peek(group_id)
        if held is None:
            return None
        idx = held[0] if tbl == "e" else held[1]
        if idx.seq is None:
            return None
        return self._refresh(group_id, tbl, idx, self._load_episodes if tbl == "e" else self._load_facts)

    def preload(self, group_id: str) -> None:
        with self._lock:
            self._episode_index(group_id)
            self._facts_index(group_id)

    def _episode_index(self, group_id: str) -> VectorIndex:
        """Every episode of the group in memory: times, whether it has a vector
        yet, and the vector. Vector and text search filter through it. After a
        write it reads only the rows the change log names for this group."""
        with self._lock:
            idx = self._indexes.get(group_id, self._new_indexes)[0]
            if idx.seq is None:
                self._restore(group_id, idx)
            return self._refresh(group_id, "e", idx, self._load_episodes)

    def _refresh(self, group_id: str, tbl: str, idx: VectorIndex,
                 load: Callable[[VectorIndex, str, tuple[Any, ...], list[int]], None]) -> VectorIndex:
        """Bring a group's index up to date: nothing when no one committed, nothing
        when the commits were another group's, else ``load`` the rows the change log names."""
        stamp = self._stamp()
        if stamp == idx.stamp:
            return idx
        changed = self._changed_rows(group_id, tbl, idx)
        if changed is None:
            load(idx, "@group_id = ?", (group_id,), [])
        elif changed:
            for part in chunks(changed, 500):  # a row that left the group is gone from its index; the unary
                # plus keeps the planner on the rowids (it chose the group's index, reading the group whole)
                load(idx, f"+@group_id = ? AND @rowid IN ({','.join('?' * len(part))})", (group_id, *part), part)
            idx.postings.changed(changed)
            idx.rows.drop(changed)
        idx.stamp = stamp
        return idx

    def _load_episodes(self, idx: VectorIndex, where: str, args: tuple[Any, ...], asked: list[int]) -> None:
        if idx.n == 0 and not asked:
            self._first_load_episodes(idx, where, args)
            return
        rows = self.conn.execute(
            "SELECT e.rowid, e.occurred_at, e.created_at, e.embedding IS NOT NULL, d.sz FROM episodes e "
            f"LEFT JOIN episodes_fts_docsize d ON d.id = e.rowid WHERE {where.replace('@', 'e.')}", args).fetchall()
        hasvec = idx.times["hasvec"]
        blobs = self._embeddings("episodes", [r[0] for r in rows if r[3] and (
            r[0] not in idx.pos or not hasvec[idx.pos[r[0]]])])
        zero = bytes(4 * self.dim)
        idx.upsert((r[0], blobs[r[0]] if r[0] in blobs else (None if r[0] in idx.pos else zero),
                    (stored_micros(r[1], 0), stored_micros(r[2], 0), int(r[3]), doc_len(r[4]))) for r in rows)
        gone = set(asked) - {r[0] for r in rows}  # deleted: never visible again
        idx.upsert((g, None, (POS_INF_TIME, POS_INF_TIME, 0, 0)) for g in gone)

    def _first_load_episodes(self, idx: VectorIndex, where: str, args: tuple[Any, ...]) -> None:
        """A group's first load, in bulk: the rows counted, room for them made once, then read in
        chunks with their vectors (times parsed as arrays, each chunk appended and quantised while
        it is in the CPU's cache). The row-by-row path took 3.9 s for 100k episodes, one query read
        whole 1.9 s (docs/benchmarks.md, "A cold group"). A large group's rows are given their int8
        codes on a thread (coding 100k rows took a third of the load; searches scan the float32 rows
        meanwhile, with the same answers), which then writes the group's snapshot."""
        cond = where.replace("@", "e.")
        count = self.conn.execute(f"SELECT COUNT(*) FROM episodes e WHERE {cond}", args).fetchone()[0]
        if not count:
            return
        idx.reserve(count)
        cur = self._plain().execute(
            "SELECT e.rowid, e.occurred_at, e.created_at, e.embedding, d.sz FROM episodes e "
            f"LEFT JOIN episodes_fts_docsize d ON d.id = e.rowid WHERE {cond}", args)
        zero = bytes(4 * self.dim)
        large = count >= SNAPSHOT_FROM and where == "@group_id = ?" and pre_scan_available()
        while chunk := cur.fetchmany(LOAD_CHUNK):
            vecs = np.frombuffer(b"".join(r[3] if r[3] is not None else zero for r in chunk),
                                 dtype=np.float32).reshape(len(chunk), self.dim)
            times = [micros_array([r[1] for r in chunk]), micros_array([r[2] for r in chunk]),
                     np.fromiter((r[3] is not None for r in chunk), dtype=np.int64, count=len(chunk)),
                     doc_lens(tuple(r[4] for r in chunk))]
            idx.append([r[0] for r in chunk], vecs, times, code=not large)
        if large:
            self._unsnapped.append((args[0], idx))

    def _restore(self, group_id: str, idx: VectorIndex) -> None:
        """Fill a group's empty episode index from the group's snapshot, when there is one the change
        log still reaches back to and not too far behind it; the refresh that follows reads the rows
        changed since. Its float32 vectors are read later (``_after_search``)."""
        row = self.conn.execute("SELECT seq FROM index_snapshots WHERE group_id = ? AND part = 0",
                                (group_id,)).fetchone()
        if row is None or row[0] < self._pruned_upto() or not pre_scan_available():
            return
        seq = row[0]
        behind = self.conn.execute("SELECT COUNT(DISTINCT row) FROM changes WHERE group_id = ? AND tbl = 'e' "
                                   "AND seq > ?", (group_id, seq)).fetchone()[0]
        if behind > RESTORE_BEHIND_MAX:
            return
        bodies = [r[0] for r in self._plain().execute(
            "SELECT body FROM index_snapshots WHERE group_id = ? AND seq = ? ORDER BY part", (group_id, seq))]
        snap = decode(seq, bodies, self.dim)
        if snap is None:
            return
        idx.restore(snap.keys, snap.times, snap.codes, snap.qscale, (snap.qerr, snap.qnorm), self._float_rows)
        idx.seq = seq
        self._unfilled.append(idx)
        if behind >= RESNAPSHOT_BEHIND:
            self._unsnapped.append((group_id, idx))

    def _plain(self) -> sqlite3.Cursor:
        """A cursor giving plain tuples: a bulk load built an ``sqlite3.Row`` per row for nothing
        (100k rows: 136 ms against 88)."""
        cur = self.conn.cursor()
        cur.row_factory = None
        return cur

    def _float_rows(self, keys: list[object]) -> np.ndarray:
        """The stored float32 vectors of these episode rows, in order (zeros for a row without one)."""
        with self._lock:
            blobs = self._embeddings("episodes", cast(list[int], keys))
        zero = bytes(4 * self.dim)
        return np.frombuffer(b"".join(blobs.get(cast(int, k)) or zero for k in keys),
                             dtype=np.float32).reshape(len(keys), self.dim)

    def _after_search(self) -> None:
        """Start the work a search's loads left, each on a thread started once that search has
        answered (so the two do not share the cores): the float32 vectors of restored indexes, read
        a chunk at a time under the store's lock (searches run between chunks), and the snapshots
        of large groups loaded whole (given their codes first) or restored from an old one."""
        with self._lock:
            restored, self._unfilled = ([] if self._closing else self._unfilled), []
            loaded, self._unsnapped = self._unsnapped, []
        for idx in restored:
            self._start(self._filler(idx), "kgmem-sqlite-vectors")
        for group_id, idx in loaded:
            self._start(self._snapshotter(group_id, idx), "kgmem-sqlite-snapshot")

    def _start(self, run: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=run, daemon=True, name=name)
        with self._lock:
            self._fillers = [t for t in self._fillers if t.is_alive()] + [thread]
        thread.start()

    def _snapshotter(self, group_id: str, idx: VectorIndex) -> Callable[[], None]:
        """Give a loaded index its codes, a block at a time under the store's lock (searches run between
        blocks), then write the group's snapshot from it: its rows but those deleted (whose codes it
        keeps in memory only), unless an episode of the group left it since (``_GONE_SINCE``)."""
        def run() -> None:
            more = True
            while more:
                with self._lock:
                    more = idx.code_pending()
            with self._lock:
                held = self._indexes.peek(group_id)
                if idx.seq is None or held is None or held[0] is not idx:  # dropped, or loaded again
                    return
                snap = taken(idx, keep=idx.times["occurred"][:idx.n] != POS_INF_TIME)
            bodies = encode(snap)
            try:
                with self._tx() as c:
                    if snap.seq < self._pruned_upto() or c.execute(_GONE_SINCE, (group_id, snap.seq)).fetchone()[0]:
                        return
                    c.execute("DELETE FROM index_snapshots WHERE group_id = ?", (group_id,))
                    c.executemany("INSERT INTO index_snapshots (group_id, part, seq, body) VALUES (?, ?, ?, ?)",
                                  [(group_id, i, snap.seq, b) for i, b in enumerate(bodies)])
            except sqlite3.Error:  # closed, or busy past the timeout: a later load writes it
                return
        return run

    def _filler(self, idx: VectorIndex) -> Callable[[], None]:
        """Read a restored index's float32 vectors into it, then let its searches use them; stop when
        the index was dropped or loaded again, or the store closed."""
        token, keys = idx.fetch_vecs, list(idx.keys)

        def run() -> None:
            for part in chunks(keys, LOAD_CHUNK):
                with self._lock:
                    if idx.fetch_vecs is not token or self._closing:
                        return
                    try:
                        vecs = self._float_rows(part)
                    except sqlite3.ProgrammingError:  # closed
                        return
                    idx.vecs[[idx.pos[k] for k in part]] = vecs
            with self._lock:
                if idx.fetch_vecs is token:
                    idx.fetch_vecs = None
        return run

    def settle(self) -> None:
        """Wait for the work on threads (``_after_search``): from then on every held index scores
        with the vectors it holds, and the snapshots are written. Answers are the same before and after."""
        self._after_search()
        with self._lock:
            fillers = list(self._fillers)
        for thread in fillers:
            thread.join()

    def _code(self, table: dict[str, int], value: str) -> int:
        code = table.get(value)
        if code is None:
            code = table[value] = len(table) + 1
        return code

    def _facts_index(self, group_id: str) -> VectorIndex:
        """Every fact version of the group in memory: its times, its subject,
        object and predicate (as small integer codes) and its vector. Visibility
        and entity filters are then vectorised masks over a few arrays, so a
        subject with a long history costs a mask, not a scan of its rows. After a
        write it reads only the rows the change log names for this group."""
        with self._lock:
            idx = self._indexes.get(group_id, self._new_indexes)[1]
            return self._refresh(group_id, "f", idx, self._load_facts)

    def _load_facts(self, idx: VectorIndex, where: str, args: tuple[Any, ...], asked: list[int]) -> None:
        rows = self.conn.execute(
            "SELECT f.rowid, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.subject_id, f.object_id, "
            "f.predicate, f.embedding IS NOT NULL, d.sz FROM facts f "
            f"LEFT JOIN facts_fts_docsize d ON d.id = f.rowid WHERE {where.replace('@', 'f.')}", args).fetchall()
        blobs = self._embeddings("facts", [r[0] for r in rows if r[0] not in idx.pos and r[8]])
        zero = bytes(4 * self.dim)
        idx.upsert((r[0], None if r[0] in idx.pos else blobs.get(r[0], zero),
                    (stored_micros(r[1], NEG_INF_TIME), stored_micros(r[2], POS_INF_TIME), stored_micros(r[3], 0),
                     stored_micros(r[4], POS_INF_TIME), self._code(self._entity_codes, r[5]),
                     self._code(self._entity_codes, r[6]), self._code(self._predicate_codes, r[7]),
                     int(r[8]), doc_len(r[9]))) for r in rows)
        gone = set(asked) - {r[0] for r in rows}  # deleted: never believed again
        idx.upsert((g, None, (0, 0, POS_INF_TIME, 0, 0, 0, 0, 0, 0)) for g in gone)

    def _embeddings(self, table: str, rowids: list[int]) -> dict[int, bytes]:
        """The stored vectors of these rows, read in chunks."""
        assert table in ("episodes", "facts")  # never input
        out: dict[int, bytes] = {}
        for chunk in chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            out.update(self.conn.execute(f"SELECT rowid, embedding FROM {table} WHERE rowid IN ({marks})",
                                         chunk).fetchall())
        return out

    def _new_indexes(self) -> tuple[VectorIndex, VectorIndex]:
        return (VectorIndex(self.dim, ("occurred", "created", "hasvec", "dl")),
                VectorIndex(self.dim, ("vf", "vt", "created", "expired", "subj", "obj", "pred", "hasvec", "dl")))

    def _facts_by_rowid(self, idx: VectorIndex | None, rowids: list[int]) -> dict[int, FactVersion]:
        return cast(dict[int, FactVersion], self._by_rowid(idx, "facts", rowids))

    def _by_rowid(self, idx: VectorIndex | None, table: str, rowids: list[int]) -> dict[int, object]:
        """The group's rows of ``table`` at these rowids, built once and then kept beside
        its index (``RowCache``; none given: built and not kept)."""
        cols, build = {"episodes": (EP_COLS, self._episode), "facts": (FACT_COLS, self._fact)}[table]
        wanted = list(dict.fromkeys(rowids))
        with self._lock:
            found, missing = idx.rows.split(wanted) if idx is not None else ({}, wanted)
            fresh: dict[int, object] = {}
            for chunk in chunks(missing, 500):
                marks = ",".join("?" * len(chunk))
                for r in self.conn.execute(f"SELECT rowid, {cols} FROM {table} WHERE rowid IN ({marks})", chunk):
                    fresh[r["rowid"]] = build(r)
            if idx is not None:
                idx.rows.put(fresh)
        return found | fresh

