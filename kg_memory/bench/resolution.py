"""`kgmem bench resolve`: entity resolution, measured two ways.

* **Precision by band** on hand-labelled name pairs (``tests/fixtures/alias-pairs.json``):
  each pair is scored as the job scores it (names and the real embedding model; no graph),
  and the report gives, for the merge band and the review band, how many pairs land there
  and how many of those are truly one thing.
* **The job at scale**: a group of ``entities`` synthetic entities (people, companies,
  places) where a known set of pairs are aliases of each other (suffix, case, punctuation,
  nickname or typo variants) and each entity has a place it lives in or is based in (aliases
  share theirs). ``resolve-entities`` runs on the store as a user runs it (reads, blocking,
  scoring, and every merge written); the report gives its time, and the precision and
  recall of its merges against the planted pairs."""

from __future__ import annotations

import json
import random
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..core.models import Entity, FactVersion, normalize_name
from ..embed.base import Embedder
from ..maintenance.merges import Resolver
from ..maintenance.resolve import Context, candidate_pairs, name_of, score
from ..store.base import WriteBatch
from ..store.url import open_store

T = datetime(2026, 1, 1, tzinfo=UTC)
FIRST = ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
         "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
         "Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Betty", "Mark", "Sandra", "Donald", "Margaret",
         "Steven", "Ashley", "Andrew", "Kimberly", "Joshua", "Emily", "Kenneth", "Donna", "Kevin", "Michelle",
         "Brian", "Carol", "George", "Amanda", "Timothy", "Melissa", "Ronald", "Deborah", "Jason", "Stephanie",
         "Ines", "Joao", "Aisha", "Wei", "Priya", "Hiroshi", "Olga", "Mateo", "Fatima", "Lars"]
LAST = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
        "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
        "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
        "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
        "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
        "Silva", "Costa", "Khan", "Chen", "Patel", "Tanaka", "Ivanova", "Rossi", "Dubois", "Larsen"]
WORDS = ["Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Hooli", "Vandelay", "Soylent", "Tyrell",
         "Cyberdyne", "Wonka", "Gringotts", "Oscorp", "Massive", "Dynamic", "Blue", "Green", "Red", "Silver",
         "Golden", "North", "South", "East", "West", "Prime", "Apex", "Summit", "Pioneer", "Vertex",
         "Quantum", "Nova", "Stellar", "Orbit", "Harbor", "River", "Mountain", "Cedar", "Oak", "Maple"]
KINDS = ["Systems", "Labs", "Foods", "Motors", "Bank", "Media", "Health", "Energy", "Logistics", "Analytics",
         "Studios", "Robotics", "Pharma", "Capital", "Works", "Partners", "Digital", "Networks", "Foundry", "Group"]
SUFFIX = [("Inc.", "Incorporated"), ("Corp", "Corporation"), ("Ltd", "Limited"), ("GmbH", "GmbH"), ("LLC", "L.L.C.")]
NICK = {"James": "Jim", "Robert": "Rob", "John": "Jon", "Michael": "Mike", "David": "Dave", "Elizabeth": "Liz",
        "William": "Will", "Richard": "Rick", "Joseph": "Joe", "Jessica": "Jess", "Thomas": "Tom", "Daniel": "Dan",
        "Matthew": "Matt", "Anthony": "Tony", "Steven": "Steve", "Andrew": "Andy", "Kenneth": "Ken",
        "Timothy": "Tim", "Ronald": "Ron", "Margaret": "Maggie", "Patricia": "Pat", "Kimberly": "Kim"}


def labelled(embedder: Embedder, path: Path, merge_at: float, review_at: float) -> dict[str, Any]:
    pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
    bands: dict[str, dict[str, Any]] = {name: {"pairs": 0, "same": 0} for name in ("merge", "review", "none")}
    blocked = 0
    for i, p in enumerate(pairs):
        a = Entity(id=f"a{i}", group_id="g", name=p["a"], created_at=T)
        b = Entity(id=f"b{i}", group_id="g", name=p["b"], created_at=T)
        va, vb = embedder.embed([p["a"], p["b"]])
        na, nb = name_of(a), name_of(b)
        found = bool(candidate_pairs([na, nb]))
        blocked += found and p["same"]
        s, _ = score(na, nb, float(np.dot(va, vb)), Context())
        chosen = "none" if not found else "merge" if s >= merge_at else "review" if s >= review_at else "none"
        bands[chosen]["pairs"] += 1
        bands[chosen]["same"] += bool(p["same"])
    same = sum(1 for p in pairs if p["same"])
    for counts in bands.values():
        counts["precision"] = round(counts["same"] / counts["pairs"], 3) if counts["pairs"] else None
    return {"pairs": len(pairs), "same": same, "merge_at": merge_at, "review_at": review_at, "bands": bands,
            "merge_recall": round(bands["merge"]["same"] / same, 3),
            "merge_or_review_recall": round((bands["merge"]["same"] + bands["review"]["same"]) / same, 3),
            "blocking_recall": round(blocked / same, 3)}


def _variant(name: str, kind: str, rng: random.Random) -> str:
    """Another way to write the same name: a legal suffix spelled out or dropped, a nickname,
    a title, or a typo."""
    if kind == "company":
        for short, long in SUFFIX:
            if name.endswith(short):
                return (name[: -len(short)] + rng.choice([long, ""])).strip()
    if kind == "person":
        first, last = name.split(" ", 1)
        if first in NICK and rng.random() < 0.6:
            return f"{NICK[first]} {last}"
        if rng.random() < 0.5:
            return f"Dr. {first} {last}"
    i = rng.randrange(1, len(name) - 2)  # two letters swapped
    return name[:i] + name[i + 1] + name[i] + name[i + 2:]


