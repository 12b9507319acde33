"""The predicate vocabulary, loaded from ``kg_memory/data/predicates.json``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import UnsafeIdentifierError

PREDICATE_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def check_predicate(name: str) -> str:
    """Predicates end up as identifiers in some stores: keep them strict."""
    if not isinstance(name, str) or not PREDICATE_RE.match(name):
        raise UnsafeIdentifierError(
            f"predicate {name!r} is not allowed: use lower_snake_case, a letter first, at most 64 chars"
        )
    return name


@dataclass(frozen=True)
class Predicate:
    name: str
    single_valued: bool
    object_kind: str
    statement: str
    first_person: tuple[str, ...]
    third_person: tuple[str, ...]
    past: tuple[str, ...]
    ending: tuple[str, ...]
    ending_any: tuple[str, ...]
    value_class: str | None
    keywords: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True)
class Vocabulary:
    predicates: dict[str, Predicate]
    relations: dict[str, str]
    value_classes: dict[str, tuple[str, ...]]

    def is_single(self, predicate: str) -> bool:
        p = self.predicates.get(predicate)
        return bool(p and p.single_valued)

    def keyword_index(self) -> dict[str, set[str]]:
        idx: dict[str, set[str]] = {}
        for p in self.predicates.values():
            for kw in p.keywords:
                idx.setdefault(kw, set()).add(p.name)
        return idx


def _tuple(d: dict[str, Any], key: str) -> tuple[str, ...]:
    return tuple(d.get(key, ()))


@lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    raw = json.loads(resources.files("kg_memory.data").joinpath("predicates.json").read_text("utf-8"))
    preds = {}
    for name, spec in raw["predicates"].items():
        check_predicate(name)
        preds[name] = Predicate(
            name=name, single_valued=spec["cardinality"] == "single", object_kind=spec["object"],
            statement=spec["statement"], first_person=_tuple(spec, "first_person"),
            third_person=_tuple(spec, "third_person"), past=_tuple(spec, "past"),
            ending=_tuple(spec, "ending"), ending_any=_tuple(spec, "ending_any"),
            value_class=spec.get("value_class"), keywords=_tuple(spec, "keywords"),
            description=spec.get("description", ""),
        )
    classes = {k: tuple(sorted(v, key=len, reverse=True)) for k, v in raw["value_classes"].items()}
    return Vocabulary(preds, dict(raw["relations"]), classes)
