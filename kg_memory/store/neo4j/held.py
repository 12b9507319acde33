"""A group's episode and fact vectors held in the client of a server store
(Neo4j), so a recall's vector searches are in-process scans (``VectorIndex``)
and not server queries. The server keeps a log per group: a sequence number
that every write changing the group's vectors moves, the last position at
which episode vectors and fact versions changed, and a reset point after
which every row must be read again. The owner reads it (``VectorLog``) and
hands each index the rows written since ``GroupVectors.seq``. Plain data
structures, tested on their own (tests/unit/test_client_index.py)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from ...core.temporal import EPISODE_VISIBLE, FACT_VISIBLE, Bound
from ...errors import StoreError
from ..index.cache import GroupCache
from ..index.vectors import VectorIndex
from ..timefilter import NEG_INF_TIME, POS_INF_TIME, numpy_mask
from .keys import describe

log = logging.getLogger(__name__)

# A row as the server sends it: the id, its time columns in microseconds since 1970 (None: an
# open end), and the vector (float32 bytes, or a list of numbers from a store written before them).
Row = tuple  # (id, *times, bytes | Sequence[float])

EPISODE_COLUMNS = ("occurred", "created")
FACT_COLUMNS = ("vf", "vt", "created", "expired")
_OPEN = {"vf": NEG_INF_TIME, "vt": POS_INF_TIME, "expired": POS_INF_TIME}  # the columns that may be open


class VectorLog(NamedTuple):
    """A group's log as the server keeps it (cypher/vector_log_get.cypher)."""
    seq: int  # moved by every write that changed the group's vectors
    reset: int  # the last position after which every row must be read again (erasure, group swap)
    episodes: int  # the last position at which an episode vector changed
    facts: int  # the last position at which a fact version was written or expired


class HeldVectors:
    """One kind of row (episodes or fact versions): vectors, time columns, and the
    visibility rule of the temporal core, compiled to a numpy mask."""

    def __init__(self, dim: int, columns: tuple[str, ...], rule: tuple[Bound, ...], kind: str):
        self.dim = dim
        self.columns = columns
        self.rule = rule
        self.kind = kind
        self.index = VectorIndex(dim, columns)
        self.ids: list[str] = []  # the integer key of a row is its place here
        self.keys: dict[str, int] = {}

    def __len__(self) -> int:
        return self.index.n

    def apply(self, rows: Iterable[Row]) -> None:
        """Add or replace rows. Rows are keyed in the order given, and ties in a search
        go by key: the owner sends a full load in id order."""
        fresh: list[Row] = []
        changed = []
        width = len(self.columns)
        for r in rows:
            key = self.keys.get(r[0])
            if key is None:
                fresh.append(r)
            else:
                changed.append((key, self._blob(r[-1]), self._times(r[1: 1 + width])))
        self.index.upsert(changed)
        first = len(self.ids)
        self.ids.extend(r[0] for r in fresh)
        self.keys.update((r[0], first + i) for i, r in enumerate(fresh))
        vecs = np.frombuffer(b"".join(self._blob(r[-1]) for r in fresh), dtype=np.float32).reshape(-1, self.dim)
        self.index.append(range(first, len(self.ids)), vecs,
                          [np.fromiter((self._time(c, r[1 + j]) for r in fresh), np.int64, len(fresh))
                           for j, c in enumerate(self.columns)])

    def set_time(self, rid: str, column: str, value: int) -> None:
        """Change one time column of a held row (a version's expiry), keeping its vector and the
        other columns; a row not held (one without a vector) is left alone."""
        key = self.keys.get(rid)
        if key is None:
            return
        pos = self.index.pos[key]
        times = tuple(value if c == column else int(self.index.times[c][pos]) for c in self.columns)
        self.index.upsert([(key, None, times)])

    def search(self, vector: np.ndarray, k: int, as_of: object, known_at: object) -> list[tuple[str, float]]:
        """The k rows visible at (as_of, known_at) nearest ``vector``, best first."""
        seen = numpy_mask(self.rule, as_of, known_at)
        return [(self.ids[key], s) for key, s in self.index.search(vector, k, seen)]

    def similarity(self, vector: np.ndarray, ids: Iterable[str]) -> dict[str, float]:
        """The cosine of ``vector`` with the held rows among ``ids``."""
        keys = [self.keys[i] for i in ids if i in self.keys]
        return {self.ids[key]: s for key, s in self.index.similarity(vector, keys).items()}

    def _times(self, values: Sequence[int | None]) -> tuple[int, ...]:
        return tuple(self._time(c, v) for c, v in zip(self.columns, values, strict=True))

    @staticmethod
    def _time(column: str, value: int | None) -> int:
        if value is not None:
            return int(value)
        if column not in _OPEN:
            raise StoreError(f"the store holds a row without its {column} time; run `kgmem migrate`")
        return _OPEN[column]

    def _blob(self, vec: bytes | Sequence[float]) -> bytes:
        if isinstance(vec, bytes | bytearray):
            if len(vec) != 4 * self.dim:
                raise StoreError(f"the store holds {self.kind} vector of {len(vec) // 4} dimensions where kgmem "
                                 f"uses {self.dim}; use the embedder the store was written with")
            return bytes(vec)
        arr = np.asarray(vec, dtype=np.float32)
        if arr.shape != (self.dim,):
            raise StoreError(f"the store holds {self.kind} vector of shape {arr.shape} where kgmem uses "
                             f"{self.dim} dimensions; use the embedder the store was written with")
        return arr.tobytes()


