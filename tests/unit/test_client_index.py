"""The client-side episode vectors (store/clientindex.py), on their own."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from kg_memory.errors import StoreError
from kg_memory.store.clientindex import EpisodeVectors
from kg_memory.timeutil import micros

T0, T1, T2 = (datetime(2024, m, 1, tzinfo=UTC) for m in (1, 2, 3))


def unit(*xs: float) -> np.ndarray:
    v = np.zeros(4, dtype=np.float32)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def row(eid: str, occurred: datetime, created: datetime, vec: np.ndarray, as_list: bool = False):
    return (eid, micros(occurred), micros(created), [float(x) for x in vec] if as_list else vec.tobytes())


def test_search_filters_by_both_times_before_the_top_k() -> None:
    v = EpisodeVectors(4)
    v.apply([row("near-late", T2, T0, unit(1)), row("near-unknown", T0, T2, unit(1, 0.01)),
             row("far", T0, T0, unit(0, 1), as_list=True)], seq=3)
    assert [i for i, _ in v.search(unit(1), 1, T1, T1)] == ["far"]  # the nearer two are not visible at T1
    assert [i for i, _ in v.search(unit(1), 3, T2, T2)] == ["near-late", "near-unknown", "far"]
    assert v.search(unit(1), 1, T0, T0)[0][1] == pytest.approx(0.0, abs=1e-6)


def test_ties_go_by_load_order_and_a_row_is_replaced_in_place() -> None:
    v = EpisodeVectors(4)
    v.apply([row("a", T0, T0, unit(1)), row("b", T0, T0, unit(1))], seq=1)
    assert [i for i, _ in v.search(unit(1), 2, T2, T2)] == ["a", "b"]
    v.apply([row("a", T0, T0, unit(0, 1))], seq=2)  # a's vector rewritten
    assert len(v) == 2 and [i for i, _ in v.search(unit(1), 2, T2, T2)] == ["b", "a"]
    assert v.similarity(unit(0, 1), ["a", "missing"]) == {"a": pytest.approx(1.0)}


def test_the_log_says_when_to_catch_up_and_when_to_reload() -> None:
    v = EpisodeVectors(4)
    assert v.must_reload(0, 0)  # never loaded
    v.apply([], seq=5)
    assert not v.must_reload(5, 0) and not v.must_reload(5, 5)  # current
    assert not v.must_reload(6, 0) and not v.must_reload(6, 5)  # a write since: catch up
    assert v.must_reload(7, 7)  # an erasure or a swap since: read every row
    assert v.must_reload(2, 0)  # the log went back: another store under the same name


def test_a_vector_of_the_wrong_size_is_a_store_error() -> None:
    v = EpisodeVectors(4)
    with pytest.raises(StoreError, match="3 dimensions"):
        v.apply([("x", 0, 0, np.zeros(3, dtype=np.float32).tobytes())], seq=1)
    with pytest.raises(StoreError, match="embedder"):
        v.apply([("x", 0, 0, [0.0, 1.0])], seq=1)
