"""The same fixed corpus ranks the same on both stores.

Tolerance: the top 3 facts are the same set on both stores, and the top 5
episodes share at least 4. (BM25 comes from FTS5 on SQLite and Lucene on
Neo4j; both are min-max normalised before blending, so only near-ties can swap.)"""

from __future__ import annotations

import uuid

from kg_memory.memory import Memory
from kg_memory.settings import Settings

from ..conftest import SAMPLE

QUERIES = [
    ("Where do I live?", None),
    ("Where did I work?", "2024-06-01T00:00:00Z"),
    ("What instruments do I play?", None),
    ("What am I allergic to?", None),
    ("Where does Ines live?", "2024-12-01T00:00:00Z"),
    ("What is my diet?", None),
]




def test_sqlite_and_neo4j_rank_alike(sqlite_store, neo4j_store_session, embedder):
    group = f"parity-{uuid.uuid4().hex[:8]}"
    mems = [Memory(s, settings=Settings(), embedder=embedder, owns_store=False)
            for s in (sqlite_store, neo4j_store_session)]
    for m in mems:
        m.ingest_files([SAMPLE], group=group)
    for query, as_of in QUERIES:
        a, b = (m.recall(query, group=group, as_of=as_of, k=10) for m in mems)
        fa = {(f.fact.subject, f.fact.predicate, f.fact.object) for f in a.facts[:3]}
        fb = {(f.fact.subject, f.fact.predicate, f.fact.object) for f in b.facts[:3]}
        assert fa == fb, (query, fa, fb)
        ea = {e.episode.content for e in a.episodes[:5]}
        eb = {e.episode.content for e in b.episodes[:5]}
        assert len(ea & eb) >= 4, (query, ea ^ eb)


def test_sqlite_and_neo4j_keep_the_same_history(sqlite_store, neo4j_store_session):
    """A dense synthetic history (many sessions a day, many same-day restatements)
    yields the same versions on both stores, whatever order each returns rows in."""
    from datetime import timedelta

    from kg_memory.bench.synthetic import generate
    from kg_memory.core.timeutil import FixedClock
    from kg_memory.extract.rules import RulesExtractor
    from kg_memory.ingest.pipeline import Pipeline

    # 44 turns a day, as in 4000 over 90 days, in a third of the parsing time
    episodes = list(generate(1500, seed=42, span=timedelta(days=34)))
    histories = []
    for st in (sqlite_store, neo4j_store_session):
        group = f"parity-h-{uuid.uuid4().hex[:8]}"
        st.add_episodes([e.model_copy(update={"group_id": group, "id": f"{e.id}-{st.kind}"}) for e in episodes])
        Pipeline(st, RulesExtractor(), None, FixedClock(episodes[-1].created_at).now).run(group, batch_size=500)
        user = st.find_entities(group, ["user"])["user"]
        histories.append(sorted((f.predicate, f.object, str(f.valid_from), str(f.valid_to), f.expired_at is None,
                                 f.reinforcement_count) for f in st.history(group, user.id)))
    assert len(histories[0]) > 400  # 454 versions of the user
    assert histories[0] == histories[1]
