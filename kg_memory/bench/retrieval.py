"""Retrieval baselines over the turns of one conversation, in plain numpy:
BM25, dense cosine, the seed paper's dense-over-long-turns, and the Memor-style
fusion with and without the session date written into each turn."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..core.text import STOPWORDS

_TOKEN = re.compile(r"[\w']+")


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


class BM25:
    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = [Counter(tokens(d)) for d in docs]
        self.lens = np.array([sum(c.values()) for c in self.docs], dtype=np.float64)
        self.avg = float(self.lens.mean()) if len(self.docs) else 0.0
        df: Counter[str] = Counter()
        for c in self.docs:
            df.update(c.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(len(self.docs))
        for t in set(tokens(query)):
            idf = self.idf.get(t)
            if idf is None:
                continue
            for i, c in enumerate(self.docs):
                f = c.get(t)
                if f:
                    out[i] += idf * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self.lens[i] / self.avg))
        return out


def minmax(x: np.ndarray) -> np.ndarray:
    if x.size == 0:
        return x
    lo, hi = float(x.min()), float(x.max())
    return np.zeros_like(x) if hi - lo < 1e-12 else (x - lo) / (hi - lo)


def overlap(query: str, docs: Sequence[str]) -> np.ndarray:
    """|T(q) ∩ T(d)| / |T(d)|."""
    q = set(_TOKEN.findall(query.lower()))
    out = np.zeros(len(docs))
    for i, d in enumerate(docs):
        t = set(_TOKEN.findall(d.lower()))
        out[i] = len(q & t) / len(t) if t else 0.0
    return out


def memor_scores(query: str, qvec: np.ndarray, bm25: BM25, vecs: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    return 0.4 * minmax(bm25.scores(query)) + 0.4 * minmax(vecs @ qvec) + 0.2 * overlap(query, texts)


def top(scores: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[int]:
    s = scores.astype(np.float64).copy()
    if mask is not None:
        s[~mask] = -np.inf
    order = np.argsort(-s, kind="stable")
    return [int(i) for i in order[:k] if np.isfinite(s[i])]
