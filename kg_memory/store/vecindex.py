"""An in-process exact vector index over float32 rows, with time columns for
pre-filtering. Search masks rows that fail the filter *before* choosing the top
k, so a time filter can never dilute the results (no over-fetch, no post-filter)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .timefilter import NEG_INF_TIME, POS_INF_TIME  # noqa: F401 - how an open end is held here


class VectorIndex:
    def clear(self) -> None:
        """Forget every row (and the owner's markers): the next refresh loads the group again."""
        self.__init__(self.dim, self.time_cols)  # type: ignore[misc]

    def __init__(self, dim: int, time_cols: Sequence[str]):
        self.dim = dim
        self.time_cols = tuple(time_cols)
        self.n = 0
        self.stamp: object = None  # owner's freshness marker
        self.seq: int | None = None  # owner's position in its change log (None: never loaded)
        self._cap = 0
        self.keys: list[object] = []
        self.pos: dict[object, int] = {}
        self.vecs = np.zeros((0, dim), dtype=np.float32)
        self.times = {c: np.zeros(0, dtype=np.int64) for c in self.time_cols}
        self._keyarr: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None  # n, keys, sorted, order

    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = max(need, self._cap * 2, 1024)
        vecs = np.zeros((cap, self.dim), dtype=np.float32)
        vecs[: self.n] = self.vecs[: self.n]
        self.vecs = vecs
        for c in self.time_cols:
            arr = np.zeros(cap, dtype=np.int64)
            arr[: self.n] = self.times[c][: self.n]
            self.times[c] = arr
        self._cap = cap

    def upsert(self, rows: Iterable[tuple[object, bytes | None, Sequence[int]]]) -> None:
        """rows: (key, float32 bytes or None to keep the vector, time values)."""
        rows = list(rows)
        self._grow(self.n + sum(1 for r in rows if r[0] not in self.pos))
        for key, blob, times in rows:
            i = self.pos.get(key)
            if i is None:
                if blob is None:
                    continue
                i = self.n
                self.n += 1
                self.pos[key] = i
                self.keys.append(key)
            if blob is not None:
                self.vecs[i] = np.frombuffer(blob, dtype=np.float32, count=self.dim)
            for c, v in zip(self.time_cols, times, strict=True):
                self.times[c][i] = v

    def _key_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Integer keys as an array, sorted, and the positions in sorted order."""
        if self._keyarr is None or self._keyarr[0] != self.n:
            held = np.asarray(self.keys, dtype=np.int64)
            order = np.argsort(held, kind="stable")
            self._keyarr = (self.n, held, held[order], order)
        return self._keyarr[1], self._keyarr[2], self._keyarr[3]

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """Row positions of the integer ``keys`` this index holds (others dropped)."""
        _, sk, order = self._key_arrays()
        if not len(sk) or not len(keys):
            return np.zeros(0, dtype=np.int64)
        at = np.clip(np.searchsorted(sk, keys), 0, len(sk) - 1)
        return order[at[sk[at] == keys]]

    def top(self, scores: np.ndarray, k: int, mask: np.ndarray) -> list[tuple[int, float]]:
        """The k best scores among the masked rows, best first, ties by key (so
        both stores, and every run, order equal scores the same way)."""
        count = int(np.count_nonzero(mask))
        if count == 0 or k <= 0:
            return []
        k = min(k, count)
        masked = np.where(mask, scores, -np.inf)
        kth = masked[np.argpartition(-masked, k - 1)[:k]].min()
        cand = np.flatnonzero(mask & (masked >= kth))  # the k best and everything tied with the k-th
        keys = self._key_arrays()[0][cand]
        order = np.lexsort((keys, -masked[cand]))[:k]
        return [(int(keys[j]), float(masked[cand[j]])) for j in order]

    def similarity(self, query: np.ndarray, keys: Sequence[int]) -> dict[int, float]:
        """Cosine of the query with the vectors of the given integer keys (rows
        without a vector, or unknown keys, are left out)."""
        pos = self.positions(np.asarray(keys, dtype=np.int64))
        if "hasvec" in self.times:
            pos = pos[self.times["hasvec"][pos] == 1]
        if not len(pos):
            return {}
        sims = self.vecs[pos] @ query.astype(np.float32)
        held = self._key_arrays()[0]
        return {int(held[p]): float(s) for p, s in zip(pos, sims, strict=True)}

    def view(self) -> dict[str, np.ndarray]:
        """The columns of the rows held, for masks."""
        return {c: a[: self.n] for c, a in self.times.items()}

    def search(self, query: np.ndarray, k: int, mask_fn: Callable[[dict[str, np.ndarray]], np.ndarray]
               ) -> list[tuple[int, float]]:
        """Exact cosine top k over the rows ``mask_fn`` keeps (pre-filtered, never diluted)."""
        if self.n == 0 or k <= 0:
            return []
        return self.top(self.vecs[: self.n] @ query.astype(np.float32), k, mask_fn(self.view()))


BM25_K1 = 1.2
BM25_B = 0.75


def bm25(doc_len: np.ndarray, postings: Sequence[np.ndarray], k1: float = BM25_K1, b: float = BM25_B) -> np.ndarray:
    """Okapi BM25 of every document for a query whose terms matched the
    documents at ``postings`` (one array of row positions per term). A match
    counts once per document: FTS5 tells which documents hold a term, not how
    often, and in short turns and fact sentences a repeat is rare. Statistics
    come from the documents given: the collection is one group, so a tenant's
    ranking never depends on another's data. The formula and constants are FTS5's ``bm25()``, including its idf
    floor of 1e-6 for terms in more than half of the documents."""
    n = len(doc_len)
    scores = np.zeros(n, dtype=np.float64)
    if n == 0:
        return scores
    avg = float(doc_len.mean()) or 1.0
    for pos in postings:
        hits = len(pos)
        if not hits:
            continue
        idf = math.log((n - hits + 0.5) / (hits + 0.5))
        if idf <= 0:
            idf = 1e-6
        scores[pos] += idf * (k1 + 1) / (1 + k1 * (1 - b + b * doc_len[pos] / avg))
    return scores