class GroupVectors:
    """A group's held episode and fact vectors, current to one log position."""

    def __init__(self, dim: int):
        self.episodes = HeldVectors(dim, EPISODE_COLUMNS, EPISODE_VISIBLE, "an episode")
        self.facts = HeldVectors(dim, FACT_COLUMNS, FACT_VISIBLE, "a fact")
        self.seq: int | None = None  # the log position the rows are current to (None: never loaded)

    def must_reload(self, log: VectorLog) -> bool:
        """Whether every row must be read again: never loaded, the log was reset since the
        rows were read, or it went back (a store recreated under the same name)."""
        return self.seq is None or log.reset > self.seq or log.seq < self.seq

    def behind(self, log: VectorLog) -> tuple[bool, bool]:
        """Whether episode rows, and fact rows, were written after ``self.seq`` (read those
        since it, then ``advance``); neither when the log did not move."""
        at = -1 if self.seq is None else self.seq
        return log.episodes > at, log.facts > at

    def advance(self, seq: int) -> None:
        self.seq = seq

    def write_through(self, seq: int, episodes: list[Row], facts: list[Row], expiries: list[tuple[str, int]]
                      ) -> bool:
        """Apply a write that this process committed at log position ``seq``: episode rows,
        new fact versions, then expiries as (version id, expired_at). Only when the rows are
        current to the position just before it; else (another writer came between) nothing,
        and the next search catches up from the log."""
        if self.seq is None or self.seq != seq - 1:
            return False
        self.episodes.apply(episodes)
        self.facts.apply(facts)
        for rid, at in expiries:
            self.facts.set_time(rid, "expired", at)
        self.advance(seq)
        return True



class _Closed(Exception):
    """The store was closed while a load ran."""


# A group's vectors come into the process at its second search: a CLI recall searches once, and a
# first load of 100k episodes takes seconds (docs/benchmarks.md, #11, round twelve).
HOLD_VECTORS_AFTER = 2
# A first read goes in pages of this many rows (30 MB of 384-dimensional vectors): one answer of a
# 1M-episode group outlived the connection (docs/benchmarks.md, #36, round five).
LOAD_PAGE_ROWS = 20_000
CLOSE_WAIT_S = 30.0  # how long a close waits for a load to stop: a page of 20,000 rows reads in about 2 s


