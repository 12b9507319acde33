"""A held episode index's snapshot (``store/sqlite/snapshots.py``) reads back as it was written, in
parts; what is not a snapshot of this index reads back as None. And the FTS5 document lengths a
bulk load decodes at once are those ``doc_len`` gives one by one."""

from __future__ import annotations

import numpy as np
import pytest

from kg_memory.store.index.vectors import VectorIndex
from kg_memory.store.sqlite import snapshots
from kg_memory.store.sqlite.rows import doc_len, doc_lens

DIM = 24


def _index(rows: int) -> VectorIndex:
    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(rows, DIM)).astype(np.float32)
    idx = VectorIndex(DIM, ("occurred", "created", "hasvec", "dl"), quantized_from=0)
    times = [np.arange(rows, dtype=np.int64) * 7, np.arange(rows, dtype=np.int64) * 11,
             np.ones(rows, dtype=np.int64), np.arange(rows, dtype=np.int64) % 13]
    idx.append(list(range(100, 100 + rows)), vecs, times)
    idx.seq = 42
    return idx


def test_a_snapshot_reads_back_in_parts_as_it_was_written(monkeypatch) -> None:
    monkeypatch.setattr(snapshots, "PART_ROWS", 7)
    idx = _index(30)
    keep = np.ones(30, dtype=bool)
    keep[[3, 17]] = False
    snap = snapshots.taken(idx, keep)
    parts = snapshots.encode(snap)
    assert len(parts) == 4  # 28 rows in parts of 7
    back = snapshots.decode(42, parts, DIM)
    assert back is not None and back.rows == 28 and back.seq == 42
    assert back.keys.tolist() == [k for i, k in enumerate(range(100, 130)) if keep[i]]
    assert np.array_equal(back.codes, idx.codes[:30][keep]) and np.array_equal(back.qscale, idx.qscale[:30][keep])
    for got, col in zip(back.times, ("occurred", "created", "hasvec", "dl"), strict=True):
        assert np.array_equal(got, idx.times[col][:30][keep])
    assert (back.qerr, back.qnorm) == (idx.qerr, idx.qnorm)

    restored = VectorIndex(DIM, ("occurred", "created", "hasvec", "dl"), quantized_from=0)
    restored.restore(back.keys, back.times, back.codes, back.qscale, (back.qerr, back.qnorm),
                     lambda keys: idx.vecs[[idx.pos[k] for k in keys]])
    q = np.random.default_rng(5).normal(size=DIM).astype(np.float32)
    mask = ~np.isin(np.asarray(idx.keys), [103, 117])
    assert restored.search(q, 5, lambda t: t["hasvec"] == 1) == idx.search(q, 5, lambda t: mask)


@pytest.mark.parametrize("spoil", ["magic", "dim", "short", "none"])
def test_what_is_not_a_snapshot_of_this_index_reads_back_as_none(spoil: str) -> None:
    parts = snapshots.encode(snapshots.taken(_index(10), np.ones(10, dtype=bool)))
    if spoil == "magic":
        parts = [b"notasnap" + parts[0][8:]]
    elif spoil == "short":
        parts = [parts[0][:-1]]
    elif spoil == "none":
        parts = []
    assert snapshots.decode(1, parts, DIM + (1 if spoil == "dim" else 0)) is None


def test_document_lengths_decode_at_once_as_one_by_one() -> None:
    def varint(v: int) -> bytes:
        groups = []
        while True:
            groups.append(v & 0x7F)
            v >>= 7
            if not v:
                break
        groups.reverse()
        return bytes([g | 0x80 for g in groups[:-1]] + [groups[-1]])

    rng = np.random.default_rng(9)
    values = [0, 1, 127, 128, 300, 16_383, 16_384, 2**21 + 5, *rng.integers(0, 10**7, 200).tolist()]
    sizes = (*[varint(v) for v in values], None, b"", varint(7) + b"\x05")
    assert doc_lens(sizes).tolist() == [doc_len(s) for s in sizes] == [*values, 0, 0, 7]
