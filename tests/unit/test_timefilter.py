"""The time rules compiled for each backend agree with the temporal core on every
combination of open and closed ends, ties, and the extreme instants."""

from datetime import UTC, datetime
from itertools import product

import numpy as np

from kg_memory.core.models import Episode, FactVersion
from kg_memory.core.temporal import EPISODE_VISIBLE, FACT_ENDED, FACT_VISIBLE, holds
from kg_memory.core.timeutil import micros, to_iso
from kg_memory.store.neo4j.queries import registry
from kg_memory.store.timefilter import (
    NEG_INF_TIME,
    POS_INF_TIME,
    RULES,
    cypher_filter,
    expand_cypher,
    numpy_mask,
    sql_filter,
)

MIN, MAX = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
T = [MIN, datetime(2020, 1, 1, tzinfo=UTC), datetime(2021, 1, 1, tzinfo=UTC), MAX]
OPT = [None, *T]


def versions() -> list[FactVersion]:
    out = []
    for vf, vt, c, x in product(OPT, OPT, T, OPT):
        out.append(FactVersion(group_id="g", subject_id="s", subject="S", predicate="p", object_id="o", object="O",
                               statement="S p O", valid_from=vf, valid_to=vt, created_at=c, expired_at=x))
    return out


def test_numpy_and_sql_agree_with_the_core():
    import sqlite3

    vs = versions()
    cols = {"vf": np.array([micros(v.valid_from) if v.valid_from else NEG_INF_TIME for v in vs]),
            "vt": np.array([micros(v.valid_to) if v.valid_to else POS_INF_TIME for v in vs]),
            "created": np.array([micros(v.created_at) for v in vs]),
            "expired": np.array([micros(v.expired_at) if v.expired_at else POS_INF_TIME for v in vs])}
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE f (i, valid_from, valid_to, created_at, expired_at)")
    db.executemany("INSERT INTO f VALUES (?,?,?,?,?)", [(i, to_iso(v.valid_from), to_iso(v.valid_to),
                                                         to_iso(v.created_at), to_iso(v.expired_at))
                                                        for i, v in enumerate(vs)])
    for rule in (FACT_VISIBLE, FACT_ENDED):
        where, points = sql_filter(rule)
        for as_of, known_at in product(T, T):
            want = [holds(rule, v, as_of, known_at) for v in vs]
            assert list(numpy_mask(rule, as_of, known_at)(cols)) == want
            at = [to_iso(as_of if p == "as_of" else known_at) for p in points]
            got = {r[0] for r in db.execute(f"SELECT i FROM f WHERE {where}", at)}
            assert got == {i for i, w in enumerate(want) if w}


def test_episode_rule_and_cypher_text():
    e = Episode(group_id="g", content="x", occurred_at=T[1], created_at=T[2])
    assert holds(EPISODE_VISIBLE, e, T[1], T[2]) and not holds(EPISODE_VISIBLE, e, T[0], T[3])
    assert cypher_filter(FACT_VISIBLE, "f") == ("(f.created_at <= $known_at AND f.tx_end > $known_at AND "
                                                "f.valid_start <= $as_of AND f.valid_end > $as_of)")
    assert "f.valid_to IS NOT NULL AND f.valid_to <= $as_of" in cypher_filter(FACT_ENDED, "f")
    assert expand_cypher("WHERE {{visible_episode:h.node}}") == (
        "WHERE (h.node.occurred_at <= $as_of AND h.node.created_at <= $known_at)")
    assert set(RULES) == {"visible_fact", "ended_fact", "visible_episode"}


def test_every_placeholder_in_cypher_is_filled():
    for name, text in registry().items():
        assert "{{" not in text, name
