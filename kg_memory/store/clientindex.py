"""A group's episode vectors held in the client of a server store (Neo4j), so
a recall's episode vector search is an in-process scan (``VectorIndex``) and
not a server query. The server keeps a log per group (a sequence number each
write that changes the group's vectors moves, and a reset point after which
every row must be read again); the owner reads it and hands this index the
rows written since ``seq``. Plain data structure, tested on its own
(tests/unit/test_client_index.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import StoreError
from ..temporal import EPISODE_VISIBLE
from .timefilter import numpy_mask
from .vecindex import VectorIndex

# A row as the server sends it: episode id, occurred_at and created_at in microseconds since
# 1970, and the vector (float32 bytes, or a list of numbers from a store written before them).
Row = tuple[str, int, int, "bytes | Sequence[float]"]


class EpisodeVectors:
    def __init__(self, dim: int):
        self.dim = dim
        self.index = VectorIndex(dim, ("occurred", "created"))
        self.ids: list[str] = []  # the integer key of a row is its place here
        self.keys: dict[str, int] = {}
        self.seq: int | None = None  # the log position the rows are current to (None: never loaded)

    def __len__(self) -> int:
        return self.index.n

    def must_reload(self, seq: int, reset: int) -> bool:
        """Whether the rows must all be read again: never loaded, the log was reset since the
        rows were read, or it went back (a store recreated under the same name). Otherwise
        the rows written after ``self.seq`` (none when it equals ``seq``) bring it up to date."""
        return self.seq is None or reset > self.seq or seq < self.seq

    def apply(self, rows: Iterable[Row], seq: int) -> None:
        """Add or replace rows; the index is then current to ``seq``. Rows are keyed in the
        order given, and ties in a search go by key: the owner sends a full load in id order."""
        fresh: list[Row] = []
        changed = []
        for r in rows:
            key = self.keys.get(r[0])
            if key is None:
                fresh.append(r)
            else:
                changed.append((key, _blob(r[3], self.dim), (int(r[1]), int(r[2]))))
        self.index.upsert(changed)
        first = len(self.ids)
        self.ids.extend(r[0] for r in fresh)
        self.keys.update((r[0], first + i) for i, r in enumerate(fresh))
        vecs = np.frombuffer(b"".join(_blob(r[3], self.dim) for r in fresh), dtype=np.float32).reshape(-1, self.dim)
        self.index.append(range(first, len(self.ids)), vecs,
                          [np.fromiter((r[1] for r in fresh), np.int64, len(fresh)),
                           np.fromiter((r[2] for r in fresh), np.int64, len(fresh))])
        self.seq = seq

    def search(self, vector: np.ndarray, k: int, as_of: object, known_at: object) -> list[tuple[str, float]]:
        """The k episodes visible at (as_of, known_at) nearest ``vector``, best first."""
        seen = numpy_mask(EPISODE_VISIBLE, as_of, known_at)
        return [(self.ids[key], s) for key, s in self.index.search(vector, k, seen)]

    def similarity(self, vector: np.ndarray, ids: Iterable[str]) -> dict[str, float]:
        """The cosine of ``vector`` with the held episodes among ``ids``."""
        keys = [self.keys[i] for i in ids if i in self.keys]
        return {self.ids[key]: s for key, s in self.index.similarity(vector, keys).items()}


def _blob(vec: bytes | Sequence[float], dim: int) -> bytes:
    if isinstance(vec, bytes | bytearray):
        if len(vec) != 4 * dim:
            raise StoreError(f"the store holds an episode vector of {len(vec) // 4} dimensions where kgmem uses {dim}; "
                             "use the embedder the store was written with")
        return bytes(vec)
    arr = np.asarray(vec, dtype=np.float32)
    if arr.shape != (dim,):
        raise StoreError(f"the store holds an episode vector of shape {arr.shape} where kgmem uses {dim} dimensions; "
                         "use the embedder the store was written with")
    return arr.tobytes()
