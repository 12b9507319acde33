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
