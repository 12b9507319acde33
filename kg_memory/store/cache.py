"""Per-group caches for stores, bounded by a least-recently-used rule over groups,
so a process that serves many tenants keeps the groups it uses and forgets the
rest. Plain data structure, tested on its own (tests/unit/test_group_cache.py)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class GroupCache(Generic[T]):
    def __init__(self, max_groups: int):
        if max_groups < 1:
            raise ValueError("max_groups must be at least 1")
        self.max_groups = max_groups
        self._items: OrderedDict[str, T] = OrderedDict()

    def get(self, group_id: str, make: Callable[[], T]) -> T:
        """The group's entry, made on first use; using it makes it the most recent."""
        found = self._items.get(group_id)
        if found is None:
            found = self._items[group_id] = make()
            while len(self._items) > self.max_groups:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(group_id)
        return found

    def peek(self, group_id: str) -> T | None:
        return self._items.get(group_id)

    def groups(self) -> list[str]:
        """Cached groups, least recently used first."""
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)
