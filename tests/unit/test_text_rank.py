"""BM25 over FTS5 postings (the SQLite store's text search), checked against
SQLite's own FTS5 ``bm25()`` on a real in-memory table."""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kg_memory.store.index.vectors import SAMPLE_STEP, PostingsCache, VectorIndex, bm25_at, kth_largest
from kg_memory.store.sqlite.rows import doc_len as _doc_len

DOCS = [
    "I moved to Lisbon last spring",
    "We talked about sleep and the new mattress",
    "My sister lives in Porto with her dog",
    "Lisbon has steep hills and old trams",
    "The documentary about deep sea fish was great",
    "I sleep badly when I drink coffee late",
    "Porto is north of Lisbon",
    "A long turn " + " ".join(f"word{i}" for i in range(200)),  # docsize needs a two-byte varint
]


@pytest.fixture()
def fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'porter unicode61')")
    conn.executemany("INSERT INTO t (rowid, text) VALUES (?, ?)", [(i + 10, d) for i, d in enumerate(DOCS)])
    return conn


def ours(conn: sqlite3.Connection, terms: list[str]) -> tuple[dict[int, float], VectorIndex]:
    idx = VectorIndex(2, ("dl",))
    sizes = dict(conn.execute("SELECT id, sz FROM t_docsize"))
    idx.upsert((rowid, bytes(8), (_doc_len(sizes[rowid]),)) for rowid in sorted(sizes))
    postings = []
    for term in terms:
        s = conn.execute("SELECT group_concat(rowid) FROM t WHERE t MATCH ?", (f'"{term}"',)).fetchone()[0]
        if s:
            postings.append(idx.positions(np.fromstring(s, dtype=np.int64, sep=",")))
    rows, scores = bm25_at(idx.view()["dl"], postings)
    return {int(idx.keys[i]): float(v) for i, v in zip(rows, scores, strict=True)}, idx


