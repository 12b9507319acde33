"""How the Neo4j store sizes its vector and full-text index requests: the
survival memory, the widening step and the frontier of groups too large for an
exact scan. Pure logic; the widening itself runs against a real Neo4j in the
contract suite (test_store_contract's forced index path)."""

from datetime import UTC, datetime, timedelta

import pytest

from kg_memory.store.neo4j.planning import MAX_FETCH, LargeFrontier, SurvivalMemory, next_fetch
from kg_memory.store.neo4j.planning import bounded as _bounded

pytestmark = pytest.mark.unit

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def test_survival_guess_uses_nearest_day_at_or_before() -> None:
    m = SurvivalMemory()
    assert m.guess(100.0) is None
    m.note(100.2, 0.1)
    m.note(200.7, 0.5)
    m.note(300.0, 0.9)
    assert m.guess(250.0) == 0.5  # the day before, not the nearer day after
    assert m.guess(300.9) == 0.9
    assert m.guess(10_000.0) == 0.9
    assert m.guess(50.0) == 0.1  # nothing before: the earliest day seen


def test_survival_keeps_latest_share_per_day_and_floors_zero() -> None:
    m = SurvivalMemory()
    m.note(100.1, 0.2)
    m.note(100.9, 0.6)
    assert m.guess(100.5) == 0.6
    m.note(101.0, 0.0)  # nothing survived: a tiny share, not a division by zero
    share = m.guess(101.0)
    assert share is not None and 0 < share <= 1e-4


def test_survival_memory_is_bounded() -> None:
    m = SurvivalMemory()
    for d in range(SurvivalMemory.LIMIT + 10):
        m.note(float(d), 0.5)
    assert len(m.days) <= SurvivalMemory.LIMIT
    assert m.guess(float(SurvivalMemory.LIMIT + 9)) == 0.5


def test_next_fetch_follows_the_share_within_bounds() -> None:
    # 10 of 100 survived and 60 are wanted: the share says about 60 / 0.1 * 1.2 hits.
    assert next_fetch(100, 60, 10, 100) == 728
    # Nearly all survived but a few short: at least double.
    assert next_fetch(100, 60, 55, 100) == 200
    # One survivor of 1,000 is a rough guess: at most eight times wider per step.
    assert next_fetch(1000, 60, 1, 1000) == 8000
    # None survived: eight times wider, never the whole index at once.
    assert next_fetch(132, 60, 0, 132) == 1056
    assert next_fetch(50_000, 60, 0, 50_000) == MAX_FETCH


def test_large_frontier_covers_later_questions_in_both_times() -> None:
    f = LargeFrontier()
    assert not f.covers(T0, T0)
    f.add(T0, T0 + timedelta(days=10))
    assert f.covers(T0, T0 + timedelta(days=10))
    assert f.covers(T0 + timedelta(days=1), T0 + timedelta(days=11))
    assert not f.covers(T0 - timedelta(days=1), T0 + timedelta(days=30))  # earlier as-of: may see fewer
    assert not f.covers(T0 + timedelta(days=30), T0 + timedelta(days=9))  # earlier known-at: may see fewer


def test_large_frontier_drops_points_it_no_longer_needs() -> None:
    f = LargeFrontier()
    f.add(T0 + timedelta(days=5), T0 + timedelta(days=5))
    f.add(T0 + timedelta(days=9), T0)
    f.add(T0, T0)  # covers both earlier points
    assert f.points == [(T0, T0)]
    for i in range(LargeFrontier.LIMIT + 5):  # an antichain: later as-of, earlier known-at
        f.add(T0 + timedelta(days=100 + i), T0 - timedelta(days=1 + i))
    assert len(f.points) <= LargeFrontier.LIMIT


def test_per_group_tables_are_bounded() -> None:
    table: dict[str, SurvivalMemory] = {}
    first = _bounded(table, "g0", SurvivalMemory)
    assert _bounded(table, "g0", SurvivalMemory) is first  # made once, then reused
    for i in range(1, 10_001):
        _bounded(table, f"g{i}", SurvivalMemory)
    assert len(table) <= 10_000


def test_widen_asks_again_until_k_survive_and_remembers_the_share() -> None:
    from kg_memory.store.neo4j.planning import first_fetch, widen

    asked: list[int] = []

    def run(fetch: int):  # an index of 10,000 hits of which one in 50 passes the filter
        asked.append(fetch)
        raw = min(fetch, 10_000)
        kept = raw // 50
        return list(range(min(kept, 10))), raw, kept

    memory = SurvivalMemory()
    assert widen(run, 10, memory, day=100.0) == list(range(10))
    assert asked[0] == first_fetch(10, None) == 40 and asked[-1] >= 500 and len(asked) <= 4
    asked.clear()
    share = memory.guess(120.0)
    assert share is not None and abs(share - 1 / 50) < 0.002
    widen(run, 10, memory, day=120.0)  # the share seen before sizes the first request: one query
    assert len(asked) == 1 and asked[0] == first_fetch(10, share)
    asked.clear()

    def small(fetch: int):  # fewer hits than asked for: the index is exhausted, stop
        asked.append(fetch)
        return [1, 2], 7, 2

    assert widen(small, 10, SurvivalMemory(), day=1.0) == [1, 2] and asked == [40]


def test_a_vector_query_keeps_a_floor_once_a_first_request_fell_short() -> None:
    """A question whose nearest hits are mostly another group's costs a second query once;
    from then on the group's vector queries ask for the floor first, so the next such
    question costs one. A group whose first requests never fall short asks for what its
    share says (less work per query), and the floor lapses FLOOR_MEMORY questions after
    the last shortfall."""
    from kg_memory.store.neo4j.planning import FLOOR_MEMORY, VECTOR_FETCH_FLOOR, first_fetch, widen

    floor = VECTOR_FETCH_FLOOR * 100
    assert first_fetch(100, 0.9, floor) == floor  # the share alone says 141
    assert first_fetch(100, 0.9) == 141
    assert first_fetch(100, 0.01, floor) == 12_008  # a low share still asks for more than the floor
    assert first_fetch(100, None, 10 * MAX_FETCH) == MAX_FETCH

    asked: list[int] = []

    def foreign_first(fetch: int):  # the 150 nearest hits are another group's; past them, three in four pass
        asked.append(fetch)
        kept = max(0, (fetch - 150) * 3 // 4)
        return list(range(min(kept, 100))), fetch, kept

    def steady(fetch: int):  # nine in ten pass, whichever hits
        asked.append(fetch)
        kept = fetch * 9 // 10
        return list(range(min(kept, 100))), fetch, kept

    memory = SurvivalMemory()
    assert widen(steady, 100, memory, day=100.0, floor=floor) == list(range(100)) and asked == [floor]  # no share
    asked.clear()
    for _ in range(3):  # a steady group: what the share says, one query each
        widen(steady, 100, memory, day=100.0, floor=floor)
    assert len(asked) == 3 and all(a < 150 for a in asked)
    asked.clear()
    widen(foreign_first, 100, memory, day=100.0, floor=floor)  # falls short: a second query
    assert len(asked) == 2 and asked[0] < floor
    asked.clear()
    assert widen(foreign_first, 100, memory, day=100.0, floor=floor) == list(range(100)) and asked == [floor]
    asked.clear()
    for _ in range(FLOOR_MEMORY):
        widen(steady, 100, memory, day=100.0, floor=floor)
    assert asked[0] == floor and asked[-1] < floor  # the floor lapses after FLOOR_MEMORY questions