class HeldGroups:
    """Which groups' vectors this process holds, and when it starts to hold them: the groups in
    an LRU of ``max_groups``, each kept current through the group's log. ``read_rows(name,
    **params)`` runs a vector query and ``read_log(group)`` reads the group's log, both on the
    server; a load runs on a thread (``background``) while the server answers the searches."""

    def __init__(self, dim: int, max_groups: int, read_rows: Callable[..., list[Row]],
                 read_log: Callable[[str], VectorLog], hold_after: int = HOLD_VECTORS_AFTER,
                 background: bool = True, page_rows: int = LOAD_PAGE_ROWS):
        self.dim = dim
        self.hold_after = hold_after
        self.page_rows = page_rows
        self.background = background
        self._read_rows = read_rows
        self._read_log = read_log
        self._groups: GroupCache[GroupVectors] = GroupCache(max_groups)
        self._lock = threading.Lock()
        self._searches: dict[str, int] = {}  # searches of a group whose vectors are not held
        self._loading: set[str] = set()  # groups whose vectors load in the background
        self._loaders: list[threading.Thread] = []  # their threads (``settle`` waits for them)
        self._closed = threading.Event()  # set by ``close``: a load stops at its next page

    @property
    def enabled(self) -> bool:
        return self.hold_after > 0

    def peek(self, group_id: str) -> GroupVectors | None:
        """The held vectors as they are, not brought up to date (None: not held)."""
        with self._lock:
            return self._groups.peek(group_id)

    def loading(self, group_id: str) -> bool:
        with self._lock:
            return group_id in self._loading

    def preload(self, group_id: str) -> None:
        """Hold the group's vectors now, so its searches run here from the next one on: wait for a load of
        it already running, else read them unless they are held."""
        if not self.enabled:
            return
        if self.loading(group_id):
            self.settle()
        if self.peek(group_id) is None:
            self.load(group_id)

    def close(self) -> None:
        """Stop the loads running in the background (each at its next page) and wait for them, a page's time
        at most: a read still running then ends when the store closes its driver."""
        self._closed.set()
        self.settle(timeout=CLOSE_WAIT_S)

    def current(self, group_id: str) -> GroupVectors | None:
        """The group's vectors when this process holds them, brought up to date (one small read
        of the group's log when nothing changed; the rows written since when a write did). None
        when they are not held, or an erasure or a group swap made them stale: the server
        answers, and a load starts (``_start_load``)."""
        if not self.enabled:
            return None
        if self.peek(group_id) is None:
            return self._start_load(group_id, reloading=False)
        log = self._read_log(group_id)
        with self._lock:
            held = self._groups.peek(group_id)
            if held is not None and not held.must_reload(log):
                self._catch_up(held, group_id, log)
                self._groups.get(group_id, lambda: held)  # the most recently used
                return held
        return self._start_load(group_id, reloading=held is not None)

    def write_through(self, group_id: str, seq: int, episodes: list[Row], facts: list[Row],
                      ends: list[tuple[str, int]]) -> None:
        """A committed write's rows, applied to the group's held vectors (if held)."""
        with self._lock:
            held = self._groups.peek(group_id)
            if held is not None:
                held.write_through(seq, episodes, facts, ends)

    def search(self, held: HeldVectors, vector: np.ndarray, k: int, as_of: object, known_at: object
               ) -> list[tuple[str, float]]:
        with self._lock:
            return held.search(vector, k, as_of, known_at)

    def similarity(self, held: HeldVectors, vector: np.ndarray, ids: list[str]) -> dict[str, float]:
        with self._lock:
            return held.similarity(vector, ids)

    def _catch_up(self, held: GroupVectors, group_id: str, log: VectorLog) -> None:
        """Read the rows written after the held position, of whichever kind changed."""
        if held.seq == log.seq:
            return
        episodes, facts = held.behind(log)
        if episodes:
            held.episodes.apply(self._read_rows("episode_vectors_since", group_id=group_id, since=held.seq))
        if facts:
            held.facts.apply(self._read_rows("fact_vectors_since", group_id=group_id, since=held.seq))
        held.advance(log.seq)

    def _start_load(self, group_id: str, reloading: bool) -> GroupVectors | None:
        """Load a group's vectors once it has been searched ``hold_after`` times, or at once when
        held ones went stale. In the background the server answers meanwhile (None); else the
        loaded vectors."""
        with self._lock:
            asked = self._searches[group_id] = self._searches.get(group_id, 0) + 1
            if len(self._searches) > 4 * self._groups.max_groups:
                self._searches = {group_id: asked}
            if group_id in self._loading or not (reloading or asked >= self.hold_after):
                return None
            if self.background:
                self._loading.add(group_id)
        if not self.background:
            return self.load(group_id)
        thread = threading.Thread(target=self._load_in_background, args=(group_id,), daemon=True,
                                  name="kgmem-neo4j-vectors")
        with self._lock:
            self._loaders = [t for t in self._loaders if t.is_alive()] + [thread]
        thread.start()
        return None

    def settle(self, timeout: float | None = None) -> bool:
        """Wait for the loads running in the background; True when none is left running."""
        with self._lock:
            loaders = list(self._loaders)
        for thread in loaders:
            thread.join(timeout)
        return not any(t.is_alive() for t in loaders)

    def _load_in_background(self, group_id: str) -> None:
        try:
            self.load(group_id)
        except Exception as exc:  # noqa: BLE001 - the server keeps answering; the next search tries again
            if self._closed.is_set():  # (stopped at a page, or its read cut by the closed driver)
                log.debug("the load of a group's vectors stopped: the store was closed")
                return
            log.warning("loading the vectors of a group failed (%s); searches stay on the server", describe(exc))
        finally:
            with self._lock:
                self._loading.discard(group_id)

    def _load_pages(self, held: HeldVectors, read_page: Callable[[str, int], list[Row]]) -> None:
        """Read every row of a load query (``read_page(after id, rows)``), a page at a time, in id
        order: ties in a search go by key, so by id, as in the reference store. Each page is its
        own short read, so a large group's first read outlives no connection."""
        after = ""
        while True:
            if self._closed.is_set():
                raise _Closed
            rows = read_page(after, self.page_rows)
            held.apply([r for r in rows if r[-1] is not None])  # (a row without a vector holds no place)
            if len(rows) < self.page_rows:
                return
            after = rows[-1][0]

    def load(self, group_id: str) -> GroupVectors:
        """Every episode and fact vector of the group, read into new indexes that then replace
        the held ones. A write that commits meanwhile is read again by the next catch-up (the
        indexes are current to the log position read first); an erasure meanwhile resets the
        log, so they reload."""
        at = self._read_log(group_id)
        vectors = GroupVectors(self.dim)
        self._load_pages(vectors.episodes, lambda after, page: self._read_rows(
            "episode_vectors_load", group_id=group_id, after=after, page=page))
        self._load_pages(vectors.facts, lambda after, page: self._read_rows(
            "fact_vectors_load", group_id=group_id, after=after, page=page))
        vectors.advance(at.seq)
        with self._lock:
            self._groups.put(group_id, vectors)
            self._searches.pop(group_id, None)
        return vectors
