"""The client-side episode and fact vectors (store/neo4j/held.py), on their own."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from kg_memory.core.temporal import visible
from kg_memory.core.timeutil import micros
from kg_memory.errors import StoreError
from kg_memory.store.neo4j.held import GroupVectors, VectorLog

T0, T1, T2 = (datetime(2024, m, 1, tzinfo=UTC) for m in (1, 2, 3))


def unit(*xs: float) -> np.ndarray:
    v = np.zeros(4, dtype=np.float32)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def row(eid: str, occurred: datetime, created: datetime, vec: np.ndarray, as_list: bool = False):
    return (eid, micros(occurred), micros(created), [float(x) for x in vec] if as_list else vec.tobytes())


def test_search_filters_by_both_times_before_the_top_k() -> None:
    v = GroupVectors(4).episodes
    v.apply([row("near-late", T2, T0, unit(1)), row("near-unknown", T0, T2, unit(1, 0.01)),
             row("far", T0, T0, unit(0, 1), as_list=True)])
    assert [i for i, _ in v.search(unit(1), 1, T1, T1)] == ["far"]  # the nearer two are not visible at T1
    assert [i for i, _ in v.search(unit(1), 3, T2, T2)] == ["near-late", "near-unknown", "far"]
    assert v.search(unit(1), 1, T0, T0)[0][1] == pytest.approx(0.0, abs=1e-6)


def test_ties_go_by_load_order_and_a_row_is_replaced_in_place() -> None:
    v = GroupVectors(4).episodes
    v.apply([row("a", T0, T0, unit(1)), row("b", T0, T0, unit(1))])
    assert [i for i, _ in v.search(unit(1), 2, T2, T2)] == ["a", "b"]
    v.apply([row("a", T0, T0, unit(0, 1))])  # a's vector rewritten
    assert len(v) == 2 and [i for i, _ in v.search(unit(1), 2, T2, T2)] == ["b", "a"]
    assert v.similarity(unit(0, 1), ["a", "missing"]) == {"a": pytest.approx(1.0)}


def test_the_log_says_when_to_catch_up_which_rows_and_when_to_reload() -> None:
    g = GroupVectors(4)
    assert g.must_reload(VectorLog(0, 0, 0, 0))  # never loaded
    g.advance(5)
    assert not g.must_reload(VectorLog(5, 0, 5, 3)) and g.behind(VectorLog(5, 0, 5, 3)) == (False, False)
    assert not g.must_reload(VectorLog(6, 5, 6, 3))  # a write since: catch up, on the episodes alone
    assert g.behind(VectorLog(6, 5, 6, 3)) == (True, False)
    assert g.behind(VectorLog(7, 5, 6, 7)) == (True, True)
    assert g.behind(VectorLog(7, 5, 2, 7)) == (False, True)
    assert g.must_reload(VectorLog(7, 7, 7, 7))  # an erasure or a swap since: read every row
    assert g.must_reload(VectorLog(2, 0, 2, 2))  # the log went back: another store under the same name


def fact(fid: str, vf: datetime | None, vt: datetime | None, created: datetime, expired: datetime | None,
         vec: np.ndarray):
    return (fid, *(None if t is None else micros(t) for t in (vf, vt, created, expired)), vec.tobytes())


def test_fact_rows_follow_the_temporal_cores_visibility_with_open_ends() -> None:
    """Every as-of / known-at pair over a few versions: the held search shows exactly the
    versions ``temporal.visible`` shows, open ends included, and an expiry replaces the row."""
    from kg_memory.core.models import FactVersion

    days = [datetime(2024, 1, d, tzinfo=UTC) for d in (1, 5, 10, 15, 20)]
    shapes = {"open": (None, None, days[0], None), "closed": (days[1], days[3], days[1], None),
              "retired": (None, None, days[0], days[2]), "late": (days[3], None, days[2], days[4])}
    v = GroupVectors(4).facts
    v.apply([fact(i, *t, unit(1, n / 10)) for n, (i, t) in enumerate(shapes.items())])
    model = {i: FactVersion(id=i, fact_id=i, group_id="g", subject_id="s", subject="s", predicate="p",
                            object_id="o", object="o", statement="s p o", valid_from=t[0], valid_to=t[1],
                            created_at=t[2], expired_at=t[3]) for i, t in shapes.items()}
    for as_of in [*days, datetime(2030, 1, 1, tzinfo=UTC)]:
        for known_at in days:
            got = {i for i, _ in v.search(unit(1), 10, as_of, known_at)}
            assert got == {i for i, f in model.items() if visible(f, as_of, known_at)}, (as_of, known_at)
    v.apply([fact("open", None, None, days[0], days[1], unit(1))])  # the open version expired
    assert len(v) == 4 and "open" not in {i for i, _ in v.search(unit(1), 10, days[3], days[3])}
    assert "open" in {i for i, _ in v.search(unit(1), 10, days[3], days[0])}  # as believed before


def test_a_vector_of_the_wrong_size_is_a_store_error() -> None:
    v = GroupVectors(4).episodes
    with pytest.raises(StoreError, match="3 dimensions"):
        v.apply([("x", 0, 0, np.zeros(3, dtype=np.float32).tobytes())])
    with pytest.raises(StoreError, match="embedder"):
        v.apply([("x", 0, 0, [0.0, 1.0])])


def test_a_write_applies_only_on_top_of_the_position_just_before_it() -> None:
    """The writing process applies its own committed write (rows, new versions, expiries)
    only when its vectors are current to the log position just before the write; an
    expiry keeps the version's vector and closes its belief."""
    g = GroupVectors(4)
    g.episodes.apply([row("e1", T0, T0, unit(0, 1))])
    g.facts.apply([fact("a", None, None, T0, None, unit(1))])
    g.advance(3)
    assert not g.write_through(5, [row("e2", T0, T0, unit(1))], [], [])  # position 4 came between
    assert g.seq == 3 and len(g.episodes) == 1
    assert g.write_through(4, [row("e2", T0, T0, unit(1))], [fact("b", None, None, T1, None, unit(1, 0.5))],
                           [("a", micros(T1)), ("not-held", micros(T1))])
    assert g.seq == 4 and [i for i, _ in g.episodes.search(unit(1), 1, T2, T2)] == ["e2"]
    assert [i for i, _ in g.facts.search(unit(1), 2, T2, T2)] == ["b"]  # a's belief closed at T1
    before = g.facts.search(unit(1), 2, T2, T0)
    assert [i for i, _ in before] == ["a"] and before[0][1] == pytest.approx(1.0)  # its vector kept
