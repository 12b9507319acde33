"""An add costs O(pending episodes), not O(group): on SQLite every statement a `Memory.add` runs is an
index search (no table scan), and on Neo4j the database hits of the per-add pending check and claim
queries stay bounded while the group grows tenfold. (Speed itself is measured in `make bench`, not here.)"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from kg_memory.bench.growth import fill
from kg_memory.core.models import Entity, Episode
from kg_memory.store.base import Store, WriteBatch
from kg_memory.store.neo4j.queries import WHOLE_STORE, query

T0 = datetime(2021, 3, 1, tzinfo=UTC)


def _fill(store: Store, group: str, n: int, start: int = 0) -> None:
    """``n`` extracted (done) episodes in ``group``, written through the store (as ``bench growth`` fills)."""
    fill(store, group, start, n, 384, seed=0)


# Searches bound by the group alone that still cost O(1) or O(pending): the partial index of pending
# episodes, and MAX(seq) over the change log's (group_id, seq) index.
BOUNDED_BY_GROUP = ("episodes_pending_group", "changes_group")


def _whole_group(step: str) -> bool:
    """A plan step that reads a table, or a group of it, whole."""
    if step.startswith("SCAN") and not step.startswith(("SCAN CONSTANT ROW", "SCAN json_each")):
        return True
    whole = re.match(r"SEARCH \w+ USING (?:COVERING )?INDEX (\w+) \(group_id=\?\)$", step)
    return bool(whole) and whole.group(1) not in BOUNDED_BY_GROUP


def _traced_add(mem, store: Store, text: str, group: str) -> tuple[object, list[str], dict[str, list[str]]]:
    """One ``Memory.add``: its stats, the statements it ran and those whose plan reads a group whole."""
    conn = store.conn  # type: ignore[attr-defined]
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        stats = mem.add(text, group=group)
    finally:
        conn.set_trace_callback(None)
    planned = [s for s in statements if re.match(r"\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b", s, re.I)
               and "_config'" not in s]  # FTS5's own reads of its one-row config table
    scans = {}
    for sql in planned:
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()]
        bad = [p for p in plan if _whole_group(p)]
        if bad:
            scans[sql[:120]] = bad
    return stats, planned, scans


def _claimed(planned: list[str]) -> bool:
    return any(s.lstrip().upper().startswith("UPDATE EPISODES SET CLAIMED_BY = ") for s in planned)


def test_every_statement_of_an_add_on_sqlite_is_an_index_search(sqlite_store, group, embedder):
    """Both ways an add goes: alone in its group (stored and extracted in one transaction, no claim)
    and behind a pending episode (stored, then the group's pending episodes claimed and extracted)."""
    from kg_memory.memory import Memory

    _fill(sqlite_store, group, 3000)
    _fill(sqlite_store, f"{group}-neighbour", 1000)
    mem = Memory(sqlite_store, embedder=embedder)
    mem.add("I moved to Porto last week.", group=group)  # the group's first facts
    stats, planned, scans = _traced_add(mem, sqlite_store, "Actually I live in Braga now, and my sister Ana works "
                                        "at Acme.", group)
    assert stats.episodes_added == 1 and stats.episodes_failed == 0 and stats.facts_added >= 2, stats
    assert any("status = 'pending'" in s for s in planned) and not _claimed(planned)  # checked, then one transaction
    assert scans == {}

    sqlite_store.add_episodes([Episode(group_id=group, content="I work at Initech.", occurred_at=T0, created_at=T0)])
    stats, planned, scans = _traced_add(mem, sqlite_store, "My sister Ana moved to Lisbon.", group)
    assert stats.episodes_added == 1 and stats.episodes_extracted == 2, stats  # the pending one first
    assert _claimed(planned) and any("SELECT DISTINCT claimed_by" in s for s in planned)
    assert scans == {}


def _db_hits(store: Store, name: str, params: dict) -> int:
    def hits(plan: dict) -> int:
        return int(plan.get("dbHits", 0)) + sum(hits(c) for c in plan.get("children", []))

    with store.driver.session() as s:  # type: ignore[attr-defined]
        summary = s.run("PROFILE " + query(name), params).consume()
    assert summary.profile is not None
    return hits(summary.profile)


def test_the_per_add_queries_on_neo4j_do_not_grow_with_the_group(neo4j_store_session, group):
    store = neo4j_store_session
    now = datetime.now(UTC)

    def claim_hits() -> tuple[int, int]:
        owner = f"probe/{group}"
        store.add_episodes([Episode(group_id=group, role="user", content=f"pending turn {now.timestamp()}",
                                    occurred_at=now, created_at=now)])
        params = {"group_id": group, "limit": 256, "owner": owner, "now": now, "until": now + timedelta(minutes=5),
                  "steal": []}
        return (_db_hits(store, "episodes_claim", params), _db_hits(store, "episodes_claim_owners", params),
                _db_hits(store, "episodes_pending", {"group_id": group, "limit": 1}))

    _fill(store, group, 300)
    small = claim_hits()
    _fill(store, group, 2700, start=300)
    now += timedelta(seconds=1)
    large = claim_hits()
    assert store.counts(group)["episodes"] == 3002
    for s, big in zip(small, large, strict=True):
        assert big <= 2 * s + 200, (small, large)  # not the 3,000 rows of the group


def _scans(plan: Any) -> list[str]:
    """The plan's steps that read a whole label or relationship type (every group's rows)."""
    op = plan["operatorType"].split("@")[0]
    here = [f"{op} {plan['args'].get('Details', '')}"] if "Scan" in op and "Index" not in op else []
    return here + [s for c in plan.get("children", []) for s in _scans(c)]


def test_no_query_of_one_group_on_neo4j_reads_every_group(neo4j_store_session, group, embedder):
    """Every registered query that names a group starts from an index on it, so its cost follows the group
    and not the store: a label scan read all 1,000 tenants' episodes to list, count or load one."""
    from kg_memory.memory import Memory
    from kg_memory.store.neo4j.queries import registry

    store = neo4j_store_session
    # another group's episodes, entities and mentions: on a server that holds almost nothing a scan can be
    # the cheaper plan, so the planner is shown rows before it is asked
    other = f"{group}-neighbour"
    _fill(store, other, 2000)
    eps = store.list_episodes(other, limit=2000)
    ents = [Entity(group_id=other, name=f"Person {i}", created_at=T0) for i in range(len(eps))]
    store.write(WriteBatch(entities=ents, mentions=[(other, e.id, n.id) for e, n in zip(eps, ents, strict=True)]))
    Memory(store, embedder=embedder).add("My sister Ana works at Acme and lives in Braga.", group=group)
    scanning = {}
    with store.driver.session() as s:  # type: ignore[attr-defined]
        for name, text in registry().items():
            if name.startswith(("migration_", "schema_")) or ("$group_id" not in text and "$from" not in text):
                continue
            plan = s.run("EXPLAIN " + text).consume().plan
            if name not in WHOLE_STORE and _scans(plan):
                scanning[name] = _scans(plan)
    assert scanning == {}
