"""The SQLite store's held indexes: each group's episodes and fact versions in memory (times,
codes and vectors, ``VectorIndex``), loaded once and then brought up to date from the change log,
which the store's searches filter through. Mixed into :class:`SQLiteStore`."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ...core.models import Episode, FactVersion
from ..index.cache import GroupCache
from ..index.vectors import NEG_INF_TIME, POS_INF_TIME, VectorIndex
from .rows import EP_COLS, FACT_COLS, chunks, doc_len, micros_array, stored_micros

LOAD_CHUNK = 4096  # rows read at a time on a first load: 6 MB of vectors, inside a core's cache share
# A first load of this many rows leaves the int8 codes to a background thread: coding 100k rows took
# a third of a cold group's first recall, whose search scans the float32 rows meanwhile (same answers).
DEFER_CODES_FROM = 50_000


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
    _coders: list[threading.Thread]  # threads giving first loads their codes (``_code_later``)
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
            for part in chunks(changed, 500):  # a row that left the group is gone from its index
                load(idx, f"@group_id = ? AND @rowid IN ({','.join('?' * len(part))})", (group_id, *part), part)
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
        whole 1.9 s (docs/benchmarks.md, "A cold group")."""
        cond = where.replace("@", "e.")
        count = self.conn.execute(f"SELECT COUNT(*) FROM episodes e WHERE {cond}", args).fetchone()[0]
        if not count:
            return
        idx.reserve(count)
        cur = self.conn.execute(
            "SELECT e.rowid, e.occurred_at, e.created_at, e.embedding, d.sz FROM episodes e "
            f"LEFT JOIN episodes_fts_docsize d ON d.id = e.rowid WHERE {cond}", args)
        zero = bytes(4 * self.dim)
        later = count >= DEFER_CODES_FROM
        while chunk := cur.fetchmany(LOAD_CHUNK):
            vecs = np.frombuffer(b"".join(r[3] if r[3] is not None else zero for r in chunk),
                                 dtype=np.float32).reshape(len(chunk), self.dim)
            times = [micros_array([r[1] for r in chunk]), micros_array([r[2] for r in chunk]),
                     np.fromiter((r[3] is not None for r in chunk), dtype=np.int64, count=len(chunk)),
                     np.fromiter((doc_len(r[4]) for r in chunk), dtype=np.int64, count=len(chunk))]
            idx.append([r[0] for r in chunk], vecs, times, code=not later)
        if later:
            self._code_later(idx)

    def _code_later(self, idx: VectorIndex) -> None:
        """Give a freshly loaded index its int8 codes on a thread, a block at a time under the
        store's lock, so searches run between blocks (on the float32 rows until the last)."""
        def run() -> None:
            more = True
            while more:
                with self._lock:
                    more = idx.code_pending()

        thread = threading.Thread(target=run, daemon=True, name="kgmem-sqlite-codes")
        with self._lock:
            self._coders = [t for t in self._coders if t.is_alive()] + [thread]
        thread.start()

    def settle(self) -> None:
        """Wait for the codes being given on threads (``_code_later``): from then on every held
        index searches with its int8 pre-scan. Answers are the same before and after."""
        with self._lock:
            coders = list(self._coders)
        for thread in coders:
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

