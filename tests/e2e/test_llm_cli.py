"""`kgmem ingest --extractor llm` as a user runs it, against the local replay server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..conftest import SAMPLE
from ..llm_server import ReplayServer


def run(*args: str, home: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "KGMEM_HOME": str(home), "KGMEM_LLM_RETRY_BASE": "0.01", "KGMEM_LLM_MAX_RETRIES": "1",
            **env}
    for var in ("KGMEM_LLM_BASE_URL", "KGMEM_LLM_API_KEY", "OPENAI_API_KEY"):
        if var not in env:
            full.pop(var, None)
    return subprocess.run([sys.executable, "-m", "kg_memory", *args], capture_output=True, text=True, env=full,
                          timeout=600)


def test_llm_without_endpoint_or_local_model_is_one_error_before_any_work(tmp_path: Path):
    home = tmp_path / "home"
    proc = run("ingest", str(SAMPLE), "--extractor", "llm", home=home, env={})
    assert proc.returncode == 5
    assert proc.stderr.startswith("Error: --extractor llm needs a model endpoint or the local LLM")
    assert "kgmem model install --llm" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (home / "kgmem.db").exists()  # nothing was stored


def test_a_corrupt_local_model_is_one_error(tmp_path: Path):
    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    (home / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").write_bytes(b"GGUF" + b"\0" * 1000)
    proc = run("ingest", str(SAMPLE), "--extractor", "llm", home=home, env={})
    assert proc.returncode == 5 and "corrupt" in proc.stderr and "kgmem model install --llm" in proc.stderr
    assert "Traceback" not in proc.stderr and not (home / "kgmem.db").exists()
    doc = json.loads(run("doctor", "--json", home=home, env={}).stdout)
    assert doc["local_llm"]["installed"] and doc["local_llm"]["sha256_ok"] is False


def test_killing_the_model_mid_ingest_loses_nothing_and_resumes(tmp_path: Path):
    home = tmp_path / "home"
    with ReplayServer() as server:
        server.fail_after = 5  # answers five calls, then the "model" dies
        # one turn per call: the recorded answers are per turn (windows are covered in the contract tests)
        env = {"KGMEM_LLM_BASE_URL": server.url, "KGMEM_LLM_API_KEY": "sk-secret-value",
               "KGMEM_LLM_CONCURRENCY": "1", "KGMEM_LLM_WINDOW": "1"}
        first = run("ingest", str(SAMPLE), "--group", "g", "--extractor", "llm", "--json", home=home, env=env)
    assert first.returncode == 7, first.stderr
    stats = json.loads(first.stdout)
    assert stats["episodes_added"] == 30 and stats["episodes_failed"] > 0
    assert stats["llm_calls"] == 5 and stats["prompt_tokens"] > 0
    assert "--retry-failed" in first.stderr and "sk-secret-value" not in first.stderr + first.stdout
    doc = json.loads(run("doctor", "--json", home=home, env={}).stdout)
    counts = doc["store"]["counts"]
    assert counts["episodes"] == 30 and counts["episodes_failed"] == stats["episodes_failed"]

    with ReplayServer() as server:
        env = {"KGMEM_LLM_BASE_URL": server.url, "KGMEM_LLM_API_KEY": "sk-secret-value", "KGMEM_LLM_WINDOW": "1"}
        # a retry scoped to another group touches nothing of group g (no model call with g's text)
        elsewhere = json.loads(run("ingest", "--extractor", "llm", "--retry-failed", "--group", "other", "--json",
                                   home=home, env=env).stdout)
        assert elsewhere["episodes_extracted"] == 0 and elsewhere["llm_calls"] == 0
        again = run("ingest", "--extractor", "llm", "--retry-failed", "--group", "g", "--json", home=home, env=env)
        assert again.returncode == 0, again.stderr
        redo = json.loads(again.stdout)
        assert redo["episodes_extracted"] == stats["episodes_failed"] and redo["episodes_failed"] == 0
        # a re-run with nothing pending costs nothing
        idle = json.loads(run("ingest", "--extractor", "llm", "--all-groups", "--json", home=home, env=env).stdout)
        assert idle["llm_calls"] == 0
    doc = json.loads(run("doctor", "--json", home=home, env={}).stdout)
    assert doc["store"]["counts"]["episodes_failed"] == 0 and doc["store"]["counts"]["episodes_pending"] == 0
