"""Entity resolution: which entities of a group name the same thing.

Pure functions over names, vectors and the facts believed now; ``kg_memory/maintenance/runner.py``
reads the store, calls these, and persists merges and the review queue.

* **Names.** A name's *core* drops case, punctuation, a leading article and legal
  suffixes ("ACME Inc." and "Acme Corp" are both ``acme``). Multi-word names also
  have an acronym ("International Business Machines" is ``ibm``).
* **Blocking.** Only entities that share a block are compared: the same core, a core
  word, an acronym, or the first letters of the core. A block too large to compare
  pairwise (a common word) is compared within a sorted window instead, so the cost
  stays near-linear in the number of entities.
* **Score.** Name similarity (rapidfuzz) and the cosine of the name vectors, then the
  graph: shared neighbours raise the score (a neighbour shared with many counts little), and
  two different values believed now for
  the same single-valued predicate (two birthdays) lower it sharply.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz

from ..core.models import Entity, FactVersion

LEGAL_SUFFIXES = frozenset({
    "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc", "llp", "lp", "plc",
    "gmbh", "ag", "kg", "sa", "sas", "sarl", "srl", "spa", "bv", "nv", "oy", "ab", "as", "pty", "pte", "kk",
})
# Titles say nothing about which person is meant, except that "Mr" and "Mrs" are two people.
TITLES = {"mr": "m", "mister": "m", "mrs": "f", "ms": "f", "miss": "f", "dr": "", "prof": "", "sir": "m", "dame": "f"}
_STOP = frozenset({"the", "a", "an", "of", "and", "for", "at", "in", "on", "my", "our", "de", "la", "le"})
_WORD = re.compile(r"[a-z0-9]+")
MAX_BLOCK = 40  # a block larger than this is compared within a sorted window (near-linear cost)
WINDOW = 8  # the neighbours each name is compared with inside a large block


@dataclass(frozen=True)
class Name:
    """What resolution knows of an entity's name."""

    entity_id: str
    raw: str
    core: str
    words: tuple[str, ...]
    acronyms: tuple[str, ...]
    title: str | None = None  # "m" or "f" from a gendered title, "" from another title


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def name_of(entity: Entity) -> Name:
    words = _WORD.findall(_ascii(entity.name).lower().replace("'s ", " ").replace("'", ""))
    while len(words) > 1 and words[0] in {"the", "a", "an"}:
        words = words[1:]
    title = None
    if len(words) > 1 and words[0] in TITLES:
        title, words = TITLES[words[0]], words[1:]
    full = [w for w in words if w not in _STOP]
    while len(words) > 1 and words[-1] in LEGAL_SUFFIXES:
        words = words[:-1]
    core = " ".join(words)
    content = [w for w in words if w not in _STOP]
    acronyms = tuple(dict.fromkeys("".join(w[0] for w in ws) for ws in (content, full) if len(ws) >= 2))
    return Name(entity.id, entity.name, core, tuple(words), acronyms, title)


def _is_acronym_form(n: Name) -> bool:
    """A single short word, such as "IBM" or "nasa", that may stand for a longer name."""
    return len(n.words) == 1 and 2 <= len(n.core) <= 6 and n.core.isalpha()


def block_keys(n: Name) -> set[str]:
    keys = {f"c:{n.core}"}
    keys |= {f"w:{w}" for w in n.words if len(w) >= 3 and w not in _STOP}
    keys |= {f"a:{a}" for a in n.acronyms}
    if _is_acronym_form(n):
        keys.add(f"a:{n.core}")
    if len(n.core) >= 3:
        keys.add(f"p:{n.core[:3]}")
    return keys


def candidate_pairs(names: list[Name]) -> set[tuple[str, str]]:
    """Pairs of entity ids (the smaller first) that share a block."""
    blocks: dict[str, list[Name]] = defaultdict(list)
    for n in names:
        for k in block_keys(n):
            blocks[k].append(n)
    pairs: set[tuple[str, str]] = set()
    for members in blocks.values():
        if len(members) < 2:
            continue
        if len(members) <= MAX_BLOCK:
            pairs |= {_pair(a.entity_id, b.entity_id) for i, a in enumerate(members) for b in members[i + 1:]}
            continue
        ordered = sorted(members, key=lambda n: (n.core, n.entity_id))
        pairs |= {_pair(a.entity_id, b.entity_id) for i, a in enumerate(ordered) for b in ordered[i + 1:i + 1 + WINDOW]}
    return {p for p in pairs if p[0] != p[1]}


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def name_similarity(a: Name, b: Name) -> float:
    """0..1: the same core is 1; an acronym of the other name 0.92; else rapidfuzz's best of
    plain and word-order-free ratios on the cores. Titles of two genders ("Mr Patel", "Mrs
    Patel"), or different numbers ("Pixel 7", "Pixel 8"), cap it at 0.5."""
    if a.title and b.title and a.title != b.title:
        return 0.5
    numbers_a, numbers_b = {w for w in a.words if w.isdigit()}, {w for w in b.words if w.isdigit()}
    if numbers_a and numbers_b and numbers_a != numbers_b:  # "Pixel 7" is not "Pixel 8"
        return 0.5
    if a.core == b.core:
        return 1.0
    if (_is_acronym_form(a) and a.core in b.acronyms) or (_is_acronym_form(b) and b.core in a.acronyms):
        return 0.92
    return max(fuzz.ratio(a.core, b.core), fuzz.token_sort_ratio(a.core, b.core)) / 100.0


