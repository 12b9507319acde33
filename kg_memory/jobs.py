"""Maintenance jobs over a store (``kgmem jobs ...``). So far: the hub report.

A hub is an entity with many facts believed now ("the user" in a long chat). Graph
expansion through a hub costs the most, so recall caps it: every expansion read
takes a limit (``Store.facts_for_entities``), which a hub's facts reach first."""

from __future__ import annotations

from dataclasses import dataclass, field

from .store.base import Store


@dataclass
class Hub:
    entity_id: str
    name: str
    degree: int
    predicates: dict[str, int] = field(default_factory=dict)  # the most frequent first

    def to_json(self) -> dict[str, object]:
        return {"entity_id": self.entity_id, "name": self.name, "degree": self.degree,
                "predicates": dict(self.predicates)}


def hubs(store: Store, group_id: str, min_degree: int, top: int = 5) -> list[Hub]:
    """Entities with at least ``min_degree`` versions believed now at an end, the
    largest first (ties by name), each with its ``top`` predicates by count."""
    found: dict[str, Hub] = {}
    for entity_id, name, predicate, n in store.entity_degrees(group_id):
        hub = found.setdefault(entity_id, Hub(entity_id, name, 0))
        hub.degree += n
        hub.predicates[predicate] = n
    out = [h for h in found.values() if h.degree >= min_degree]
    for h in out:
        h.predicates = dict(sorted(h.predicates.items(), key=lambda kv: (-kv[1], kv[0]))[:top])
    return sorted(out, key=lambda h: (-h.degree, h.name, h.entity_id))