@pytest.mark.parametrize("terms", [["lisbon"], ["sleep", "mattress"], ["porto", "lisbon", "dog"], ["moving"]])
def test_bm25_matches_fts5(fts: sqlite3.Connection, terms: list[str]) -> None:
    got, _ = ours(fts, terms)
    match = " OR ".join(f'"{t}"' for t in terms)
    expected = {r: -s for r, s in fts.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ?", (match,))}
    assert set(got) == set(expected)  # "moving" stems like "moved": FTS5 tokenizes the query
    for rowid, value in expected.items():
        assert got[rowid] == pytest.approx(value, rel=1e-9)


def test_doc_len_reads_multibyte_varints(fts: sqlite3.Connection) -> None:
    sizes = dict(fts.execute("SELECT id, sz FROM t_docsize"))
    assert _doc_len(sizes[10]) == 6
    assert len(sizes[17]) == 2 and _doc_len(sizes[17]) == 203
    assert _doc_len(None) == 0


def _top(idx: VectorIndex, scores: np.ndarray, k: int, mask: np.ndarray) -> list[tuple[int, float]]:
    """What a search does with its scores: the rows near the top inside the mask, then the k best."""
    rows = idx.near_top(scores, k, mask)
    return idx.top_rows(rows, scores[rows], k)


def test_top_prefilters_and_breaks_ties_by_key() -> None:
    idx = VectorIndex(2, ("t",))
    idx.upsert((key, bytes(8), (t,)) for key, t in [(30, 1), (10, 1), (20, 1), (40, 9), (50, 1)])
    scores = np.array([1.0, 1.0, 1.0, 5.0, 0.0])  # positions follow insertion order
    mask = idx.view()["t"] < 5  # key 40, the best score, is filtered out before ranking
    assert _top(idx, scores, 2, mask) == [(10, 1.0), (20, 1.0)]
    assert _top(idx, scores, 10, mask) == [(10, 1.0), (20, 1.0), (30, 1.0), (50, 0.0)]  # every masked row
    assert _top(idx, scores, 10, mask & (scores > 0)) == [(10, 1.0), (20, 1.0), (30, 1.0)]  # as BM25 asks
    assert _top(idx, scores, 2, ~mask) == [(40, 5.0)]


def test_vector_search_ranks_exactly_inside_the_mask() -> None:
    idx = VectorIndex(2, ("t",))
    rows = [(1, [1.0, 0.0], 0), (2, [0.6, 0.8], 0), (3, [0.0, 1.0], 0), (4, [0.8, 0.6], 1), (5, [-1.0, 0.0], 0)]
    idx.upsert((key, np.asarray(v, dtype=np.float32).tobytes(), (t,)) for key, v, t in rows)
    q = np.array([1.0, 0.0], dtype=np.float32)
    got = idx.search(q, 3, lambda t: t["t"] == 0)  # key 4 (cosine 0.8) is masked out
    assert [(k, round(s, 4)) for k, s in got] == [(1, 1.0), (2, 0.6), (3, 0.0)]
    assert [k for k, _ in idx.search(q, 10, lambda t: t["t"] == 0)] == [1, 2, 3, 5]  # negatives kept


def test_positions_drops_unknown_keys() -> None:
    idx = VectorIndex(2, ("t",))
    idx.upsert((key, bytes(8), (0,)) for key in (7, 3, 11))
    assert idx.positions(np.array([11, 5, 3, 99])).tolist() == [2, 1]


def test_bm25_scores_only_the_matches_and_counts_only_live_documents() -> None:
    doc_len = np.array([3, 10, 4, 0, 7, 5], dtype=np.int64)  # row 3: erased (length 0, no postings)
    postings = [np.array([4, 1]), np.array([1, 2, 4, 5]), np.array([], dtype=np.int64)]
    rows, at = bm25_at(doc_len, postings)
    assert rows.tolist() == [1, 2, 4, 5] and (at > 0).all()
    assert at[0] > at[1]  # two terms beat one, even in a longer document
    live_rows, live = bm25_at(doc_len, postings, n_docs=5)  # the erased row does not count
    again_rows, again = bm25_at(np.delete(doc_len, 3), [np.where(p > 3, p - 1, p) for p in postings])
    assert live_rows.tolist() == rows.tolist() and live.tolist() == pytest.approx(again.tolist(), rel=1e-12)
    assert live.tolist() != pytest.approx(at.tolist(), rel=1e-12)
    empty = bm25_at(doc_len, [np.array([], dtype=np.int64)])
    assert len(empty[0]) == 0 and len(empty[1]) == 0


def test_top_rows_ranks_a_subset_like_top_ranks_a_mask() -> None:
    idx = VectorIndex(2, ("t",))
    idx.upsert((key, bytes(8), (0,)) for key in (30, 10, 20, 40, 50))
    scores = np.array([1.0, 2.0, 1.0, 5.0, 1.0])
    mask = np.array([True, True, True, False, True])
    rows = np.flatnonzero(mask)
    assert idx.top_rows(rows, scores[rows], 3) == _top(idx, scores, 3, mask) == [(10, 2.0), (20, 1.0), (30, 1.0)]
    assert idx.top_rows(rows[:0], scores[:0], 3) == []


def test_postings_cache_hands_back_what_changed_since_a_term_was_read() -> None:
    cache = PostingsCache()
    cache.changed([5])  # nothing cached yet: nothing to remember
    assert cache.get("lake") is None
    cache.put("lake", np.array([0, 3]))
    cache.put("hill", np.array([1]))
    assert cache.get("lake")[1] is None  # type: ignore[index]
    cache.changed([3, 9])  # row 3 rewritten, row 9 added
    pos, changed = cache.get("lake")  # type: ignore[misc]
    assert pos.tolist() == [0, 3] and changed.tolist() == [3, 9]
    # the owner rechecks the changed rows: 9 matches now, 3 no longer does
    cache.put("lake", PostingsCache.patched(pos, np.array([3, 9]), np.array([9])))
    assert cache.get("lake")[0].tolist() == [0, 9] and cache.get("lake")[1] is None  # type: ignore[index]
    cache.changed([11])
    assert cache.get("hill")[1].tolist() == [3, 9, 11]  # type: ignore[index]  # read before both changes
    assert cache.get("lake")[1].tolist() == [11]  # type: ignore[index]


def test_postings_cache_is_bounded_and_trims_its_log() -> None:
    cache = PostingsCache()
    cache.MAX_POSITIONS, cache.MAX_PENDING = 5, 4  # type: ignore[misc]
    cache.put("a", np.arange(3))
    cache.put("b", np.arange(2))
    cache.put("c", np.arange(2))  # 7 positions held: a, the least recently used, goes
    assert cache.get("a") is None and len(cache) == 2
    cache.put("huge", np.arange(6))  # larger than the whole budget: never held
    assert cache.get("huge") is None
    cache.changed([1, 2, 3])
    cache.put("b", np.arange(2))
    cache.put("c", np.arange(2))  # both caught up: the log can go
    cache.changed([4, 5])  # 5 pending, over 4: trimmed to the 2 no term has seen
    assert cache.get("b")[1].tolist() == [4, 5]  # type: ignore[index]
    cache.changed([6, 7, 8])  # 5 pending that a held term still needs: everything is read again
    assert cache.get("b") is None and cache.get("c") is None and len(cache) == 0


@pytest.mark.parametrize("share", [1, 10**9])  # 1: sparse (~1,400 matches of 5,000 documents); 10**9: dense
def test_bm25_sparse_and_dense_sums_are_the_same_to_the_bit(monkeypatch: pytest.MonkeyPatch, share: int) -> None:
    from kg_memory.store.index import vectors as vecindex

    rng = np.random.default_rng(7)
    doc_len = rng.integers(1, 40, size=5_000)
    # unsorted and overlapping, so many rows sum three or more terms (where the order of a sum shows)
    postings = [rng.choice(5_000, size=n, replace=False) for n in (3, 60, 200, 250, 300, 350, 400)]
    monkeypatch.setattr(vecindex, "SPARSE_BM25_SHARE", share)
    rows, at = bm25_at(doc_len, postings)
    expected = np.zeros(5_000)
    for pos in postings:  # the dense definition, term by term
        idf = max(math.log((5_000 - len(pos) + 0.5) / (len(pos) + 0.5)), 1e-6)
        expected[pos] += idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * doc_len[pos] / doc_len.mean()))
    assert rows.tolist() == np.flatnonzero(expected).tolist()
    assert at.tolist() == expected[rows].tolist()  # exactly: ties must break the same way on every path
    one_rows, one = bm25_at(doc_len, postings[1:2])  # a single term comes back sorted by position too
    assert one_rows.tolist() == sorted(postings[1].tolist()) and (one > 0).all()