def synthetic_group(n: int, seed: int) -> tuple[list[tuple[str, str]], set[tuple[int, int]]]:
    """``n`` (name, kind) entities, and the index pairs that are aliases of each other (about 5%)."""
    rng = random.Random(seed)
    names: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(names) < int(n * 0.95):
        roll = rng.random()
        if roll < 0.6:
            name, kind = f"{rng.choice(FIRST)} {_tag(rng)}", "person"
        elif roll < 0.9:
            name, kind = f"{rng.choice(WORDS)} {rng.choice(KINDS)} {rng.choice(SUFFIX)[0]}", "company"
            name = f"{rng.choice(WORDS)} {name}" if rng.random() < 0.8 else name
        else:
            name, kind = f"{rng.choice(WORDS)} {rng.choice(['Street', 'Park', 'Square', 'Lane', 'Hill'])} "\
                         f"{rng.randrange(1, 200)}", "place"
        if name.lower() not in seen:
            seen.add(name.lower())
            names.append((name, kind))
    aliases: set[tuple[int, int]] = set()
    exact = {normalize_name(n) for n, _ in names}
    for i in rng.sample(range(len(names)), n - len(names)):
        other = _variant(*names[i], rng)
        if normalize_name(other) not in exact and other.strip():  # a case-only variant is the same entity
            exact.add(normalize_name(other))
            aliases.add((i, len(names)))
            names.append((other, names[i][1]))
    return names, aliases


def _tag(rng: random.Random) -> str:
    """A surname: one of 60, or one of 600 made from them."""
    return rng.choice(LAST) + rng.choice(["", "son", "ley", "ford", "ton", "wood", "field", "er", "ini", "berg"])


def at_scale(store_url: str | None, embedder: Embedder, entities: int, seed: int, merge_at: float,
             review_at: float, log: Callable[[str], None]) -> dict[str, Any]:
    names, aliases = synthetic_group(entities, seed)
    group = f"bench-resolve-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(store_url or f"sqlite:///{Path(tmp) / 'resolve.db'}", dim=embedder.dim)
        try:
            store.migrate()
            log(f"{store.kind}: embedding {len(names)} names")
            t0 = time.perf_counter()
            vecs = embedder.embed([n for n, _ in names])
            embed_s = time.perf_counter() - t0
            ents = [Entity(id=f"en_{group[-8:]}_{i:06d}", group_id=group, name=n, created_at=T) for i, (n, _) in
                    enumerate(names)]
            homes = _homes(ents, aliases, random.Random(seed), group)
            store.write(WriteBatch(entities=ents + homes[0], entity_vectors={e.id: v for e, v in zip(ents, vecs,
                                                                                                      strict=True)},
                                   inserts=homes[1]))
            log(f"{store.kind}: resolve-entities over {len(ents) + len(homes[0])} entities")
            t0 = time.perf_counter()
            report = Resolver(store, embedder, merge_at, review_at).run(group, T)
            seconds = time.perf_counter() - t0
        finally:
            store.close()
    index = {e.id: i for i, e in enumerate(ents)}
    planted = {frozenset(p) for p in aliases}
    pairs = [(frozenset((index[m["survivor_id"]], index[m["absorbed_id"]])), m) for m in report.merged
             if m["survivor_id"] in index and m["absorbed_id"] in index]
    merged = [p for p, _ in pairs]
    right = sum(1 for m in merged if m in planted)
    wrong = [{"names": sorted(names[i][0] for i in p), "score": m["score"], "evidence": m["evidence"]}
             for p, m in pairs if p not in planted]
    queued = [frozenset((index[q["a"]], index[q["b"]])) for q in report.queued if q["a"] in index and q["b"] in index]
    return {"store": store_url.split("://")[0] if store_url else "sqlite", "entities": report.entities,
            "planted_pairs": len(planted), "candidates": report.candidates, "merged": len(report.merged),
            "queued": len(report.queued), "merge_precision": round(right / len(merged), 3) if merged else None,
            "merge_recall": round(right / len(planted), 3) if planted else None,
            "merge_or_review_recall": round(len(planted & {*merged, *queued}) / len(planted), 3) if planted else None,
            "seconds": round(seconds, 2), "embed_seconds": round(embed_s, 2), "wrong_merges": wrong[:10]}


def _homes(ents: list[Entity], aliases: set[tuple[int, int]], rng: random.Random, group: str
           ) -> tuple[list[Entity], list[FactVersion]]:
    """A place each entity lives in or is based in (lives_in is single-valued); aliases share it."""
    places = [Entity(id=f"en_city_{group}_{i}", group_id=group, name=f"City {i}", created_at=T) for i in range(300)]
    home = {i: rng.randrange(len(places)) for i in range(len(ents))}
    for a, b in aliases:
        home[b] = home[a]
    facts = [FactVersion(group_id=group, subject_id=e.id, subject=e.name, predicate="lives_in",
                         object_id=places[home[i]].id, object=places[home[i]].name,
                         statement=f"{e.name} lives in {places[home[i]].name}", valid_from=T, created_at=T)
             for i, e in enumerate(ents)]
    return places, facts
