import pytest

from kg_memory.store.index.cache import GroupCache, RowCache


def test_least_recently_used_group_goes_first():
    made: list[str] = []
    cache: GroupCache[list[str]] = GroupCache(2)

    def make(g: str):
        return lambda: made.append(g) or [g]

    a = cache.get("a", make("a"))
    cache.get("b", make("b"))
    assert cache.get("a", make("a")) is a  # a hit: not made again, and now the most recent
    cache.get("c", make("c"))  # evicts b, the least recently used
    assert cache.groups() == ["a", "c"] and cache.peek("b") is None and len(cache) == 2
    cache.get("b", make("b"))
    assert made == ["a", "b", "c", "b"] and cache.groups() == ["c", "b"]
    with pytest.raises(ValueError):
        GroupCache(0)


def test_row_cache_keeps_the_most_recent_rows_and_drops_changed_ones():
    rows: RowCache[int, str] = RowCache(3)
    rows.put({1: "a", 2: "b", 3: "c"})
    assert rows.split([2, 9, 1]) == ({2: "b", 1: "a"}, [9])  # 2 and 1 are now the most recent
    rows.put({4: "d"})  # evicts 3, the least recently used
    assert rows.split([3, 4]) == ({4: "d"}, [3]) and len(rows) == 3
    rows.drop([1, 7])
    assert rows.split([1, 2]) == ({2: "b"}, [1])
    none: RowCache[int, str] = RowCache(0)
    none.put({1: "a"})
    assert len(none) == 0
    with pytest.raises(ValueError):
        RowCache(-1)