def test_key_arrays_extended_on_append_match_a_full_sort() -> None:
    idx = VectorIndex(2, ("t",))
    idx.upsert((key, bytes(8), (0,)) for key in (30, 10, 20))
    assert idx.positions(np.array([10, 20, 30])).tolist() == [1, 2, 0]
    idx.upsert((key, bytes(8), (0,)) for key in (31, 45))  # appended after the largest: extended in place
    extended = idx._key_arrays()
    idx._keyarr = None
    assert [a.tolist() for a in extended] == [a.tolist() for a in idx._key_arrays()]
    idx.upsert((key, bytes(8), (0,)) for key in (5,))  # smaller than held keys: sorted again
    assert idx.positions(np.array([5, 10, 45, 31, 30])).tolist() == [5, 1, 4, 3, 0]


@settings(max_examples=60, deadline=None)
@example(n=50_000, k=100, seed=1, shape="strided").via("the fallback")
@example(n=50_000, k=100, seed=1, shape="normal").via("the shortcut")
@given(n=st.one_of(st.integers(1, 8_191), st.integers(8_192, 60_000)), k=st.integers(1, 300),
       seed=st.integers(0, 2**32 - 1), shape=st.sampled_from(["normal", "ties", "masked", "sorted", "strided"]))
def test_kth_largest_is_the_kth_largest_whatever_the_shortcut(n: int, k: int, seed: int, shape: str) -> None:
    """The sampled cut must never change the answer: against a full sort, on large arrays
    (the shortcut), small ones, many ties, mostly -inf (a mask), sorted input, and the best
    values exactly where the sample looks (its cut is then too high: the fallback)."""
    rng = np.random.default_rng(seed)
    k = min(k, n)
    values = rng.normal(size=n).astype(np.float32)
    if shape == "ties":
        values = np.round(values).astype(np.float32)
    elif shape == "masked":
        values[rng.random(n) < 0.97] = -np.inf
    elif shape == "sorted":
        values = np.sort(values)
    elif shape == "strided":
        values[::SAMPLE_STEP] += 100.0
    want = np.sort(values)[::-1][k - 1]
    got = kth_largest(values, k)
    assert got == want and got.dtype == values.dtype
