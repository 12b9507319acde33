"""The first hour with the CLI: the demo's story (now, as-of, known-at after a
correction, history, timeline) and the command-line conventions."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ..conftest import ROOT, SAMPLE
from .test_cli import kgmem

CORRECTION = ROOT / "examples" / "sample_correction.jsonl"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo's store: the sample conversation, then (later in belief time) the correction."""
    home = tmp_path_factory.mktemp("demo") / "home"
    kgmem("ingest", str(SAMPLE), "--group", "demo", home=home)
    time.sleep(1.1)
    before = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    time.sleep(0.1)
    kgmem("ingest", str(CORRECTION), "--group", "demo", home=home)
    return home, before


def test_now_leads_with_the_current_home_and_the_job_ending(demo: tuple[Path, str]):
    home, _ = demo
    out = json.loads(kgmem("recall", "Where do I live and work?", "-g", "demo", "-k", "5", "--json",
                           home=home).stdout)
    assert (out["facts"][0]["predicate"], out["facts"][0]["object"]) == ("lives_in", "Salford")
    preds = [(f["subject"], f["predicate"]) for f in out["facts"]]
    # the user's facts that answer come before the rest (the sister's home, Ines lives_in Lisbon, does not
    # answer "where do I live", and may rank below the user's other facts)
    answering = [i for i, (s, p) in enumerate(preds) if s == "User" and p in ("lives_in", "works_at")]
    assert answering and answering == list(range(len(answering))), preds
    # the job the user quit: no value now, so recall says how it ended
    assert [(f["predicate"], f["object"]) for f in out["ended"]] == [("works_at", "Northwind Labs")]
    ending = "# No longer true\n- User works_at Northwind Labs (from 2024-09-02, ended 2025-08-10)"
    assert ending in out["context_block"]
    top = [e["content"] for e in out["episodes"][:3]]
    assert any("quit my job at Northwind" in c for c in top), top
    assert any("Salford" in c or "Manchester" in c for c in top), top
    # the 2024 introduction (Leeds, Brightline) is superseded evidence: it no longer leads
    assert not any("I live in Leeds and I work at Brightline" in c for c in top), top


def test_decay_is_per_call_and_leaves_the_past_alone(demo: tuple[Path, str]):
    home, _ = demo
    args = ("recall", "Where do I live and work?", "-g", "demo", "-k", "5", "--json", "--explain")
    on = json.loads(kgmem(*args, home=home).stdout)
    off = json.loads(kgmem(*args, "--half-life", "0", home=home).stdout)
    intro = "I live in Leeds and I work at Brightline"

    def rank(res: dict[str, object]) -> int:
        eps = res["episodes"]
        assert isinstance(eps, list)
        return next((i for i, e in enumerate(eps) if intro in e["content"]), 99)

    assert rank(off) < rank(on)
    decayed = [e for e in on["episodes"] if intro in e["content"]]
    assert all(e["components"]["decay"] < 0.2 for e in decayed)  # two years old at a 90-day half-life
    past = json.loads(kgmem("recall", "Where do I live and work?", "-g", "demo", "-k", "5", "--as-of",
                            "2024-06-01", "--json", home=home).stdout)
    assert intro in past["episodes"][0]["content"]  # in mid-2024 it was the answer, so nothing decays it


def test_known_at_shows_the_belief_before_the_correction(demo: tuple[Path, str]):
    home, before = demo
    then = json.loads(kgmem("recall", "Where do I live?", "-g", "demo", "--known-at", before, "--json",
                            home=home).stdout)
    now = json.loads(kgmem("recall", "Where do I live?", "-g", "demo", "--json", home=home).stdout)
    assert then["facts"][0]["object"] == "Manchester" and now["facts"][0]["object"] == "Salford"
    assert all(f["object"] != "Salford" for f in then["facts"])


