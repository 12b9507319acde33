"""The predicate vocabulary: the form of an ontology (``ontology.py``) the extractors, the pipeline and
recall read. ``load_vocabulary`` is the built-in default (``kg_memory/data/ontology.toml``)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..errors import UnsafeIdentifierError

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
    examples: tuple[str, ...] = ()

    def render(self, subject: str, obj: str, tie: str = "") -> str:
        """The fact as a sentence. ``tie`` is the kinship or role noun of "{s}'s {r} is {o}" ("brother");
        without one, the predicate's own ("has_sibling": "sibling"), never an empty gap."""
        noun = tie or self.name.removeprefix("has_").replace("_", " ")
        return self.statement.replace("{s}", subject).replace("{o}", obj).replace("{r}", noun)


@dataclass(frozen=True)
class Vocabulary:
    predicates: dict[str, Predicate]
    relations: dict[str, str]
    value_classes: dict[str, tuple[str, ...]]
    version: str = ""  # the ontology's version hash
    entity_types: tuple[str, ...] = ()
    own: frozenset[str] = frozenset()  # the predicates a group's own file defines (none in the default)
    type_notes: tuple[tuple[str, str], ...] = ()  # each entity type and its description

    @functools.cached_property
    def ties(self) -> frozenset[str]:
        """The predicates the relation nouns name ("brother": has_sibling): the slots whose values are one's people."""
        return frozenset(self.relations.values())

    def is_single(self, predicate: str) -> bool:
        p = self.predicates.get(predicate)
        return bool(p and p.single_valued)

    def in_a_class(self, value: str) -> bool:
        """Is the value a word of one of the value classes ("vegetarian" of diets, "cello" of instruments), and
        no word of a predicate's name ("teacher" is a job, and the slot a school's "teacher" predicate names)?"""
        low = value.lower()
        return any(low in words for words in self.value_classes.values()) \
            and not any(low in name.split("_") for name in self.predicates)

    def keyword_index(self) -> dict[str, set[str]]:
        idx: dict[str, set[str]] = {}
        for p in self.predicates.values():
            for kw in p.keywords:
                idx.setdefault(kw, set()).add(p.name)
        return idx


def load_vocabulary() -> Vocabulary:
    """The default ontology's vocabulary."""
    from .ontology import default_ontology

    return default_ontology().vocab
