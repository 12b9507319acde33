"""The CLI as a user runs it: a subprocess, real stores, real model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kg_memory.store.url import redact_url

from ..conftest import CONTRADICTIONS, SAMPLE, neo4j_url


def kgmem(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KGMEM_HOME": str(home)}
    env.pop("KGMEM_STORE", None)
    proc = subprocess.run([sys.executable, "-m", "kg_memory", *args], capture_output=True, text=True, env=env,
                          timeout=600)
    if check and proc.returncode != 0:
        shown = " ".join(redact_url(a) if "://" in a else a for a in args)
        raise AssertionError(f"kgmem {shown} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_ingest_recall_history_roundtrip(home: Path):
    out = json.loads(kgmem("ingest", str(SAMPLE), "--group", "demo", "--json", home=home).stdout)
    assert out["episodes_added"] == 30 and out["facts_added"] > 10 and out["facts_invalidated"] >= 3
    assert set(out) >= {"episodes_added", "episodes_skipped", "facts_added", "facts_invalidated",
                        "entities_added", "errors"}
    again = json.loads(kgmem("ingest", str(SAMPLE), "--group", "demo", "--json", home=home).stdout)
    assert (again["episodes_added"], again["episodes_skipped"], again["facts_added"]) == (0, 30, 0)

    now = json.loads(kgmem("recall", "Where do I live?", "--group", "demo", "--json", home=home).stdout)
    assert now["facts"][0]["object"] == "Manchester"
    assert set(now["facts"][0]) >= {"id", "subject", "predicate", "object", "statement", "valid_from", "valid_to",
                                    "created_at", "expired_at", "expired_by", "score", "episode_ids"}
    assert set(now["episodes"][0]) >= {"id", "content", "role", "speaker", "occurred_at", "session_id", "metadata",
                                       "score"}
    assert now["context_block"].startswith("# Facts\n- User lives_in Manchester")
    then = json.loads(kgmem("recall", "Where do I live?", "--group", "demo", "--as-of", "2024-06-01",
                            "--json", home=home).stdout)
    assert then["facts"][0]["object"] == "Leeds"
    assert all(f["object"] != "Manchester" for f in then["facts"])

    text = kgmem("recall", "Where do I live?", "--group", "demo", "--explain", home=home).stdout
    assert "- User lives_in Manchester (since 2024-10-01)" in text and "direct=" in text

    hist = kgmem("history", "User", "--predicate", "lives_in", "--group", "demo", home=home).stdout
    assert "superseded: Manchester" in hist and "Leeds" in hist and "Glasgow" in hist
    hj = json.loads(kgmem("history", "User", "--group", "demo", "--json", home=home).stdout)
    ids = {v["id"] for v in hj["versions"]}
    assert all(v["expired_by"] in ids for v in hj["versions"] if v["expired_by"] and v["expired_by"].startswith("fv_"))


def test_bad_input_is_a_clean_error(home: Path, tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "fine"}\n{"content": 42}\nnot json\n')
    proc = kgmem("ingest", str(bad), home=home, check=False)
    assert proc.returncode != 0
    assert f"Error: {bad}:2: 'content' must be a string" in proc.stderr
    assert f"Error: {bad}:3: malformed JSON" in proc.stderr
    assert "Traceback" not in proc.stderr
    skipped = json.loads(kgmem("ingest", str(bad), "--on-error", "skip", "--json", home=home).stdout)
    assert skipped["episodes_added"] == 1 and len(skipped["errors"]) == 2
    missing = kgmem("recall", "x", "--store", "mysql://nope", home=home, check=False)
    assert missing.returncode != 0 and missing.stderr.startswith("Error: store URL")
    nobody = kgmem("history", "Nobody", home=home, check=False)
    assert nobody.returncode != 0 and "Error: no entity named 'Nobody'" in nobody.stderr


def test_doctor_and_contradiction_bench(home: Path):
    doc = json.loads(kgmem("doctor", "--json", home=home).stdout)
    assert doc["ok"] and doc["model"]["installed"] and doc["store"]["missing"].startswith("no store at ")
    assert not (home / "kgmem.db").exists()  # doctor never creates the store it checks
    res = json.loads(kgmem("bench", "contradictions", str(CONTRADICTIONS), "--json", home=home).stdout)
    assert res["pass_rate"] == 1.0 and res["checks"] == 22 and res["failures"] == []
    assert set(res) >= {"cases", "checks", "passed", "pass_rate", "failures"}
    assert not (home / "kgmem.db").exists()  # a temporary store: the user's own store is never written


def test_version_and_config_typos(home: Path):
    from importlib.metadata import version

    assert kgmem("--version", home=home).stdout.strip() == f"kgmem {version('kgmem')}"
    assert "_kgmem_completion()" in kgmem("--show-completion", "bash", home=home).stdout
    env = {**os.environ, "KGMEM_HOME": str(home), "_KGMEM_COMPLETE": "complete_bash", "COMP_WORDS": "kgmem gro",
           "COMP_CWORD": "1"}
    done = subprocess.run([str(Path(sys.executable).parent / "kgmem")], capture_output=True, text=True, env=env)
    assert done.stdout.split() == ["groups"]  # the shell completes command names
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('groupp = "alice"\n')
    proc = kgmem("recall", "anything", home=home, check=False)
    assert proc.returncode == 2 and "unknown setting 'groupp'" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_on_neo4j(home: Path):
    url = neo4j_url()
    group = f"e2e-{os.getpid()}"
    kgmem("ingest", str(SAMPLE), "--group", group, "--store", url, home=home)
    # the shared test server holds other tests' failed episodes: check this group's
    doc = json.loads(kgmem("doctor", "--store", url, "--group", group, "--json", home=home).stdout)
    assert doc["ok"] and doc["store"]["server_version"].startswith(("5.", "202"))
    assert doc["episodes"] == {"failed": 0, "pending": 0, "pending_too_long": 0, "problems": []}
    assert "password" not in json.dumps(doc) and url.split("@")[0].split(":")[-1] not in json.dumps(doc)
    res = json.loads(kgmem("bench", "contradictions", str(CONTRADICTIONS), "--store", url, "--json",
                           home=home).stdout)
    assert res["pass_rate"] == 1.0 and res["checks"] == 22
    then = json.loads(kgmem("recall", "Where do I live?", "--group", group, "--store", url, "--as-of", "2024-06-01",
                            "--json", home=home).stdout)
    assert then["facts"][0]["object"] == "Leeds"


def test_nightly_job_script(home: Path, tmp_path: Path):
    root = Path(__file__).resolve().parents[2]
    store = f"sqlite:///{tmp_path / 'nightly.db'}"
    kgmem("ingest", str(SAMPLE), "--store", store, "--group", "n", home=home)
    env = {**os.environ, "KGMEM_HOME": str(home), "KGMEM_STORE": store,
           "KGMEM": str(Path(sys.executable).parent / "kgmem"), "KGMEM_CONTRADICTIONS": str(CONTRADICTIONS)}
    for var in ("KGMEM_LLM_BASE_URL", "KGMEM_LLM_API_KEY", "OPENAI_API_KEY"):
        env.pop(var, None)
    proc = subprocess.run(["bash", str(root / "jobs" / "nightly.sh")], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("nightly: ok")
    env.pop("KGMEM_STORE")
    missing = subprocess.run(["bash", str(root / "jobs" / "nightly.sh")], capture_output=True, text=True, env=env)
    assert missing.returncode != 0 and "KGMEM_STORE" in missing.stderr