def test_history_reads_in_valid_time_with_reasons(demo: tuple[Path, str]):
    home, _ = demo
    text = kgmem("history", "User", "--predicate", "lives_in", "-g", "demo", home=home).stdout
    heads = [line for line in text.splitlines() if not line.startswith(" ")]
    assert heads == ["User lives_in Glasgow", "User lives_in Leeds", "User lives_in Manchester",
                     "User lives_in Salford"]
    assert "corrected: Salford instead" in text and "superseded: Manchester from 2024-10-01" in text
    assert "evidence 1" in text and "valid 2019-01-01 → 2020-01-01" in text
    assert "fv_" in text and not any(len(w) > 12 for w in text.split() if w.startswith("fv_"))  # short ids
    data = json.loads(kgmem("history", "User", "--predicate", "lives_in", "-g", "demo", "--json",
                            home=home).stdout)
    manchester = [v for v in data["versions"] if v["object"] == "Manchester"]
    assert len(manchester) == 1 and manchester[0]["closing"]["kind"] == "corrected"
    salford = next(v for v in data["versions"] if v["object"] == "Salford")
    assert manchester[0]["expired_by"] == salford["id"] and len(salford["id"]) == 35  # full ids in JSON


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _rendered_dom(page: Path, tmp_path: Path) -> str:
    """The page as headless Chromium lays it out (its DOM after rendering)."""
    browser = _chromium()
    assert browser is not None
    proc = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'chromium'}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_timeline_renders_one_band_per_version(demo: tuple[Path, str], tmp_path: Path):
    home, _ = demo
    page = tmp_path / "user.html"
    kgmem("timeline", "User", "--predicate", "lives_in", "-g", "demo", "-o", str(page), home=home)
    svg_file = tmp_path / "user.svg"
    kgmem("timeline", "User", "--predicate", "lives_in", "-g", "demo", "-o", str(svg_file), home=home)
    # The SVG is well-formed XML on its own: one band per version, arrows for what closed a version.
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.fromstring(svg_file.read_text())
    bands = root.findall(".//s:rect[@data-id]", ns)
    assert sorted(b.get("data-object") for b in bands) == ["Glasgow", "Leeds", "Leeds", "Manchester", "Salford"]
    assert {b.get("data-closing") for b in bands} == {"current", "superseded", "corrected"}
    arrows = root.findall(".//s:line[@class='supersede']", ns)
    by_id = {b.get("data-id"): b.get("data-object") for b in bands}
    assert sorted((by_id[a.get("data-from")], by_id[a.get("data-to")]) for a in arrows) == [
        ("Leeds", "Manchester"), ("Manchester", "Salford")]
    if _chromium():  # CI installs Chromium (.ci/run); the browser must lay the page out with every band
        dom = _rendered_dom(page, tmp_path)
        assert dom.count('class="version ') == 5 and "corrected: Salford instead" in dom
        assert "Fact timeline: User (5 versions, 4 facts)" in dom


def test_stdin_groups_and_hints(tmp_path: Path):
    home = tmp_path / "home"
    lines = SAMPLE.read_text().splitlines()[:4]
    proc = subprocess.run(
        [*kgmem_cmd(), "ingest", "-", "-g", "piped", "--json"], input="\n".join(lines), capture_output=True,
        text=True, env=env_for(home), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["episodes_added"] == 4  # progress went to stderr; stdout is clean JSON
    assert "extract: 4 episodes" in proc.stderr and "parse and store: 1 files" in proc.stderr
    kgmem("ingest", str(SAMPLE), "-g", "other", "-q", home=home)
    table = kgmem("groups", home=home).stdout.splitlines()
    assert table[0].split() == ["group", "episodes", "entities", "facts"]
    assert [r.split()[:2] for r in table[1:]] == [["other", "30"], ["piped", "4"]]
    rows = json.loads(kgmem("groups", "--json", home=home).stdout)
    assert [(r["group"], r["episodes"]) for r in rows] == [("other", 30), ("piped", 4)]

    missing = kgmem("recall", "anything", "-g", "othr", home=home)
    assert "the group 'othr' holds nothing" in missing.stderr and "other, piped" in missing.stderr
    typo = kgmem("history", "Usr", "-g", "other", home=home, check=False)
    assert typo.returncode == 6 and typo.stderr.strip() == (
        "Error: no entity named 'Usr' in group 'other'; did you mean 'User'?")
    bad = kgmem("recall", "x", "-g", "other", "--as-of", "yesterday", home=home, check=False)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "Error: --as-of: unparseable date 'yesterday': use ISO 8601 such as 2025-03-04T12:00:00Z"]
    nostore = kgmem("groups", home=tmp_path / "empty-home")
    assert nostore.stdout.startswith("no store at") and not (tmp_path / "empty-home").exists()


