"""An in-process exact vector index over float32 rows, with time columns for
pre-filtering. Search masks rows that fail the filter *before* choosing the top
k, so a time filter can never dilute the results (no over-fetch, no post-filter)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

NEG_INF_TIME = np.iinfo(np.int64).min
POS_INF_TIME = np.iinfo(np.int64).max


class VectorIndex:
    def __init__(self, dim: int, time_cols: Sequence[str]):
        self.dim = dim
        self.time_cols = tuple(time_cols)
        self.n = 0
        self.stamp: object = None  # owner's freshness marker
        self._cap = 0
        self.keys: list[object] = []
        self.pos: dict[object, int] = {}
        self.vecs = np.zeros((0, dim), dtype=np.float32)
        self.times = {c: np.zeros(0, dtype=np.int64) for c in self.time_cols}

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
        self._grow(self.n + len(rows))
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

    def view(self) -> dict[str, np.ndarray]:
        """The columns of the rows held, for masks."""
        return {c: a[: self.n] for c, a in self.times.items()}

    def search(self, query: np.ndarray, k: int, mask_fn: Callable[[dict[str, np.ndarray]], np.ndarray]
               ) -> list[tuple[object, float]]:
        if self.n == 0 or k <= 0:
            return []
        mask = mask_fn(self.view())
        count = int(mask.sum())
        if count == 0:
            return []
        sims = self.vecs[: self.n] @ query.astype(np.float32)
        sims = np.where(mask, sims, -np.inf)
        k = min(k, count)
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(self.keys[i], float(sims[i])) for i in top]
