"""The agent-facing commands as a user runs them (facts, correct, change, retire,
forget), and background extraction surviving the death of the process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..conftest import SAMPLE
from .test_cli import kgmem


def test_facts_and_edits_by_id(tmp_path: Path):
    home = tmp_path / "home"
    kgmem("ingest", str(SAMPLE), "--group", "demo", "--quiet", home=home)
    listed = json.loads(kgmem("facts", "--group", "demo", "--predicate", "lives_in", "--json", home=home).stdout)
    (user_home,) = [f for f in listed["facts"] if f["subject"] == "User"]
    assert user_home["object"] == "Manchester" and user_home["episode_ids"]
    text = kgmem("facts", "--group", "demo", home=home).stdout
    assert "User lives_in Manchester" in text and user_home["id"][:11] in text

    short = user_home["id"][:11]  # the short id `kgmem facts` prints works too
    fixed = json.loads(kgmem("correct", short, "Salford", "--reason", "typo", "--group", "demo", "--json",
                             home=home).stdout)
    assert fixed["closed"] == [user_home["id"]] and fixed["written"][0]["statement"] == "User lives in Salford"
    now = json.loads(kgmem("facts", "--group", "demo", "--predicate", "lives_in", "--json", home=home).stdout)
    assert [f["object"] for f in now["facts"] if f["subject"] == "User"] == ["Salford"]
    every = json.loads(kgmem("facts", "--group", "demo", "--predicate", "lives_in", "--all-versions", "--json",
                             home=home).stdout)
    assert len(every["facts"]) > len(now["facts"])

    pet = json.loads(kgmem("facts", "--group", "demo", "--predicate", "has_pet", "--json", home=home).stdout)
    retired = kgmem("retire", pet["facts"][0]["id"], "--at", "2025-10-01", "--group", "demo", home=home)
    assert "valid 2024-03-02 → 2025-10-01" in retired.stdout
    assert json.loads(kgmem("facts", "--group", "demo", "--predicate", "has_pet", "--json",
                            home=home).stdout)["facts"] == []

    bad = kgmem("correct", "fv_nothing", "x", "--group", "demo", home=home, check=False)
    assert bad.returncode == 6 and bad.stderr.startswith("Error: no fact") and "Traceback" not in bad.stderr
    bad = kgmem("change", user_home["id"], "Leeds", "--at", "someday", "--group", "demo", home=home, check=False)
    assert bad.returncode == 2 and "Error: --at" in bad.stderr
    other = kgmem("correct", user_home["id"], "Leeds", "--group", "elsewhere", home=home, check=False)
    assert other.returncode == 6


def test_forget_from_the_command_line(tmp_path: Path):
    home = tmp_path / "home"
    kgmem("ingest", str(SAMPLE), "--group", "demo", "--quiet", home=home)
    db = home / "kgmem.db"
    assert b"Ines" in db.read_bytes() + (Path(str(db) + "-wal").read_bytes() if Path(str(db) + "-wal").exists()
                                         else b"")
    refused = kgmem("forget", "--group", "demo", home=home, check=False)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    done = json.loads(kgmem("forget", "--entity", "Ines", "--group", "demo", "--reason", "asked", "--json",
                            home=home).stdout)
    assert done["kind"] == "entity" and done["episodes"] >= 1 and "Ines" not in json.dumps(done)
    files = [p for p in home.glob("kgmem.db*")]
    assert files and all(b"Ines" not in p.read_bytes() for p in files)
    recall = kgmem("recall", "Where does my sister live?", "--group", "demo", home=home).stdout
    assert "Ines" not in recall
    whole = json.loads(kgmem("forget", "--group", "demo", "--yes", "--json", home=home).stdout)
    assert whole["kind"] == "group" and whole["episodes"] > 0
    assert "demo" not in kgmem("groups", home=home).stdout


def test_background_extraction_survives_the_process_dying(tmp_path: Path):
    home = tmp_path / "home"
    env = {**os.environ, "KGMEM_HOME": str(home)}
    env.pop("KGMEM_STORE", None)
    writer = ("import os\nfrom kg_memory import Memory\nm = Memory.open()\n"
              "m.add('I live in Lisbon and I have a cat named Miso.', group='g', wait=False)\n"
              "os._exit(0)  # dies before the worker ran: the episode must not be lost\n")
    subprocess.run([sys.executable, "-c", writer], env=env, check=True, timeout=300)
    counts = json.loads(kgmem("doctor", "--json", home=home, check=False).stdout)["store"]["counts"]
    assert counts["episodes"] == 1
    reader = ("import json\nfrom kg_memory import Memory\nm = Memory.open()\n"
              "m.add('I play the cello.', group='g', wait=False)\nm.flush(timeout=120)\n"
              "print(json.dumps(sorted(f.object for f in m.facts(group='g'))))\nm.close()\n")
    out = subprocess.run([sys.executable, "-c", reader], env=env, check=True, timeout=300, capture_output=True,
                         text=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["Lisbon", "Miso", "cello"]