@dataclass
class Context:
    """What the facts believed now say about each entity."""

    neighbours: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    predicates: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    single_values: dict[str, dict[str, set[str]]] = field(default_factory=lambda: defaultdict(dict))
    degree: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def context_of(versions: Iterable[FactVersion], single_valued: Callable[[str], bool]) -> Context:
    """Neighbours, predicates, degree, and the current values of single-valued predicates
    (valid now: no end), from the versions believed now."""
    ctx = Context()
    for v in versions:
        if v.expired_at is not None:
            continue
        ctx.neighbours[v.subject_id].add(v.object_id)
        ctx.neighbours[v.object_id].add(v.subject_id)
        ctx.predicates[v.subject_id].add(v.predicate)
        ctx.predicates[v.object_id].add(f"~{v.predicate}")
        ctx.degree[v.subject_id] += 1
        ctx.degree[v.object_id] += 1
        if v.valid_to is None and single_valued(v.predicate):
            ctx.single_values[v.subject_id].setdefault(v.predicate, set()).add(v.object_id)
    return ctx


@dataclass
class Evidence:
    name: float
    cosine: float
    shared_neighbours: int
    shared_predicates: int
    conflicts: list[str]

    def to_json(self) -> dict[str, object]:
        return {"name": round(self.name, 4), "cosine": round(self.cosine, 4),
                "shared_neighbours": self.shared_neighbours, "shared_predicates": self.shared_predicates,
                "conflicts": list(self.conflicts)}


# How the evidence combines (tuned on tests/fixtures/alias-pairs.json; docs/benchmarks.md, "Entity resolution")
NAME_WEIGHT, COSINE_WEIGHT = 0.6, 0.4
NEIGHBOUR_BONUS, PREDICATE_BONUS, CONFLICT_PENALTY = 0.05, 0.02, 0.4


def score(a: Name, b: Name, cosine: float, ctx: Context) -> tuple[float, Evidence]:
    name = name_similarity(a, b)
    x, y = a.entity_id, b.entity_id
    shared = (ctx.neighbours.get(x, set()) & ctx.neighbours.get(y, set())) - {x, y}
    # a neighbour shared with many (a city, "the user") says little: each counts 1 / log(its degree)
    support = sum(1.0 / math.log(max(ctx.degree.get(n, 2), 2)) for n in shared)
    shared_p = len(ctx.predicates.get(x, set()) & ctx.predicates.get(y, set()))
    sx, sy = ctx.single_values.get(x, {}), ctx.single_values.get(y, {})
    conflicts = sorted(p for p in set(sx) & set(sy) if sx[p] != sy[p] and not (sx[p] & sy[p]))
    total = NAME_WEIGHT * name + COSINE_WEIGHT * max(cosine, 0.0)
    total += NEIGHBOUR_BONUS * min(support, 2.0) + PREDICATE_BONUS * min(shared_p, 2)
    total -= CONFLICT_PENALTY * len(conflicts)
    return max(0.0, min(1.0, total)), Evidence(name, cosine, len(shared), shared_p, conflicts)


@dataclass
class Match:
    a: str  # entity ids, the smaller first
    b: str
    score: float
    evidence: Evidence

    @property
    def key(self) -> str:
        return f"{self.a}|{self.b}"


def find_matches(entities: list[Entity], vectors: dict[str, np.ndarray], ctx: Context, min_score: float,
                 skip: set[str] | None = None) -> list[Match]:
    """Scored candidate pairs at or above ``min_score``, best first (ties by key). Entities
    already merged into another, values (dates, numbers) and pairs in ``skip`` (decided
    before) are left out."""
    live = [e for e in entities if e.merged_into is None and e.kind == "entity"]
    names = {e.id: name_of(e) for e in live}
    skip = skip or set()
    out = []
    for x, y in sorted(candidate_pairs(list(names.values()))):
        if f"{x}|{y}" in skip:
            continue
        vx, vy = vectors.get(x), vectors.get(y)
        cos = float(np.dot(vx, vy)) if vx is not None and vy is not None else 0.0
        s, ev = score(names[x], names[y], cos, ctx)
        if s >= min_score:
            out.append(Match(x, y, s, ev))
    return sorted(out, key=lambda m: (-m.score, m.key))


def choose_survivor(a: Entity, b: Entity, ctx: Context) -> tuple[Entity, Entity]:
    """(survivor, absorbed): the entity with more facts believed now, then the older, then by id."""
    ranked = sorted((a, b), key=lambda e: (-ctx.degree.get(e.id, 0), e.created_at, e.id))
    return ranked[0], ranked[1]

