"""Fault injection: `kgmem ingest` killed (SIGKILL) at random points and run again, on both
stores. Every episode is present exactly once, no fact version is duplicated, evidence
counts equal their provenance, no subject holds two current values of a single-valued
predicate, and the beliefs equal those of an uninterrupted run."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from kg_memory.memory import Memory
from kg_memory.settings import Settings
from kg_memory.store.url import open_store

from ..conftest import neo4j_url
from ..contract.test_claims_contract import _invariants, _turns


def _ingest(path: Path, group: str, url: str, home: Path) -> subprocess.Popen[str]:
    config = home.parent / "small-batches.toml"
    config.write_text("batch_size = 8\n")  # many commits, so a kill lands between and inside them
    env = {**os.environ, "KGMEM_HOME": str(home), "KGMEM_CONFIG": str(config)}
    env.pop("KGMEM_STORE", None)
    return subprocess.Popen([sys.executable, "-m", "kg_memory", "ingest", str(path), "--group", group, "--store", url,
                             "--quiet", "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _left_undone(url: str, group: str, total: int, dim: int) -> bool:
    store = open_store(url, dim=dim)
    try:
        counts = store.counts(group)
        return counts["episodes"] < total or counts["episodes_pending"] > 0
    finally:
        store.close()


@pytest.mark.parametrize("store_kind", ["sqlite", "neo4j"])
def test_sigkill_during_ingest_then_resume(tmp_path: Path, store_kind: str, embedder):
    url = f"sqlite:///{tmp_path / 'kg.db'}" if store_kind == "sqlite" else neo4j_url()
    turns = _turns(120)
    path = tmp_path / "turns.jsonl"
    path.write_text("\n".join(json.dumps({"content": text, "occurred_at": at}) for at, text in turns))
    group, ref = f"kill-{uuid.uuid4().hex[:8]}", f"kill-ref-{uuid.uuid4().hex[:8]}"
    rng = random.Random(20261201)
    interrupted = 0
    lo, hi = 1.0, 3.0  # model load, parse, store, extract: somewhere in there
    used = [group]
    for _ in range(12):  # kill until three runs were cut short with work left (timing differs by machine)
        proc = _ingest(path, group, url, tmp_path / "home")
        time.sleep(rng.uniform(lo, hi))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=300)
        if _left_undone(url, group, len(turns), embedder.dim):
            interrupted += 1
            if interrupted == 3:
                break
        elif interrupted:
            break  # it finished after earlier kills: resumed to the end, nothing left to interrupt
        else:  # this machine ingested it all before the kill: a fresh group, and kill sooner
            group = f"kill-{uuid.uuid4().hex[:8]}"
            used.append(group)
            lo, hi = lo / 2, hi / 2
    final = _ingest(path, group, url, tmp_path / "home")
    out, err = final.communicate(timeout=600)
    assert final.returncode == 0 and "Traceback" not in err, err
    assert interrupted >= 1, "no kill landed before the ingest finished"
    done = _ingest(path, ref, url, tmp_path / "home")
    assert done.communicate(timeout=600) and done.returncode == 0

    store = open_store(url, dim=embedder.dim)
    mem = Memory(store, settings=Settings(), embedder=embedder)
    try:
        _invariants(store, mem, group, len(turns))
        _invariants(store, mem, ref, len(turns))
        now = {g: {(v.subject, v.predicate, v.object, v.valid_from, v.reinforcement_count)
                   for v in mem.facts(group=g)} for g in (group, ref)}
        assert now[group] == now[ref]
    finally:
        for g in (*used, ref):
            mem.forget(whole_group=True, group=g)
        mem.close()


@pytest.mark.parametrize("store_kind", ["sqlite", "neo4j"])
def test_hostile_recall_arguments_are_one_error_line(tmp_path: Path, store_kind: str):
    url = f"sqlite:///{tmp_path / 'kg.db'}" if store_kind == "sqlite" else neo4j_url()
    env = {**os.environ, "KGMEM_HOME": str(tmp_path / "home")}
    env.pop("KGMEM_STORE", None)
    words = " ".join(f"word{i}" for i in range(3000))  # once: Lucene's TooManyClauses on Neo4j
    for args, code in (([words], 2), (["x", "--as-of", "yesterday-ish"], 2), (["x", "--known-at", "1e20"], 2),
                       (["   "], 2), (["x", "--as-of", "9999-12-31T23:00:00-05:00"], 2)):
        proc = subprocess.run([sys.executable, "-m", "kg_memory", "recall", *args, "--group", "g", "--store", url],
                              capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == code, (args[:1], proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in proc.stderr, proc.stderr
