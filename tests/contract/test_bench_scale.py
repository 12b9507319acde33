"""`bench scale` on a small size, both stores in one run (no timing assertions)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from kg_memory.bench.scale import run_scale

from ..conftest import neo4j_url


def test_scale_run_measures_both_stores_on_the_same_data(embedder, tmp_path: Path):
    res = run_scale([300], ["sqlite", neo4j_url()], embedder, queries=4, e2e_episodes=40, embed_sentences=40,
                    cache_dir=tmp_path / "cache", log=lambda _m: None)
    assert set(res["stores"]) == {"sqlite", "neo4j"}
    rows = {name: rows[0] for name, rows in res["stores"].items()}
    for row in rows.values():
        assert row["episodes"] == 300
        assert row["store_only_eps_per_s"] > 0 and row["index_extract_eps_per_s"] > 0
        assert row["recall_now"]["n"] == 4 and row["recall_as_of"]["n"] == 4
        assert 0 < row["recall_now"]["p50_ms"] <= row["recall_now"]["p99_ms"]
        assert row["facts"] > 0 and 0 < row["facts_current"] <= row["facts"]
    # Same data, same rules: both stores hold the same versions.
    assert (rows["sqlite"]["facts"], rows["sqlite"]["facts_current"]) == (rows["neo4j"]["facts"],
                                                                          rows["neo4j"]["facts_current"])
    assert rows["sqlite"]["store_bytes"] > 0
    assert set(res["e2e"]) == {"sqlite", "neo4j"} and all(r["eps_per_s"] > 0 for r in res["e2e"].values())
    assert res["embedder"]["sentences_per_s"] > 0
    assert list((tmp_path / "cache").glob("vectors-*-300-*.npy"))  # episode vectors cached for the next run


def test_agent_loop_add_leaves_out_the_new_facts_embedding(embedder, store, group):
    """The add figure is the memory's own cost, through ``Memory.add``: the time the add spends in
    the embedding model (a new fact's statement, and the turn's text as the add indexes it when it
    was not embedded beforehand) is taken out, and kept in the figure beside it."""
    from kg_memory.bench.agent_loop import timed_add
    from kg_memory.bench.scale import PrecomputedEmbedder
    from kg_memory.core.models import Episode
    from kg_memory.core.timeutil import utcnow
    from kg_memory.extract.rules import RulesExtractor
    from kg_memory.memory import Memory

    now = utcnow()
    turn = Episode(group_id=group, role="user", speaker="user", content="I live in Lisbon.", occurred_at=now,
                   created_at=now)
    pre = PrecomputedEmbedder(embedder, {})
    mem = Memory(store, embedder=pre, extractor=RulesExtractor(use_parser=False), owns_store=False)
    own, total = timed_add(mem, turn, group, pre)
    assert pre.inner_seconds > 0  # the fact's statement was not known beforehand: the model embedded it
    assert 0 < own < total and abs((total - own) - pre.inner_seconds) < 1e-9
    assert [f.object for f in store.list_facts(group, None)] == ["Lisbon"]  # the add did write the fact


def test_agent_loop_history_is_two_users_with_a_vector_for_every_turn(embedder, tmp_path: Path):
    """The neighbour group is another user's own turns (copies of this user's would make the
    vector index hold every neighbour twice over and cut the share that survives the group
    filter from 0.81 to 0.29), and every turn the loop writes has its vector beforehand, model or seeded random."""
    from kg_memory.bench.agent_loop import _prepare

    for random_vectors in (False, True):
        main, side, extra, pre = _prepare(200, 50, 10, 7, embedder, tmp_path / "cache", lambda _m: None,
                                          random_vectors)
        assert (len(main), len(side), len(extra)) == (200, 50, 10)
        main_texts = {e.index_text() for e in main}
        side_texts = [e.index_text() for e in side]
        assert sum(t in main_texts for t in side_texts) < len(side_texts) // 2
        for e in main + side + extra:
            v = pre.known[e.index_text()]
            assert v.shape == (embedder.dim,) and abs(float(np.linalg.norm(v)) - 1.0) < 1e-4
    turn = side[0].index_text()
    assert not np.allclose(pre.known[turn], embedder.embed([turn])[0], atol=1e-3)  # the random run's vector
    _, _, _, model = _prepare(200, 50, 10, 7, embedder, tmp_path / "cache", lambda _m: None, False)
    assert np.allclose(model.known[turn], embedder.embed([turn])[0], atol=1e-4)  # the model's, from the cache
    assert len(list((tmp_path / "cache").glob("vectors-*.npy"))) == 2  # this user's turns, and the neighbour's


def test_agent_loop_runs_on_both_stores_and_names_the_server(embedder, tmp_path: Path):
    from kg_memory.bench.agent_loop import run_agent_loop

    res = run_agent_loop(["sqlite", neo4j_url()], embedder, episodes=200, neighbour=40, rounds=3,
                         cache_dir=tmp_path / "cache", log=lambda _m: None)
    assert res["history_vectors"] == embedder.name
    names = list(res["stores"])
    assert names[0] == "sqlite" and re.fullmatch(r"neo4j \d+\.\d+\.\d+", names[1]), names
    for row in res["stores"].values():
        for key in ("recall_steady", "recall_after_same_group_write", "recall_after_other_group_write",
                    "add_same_group", "add_other_group"):
            assert row[key]["n"] == 3 and 0 < row[key]["p50_ms"] <= row[key]["p99_ms"], key
        assert row["add_same_group_with_embedding"]["p50_ms"] >= row["add_same_group"]["p50_ms"]


def test_growth_runs_on_both_stores_through_the_public_calls(embedder, tmp_path: Path):
    """``bench growth`` on small sizes: a row per size and store with every figure, the group's
    episodes counted as it grows, and the many-tenant row reading more groups than it holds."""
    from kg_memory.bench.growth import run_growth

    res = run_growth(["sqlite", neo4j_url()], embedder, sizes=(300, 100), neighbour=50, rounds=3, groups=6,
                     group_size=20, cold=4, log=lambda _m: None, settle_at_most=0)
    names = list(res["stores"])
    assert names[0] == "sqlite" and re.fullmatch(r"neo4j \d+\.\d+\.\d+", names[1]), names
    for r in res["stores"].values():
        assert [row["episodes"] for row in r["growth"]] == [100, 300]  # grown in order
        for row in r["growth"]:
            for key in ("add", "add_with_embedding", "recall_steady", "recall_after_write"):
                assert row[key]["n"] == 3 and 0 < row[key]["p50_ms"] <= row[key]["p99_ms"], key
            assert row["add_with_embedding"]["p50_ms"] >= row["add"]["p50_ms"]
            assert row["first_recall_cold_ms"] > 0 and row["rss_mb"] > 0 and len(row["first_recall_cold_each_ms"]) == 4
            assert row["first_recall_unsnapshotted_ms"] == row["first_recall_cold_each_ms"][0]
            assert row["settled_s"] == 0  # (no wait for a quiet machine when told so)
        t = r["tenants"]
        assert t["groups_read"] == 6 and t["first_recall_cold"]["n"] == 4 and t["recall_steady"]["n"] == 100
    assert res["stores"]["sqlite"]["growth"][-1]["store_bytes"] > res["stores"]["sqlite"]["growth"][0]["store_bytes"]
