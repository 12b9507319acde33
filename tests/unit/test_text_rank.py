"""BM25 over FTS5 postings (the SQLite store's text search), checked against
SQLite's own FTS5 ``bm25()`` on a real in-memory table."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from kg_memory.store.sqlite import _doc_len
from kg_memory.store.vecindex import VectorIndex, bm25

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


def ours(conn: sqlite3.Connection, terms: list[str]) -> tuple[np.ndarray, VectorIndex]:
    idx = VectorIndex(2, ("dl",))
    sizes = dict(conn.execute("SELECT id, sz FROM t_docsize"))
    idx.upsert((rowid, bytes(8), (_doc_len(sizes[rowid]),)) for rowid in sorted(sizes))
    postings = []
    for term in terms:
        s = conn.execute("SELECT group_concat(rowid) FROM t WHERE t MATCH ?", (f'"{term}"',)).fetchone()[0]
        if s:
            postings.append(idx.positions(np.fromstring(s, dtype=np.int64, sep=",")))
    return bm25(idx.view()["dl"], postings), idx


@pytest.mark.parametrize("terms", [["lisbon"], ["sleep", "mattress"], ["porto", "lisbon", "dog"], ["moving"]])
def test_bm25_matches_fts5(fts: sqlite3.Connection, terms: list[str]) -> None:
    scores, idx = ours(fts, terms)
    match = " OR ".join(f'"{t}"' for t in terms)
    expected = {r: -s for r, s in fts.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ?", (match,))}
    got = {int(idx.keys[i]): float(scores[i]) for i in np.flatnonzero(scores > 0)}
    assert set(got) == set(expected)  # "moving" stems like "moved": FTS5 tokenizes the query
    for rowid, value in expected.items():
        assert got[rowid] == pytest.approx(value, rel=1e-9)


def test_doc_len_reads_multibyte_varints(fts: sqlite3.Connection) -> None:
    sizes = dict(fts.execute("SELECT id, sz FROM t_docsize"))
    assert _doc_len(sizes[10]) == 6
    assert len(sizes[17]) == 2 and _doc_len(sizes[17]) == 203
    assert _doc_len(None) == 0


def test_top_prefilters_and_breaks_ties_by_key() -> None:
    idx = VectorIndex(2, ("t",))
    idx.upsert((key, bytes(8), (t,)) for key, t in [(30, 1), (10, 1), (20, 1), (40, 9), (50, 1)])
    scores = np.array([1.0, 1.0, 1.0, 5.0, 0.0])  # positions follow insertion order
    mask = idx.view()["t"] < 5  # key 40, the best score, is filtered out before ranking
    assert idx.top(scores, 2, mask) == [(10, 1.0), (20, 1.0)]
    assert idx.top(scores, 10, mask) == [(10, 1.0), (20, 1.0), (30, 1.0), (50, 0.0)]  # every masked row
    assert idx.top(scores, 10, mask & (scores > 0)) == [(10, 1.0), (20, 1.0), (30, 1.0)]  # as BM25 asks
    assert idx.top(scores, 2, ~mask) == [(40, 5.0)]


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
