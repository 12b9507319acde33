"""`make bench` regenerates docs/benchmarks.md: its tables from `.bench/*.json`, then the
hand-written notes. The notes file must hold every hand-written section, or a run loses them."""

from __future__ import annotations

import json
from pathlib import Path

from kg_memory.bench.report import render

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _loop(stores: dict[str, float]) -> dict:
    row = lambda p50: {"p50_ms": p50, "p95_ms": p50 * 2, "p99_ms": p50 * 3, "n": 200}  # noqa: E731
    keys = ("recall_steady", "recall_after_same_group_write", "recall_after_other_group_write", "add_same_group",
            "add_other_group", "add_same_group_with_embedding")
    return {"episodes": 100_000, "neighbour": 20_000, "rounds": 200, "seed": 42, "history_vectors": "minilm",
            "stores": {name: {k: row(p50) for k in keys} for name, p50 in stores.items()}}


def test_agent_loop_table_has_every_server_of_the_run(tmp_path: Path):
    (tmp_path / "agent-loop.json").write_text(json.dumps(_loop({"sqlite": 14.5, "neo4j 5.26.30": 61.0})))
    (tmp_path / "agent-loop-neo4j-2025.json").write_text(json.dumps(_loop({"neo4j 2025.12.1": 57.0})))
    text = render(tmp_path, "## Notes\n\nhand-written\n")
    rows = [line for line in text.splitlines() if line.startswith("| sqlite |") or line.startswith("| neo4j ")]
    assert [r.split(" |")[0] for r in rows] == ["| sqlite", "| neo4j 5.26.30", "| neo4j 2025.12.1"]
    assert "| 57.0 / 114.0 |" in rows[2] and "minilm history vectors" in text
    assert text.endswith("## Notes\n\nhand-written\n")


def test_every_section_starts_after_one_blank_line(tmp_path: Path):
    (tmp_path / "agent-loop.json").write_text(json.dumps(_loop({"sqlite": 14.5})))
    scores = {f"{m}@{k}": 50.0 for m in ("recall", "hit") for k in (1, 10)}
    (tmp_path / "locomo.json").write_text(json.dumps({
        "ks": [1, 10], "questions": 2, "adversarial_excluded": 0, "dropped_evidence": [],
        "methods": {"ours": {"overall": scores, "by_category": {"temporal": {**scores, "questions": 2}}}}}))
    (tmp_path / "contradictions-phrasings.json").write_text(json.dumps(
        {"cases": 45, "checks": 59, "passed": 57, "pass_rate": 57 / 59}))
    lines = render(tmp_path, "## Notes\n\nhand-written\n").splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
    assert len(heads) == 4  # LoCoMo, the agent loop, the fact layer's case sets, the notes
    assert all(lines[i - 1] == "" for i in heads)
    assert all(lines[i - 2] != "" for i in heads[1:])  # a table ends right before the next heading's blank line


def test_agent_loop_table_without_the_2025_run(tmp_path: Path):
    (tmp_path / "agent-loop.json").write_text(json.dumps(_loop({"sqlite": 14.5})))
    assert "| neo4j" not in render(tmp_path)


def test_the_notes_are_every_hand_written_section_of_the_benchmarks():
    """docs/benchmarks.md is the generated part followed by docs/benchmarks-notes.md, so
    editing one without the other is caught here, not by the next `make bench`."""
    notes = (DOCS / "benchmarks-notes.md").read_text()
    assert notes.startswith("## ") and (DOCS / "benchmarks.md").read_text().endswith("\n" + notes)
