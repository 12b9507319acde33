import pytest

from kg_memory.store.cache import GroupCache


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
