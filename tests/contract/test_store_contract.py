"""Store-level contract: migrations and time-filtered vector search without dilution."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from kg_memory.core.idents import safe_identifier
from kg_memory.core.models import Entity, Episode, FactVersion
from kg_memory.store.base import TimeFilter, WriteBatch
from kg_memory.store.neo4j.planning import VECTOR_FETCH_FLOOR, SurvivalMemory, bounded
from kg_memory.store.neo4j.queries import migration_names, query
from kg_memory.store.sqlite import SQLiteStore
from kg_memory.store.sqlite.migrations import MIGRATIONS
from kg_memory.store.url import open_store

from ..conftest import neo4j_url


@pytest.mark.serial
def test_migrating_a_blank_store_builds_the_schema(store, tmp_path: Path):
    if store.kind == "sqlite":
        blank = SQLiteStore(tmp_path / "blank.db")
        assert blank.applied_migrations() == []
        assert blank.migrate() == [name for name, _ in MIGRATIONS]
        objects = set(blank.info()["objects"])
        assert {"episodes", "entities", "facts", "mentions", "episodes_fts", "facts_fts", "meta",
                "facts_current", "episodes_group_time"} <= objects
        assert blank.info()["journal_mode"] == "wal"
        assert blank.migrate() == []  # idempotent
        blank.close()
        return
    # Neo4j: remove kgmem's schema (data stays), then migrate from nothing, from two processes'
    # worth of stores at once (two workers starting on a new server): both succeed, one record.
    other = open_store(neo4j_url(), dim=384)
    with store.driver.session() as s:
        for r in list(s.run("SHOW CONSTRAINTS YIELD name WHERE name STARTS WITH 'kgmem_' RETURN name")):
            s.run(f"DROP CONSTRAINT {safe_identifier(r['name'])} IF EXISTS").consume()
        for r in list(s.run("SHOW INDEXES YIELD name WHERE name STARTS WITH 'kgmem_' RETURN name")):
            s.run(f"DROP INDEX {safe_identifier(r['name'])} IF EXISTS").consume()
        s.run("MATCH (n:KgmemSchema) DELETE n").consume()
    assert store.applied_migrations() == []
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda st: st.migrate(), [store, other]))
    other.close()
    assert set(runs[0] + runs[1]) == set(migration_names())  # between them, every migration
    assert store.applied_migrations() == migration_names()
    with store.driver.session() as s:
        assert s.run("MATCH (n:KgmemSchema) RETURN count(n) AS n").single()["n"] == 1
    info = store.info()
    assert info["schema_version"] == len(migration_names())
    idx = " ".join(info["indexes"])
    for name in ("kgmem_episode_embedding (VECTOR, ONLINE)", "kgmem_fact_embedding (VECTOR, ONLINE)",
                 "kgmem_episode_text (FULLTEXT, ONLINE)", "kgmem_fact_text (FULLTEXT, ONLINE)",
                 "kgmem_episode_group_time (RANGE, ONLINE)", "kgmem_fact_valid_from (RANGE, ONLINE)",
                 "kgmem_episode_id (RANGE, ONLINE)"):
        assert name in idx
    assert info["server_version"].startswith(("5.", "202"))
    assert store.migrate() == []


def _axis() -> np.ndarray:
    """The query of the vector tests: the first axis."""
    q = np.zeros(384, dtype=np.float32)
    q[0] = 1.0
    return q


def _near(rng: np.random.Generator, q: np.ndarray, cos: float) -> np.ndarray:
    """A unit vector whose cosine with the unit vector ``q`` (an axis) is ``cos``."""
    noise = rng.normal(size=len(q)).astype(np.float32)
    noise[0] = 0.0
    noise /= np.linalg.norm(noise)
    return (cos * q + np.sqrt(1 - cos * cos) * noise).astype(np.float32)


def _vectored_turns(store, group: str, content: str, cosines: list[float], seed: int
                    ) -> tuple[np.ndarray, datetime, list[Episode]]:
    """Turns a minute apart in 2024, each with a vector at the given cosine from the query:
    (the query, the first turn's time, the turns)."""
    rng = np.random.default_rng(seed)
    q = _axis()
    t = datetime(2024, 1, 1, tzinfo=UTC)
    eps = [Episode(group_id=group, content=f"{content} {i}", occurred_at=t + timedelta(minutes=i), created_at=t)
           for i in range(len(cosines))]
    store.add_episodes(eps)
    vecs = {(group, e.id): _near(rng, q, c) for e, c in zip(eps, cosines, strict=True)}
    store.write(WriteBatch(episode_vectors=vecs))
    return q, t, eps


ALL_TIME = TimeFilter(as_of=datetime(2030, 1, 1, tzinfo=UTC), known_at=datetime(2030, 1, 1, tzinfo=UTC))


def test_time_filtered_vector_search_is_not_diluted(store, group):
    """The seed paper's failure: ANN over-fetch, then a time post-filter, drops the
    old answers. Plant it: 400 recent near-duplicates of the query outrank 5 old
    targets. As of 2021, all 5 targets must come back."""
    rng = np.random.default_rng(7)
    q = _axis()

    def near(cos: float) -> np.ndarray:
        return _near(rng, q, cos)

    old_t = datetime(2020, 1, 1, tzinfo=UTC)
    new_t = datetime(2025, 1, 1, tzinfo=UTC)
    eps, vecs = [], {}
    for i in range(5):
        e = Episode(group_id=group, content=f"target {i}", occurred_at=old_t + timedelta(days=i), created_at=old_t)
        eps.append(e)
        vecs[e.id] = near(0.80)
    for i in range(400):
        e = Episode(group_id=group, content=f"distractor {i}", occurred_at=new_t + timedelta(minutes=i),
                    created_at=new_t)
        eps.append(e)
        vecs[e.id] = near(0.95)
    store.add_episodes(eps)
    store.write(WriteBatch(episode_vectors={(group, k): v for k, v in vecs.items()},
                           statuses=[(group, e.id, "done", None) for e in eps]))
    tf = TimeFilter(as_of=datetime(2021, 1, 1, tzinfo=UTC), known_at=datetime(2030, 1, 1, tzinfo=UTC))
    hits = store.episode_vector_search(group, q, 5, tf)
    assert sorted(store.episode_vector_search(group, q, 5, tf)) == sorted(hits)  # ties in any order
    later = TimeFilter(as_of=datetime(2026, 1, 1, tzinfo=UTC), known_at=datetime(2030, 1, 1, tzinfo=UTC))
    recent = store.episode_vector_search(group, q, 5, later)  # the distractors now win
    assert len(recent) == 5 and all(abs(s - 0.95) < 0.02 for _, s in recent)
    assert len(store.episode_vector_search(group, q, 100, later)) == 100
    targets = {e.id for e in eps[:5]}
    assert {h for h, _ in hits} == targets
    assert all(abs(s - 0.80) < 0.02 for _, s in hits)  # plain cosine on both stores

    # What the naive approach returns: top 50 overall, then filter by time.
    ids = list(vecs)
    sims = np.array([float(vecs[i] @ q) for i in ids])
    naive = [ids[j] for j in np.argsort(-sims)[:50] if ids[j] in targets]
    assert len(naive) < 5  # the planted failure is real



def test_time_filtered_fact_vector_search_widens_past_the_exact_scan(store, group):
    """Fact vectors: 5 versions true in 2021 under 300 true from 2025 that sit nearer
    the query. On Neo4j, with the exact scan capped at 2 rows, the vector index answers
    and widens its request until all 5 survive the time filter; the first request is at
    least the floor's share even when the survival memory says the group owns most hits."""
    from kg_memory.core.models import FactVersion

    rng = np.random.default_rng(11)
    q = _axis()
    t0, t1 = datetime(2020, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
    u = Entity(group_id=group, name="user", created_at=t0)
    places = [Entity(group_id=group, name=f"place {i}", created_at=t0) for i in range(305)]
    versions, vecs = [], {}
    for i, p in enumerate(places):
        old = i < 5
        v = FactVersion(id=f"{group}-v{i}", group_id=group, subject_id=u.id, subject="user", predicate="visited",
                        object_id=p.id, object=p.name, statement=f"user visited {p.name}",
                        valid_from=t0 if old else t1, created_at=t0)
        versions.append(v)
        vecs[v.id] = _near(rng, q, 0.80 if old else 0.95)
    store.write(WriteBatch(entities=[u, *places], inserts=versions, fact_vectors=vecs))
    fetches: list[int] = []
    if store.kind == "neo4j":
        limit, read = store.exact_scan_limit, store._read
        store.exact_scan_limit = 2

        def recording(name: str, **params: object) -> list[object]:  # the real query runs; its request is noted
            if name == "fact_vector_index":
                fetches.append(int(params["fetch"]))  # type: ignore[call-overload]
            return read(name, **params)

        store._read = recording  # type: ignore[method-assign]
    try:
        tf = TimeFilter(as_of=datetime(2021, 1, 1, tzinfo=UTC), known_at=datetime(2030, 1, 1, tzinfo=UTC))
        hits = store.fact_vector_search(group, q, 5, tf)
        assert {f.id for f, _ in hits} == {v.id for v in versions[:5]}
        assert all(abs(s - 0.80) < 0.02 for _, s in hits)  # plain cosine on both stores
        later = TimeFilter(as_of=datetime(2026, 1, 1, tzinfo=UTC), known_at=datetime(2030, 1, 1, tzinfo=UTC))
        if store.kind == "neo4j":
            assert fetches and fetches[-1] > fetches[0]  # it widened
            bounded(store._survival, ("fact_vector_index", group), SurvivalMemory).note(
                later.as_of.timestamp() / 86400.0, 0.99)
            fetches.clear()
        assert len(store.fact_vector_search(group, q, 100, later)) == 100
        if store.kind == "neo4j":  # a share of 0.99 says 129 hits for k = 100; the floor asks for more
            assert fetches[0] == VECTOR_FETCH_FLOOR * 100, fetches
    finally:
        if store.kind == "neo4j":
            store.exact_scan_limit = limit
            del store._read  # the class's own method again


def test_episode_vectors_follow_writes_erasure_and_swaps(store, group, request):
    """The episode vectors a store searches in its own process follow every change: a
    vector written later is found, an erased episode is gone, and after swap_groups each
    group finds the other's episodes. On Neo4j (a store that holds the vectors from a
    group's first search) its own write reads nothing more, and another writer's brings in
    only the rows written since the last search."""
    from kg_memory.core.erasure import new_tombstone, plan_erasure

    writer = store
    if store.kind == "neo4j":
        store, writer = request.getfixturevalue("neo4j_held_store"), request.getfixturevalue("neo4j_store_session")

    rng = np.random.default_rng(5)
    tf = ALL_TIME
    q, t, eps = _vectored_turns(store, group, "turn", [0.5] * 30, seed=4)
    assert len(store.episode_vector_search(group, q, 100, tf)) == 30
    late = Episode(group_id=group, content="late turn", occurred_at=t + timedelta(hours=2), created_at=t)
    store.add_episodes([late])
    assert late.id not in dict(store.episode_vector_search(group, q, 100, tf))  # no vector yet
    loads: list[object] = []
    if store.kind == "neo4j":
        read = store._read

        def recording(name: str, **params: object) -> list[object]:
            rows = read(name, **params)
            if name.startswith("episode_vectors_"):
                loads.append((name, len(rows)))
            return rows

        store._read = recording  # type: ignore[method-assign]
    try:
        store.write(WriteBatch(episode_vectors={(group, late.id): _near(rng, q, 0.99)}))
        top = store.episode_vector_search(group, q, 1, tf)
        assert top[0][0] == late.id and abs(top[0][1] - 0.99) < 1e-4
        assert loads == [], loads  # its own write: applied as it committed, nothing read
        later = Episode(group_id=group, content="later turn", occurred_at=t + timedelta(hours=3), created_at=t)
        writer.add_episodes([later])
        writer.write(WriteBatch(episode_vectors={(group, later.id): _near(rng, q, 0.995)}))
        top = store.episode_vector_search(group, q, 1, tf)
        assert top[0][0] == later.id and abs(top[0][1] - 0.995) < 1e-4
        if store.kind == "neo4j":
            assert loads == [("episode_vectors_since", 1)], loads  # another writer's: only the new row
        assert store.episode_vector_search(group, q, 1, tf) == top  # nothing new: nothing read
        assert len(loads) == (1 if store.kind == "neo4j" else 0), loads
    finally:
        if store.kind == "neo4j":
            del store._read
    plan = plan_erasure(group, [late.id, later.id], [], [], {})
    store.erase(plan, new_tombstone(group, "episode", t, None, plan, 0))
    after = dict(store.episode_vector_search(group, q, 100, tf))
    assert late.id not in after and later.id not in after and len(after) == 30
    other = f"{group}-b"
    lone = Episode(group_id=other, content="other group", occurred_at=t, created_at=t)
    store.add_episodes([lone])
    store.write(WriteBatch(episode_vectors={(other, lone.id): _near(rng, q, 0.7)}))
    assert [i for i, _ in store.episode_vector_search(other, q, 10, tf)] == [lone.id]
    store.swap_groups(group, other)
    assert [i for i, _ in store.episode_vector_search(group, q, 10, tf)] == [lone.id]
    assert len(store.episode_vector_search(other, q, 100, tf)) == 30

def test_fact_vectors_follow_writes_expiries_erasure_and_swaps(store, group, request):
    """The fact vectors a store searches in its own process follow every change: a version
    written later is found, one expired is gone now and still there as believed before, an
    erased one is gone, and after swap_groups each group finds the other's versions. On
    Neo4j its own writes read nothing more, and another writer's bring in only the versions
    that writer wrote or expired, and no episode rows."""
    from kg_memory.core.erasure import new_tombstone, plan_erasure
    from kg_memory.core.temporal import Expiry

    writer = store
    if store.kind == "neo4j":
        store, writer = request.getfixturevalue("neo4j_held_store"), request.getfixturevalue("neo4j_store_session")
    rng = np.random.default_rng(8)
    q, t0 = _axis(), datetime(2024, 1, 1, tzinfo=UTC)
    u = Entity(group_id=group, name="user", created_at=t0)
    places = [Entity(group_id=group, name=f"town {i}", created_at=t0) for i in range(12)]

    def version(i: int, created: datetime) -> FactVersion:
        return FactVersion(id=f"{group}-f{i}", group_id=group, subject_id=u.id, subject="user", predicate="visited",
                           object_id=places[i].id, object=places[i].name, statement=f"user visited {places[i].name}",
                           valid_from=t0, created_at=created)

    first = [version(i, t0) for i in range(10)]
    store.write(WriteBatch(entities=[u, *places], inserts=first,
                           fact_vectors={v.id: _near(rng, q, 0.5) for v in first}))
    assert len(store.fact_vector_search(group, q, 100, ALL_TIME)) == 10
    reads: list[object] = []
    if store.kind == "neo4j":
        read = store._read

        def recording(name: str, **params: object) -> list[object]:
            rows = read(name, **params)
            if name.endswith(("_vectors_since", "_vectors_load")):
                reads.append((name, len(rows)))
            return rows

        store._read = recording  # type: ignore[method-assign]
    before = TimeFilter(as_of=ALL_TIME.as_of, known_at=t0 + timedelta(days=1, hours=1))
    try:
        for who, n, cos in ((store, 10, 0.99), (writer, 11, 0.995)):  # its own writes, then another's
            late = version(n, t0 + timedelta(days=n - 9))
            who.write(WriteBatch(inserts=[late], fact_vectors={late.id: _near(rng, q, cos)}))
            top = store.fact_vector_search(group, q, 1, ALL_TIME)
            assert top[0][0].id == late.id and abs(top[0][1] - cos) < 1e-4
            who.write(WriteBatch(expiries=[(group, Expiry(late.id, t0 + timedelta(days=n - 8), "test"))]))
            assert late.id not in {f.id for f, _ in store.fact_vector_search(group, q, 100, ALL_TIME)}
            then = TimeFilter(as_of=ALL_TIME.as_of, known_at=t0 + timedelta(days=n - 9, hours=1))
            assert store.fact_vector_search(group, q, 1, then)[0][0].id == late.id  # as believed then
            if who is store:
                assert reads == [], reads  # its own writes: applied as they committed, nothing read
        if store.kind == "neo4j":  # another writer's: its new version, then its expired one, no episode rows
            assert reads == [("fact_vectors_since", 1), ("fact_vectors_since", 1)], reads
    finally:
        if store.kind == "neo4j":
            del store._read
    plan = plan_erasure(group, [], [places[0].id], [first[0]], {})  # erasing a town erases its version
    store.erase(plan, new_tombstone(group, "entity", t0, None, plan, 1))
    assert first[0].id not in {f.id for f, _ in store.fact_vector_search(group, q, 100, before)}
    other = f"{group}-b"
    w = Entity(group_id=other, name="user", created_at=t0)
    lone = FactVersion(id=f"{other}-f", group_id=other, subject_id=w.id, subject="user", predicate="visited",
                       object_id=w.id, object="user", statement="user visited user", valid_from=t0, created_at=t0)
    store.write(WriteBatch(entities=[w], inserts=[lone], fact_vectors={lone.id: _near(rng, q, 0.7)}))
    assert [f.id for f, _ in store.fact_vector_search(other, q, 10, ALL_TIME)] == [lone.id]
    store.swap_groups(group, other)
    assert [f.id for f, _ in store.fact_vector_search(group, q, 10, ALL_TIME)] == [lone.id]
    assert len(store.fact_vector_search(other, q, 100, ALL_TIME)) == 9


def test_search_scores_text_hits_by_vector_too(store, group):
    """A turn found only by BM25 still gets its cosine, so recall blends every
    candidate on both retrievers (not 0 for "missing from the vector top k")."""
    dim = 384
    q = np.zeros(dim, dtype=np.float32)
    q[0] = 1.0
    t = datetime(2024, 5, 1, tzinfo=UTC)
    texts = ["the orchard had apples", "we sailed to the island", "a quiet evening", "rain all week"]
    cosines = [0.2, 0.9, 0.8, 0.7]
    eps, vecs = [], {}
    for i, (text, cos) in enumerate(zip(texts, cosines, strict=True)):
        e = Episode(group_id=group, content=text, occurred_at=t + timedelta(minutes=i), created_at=t)
        eps.append(e)
        v = np.zeros(dim, dtype=np.float32)
        v[0], v[1 + i] = cos, np.sqrt(1 - cos * cos)
        vecs[e.id] = v
    store.add_episodes(eps)
    store.write(WriteBatch(episode_vectors={(group, k): v for k, v in vecs.items()},
                           statuses=[(group, e.id, "done", None) for e in eps]))
    tf = TimeFilter(as_of=t + timedelta(days=1), known_at=datetime(2030, 1, 1, tzinfo=UTC))
    hits = store.search(group, "apples orchard", q, 2, tf)
    assert [i for i, _ in hits.episode_text] == [eps[0].id]
    assert eps[0].id not in {i for i, _ in hits.episode_vector}  # cosine 0.2 is not in the top 2
    assert hits.episode_similarity.keys() == {eps[0].id}
    assert abs(hits.episode_similarity[eps[0].id] - 0.2) < 1e-4
    assert [(i, round(c, 4)) for i, c in hits.episode_vector] == [(eps[1].id, 0.9), (eps[2].id, 0.8)]
    assert set(hits.episodes) == {eps[0].id, eps[1].id, eps[2].id}  # the episodes come back with the hits
    other = store.search("another-group", "apples orchard", q, 2, tf)  # tenancy
    assert not (other.episode_text or other.episode_vector or other.episode_similarity or other.episodes)


def test_neo4j_backfill_migrations_match_the_write_path(store, group):
    """Migrations 0005, 0007 and 0009 compute, for versions written before them, the same index
    keys (interval ends, time keys) that the write path stores for new versions."""
    if store.kind != "neo4j":
        return  # SQLite keeps no such copies
    from kg_memory.core.models import FactVersion
    from kg_memory.store.neo4j.queries import script

    t = datetime(2024, 3, 5, 6, 7, 8, 901234, tzinfo=UTC)
    store.add_episodes([Episode(id=f"{group}-e", group_id=group, content="x", occurred_at=t, created_at=t)])
    from kg_memory.core.models import Entity

    u, a, b = (Entity(id=f"{group}-{n}", group_id=group, name=n, created_at=t) for n in ("user", "Oslo", "Rome"))
    v1 = FactVersion(id=f"{group}-v1", group_id=group, subject_id=u.id, subject="user", predicate="lives_in",
                     object_id=a.id, object="Oslo", statement="user lives in Oslo", valid_from=t,
                     valid_to=t + timedelta(days=40, microseconds=5), created_at=t)
    v2 = v1.replace(id=f"{group}-v2", object_id=b.id, object="Rome", statement="user lives in Rome", valid_from=None,
                    valid_to=None)
    from kg_memory.core.temporal import Expiry

    store.write(WriteBatch(entities=[u, a, b], inserts=[v1, v2]))
    store.write(WriteBatch(expiries=[(group, Expiry(v2.id, t + timedelta(days=3), v1.id))]))
    keys = "f.tx_end AS tx_end, f.valid_end AS valid_end, f.valid_start AS valid_start, f.vend AS vend, f.tend AS tend"
    with store.driver.session() as s:
        written = s.run(f"MATCH ()-[f:FACT {{group_id: $g}}]->() RETURN f.id AS id, {keys} ORDER BY id", g=group).data()
        s.run("MATCH ()-[f:FACT {group_id: $g}]->() REMOVE f.tx_end, f.valid_end, f.valid_start, f.vend, f.tend",
              g=group).consume()
        for name in ("migration_0005_fact_interval_ends", "migration_0007_fact_time_keys",
                     "migration_0009_open_end_after_every_instant"):
            for statement in script(name):
                s.run(statement).consume()
        backfilled = s.run(f"MATCH ()-[f:FACT {{group_id: $g}}]->() RETURN f.id AS id, {keys} ORDER BY id",
                           g=group).data()
    assert len(written) == 2 and all(r["tend"] and r["vend"] for r in written)
    assert backfilled == written


def test_mentions_are_the_same_inside_a_recall_scope(store, group):
    """Inside a read scope, the Neo4j store answers mentions() from what the
    neighbour lookup just returned. The answer must equal a fresh lookup: turns with
    and without mentions, a turn with no session (no neighbours), another tenant."""
    t = datetime(2024, 6, 1, tzinfo=UTC)
    eps = [Episode(group_id=group, session_id="s1", content=f"turn {i}", occurred_at=t + timedelta(minutes=i),
                   created_at=t) for i in range(4)]
    eps.append(Episode(group_id=group, content="no session", occurred_at=t, created_at=t))
    ents = [Entity(group_id=group, name=n, created_at=t) for n in ("Maya", "Lisbon", "Rex")]
    links = {eps[0].id: [0], eps[1].id: [1, 2], eps[3].id: [0, 2], eps[4].id: [1]}  # eps[2]: none
    store.add_episodes(eps)
    store.write(WriteBatch(entities=ents, mentions=[(group, e, ents[j].id) for e, js in links.items() for j in js],
                           statuses=[(group, e.id, "done", None) for e in eps]))
    tf = TimeFilter(as_of=t + timedelta(days=1), known_at=datetime(2030, 1, 1, tzinfo=UTC))
    ids = [e.id for e in eps]
    expected = {e: sorted(ents[j].id for j in js) for e, js in links.items()}

    def norm(m: dict[str, list[str]]) -> dict[str, list[str]]:
        return {k: sorted(v) for k, v in m.items()}

    assert norm(store.mentions(group, ids)) == expected
    with store.read_scope():
        near = store.neighbours(group, [eps[1].id, eps[4].id], tf)
        assert [n.id for n in near[eps[1].id]] == [eps[0].id, eps[2].id]
        assert norm(store.mentions(group, ids)) == expected
        assert norm(store.mentions(group, [eps[2].id, eps[0].id])) == {eps[0].id: expected[eps[0].id]}
        assert store.mentions("another-group", ids) == {}  # tenancy
    assert norm(store.mentions(group, ids)) == expected


def test_neo4j_reads_a_groups_vectors_in_pages_in_id_order(group):
    """A first read of a group's vectors goes a page at a time (a 1M-episode group's one answer
    outlived the connection): with pages of 7 rows, every one of 40 episodes and 12 versions is
    read once, held in id order (ties in a search go by id), episodes without a vector and a
    neighbour's rows stay out, each page is read in the index's order (no sort of the group), and
    the held searches answer as the server's."""
    store = open_store(neo4j_url(), dim=384)
    try:
        _paged_load(store, group)
    finally:
        store.close()


def _counted_pages(store, pause: float) -> list[str]:
    """The held index's page reads, each after ``pause`` seconds, in pages of 4 rows: the names of the
    queries read (the reads themselves go to the server)."""
    read, names = store.held._read_rows, []

    def counted(name, **params):
        names.append(name)
        time.sleep(pause)
        return read(name, **params)
    store.held._read_rows, store.held.page_rows, store.held.hold_after = counted, 4, 1
    return names


def test_neo4j_preload_waits_for_a_running_load_and_a_close_stops_one(group, caplog):
    """``preload`` while a search's load of the group runs in the background waits for it and reads
    nothing twice (the growth bench's steady rounds start so); closing the store while a load runs
    stops it at its next page, with no warning (it used to fail on the closed driver and say so)."""
    store = open_store(neo4j_url(), dim=384)
    try:
        q, _, eps = _vectored_turns(store, group, "dock turn", [0.3 + i / 100 for i in range(30)], seed=7)
        pages = _counted_pages(store, 0.05)
        store.episode_vector_search(group, q, 5, ALL_TIME)  # answered on the server; the load starts
        assert store.held.loading(group)
        store.preload(group)
        assert not store.held.loading(group) and store.held.peek(group).episodes.ids == sorted(e.id for e in eps)
        assert pages.count("episode_vectors_load") == 8  # 30 rows in pages of 4, read once
    finally:
        store.close()
    store = open_store(neo4j_url(), dim=384)
    pages = _counted_pages(store, 0.2)
    store.episode_vector_search(group, q, 5, ALL_TIME)
    time.sleep(0.3)
    with caplog.at_level(logging.WARNING, logger="kg_memory.store.neo4j.held"):
        store.close()
    assert not caplog.records and store.held.peek(group) is None
    assert not any(t.is_alive() for t in store.held._loaders) and 0 < pages.count("episode_vectors_load") < 8


def _visits(store, group: str, place: str, q: np.ndarray, t: datetime, seed: int) -> list[FactVersion]:
    """Twelve versions "user visited <place> i", their vectors at cosines 0.2 to 0.75 from ``q``."""
    rng = np.random.default_rng(seed)
    u = Entity(group_id=group, name="user", created_at=t)
    places = [Entity(group_id=group, name=f"{place} {i}", created_at=t) for i in range(12)]
    versions = [FactVersion(id=f"{group}-v{i:02d}", group_id=group, subject_id=u.id, subject="user",
                            predicate="visited", object_id=d.id, object=d.name,
                            statement=f"user visited {d.name}", valid_from=t, created_at=t)
                for i, d in enumerate(places)]
    store.write(WriteBatch(entities=[u, *places], inserts=versions,
                           fact_vectors={v.id: _near(rng, q, 0.2 + i / 20) for i, v in enumerate(versions)}))
    return versions


def _operators(plan) -> list[str]:
    return [plan["operatorType"].split("@")[0]] + [op for c in plan.get("children", []) for op in _operators(c)]


def _paged_load(store, group: str) -> None:
    q, t, eps = _vectored_turns(store, group, "pier turn", [0.3 + i / 100 for i in range(40)], seed=4)
    bare = [Episode(group_id=group, content=f"pier note {i}", occurred_at=t, created_at=t) for i in range(5)]
    store.add_episodes(bare)  # no vectors: read in their pages and skipped
    tied = _near(np.random.default_rng(3), q, 0.25)
    store.write(WriteBatch(episode_vectors={(group, e.id): tied for e in eps[:20]}))  # 20 exact ties
    _vectored_turns(store, f"{group}-next", "pier turn", [0.9] * 9, seed=5)  # a neighbour's rows
    versions = _visits(store, group, "pier", q, t, seed=6)
    store.held.hold_after, store.held.page_rows = 0, 7  # type: ignore[attr-defined]
    server = store.episode_vector_search(group, q, 40, ALL_TIME)  # answered on the server
    server_facts = store.fact_vector_search(group, q, 5, ALL_TIME)
    store.held.hold_after = 1
    held = store.held.load(group)
    assert held.episodes.ids == sorted(e.id for e in eps)
    assert held.facts.ids == sorted(v.id for v in versions)
    for name in ("episode_vectors_load", "fact_vectors_load"):  # a page costs its rows: the index's order, no sort
        with store.driver.session() as s:
            plan = s.run("EXPLAIN " + query(name), {"group_id": group, "after": "", "page": 7}).consume().plan
        ops = _operators(plan)
        assert "Limit" in ops and not {"Top", "Sort", "PartialTop"} & set(ops), (name, ops)
    assert store.held.peek(group) is held
    # the same rows and scores as the server's, the 20 ties in id order (the server leaves them unordered)
    assert [(i, round(s, 5)) for i, s in store.episode_vector_search(group, q, 40, ALL_TIME)] == \
        sorted(((i, round(s, 5)) for i, s in server), key=lambda r: (-r[1], r[0]))
    assert [f.id for f, _ in store.fact_vector_search(group, q, 5, ALL_TIME)] == [f.id for f, _ in server_facts]


def test_neighbours_of_turns_at_the_same_instant(store, group):
    """Turns stamped with the same time are ordered by id on both stores, so the
    neighbours of a turn are the same whichever store holds them."""
    t = datetime(2024, 6, 1, tzinfo=UTC)
    same = [Episode(id=f"{group}-{c}", group_id=group, session_id="s", content=f"turn {c}", occurred_at=t,
                    created_at=t) for c in "bdac"]  # written out of id order
    later = Episode(id=f"{group}-0", group_id=group, session_id="s", content="later",
                    occurred_at=t + timedelta(minutes=1), created_at=t)
    store.add_episodes([*same, later])
    tf = TimeFilter(as_of=t + timedelta(days=1), known_at=datetime(2030, 1, 1, tzinfo=UTC))
    near = store.neighbours(group, [f"{group}-{c}" for c in "abcd"] + [later.id], tf)
    ids = {k: [e.id for e in v] for k, v in near.items()}
    assert ids == {
        f"{group}-a": [f"{group}-b"],
        f"{group}-b": [f"{group}-a", f"{group}-c"],
        f"{group}-c": [f"{group}-b", f"{group}-d"],
        f"{group}-d": [f"{group}-c", later.id],
        later.id: [f"{group}-d"],
    }
    early = TimeFilter(as_of=t, known_at=datetime(2030, 1, 1, tzinfo=UTC))  # the later turn is not yet visible
    assert [e.id for e in store.neighbours(group, [f"{group}-d"], early)[f"{group}-d"]] == [f"{group}-c"]


def test_neo4j_holds_a_groups_vectors_from_its_second_search(neo4j_store_session, group):
    """A group's first search on Neo4j is the server's (a CLI recall pays for no load); the
    second starts loading the group's episode and fact vectors on a thread while the server
    answers; once loaded, the searches run here. Every one of them gives the same answer, and
    so does search(), whose text hits then take their cosines from the held vectors."""
    store = neo4j_store_session
    tf = ALL_TIME
    q, t, _ = _vectored_turns(store, group, "harbour turn", [0.3 + i / 100 for i in range(40)], seed=9)
    _visits(store, group, "harbour dock", q, t, seed=10)
    first = store.episode_vector_search(group, q, 5, tf)
    assert store.held.peek(group) is None and not store.held.loading(group)  # one search: no load
    both_first = store.search(group, "harbour", q, 5, tf)  # the second starts the load, on a thread
    # the thread may already have finished (40 rows): it is loading or loaded, never neither
    assert store.held.loading(group) or store.held.peek(group) is not None
    assert store.held.settle(timeout=30)  # the load's thread has finished
    held = store.held.peek(group)
    assert held is not None and len(held.episodes) == 40 and len(held.facts) == 12
    assert [(i, round(s, 5)) for i, s in store.episode_vector_search(group, q, 5, tf)] == \
        [(i, round(s, 5)) for i, s in first]
    both = store.search(group, "harbour", q, 5, tf)
    assert [i for i, _ in both.episode_vector] == [i for i, _ in both_first.episode_vector]
    assert {i for i, _ in both.episode_text} == {i for i, _ in both_first.episode_text}
    assert both.episode_similarity.keys() == both_first.episode_similarity.keys()
    assert all(abs(both.episode_similarity[i] - s) < 1e-4 for i, s in both_first.episode_similarity.items())
    assert set(both.episodes) == set(both_first.episodes)
    assert len(both.fact_vector) == 5 and both.fact_text
    assert [(f.id, round(s, 4)) for f, s in both.fact_vector] == \
        [(f.id, round(s, 4)) for f, s in both_first.fact_vector]
    assert [f for f, _ in both.fact_vector] == [f for f, _ in both_first.fact_vector]  # whole versions alike
    assert {f.id for f, _ in both.fact_text} == {f.id for f, _ in both_first.fact_text}
    assert both.fact_similarity.keys() == both_first.fact_similarity.keys()
    assert all(abs(both.fact_similarity[i] - s) < 1e-4 for i, s in both_first.fact_similarity.items())
