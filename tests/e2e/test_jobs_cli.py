"""`kgmem jobs ...` as a user (or cron) runs them: JSON for machines, text for people,
clean errors with exit codes, and a schedule that records every run."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli import kgmem

TURNS = [("2024-01-10T09:00:00Z", "I work at Acme Corp as an engineer."),
         ("2024-02-10T09:00:00Z", "My sister Ines lives in Porto."),
         ("2024-06-01T09:00:00Z", "I work at ACME Inc. now, same team.")]


def _run(home: Path, *args: str) -> dict:
    return json.loads(kgmem("jobs", *args, "--group", "g", "--json", home=home).stdout)


def test_the_jobs_from_the_command_line(tmp_path: Path):
    home = tmp_path / "home"
    data = tmp_path / "turns.jsonl"
    data.write_text("".join(json.dumps({"role": "user", "content": c, "occurred_at": t}) + "\n" for t, c in TURNS))
    kgmem("ingest", str(data), "--group", "g", "--quiet", home=home)

    dry = _run(home, "resolve-entities", "--dry-run")
    assert dry["dry_run"] and dry["merged"] == 1 and _run(home, "merges")["merges"] == []
    done = _run(home, "resolve-entities")
    (merge,) = _run(home, "merges")["merges"]
    assert done["merged"] == 1 and merge["id"] == done["merges"][0]["id"] and merge["status"] == "merged"
    text = kgmem("jobs", "unmerge", merge["id"], "--group", "g", home=home).stdout
    assert text.startswith("unmerged 'Acme Corp' from 'ACME Inc'") or text.startswith("unmerged 'ACME Inc'")
    assert _run(home, "merges")["merges"][0]["status"] == "unmerged"

    archived = _run(home, "archive", "--older-than", "30")
    assert archived["episodes"] == 3 and list((home / "archive").rglob("*.txt"))
    recall = json.loads(kgmem("recall", "where do I work", "--group", "g", "--json", home=home).stdout)
    assert recall["facts"]
    assert _run(home, "restore")["episodes"] == 3

    shadow = _run(home, "reextract", "--extractor", "rules")
    assert shadow["action"] == "build" and shadow["episodes"] == 3 and shadow["diff"]["totals"]["added"] == 0
    assert _run(home, "reextract", "--promote")["action"] == "promote"
    assert _run(home, "reextract", "--rollback")["action"] == "rollback"

    nightly = json.loads(kgmem("jobs", "run-nightly", "--all-groups", "--json", home=home).stdout)
    assert {(r["group_id"], r["job"], r["outcome"]) for r in nightly["runs"]} == {
        ("g", "resolve-entities", "ok"), ("g", "archive", "ok"), ("g", "hubs", "ok"),
        ("g", "reextract", "ok")}  # not the shadow group
    status = _run(home, "status")
    assert {j["job"] for j in status["jobs"]} >= {"resolve-entities", "archive", "restore", "reextract", "hubs"}
    people = kgmem("jobs", "status", "--group", "g", home=home).stdout
    assert "resolve-entities" in people and " ok " in people


def test_job_errors_are_one_clean_line(tmp_path: Path):
    home = tmp_path / "home"
    for args, code, words in [
        (("unmerge", "merge_nothing"), 6, "no merge"),
        (("review", "--accept", "nothing"), 6, "no queued pair"),
        (("reextract", "--promote"), 6, "no shadow ready"),
        (("reextract", "--since", "someday"), 2, "--since"),
    ]:
        bad = kgmem("jobs", *args, "--group", "g", home=home, check=False)
        assert bad.returncode == code, (args, bad.returncode, bad.stderr)
        assert words in bad.stderr and "Traceback" not in bad.stderr, (args, bad.stderr)
