"""An in-process exact vector index over float32 rows, with time columns for
pre-filtering. Search masks rows that fail the filter *before* choosing the top
k, so a time filter can never dilute the results (no over-fetch, no post-filter).

A large index also keeps each row as int8 codes. Its search scans the codes
(a quarter of the memory traffic of the float32 rows, and the scan is
memory-bound), bounds each row's true cosine from the codes' error, and scores
in float32 only the rows whose bound can still reach the k best: the result is
the exact top k, not an approximation (``VectorIndex.candidates``)."""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ..timefilter import NEG_INF_TIME, POS_INF_TIME  # noqa: F401 - how an open end is held here
from .cache import RowCache

ROWS_CACHED = 2_048  # built rows kept per index: a recall reads ~350 (LoCoMo pool of 100); see docs/benchmarks.md
# Below this many rows the float32 scan takes a few ms at most and the int8 pre-scan is not worth its
# bookkeeping; at 100k rows it takes the scan from 13.5-18.9 ms to 5.5-7.3 ms (docs/benchmarks.md, #11, round five).
QUANTIZED_FROM = 16_384
ROUNDING_SLACK = 1e-4  # float32 rounding: added to every int8 error bound, and to the float32 scan's cut
# From this many values the k-th best is found among the values above a threshold read off every
# SAMPLE_STEP-th value (exact; checked, with the whole array as the fallback). On 100k float32 scores at
# k = 100: 0.063 ms, against 1.11 ms for a negated copy and an argpartition (docs/benchmarks.md, #11, round eight).
SAMPLED_KTH_FROM = 8_192
SAMPLE_STEP = 16