def kgmem_cmd() -> list[str]:
    import sys

    return [sys.executable, "-m", "kg_memory"]


def env_for(home: Path) -> dict[str, str]:
    import os

    env = {**os.environ, "KGMEM_HOME": str(home)}
    env.pop("KGMEM_STORE", None)
    env.pop("KGMEM_LOG_LEVEL", None)
    return env


def test_log_levels_keep_content_out_of_info(tmp_path: Path):
    home = tmp_path / "home"
    info = kgmem("--log-level", "info", "ingest", str(SAMPLE), "-g", "g", "-q", home=home)
    assert "INFO kg_memory.ingest.pipeline: batch of 30 episodes" in info.stderr
    assert "Brightline" not in info.stderr and "Leeds" not in info.stderr
    proc = subprocess.run([*kgmem_cmd(), "ingest", str(CORRECTION), "-g", "g", "-q"], capture_output=True,
                          text=True, env={**env_for(home), "KGMEM_LOG_LEVEL": "debug"}, timeout=300)
    assert proc.returncode == 0 and "DEBUG kg_memory.ingest.pipeline: fact" in proc.stderr and "Salford" in proc.stderr
    bad = kgmem("--log-level", "loud", "groups", home=home, check=False)
    assert bad.returncode == 2
    assert [line for line in bad.stderr.splitlines() if line.startswith("Error:")] == [
        "Error: Invalid value for --log-level: 'loud' is not one of debug, info, warning, error"]


def test_doctor_fails_on_failed_and_stuck_episodes(tmp_path: Path):
    home = tmp_path / "home"
    kgmem("ingest", str(CORRECTION), "-g", "g", "-q", home=home)
    assert kgmem("doctor", home=home).returncode == 0
    # An endpoint that refuses every call: the episodes are stored and marked failed (exit 7).
    env = {**env_for(home), "KGMEM_LLM_BASE_URL": "http://127.0.0.1:9/v1", "KGMEM_LLM_MAX_RETRIES": "0",
           "KGMEM_LLM_API_KEY": "sk-test-not-a-secret"}
    failed = subprocess.run([*kgmem_cmd(), "ingest", str(SAMPLE), "-g", "h", "--extractor", "llm", "-q"],
                            capture_output=True, text=True, env=env, timeout=300)
    assert failed.returncode == 7, failed.stderr
    doc = kgmem("doctor", home=home, check=False)
    assert doc.returncode == 1 and "PROBLEM: 30 episodes failed extraction" in doc.stdout
    report = json.loads(kgmem("doctor", "--json", home=home, check=False).stdout)
    assert report["ok"] is False and report["episodes"]["failed"] == 30


def test_doctor_fails_on_episodes_pending_too_long(tmp_path: Path):
    from kg_memory.core.models import Episode
    from kg_memory.memory import Memory
    from kg_memory.settings import load_settings

    home = tmp_path / "home"
    kgmem("ingest", str(CORRECTION), "-g", "g", "-q", home=home)
    settings = load_settings(env={"KGMEM_HOME": str(home)})
    # stored, never extracted: as if the ingest died
    with Memory.open(f"sqlite:///{home / 'kgmem.db'}", settings=settings) as mem:
        mem.add_episodes([Episode(group_id="g", role="user", content="I live in Oslo.",
                                  occurred_at=datetime(2025, 1, 1, tzinfo=UTC), created_at=datetime.now(UTC))],
                         extract=False)
    assert kgmem("doctor", home=home).returncode == 0  # pending for seconds: fine at the default 30 minutes
    (tmp_path / "strict.toml").write_text("pending_alert_minutes = 0.001\n")
    proc = subprocess.run([*kgmem_cmd(), "doctor"], capture_output=True, text=True, timeout=300,
                          env={**env_for(home), "KGMEM_CONFIG": str(tmp_path / "strict.toml")})
    assert proc.returncode == 1 and "PROBLEM: 1 episodes pending for more than 0.001 minutes" in proc.stdout
