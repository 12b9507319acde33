"""Merged entities: entity resolution (``maintenance/resolve.py``) marks an entity as merged into
another, and every lookup by any of its names then finds the survivor."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .models import Entity

if TYPE_CHECKING:
    from ..store.base import StoreCore


def survivors(found: dict[str, Entity], lookup: Callable[[list[str]], list[Entity]]) -> dict[str, Entity]:
    """Replace each merged entity by the one it was merged into (following chains), so
    that a lookup by any alias finds the survivor. ``lookup`` reads entities by id."""
    out = dict(found)
    for _ in range(8):  # a chain of merges is short; this bounds a cycle written by hand
        pending = {k: e.merged_into for k, e in out.items() if e.merged_into}
        if not pending:
            break
        by_id = {e.id: e for e in lookup(sorted(set(pending.values())))}
        for key, target in pending.items():
            if target in by_id:
                out[key] = by_id[target]
            else:
                out[key] = out[key].model_copy(update={"merged_into": None})
    return out


def find_live(store: StoreCore, group_id: str, keys: list[str]) -> dict[str, Entity]:
    """``store.find_entities`` with every merged entity replaced by its survivor."""
    found = store.find_entities(group_id, keys)
    if not any(e.merged_into for e in found.values()):
        return found
    return survivors(found, lambda ids: store.entities(group_id, ids))
