"""The int8 pre-scan of a large vector index: the rows it keeps always hold the
exact float32 top k (ties included), so a search over the codes returns what the
float32 scan returns."""

from __future__ import annotations

import numpy as np
import pytest

from kg_memory.store.index.vectors import ROUNDING_SLACK, VectorIndex, _int8_dot, quantize

DIM = 48


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def _embeddings(rng: np.random.Generator, n: int) -> np.ndarray:
    """Like sentence embeddings: a shared direction, topic clusters, noise, and exact duplicates (ties)."""
    common = rng.normal(size=DIM)
    topics = rng.normal(size=(12, DIM))
    v = 0.6 * common + topics[rng.integers(0, 12, size=n)] + 0.5 * rng.normal(size=(n, DIM))
    v = _unit(v)
    v[rng.integers(0, n, size=n // 20)] = v[0]  # many rows equal to row 0: equal scores, ordered by key
    return v


def _pair(vecs: np.ndarray, keys: list[int]) -> tuple[VectorIndex, VectorIndex]:
    """The same rows in an index that always scans float32 and one that always pre-scans int8."""
    exact, coded = VectorIndex(DIM, ("t",), quantized_from=10**9), VectorIndex(DIM, ("t",), quantized_from=0)
    rows = [(key, v.tobytes(), (i % 7,)) for i, (key, v) in enumerate(zip(keys, vecs, strict=True))]
    for idx in (exact, coded):
        idx.upsert(rows)
    return exact, coded


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_int8_prescan_returns_the_float32_top_k(seed: int) -> None:
    rng = np.random.default_rng(seed)
    vecs = _embeddings(rng, 4000)
    keys = rng.permutation(10**6)[:4000].tolist()  # keys out of row order: ties must still go by key
    exact, coded = _pair(vecs, keys)
    if _int8_dot() is None:
        pytest.fail("simsimd is a dependency and must be importable")
    for trial in range(40):
        query = vecs[0] if trial == 0 else _unit(vecs[rng.integers(0, 4000)] + 0.3 * rng.normal(size=DIM))
        k = int(rng.choice([1, 10, 100, 250, 5000]))
        cut = int(rng.integers(0, 7))
        want = exact.search(query, k, lambda t, cut=cut: t["t"] >= cut)
        got = coded.search(query, k, lambda t, cut=cut: t["t"] >= cut)
        assert [key for key, _ in got] == [key for key, _ in want]
        assert got == want  # the same scores to the bit: both score their rows one way (VectorIndex.scores)


def test_the_error_bound_holds_for_every_row() -> None:
    rng = np.random.default_rng(7)
    vecs = _embeddings(rng, 3000)
    codes, scale, err, norm = quantize(vecs)
    for _ in range(20):
        q = _unit(rng.normal(size=DIM))
        qc, qs, qe, _ = quantize(q[None, :])
        approx = (codes.astype(np.int64) @ qc[0].astype(np.int64)) * (scale * qs[0])
        bound = np.linalg.norm(q) * err + qe[0] * norm
        assert np.all(np.abs(vecs @ q - approx) <= bound + ROUNDING_SLACK)


def test_the_prescan_keeps_few_rows() -> None:
    """What makes it fast: only rows near the k-th score are scored in float32."""
    rng = np.random.default_rng(11)
    vecs = _embeddings(rng, 20000)
    _, coded = _pair(vecs, list(range(20000)))
    q = _unit(vecs[5] + 0.3 * rng.normal(size=DIM))
    kept = coded.candidates(q, 100, np.ones(20000, dtype=bool))
    assert 100 <= len(kept) < 2000


def test_rewritten_vectors_are_requantized() -> None:
    rng = np.random.default_rng(5)
    vecs = _embeddings(rng, 2000)
    exact, coded = _pair(vecs, list(range(2000)))
    target = _unit(rng.normal(size=DIM))
    moved = [(key, target.tobytes(), (0,)) for key in (17, 1999)]  # two rows now point at the query
    for idx in (exact, coded):
        idx.upsert(moved)
    got = coded.search(target, 3, lambda t: t["t"] >= 0)
    assert [key for key, _ in got][:2] == [17, 1999]
    assert got == exact.search(target, 3, lambda t: t["t"] >= 0)


def test_rows_without_a_vector_and_empty_masks() -> None:
    coded = VectorIndex(DIM, ("hasvec",), quantized_from=0)
    coded.upsert([(1, np.zeros(DIM, np.float32).tobytes(), (0,)), (2, _unit(np.ones(DIM)).tobytes(), (1,))])
    q = _unit(np.ones(DIM))
    assert [key for key, _ in coded.search(q, 5, lambda t: t["hasvec"] == 1)] == [2]
    assert coded.search(q, 5, lambda t: t["hasvec"] == 5) == []


def test_rows_appended_without_codes_search_the_same_and_get_the_same_codes(monkeypatch) -> None:
    """A first load may leave the int8 codes for later (``append(code=False)``): its searches
    scan float32 meanwhile and return the same answers; once ``code_pending`` has run, block by
    block, the codes and the bound are those an eager append gives, and the pre-scan is used."""
    from kg_memory.store.index import vectors

    monkeypatch.setattr(vectors, "QUANTIZE_BLOCK", 64)  # several blocks
    rng = np.random.default_rng(7)
    vecs = _embeddings(rng, 300)
    keys = list(range(300))
    times = [np.arange(300, dtype=np.int64) % 7]
    eager, later = VectorIndex(DIM, ("t",), quantized_from=0), VectorIndex(DIM, ("t",), quantized_from=0)
    for s in range(0, 300, 100):
        eager.append(keys[s:s + 100], vecs[s:s + 100], [t[s:s + 100] for t in times])
        later.append(keys[s:s + 100], vecs[s:s + 100], [t[s:s + 100] for t in times], code=False)
    assert later.uncoded == (0, 300) and not later.codes[:300].any()
    prescans = []
    scan = VectorIndex.candidates
    monkeypatch.setattr(VectorIndex, "candidates", lambda self, *a: prescans.append(1) or scan(self, *a))
    queries = _unit(rng.normal(size=(5, DIM)))
    for q in queries:
        assert later.search(q, 10, lambda t: t["t"] != 3) == eager.search(q, 10, lambda t: t["t"] != 3)
    assert len(prescans) == 5  # the eager index only: the other scanned float32
    steps = 0
    while later.code_pending():
        steps += 1
    assert steps == 300 // 64 and later.uncoded is None
    assert np.array_equal(later.codes[:300], eager.codes[:300])
    assert np.array_equal(later.qscale[:300], eager.qscale[:300])
    assert (later.qerr, later.qnorm) == (eager.qerr, eager.qnorm)
    prescans.clear()
    assert later.search(queries[0], 10, lambda t: t["t"] != 3) == eager.search(queries[0], 10, lambda t: t["t"] != 3)
    assert len(prescans) == 2
