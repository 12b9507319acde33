"""Per-group caches for stores, bounded by a least-recently-used rule over groups,
so a process that serves many tenants keeps the groups it uses and forgets the
rest; and the rows one group's index has already built. Plain data structures, tested on their own
(tests/unit/test_group_cache.py)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
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

    def put(self, group_id: str, item: T) -> None:
        """Hold ``item`` as the group's entry (replacing any), the most recent."""
        self._items.pop(group_id, None)
        self.get(group_id, lambda: item)

    def peek(self, group_id: str) -> T | None:
        return self._items.get(group_id)

    def groups(self) -> list[str]:
        """Cached groups, least recently used first."""
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)


K = TypeVar("K")


class RowCache(Generic[K, T]):
    """Rows a store has already read and built, by key, for one group's index:
    bounded, least recently used first out. The owner drops the keys each write
    changed (the change log names them), so a cached row is never older than the
    index it sits beside. Plain data structure, tested on its own."""

    def __init__(self, max_rows: int):
        if max_rows < 0:
            raise ValueError("max_rows must not be negative")
        self.max_rows = max_rows
        self._rows: OrderedDict[K, T] = OrderedDict()

    def __len__(self) -> int:
        return len(self._rows)

    def split(self, keys: list[K]) -> tuple[dict[K, T], list[K]]:
        """The cached rows of ``keys`` (now the most recent), and the keys not cached, in order."""
        found: dict[K, T] = {}
        missing: list[K] = []
        for k in keys:
            row = self._rows.get(k)
            if row is None:
                missing.append(k)
            else:
                self._rows.move_to_end(k)
                found[k] = row
        return found, missing

    def put(self, rows: Mapping[K, T]) -> None:
        for k, row in rows.items():
            self._rows[k] = row
            self._rows.move_to_end(k)
        while len(self._rows) > self.max_rows:
            self._rows.popitem(last=False)

    def drop(self, keys: Iterable[K]) -> None:
        for k in keys:
            self._rows.pop(k, None)
