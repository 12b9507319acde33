"""`kgmem ontology check | set | show` as a user runs them: one `Error:` line per problem with its
file and line, nothing written on a bad file, and the set ontology driving the next ingest."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli import kgmem

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "examples" / "ontologies" / "project.toml"


def test_check_set_show_and_ingest(tmp_path: Path):
    home = tmp_path / "home"
    bad = tmp_path / "bad.toml"
    bad.write_text('extends = "default"\n[predicates.uses_db]\ncardinality = "one"\nobject = "value"\n'
                   'description = "x"\n')
    res = kgmem("ontology", "check", str(bad), home=home, check=False)
    assert res.returncode == 3 and "Traceback" not in res.stderr
    assert res.stderr.splitlines()[0] == f"Error: {bad}:3: cardinality 'one': use single or multi"
    res = kgmem("ontology", "set", str(bad), "--group", "team", home=home, check=False)
    assert res.returncode == 3
    shown = json.loads(kgmem("ontology", "show", "--group", "team", "--json", home=home).stdout)
    assert "uses_db" not in shown["predicates"] and not any(p["custom"] for p in shown["predicates"].values())

    ok = json.loads(kgmem("ontology", "check", str(PROJECT), "--json", home=home).stdout)
    assert ok["ok"] and "uses_database" in ok["custom"]
    out = kgmem("ontology", "set", str(PROJECT), "--group", "team", home=home).stdout
    assert out.strip() == f"group team: ontology {ok['version']}"
    shown = json.loads(kgmem("ontology", "show", "--group", "team", "--json", home=home).stdout)
    assert shown["version"] == ok["version"] and shown["predicates"]["uses_database"]["custom"]
    assert "[predicates.uses_database]" in kgmem("ontology", "show", "--group", "team", home=home).stdout

    turns = tmp_path / "team.jsonl"
    turns.write_text("".join(json.dumps({"role": "user", "content": c, "occurred_at": t}) + "\n" for t, c in [
        ("2026-01-10T10:00:00Z", "The billing service uses Postgres."),
        ("2026-05-10T10:00:00Z", "Billing switched to CockroachDB last week.")]))
    kgmem("ingest", str(turns), "--group", "team", "--quiet", home=home)
    now = json.loads(kgmem("facts", "--group", "team", "--predicate", "uses_database", "--json", home=home).stdout)
    april = json.loads(kgmem("facts", "--group", "team", "--predicate", "uses_database", "--as-of", "2026-04-01",
                             "--json", home=home).stdout)
    assert [f["object"] for f in now["facts"]] == ["CockroachDB"]
    assert [f["object"] for f in april["facts"]] == ["Postgres"]

    narrower = tmp_path / "narrower.toml"
    narrower.write_text('extends = "default"\n')
    res = kgmem("ontology", "set", str(narrower), "--group", "team", home=home, check=False)
    assert res.returncode == 2 and "uses_database: removed" in res.stderr and "--force" in res.stderr


def test_check_reads_the_files_own_examples(tmp_path: Path):
    """`--examples`: each example of the file's own predicates the offline extractor does not read as its
    predicate, at its own line, with what it was read as; the file is still fine (exit 0)."""
    onto = tmp_path / "fleet.toml"
    onto.write_text('extends = "default"\n\n[predicates.serviced_by]\ncardinality = "single"\nobject = "entity"\n'
                    'description = "the garage that services a vehicle"\nexamples = [\n'
                    '  "Van 3 is serviced by Kwik Fit.",\n  "Which garage services van 3?",\n]\n')
    res = kgmem("ontology", "check", str(onto), "--examples", home=tmp_path / "home")
    lines = res.stdout.splitlines()
    assert lines[1].startswith(f"{onto}:9: the example 'Which garage services van 3?' of serviced_by reads as ")
    assert "rephrase it" in lines[1] and lines[-1] == "1 of 2 examples read as their own predicate"
    assert "Van 3 is serviced" not in res.stdout and "reading the examples" in res.stderr
    shown = json.loads(kgmem("ontology", "check", str(onto), "--examples", "--json", home=tmp_path / "home").stdout)
    read = {e["example"]: e for e in shown["examples"]}
    assert read["Van 3 is serviced by Kwik Fit."]["read"]
    assert {"subject": "Van 3", "predicate": "serviced_by", "object": "Kwik Fit"} \
        in read["Van 3 is serviced by Kwik Fit."]["read_as"]
    assert not read["Which garage services van 3?"]["read"]
