"""One example per divergence between the stores that the specification tests
found or issue #11 listed, on both stores, each checked against the reference
store. The generated histories of test_store_spec.py cover them too; these name
them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from kg_memory.core.models import Entity, Episode, FactVersion
from kg_memory.store.base import Store, TimeFilter, WriteBatch
from kg_memory.store.reference import ReferenceStore

T = datetime(2024, 5, 1, tzinfo=UTC)


def both(store: Store) -> list[Store]:
    return [store, ReferenceStore()]


def ep(group: str, n: int, at: datetime, session: str | None = None, content: str | None = None) -> Episode:
    return Episode(id=f"ep_{group}_{n:02d}", group_id=group, content=content or f"turn {n}", occurred_at=at,
                   created_at=T, session_id=session)


def ids(rows: list) -> list[str]:
    return [r.id for r in rows]


def test_previous_turns_without_a_session_and_ties_by_id(store, group):
    """#1: a session-less turn's context was every such turn on SQLite and none on Neo4j.
    #3: turns at one instant came back in rowid order on SQLite and in any order on Neo4j."""
    t = T - timedelta(days=1)
    eps = [ep(group, 3, t), ep(group, 1, t), ep(group, 2, t), ep(group, 4, t, "s")]
    out = []
    for s in both(store):
        s.add_episodes(eps)
        out.append((ids(s.previous_turns(group, None, T, 2)), ids(s.previous_turns(group, "s", T, 5)),
                    ids(s.pending_episodes(group, 10))))
    assert out[0] == out[1]
    assert out[0][0] == [f"ep_{group}_02", f"ep_{group}_03"] and out[0][1] == [f"ep_{group}_04"]


def _entities_and_facts(group: str) -> tuple[list[Entity], list[FactVersion]]:
    u, a = Entity(id=f"en_{group}_u", group_id=group, name="User", created_at=T), \
        Entity(id=f"en_{group}_a", group_id=group, name="A", created_at=T)
    facts = [FactVersion(id=f"fv_{group}_{i}", group_id=group, subject_id=u.id, subject="User", predicate="likes",
                         object_id=a.id, object="A", statement=f"User likes A {i}",
                         valid_from=T - timedelta(days=i % 3) if i % 4 else None, created_at=T)
             for i in range(8)]
    return [u, a], facts


def test_facts_for_entities_applies_its_limit_in_one_order(store, group):
    """#2: the stores applied the row limit before and after different orderings."""
    ents, facts = _entities_and_facts(group)
    tf = TimeFilter(as_of=T + timedelta(days=1), known_at=T + timedelta(days=1))
    got = []
    for s in both(store):
        s.write(WriteBatch(entities=ents, inserts=facts))
        got.append([ids(s.facts_for_entities(group, [ents[0].id], tf, n)) for n in (1, 3, 8)])
    assert got[0] == got[1]
    assert got[0][2][-2:] == [f"fv_{group}_0", f"fv_{group}_4"]  # open starts order as the earliest, then by id


def test_open_facts_hold_on_the_last_day_of_year_9999(store, group):
    """#6: open ends were stored as 9999-12-31T00:00 on Neo4j, so a later as-of that day lost them."""
    ents, facts = _entities_and_facts(group)
    late = TimeFilter(as_of=datetime(9999, 12, 31, 12, tzinfo=UTC),
                      known_at=datetime.max.replace(tzinfo=UTC))
    got = []
    for s in both(store):
        s.write(WriteBatch(entities=ents, inserts=facts))
        got.append(len(s.facts_for_entities(group, [ents[0].id], late, 100)))
    assert got == [8, 8]


def test_mentions_neighbours_and_vectors_read_the_same(store, group):
    """Found by the specification tests: mention order, empty neighbour lists, episode
    vectors written without a status row, and mentions of an episode that was not stored."""
    eps = [ep(group, 1, T - timedelta(hours=2), "s", "alpha"), ep(group, 2, T - timedelta(hours=1))]
    ents, _ = _entities_and_facts(group)
    v = np.zeros(384, dtype=np.float32)
    v[0] = 1.0
    out = []
    for s in both(store):
        s.add_episodes(eps)
        s.write(WriteBatch(entities=ents, episode_vectors={(group, eps[0].id): v},
                           mentions=[(group, eps[0].id, ents[1].id), (group, eps[0].id, ents[0].id),
                                     (group, "ep_never_stored", ents[0].id)]))
        tf = TimeFilter(as_of=T, known_at=T)
        out.append((s.mentions(group, [eps[0].id, "ep_never_stored"]), s.neighbours(group, ids(eps), tf),
                    [i for i, _ in s.episode_vector_search(group, v, 5, tf)]))
    assert out[0] == out[1]
    assert out[0][0] == {eps[0].id: sorted([ents[0].id, ents[1].id])} and out[0][1] == {}
    assert out[0][2] == [eps[0].id]