def kth_largest(values: np.ndarray, k: int) -> np.floating:
    """The k-th largest of ``values`` (1 <= k <= len), exactly. A large array is first
    cut to the values at or above the ~2k-th largest of a strided sample: when at
    least k values remain, the k-th largest is among them; else the whole array is used."""
    n = len(values)
    if n >= SAMPLED_KTH_FROM and k * 4 * SAMPLE_STEP <= n:
        sample = values[::SAMPLE_STEP]
        j = min(len(sample), 2 * (k // SAMPLE_STEP) + 8)
        cut = np.partition(sample, len(sample) - j)[len(sample) - j]
        above = values[values >= cut]
        if len(above) >= k:
            values, n = above, len(above)
    return np.partition(values, n - k)[n - k]  # the array's own type, as the comparisons after it expect


# Rows of room kept over a first load (an eighth of it, at most this many): without it the first add
# after loading a 1M-row group copied every row into a doubled array.
GROWTH_HEADROOM = 65_536
QUANTIZE_BLOCK = 4096  # rows quantized at a time: 4096 x 384 float32 is 6 MB, inside a core's cache share


def quantize(vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row as symmetric int8 codes times a per-row scale: ``(codes, scale,
    err, norm)``, where ``err`` is the distance from the row to its decoded codes
    and ``norm`` the length of the decoded row (the two terms of the error bound).
    Done in blocks that stay in the CPU's cache (100k rows: 0.66 s whole, 0.26 s in blocks)."""
    if len(vecs) <= QUANTIZE_BLOCK:
        return _quantize(vecs)
    parts = [_quantize(vecs[s:s + QUANTIZE_BLOCK]) for s in range(0, len(vecs), QUANTIZE_BLOCK)]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))  # type: ignore[return-value]


def _quantize(vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    peak = np.abs(vecs).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(vecs / scale[:, None]).astype(np.int8)
    decoded = codes.astype(np.float32) * scale[:, None]
    return (codes, scale, np.linalg.norm(vecs - decoded, axis=1).astype(np.float32),
            np.linalg.norm(decoded, axis=1).astype(np.float32))


def pre_scan_available() -> bool:
    """Whether searches can pre-scan int8 codes (the kernel is installed)."""
    return _int8_dot() is not None


@functools.cache
def _int8_dot() -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """The int8 dot-product kernel (SimSIMD), or None where it is not installed:
    the index then scans the float32 rows, with the same results. One thread: after
    any BLAS call (the query's embedding) OpenBLAS's workers spin on the cores for a
    while, and a second scan thread then ran slower than one (100k rows: 6.8 ms on
    two threads against 8.1 on one; 27k rows: 4.5 against 1.4; docs/benchmarks.md)."""
    try:
        import simsimd
    except ImportError:  # pragma: no cover - simsimd is a dependency; this keeps a broken install working
        return None

    def dot(query_codes: np.ndarray, codes: np.ndarray) -> np.ndarray:
        # float32 holds every sum exactly up to 1040 dimensions (127 * 127 * dim < 2**24); past that its
        # rounding, once scaled, stays far inside ROUNDING_SLACK
        out = simsimd.cdist(query_codes[None, :], codes, metric="dot", out_dtype="float32", threads=1)
        return np.asarray(out)[0]

    return dot


class VectorIndex:
    def clear(self) -> None:
        """Forget every row (and the owner's markers): the next refresh loads the group again."""
        self.__init__(self.dim, self.time_cols, self.quantized_from)  # type: ignore[misc]

    def __init__(self, dim: int, time_cols: Sequence[str], quantized_from: int | None = None):
        self.dim = dim
        self.time_cols = tuple(time_cols)
        self.quantized_from = QUANTIZED_FROM if quantized_from is None else quantized_from  # rows
        self.n = 0
        self.stamp: object = None  # owner's freshness marker
        self.seq: int | None = None  # owner's position in its change log (None: never loaded)
        self._cap = 0
        self.keys: list[object] = []
        self.pos: dict[object, int] = {}
        self.vecs = np.zeros((0, dim), dtype=np.float32)
        self.codes = np.zeros((0, dim), dtype=np.int8)  # the rows' int8 codes, and their bound terms
        self.qscale = np.zeros(0, dtype=np.float32)
        self.qerr = self.qnorm = 0.0  # the largest error and decoded length of any row: one bound for all
        # While set, rows restored from a snapshot lack their float32 vectors (the owner fills them on a
        # thread): searches pre-scan the codes and score the candidates with the vectors this reads by key.
        self.fetch_vecs: Callable[[list[object]], np.ndarray] | None = None
        self.uncoded: tuple[int, int] | None = None  # rows appended without codes yet (code_pending fills them)
        self.times = {c: np.zeros(0, dtype=np.int64) for c in self.time_cols}
        self._keyarr: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None  # n, keys, sorted, order
        self.postings = PostingsCache()  # the owner's full-text postings over these rows
        self.rows: RowCache[int, object] = RowCache(ROWS_CACHED)  # the owner's built rows, by key

    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = max(need, self._cap * 2, 1024)
        vecs = np.zeros((cap, self.dim), dtype=np.float32)
        vecs[: self.n] = self.vecs[: self.n]
        self.vecs = vecs
        codes = np.zeros((cap, self.dim), dtype=np.int8)
        codes[: self.n] = self.codes[: self.n]
        self.codes = codes
        self.qscale = np.concatenate([self.qscale[: self.n], np.zeros(cap - self.n, np.float32)])
        for c in self.time_cols:
            arr = np.zeros(cap, dtype=np.int64)
            arr[: self.n] = self.times[c][: self.n]
            self.times[c] = arr
        self._cap = cap

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` more rows, and some over (``GROWTH_HEADROOM``), allocated once: a first
        load that appends in chunks then copies no row twice, and the adds after it grow nothing."""
        self._grow(self.n + rows + min(rows // 8, GROWTH_HEADROOM))

    def upsert(self, rows: Iterable[tuple[object, bytes | None, Sequence[int]]]) -> None:
        """rows: (key, float32 bytes or None to keep the vector, time values)."""
        rows = list(rows)
        self._grow(self.n + sum(1 for r in rows if r[0] not in self.pos))
        written = []
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
                written.append(i)
            for c, v in zip(self.time_cols, times, strict=True):
                self.times[c][i] = v
        if written:
            at = np.asarray(written, dtype=np.int64)
            self.codes[at], self.qscale[at], err, norm = quantize(self.vecs[at])
            self.qerr, self.qnorm = max(self.qerr, float(err.max())), max(self.qnorm, float(norm.max()))

    def append(self, keys: Sequence[object], vecs: np.ndarray, times: Sequence[np.ndarray], code: bool = True
               ) -> None:
        """Add rows whose keys the index does not hold yet, all at once: ``upsert``
        without its loop over rows (a first load of 100k rows took 2.4 s through it).
        ``code=False`` leaves their int8 codes to ``code_pending``: until every row has its
        codes, searches scan the float32 rows (the same answers, without the pre-scan)."""
        m = len(keys)
        if not m:
            return
        if any(k in self.pos for k in keys):
            raise ValueError("append takes new keys only; upsert replaces rows")
        self._grow(self.n + m)
        at = slice(self.n, self.n + m)
        self.vecs[at] = vecs
        for c, values in zip(self.time_cols, times, strict=True):
            self.times[c][at] = values
        if code:
            self._code(self.n, self.n + m)
        else:
            start = self.n if self.uncoded is None else self.uncoded[0]
            self.uncoded = (start, self.n + m)
        self.pos.update(zip(keys, range(self.n, self.n + m), strict=True))
        self.keys.extend(keys)
        self.n += m

    def restore(self, keys: np.ndarray, times: Sequence[np.ndarray], codes: np.ndarray, qscale: np.ndarray,
                bound: tuple[float, float], fetch_vecs: Callable[[list[object]], np.ndarray]) -> None:
        """A first load from a snapshot of the rows: keys, times, int8 codes, their scales and
        the error bound's two terms (``qerr``, ``qnorm``), no float32 vectors. Until the owner has
        written those and cleared ``fetch_vecs``, candidates are scored with the vectors it reads."""
        if self.n:
            raise ValueError("restore is a first load: the index holds rows")
        m = len(keys)
        self.reserve(m)
        for c, values in zip(self.time_cols, times, strict=True):
            self.times[c][:m] = values
        self.codes[:m] = codes
        self.qscale[:m] = qscale
        self.qerr, self.qnorm = bound
        self.keys = keys.tolist()
        self.pos = dict(zip(self.keys, range(m), strict=True))
        self.n = m
        self.fetch_vecs = fetch_vecs

    def _code(self, start: int, end: int) -> None:
        self.codes[start:end], self.qscale[start:end], err, norm = quantize(self.vecs[start:end])
        self.qerr, self.qnorm = max(self.qerr, float(err.max())), max(self.qnorm, float(norm.max()))

    def code_pending(self) -> bool:
        """Give the next block of uncoded rows their codes; True while some are left. The owner
        calls it under its lock, a block at a time, so searches run between blocks."""
        if self.uncoded is None:
            return False
        start, end = self.uncoded
        stop = min(end, start + QUANTIZE_BLOCK)
        self._code(start, stop)
        self.uncoded = (stop, end) if stop < end else None
        return self.uncoded is not None

    def _key_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Integer keys as an array, sorted, and the positions in sorted order."""
        if self._keyarr is None or self._keyarr[0] != self.n:
            self._keyarr = self._extended_keys() or self._sorted_keys()
        return self._keyarr[1], self._keyarr[2], self._keyarr[3]

    def _sorted_keys(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        held = np.asarray(self.keys, dtype=np.int64)
        order = np.argsort(held, kind="stable")
        return (self.n, held, held[order], order)

    def _extended_keys(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray] | None:
        """The key arrays after rows were appended, without sorting them all again:
        keys are only ever appended, and new rowids sort after the old ones (else None)."""
        if self._keyarr is None or self._keyarr[0] == 0:
            return None
        n0, held, ordered, order = self._keyarr
        new = np.asarray(self.keys[n0:], dtype=np.int64)
        if new[0] <= ordered[-1] or (len(new) > 1 and bool(np.any(new[1:] <= new[:-1]))):
            return None
        return (self.n, np.concatenate([held, new]), np.concatenate([ordered, new]),
                np.concatenate([order, np.arange(n0, self.n, dtype=order.dtype)]))

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """Row positions of the integer ``keys`` this index holds (others dropped)."""
        _, sk, order = self._key_arrays()
        if not len(sk) or not len(keys):
            return np.zeros(0, dtype=np.int64)
        at = np.clip(np.searchsorted(sk, keys), 0, len(sk) - 1)
        return order[at[sk[at] == keys]]

    def near_top(self, scores: np.ndarray, k: int, mask: np.ndarray, slack: float = 0.0) -> np.ndarray:
        """Positions of the masked rows scoring within ``slack`` of the k-th best
        (every row tied with the k best is among them)."""
        if k <= 0:
            return np.zeros(0, dtype=np.int64)
        count = int(np.count_nonzero(mask))
        if count <= k:
            return np.flatnonzero(mask)
        masked = np.where(mask, scores, -np.inf)
        kth = kth_largest(masked, k)
        return np.flatnonzero(mask & (masked >= kth - slack))

    def top_rows(self, rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k best of the rows at positions ``rows``, scored ``scores`` (one per row),
        best first, ties by key (so both stores, and every run, order equal scores the same way)."""
        if not len(rows) or k <= 0:
            return []
        k = min(k, len(rows))
        kth = kth_largest(scores, k)
        cand = np.flatnonzero(scores >= kth)  # the k best and everything tied with the k-th
        keys = self._key_arrays()[0][rows[cand]]
        order = np.lexsort((keys, -scores[cand]))[:k]
        return [(int(keys[j]), float(scores[cand[j]])) for j in order]

    def similarity(self, query: np.ndarray, keys: Sequence[int]) -> dict[int, float]:
        """Cosine of the query with the vectors of the given integer keys (rows
        without a vector, or unknown keys, are left out)."""
        pos = self.positions(np.asarray(keys, dtype=np.int64))
        if "hasvec" in self.times:
            pos = pos[self.times["hasvec"][pos] == 1]
        if not len(pos):
            return {}
        sims = self.scores(pos, query.astype(np.float32))
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
        query = query.astype(np.float32)
        mask = mask_fn(self.view())
        if self.fetch_vecs is None and (self.n < self.quantized_from or self.uncoded is not None
                                        or _int8_dot() is None):
            rows = self.near_top(self.vecs[: self.n] @ query, k, mask, ROUNDING_SLACK)
        else:
            rows = self.candidates(query, k, mask)
        return self.top_rows(rows, self.scores(rows, query), k)

    def scores(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """The query's cosine with the rows at ``rows``, each summed the same way
        wherever it sits. A BLAS scan rounds a row by its place in the block, so two
        equal vectors could score a few ulps apart and a tie would go by position."""
        if self.fetch_vecs is not None:  # a restored index whose vectors are still coming: read the rows'
            return np.einsum("ij,j->i", self.fetch_vecs([self.keys[int(i)] for i in rows]), query)
        return np.einsum("ij,j->i", self.vecs[rows], query)

    def candidates(self, query: np.ndarray, k: int, mask: np.ndarray) -> np.ndarray:
        """Positions of the masked rows that can be among the k best, from the int8
        codes alone. A row's true cosine lies within ``bound`` of its code score
        (|q.v - q'.v'| <= |q| |v - v'| + |q - q'| |v'|, with ' the decoded codes;
        the index keeps the largest |v - v'| and |v'| of its rows), so every row
        whose code score is within twice the bound of the k-th best is kept: the
        k best, and everything tied with them, are always among the positions."""
        kernel = _int8_dot()
        assert kernel is not None
        qcodes, qscale, qerr, _ = quantize(query[None, :])
        approx = kernel(qcodes[0], self.codes[: self.n])
        approx *= self.qscale[: self.n]
        approx *= qscale[0]
        bound = float(np.linalg.norm(query)) * self.qerr + float(qerr[0]) * self.qnorm + ROUNDING_SLACK
        return self.near_top(approx, k, mask, 2 * bound)


BM25_K1 = 1.2
BM25_B = 0.75
# Matches below 1/8 of the documents are summed sparsely (sorting the matches); above that a dense array
# over every document is cheaper. 100k documents, ~3.7k matches: 0.78 ms dense, 0.23 ms sparse
# (docs/benchmarks.md, #11, round six).
SPARSE_BM25_SHARE = 8


def bm25_at(doc_len: np.ndarray, postings: Sequence[np.ndarray], k1: float = BM25_K1, b: float = BM25_B,
            n_docs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Okapi BM25 for a query whose terms matched the documents at ``postings``
    (one array of distinct row positions per term): the positions of the
    documents that match any term (sorted) and their scores. A match counts once
    per document: FTS5 tells which documents hold a term, not how often, and in
    short turns and fact sentences a repeat is rare. Statistics come from all
    the documents given: the collection is one group, so a tenant's ranking never
    depends on another's data. The formula and constants are FTS5's ``bm25()``,
    including its idf floor of 1e-6 for terms in more than half of the documents.
    Only matching documents are scored, so the cost follows the postings, not the group.
    ``n_docs`` is the number of documents that exist, when ``doc_len`` also holds
    deleted ones (length 0): an index that saw a row erased must rank as one built after."""
    n = len(doc_len) if n_docs is None else n_docs
    hit = [pos for pos in postings if len(pos)]
    if n == 0 or not hit:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    avg = float(doc_len.sum()) / n or 1.0
    parts = []
    for pos in hit:
        idf = math.log((n - len(pos) + 0.5) / (len(pos) + 0.5))
        if idf <= 0:
            idf = 1e-6
        parts.append(idf * (k1 + 1) / (1 + k1 * (1 - b + b * doc_len[pos] / avg)))
    at = np.concatenate(hit)
    if len(at) * SPARSE_BM25_SHARE < len(doc_len):
        rows, slot = np.unique(at, return_inverse=True)
        # bincount adds each row's terms in the order given, from 0.0: the same sums as the dense loop
        return rows, np.bincount(slot, weights=np.concatenate(parts), minlength=len(rows))
    scores = np.zeros(len(doc_len), dtype=np.float64)
    for pos, part in zip(hit, parts, strict=True):
        scores[pos] += part
    rows = np.flatnonzero(scores)  # every match scores above 0 (the idf floor)
    return rows, scores[rows]


class PostingsCache:
    """The row positions each full-text term matched, per index, kept across
    queries: a frequent term's postings are long, and reading them again from
    FTS5 on every query cost more than scoring them. The owner reports the rows
    each refresh changed (``changed``); a term read before them comes back with
    those rows (``get``), for the owner to check against FTS5 one by one, or to
    read the term again when there are many (``RECHECK_MAX``). Bounded in the
    positions held, least recently used term first; the log of changed rows is
    trimmed once every held term has caught up, and the cache emptied when it
    still outgrows ``MAX_PENDING``."""

    MAX_POSITIONS = 2_000_000  # 16 MB of int64 per index at most
    MAX_PENDING = 4_096  # changed rows remembered; past this, every term is read again
    RECHECK_MAX = 32  # a stale term with more changed rows than this is read again whole

    def __init__(self) -> None:
        self._terms: OrderedDict[str, tuple[np.ndarray, int]] = OrderedDict()  # term -> positions, log seen
        self._log: list[np.ndarray] = []  # changed row keys, one array per refresh
        self._base = 0  # the log position of self._log[0]
        self._held = 0

    def __len__(self) -> int:
        return len(self._terms)

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def changed(self, keys: Sequence[int] | np.ndarray) -> None:
        """Rows whose text may have changed (added, rewritten or deleted) since the last report."""
        if not self._terms or not len(keys):
            return
        self._log.append(np.asarray(keys, dtype=np.int64))
        if sum(len(a) for a in self._log) > self.MAX_PENDING:
            self._trim()
            if sum(len(a) for a in self._log) > self.MAX_PENDING:
                self.clear()

    def _trim(self) -> None:
        low = min(seen for _, seen in self._terms.values())
        drop = low - self._base
        if drop > 0:
            del self._log[:drop]
            self._base = low

    def get(self, term: str) -> tuple[np.ndarray, np.ndarray | None] | None:
        """The term's positions when cached, and the row keys changed since they were
        read (None when none did); None when the term is not cached."""
        hit = self._terms.get(term)
        if hit is None:
            return None
        self._terms.move_to_end(term)
        pos, seen = hit
        pending = self._log[seen - self._base:]
        return pos, (np.unique(np.concatenate(pending)) if pending else None)

    def put(self, term: str, positions: np.ndarray) -> None:
        """The term's positions as of now (read whole, or rechecked)."""
        old = self._terms.pop(term, None)
        if old is not None:
            self._held -= len(old[0])
        if len(positions) > self.MAX_POSITIONS:
            return
        self._terms[term] = (positions, self._base + len(self._log))
        self._held += len(positions)
        while self._held > self.MAX_POSITIONS:
            _, (gone, _) = self._terms.popitem(last=False)
            self._held -= len(gone)

    @staticmethod
    def patched(positions: np.ndarray, changed: np.ndarray, matching: np.ndarray) -> np.ndarray:
        """``positions`` with the ``changed`` positions replaced by those of them that ``matching`` names."""
        kept = positions[~np.isin(positions, changed)]
        return np.union1d(kept, matching).astype(np.int64)
