"""`bench scale` on a small size, both stores in one run (no timing assertions)."""

from __future__ import annotations

from pathlib import Path

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
    """The add figure is the memory's own cost: the turn's vector is precomputed, and
    the time the add spends embedding a new fact's statement is taken out (and kept
    in the figure beside it)."""
    from kg_memory.bench.agent_loop import _add
    from kg_memory.bench.scale import PrecomputedEmbedder
    from kg_memory.extract.rules import RulesExtractor
    from kg_memory.models import Episode
    from kg_memory.pipeline import Pipeline
    from kg_memory.timeutil import utcnow

    now = utcnow()
    turn = Episode(group_id=group, role="user", speaker="user", content="I live in Lisbon.", occurred_at=now,
                   created_at=now)
    pre = PrecomputedEmbedder(embedder, {turn.index_text(): embedder.embed([turn.index_text()])[0]})
    pipe = Pipeline(store, RulesExtractor(use_parser=False), pre, utcnow)
    own, total = _add(store, pipe, turn, group, pre)
    assert pre.inner_seconds > 0  # the fact's statement was not known beforehand: the model embedded it
    assert 0 < own < total and abs((total - own) - pre.inner_seconds) < 1e-9
    assert [f.object for f in store.list_facts(group, None)] == ["Lisbon"]  # the add did write the fact
