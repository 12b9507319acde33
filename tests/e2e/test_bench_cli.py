"""The evaluation harnesses on small fixtures (no timing assertions)."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli import kgmem


def locomo_fixture(tmp_path: Path) -> Path:
    conv = {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "10:00 am on 3 March, 2024",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a kitten named Pixel yesterday!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Cute! What colour is she?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Grey with white paws.",
             "blip_caption": "a photo of a grey kitten on a sofa"},
        ],
        "session_2_date_time": "4:30 pm on 20 July, 2024",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I finally moved to Lisbon for the new job."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Lisbon is wonderful, enjoy the tiles and the trams."},
            {"speaker": "Ben", "dia_id": "D2:3", "text": "I also signed up for a pottery class on Thursdays."},
        ],
        "session_1_observation": {"Ana": [["Ana adopted a kitten named Pixel.", "D1:1"]]},
        "session_2_observation": {"Ben": [["Ben moved to Lisbon for a new job.", "D2:1"],
                                          ["Ben signed up for a pottery class.", "D2:3"]]},
        "qa": [
            {"question": "What is the name of Ana's kitten?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
            {"question": "Where did Ben move?", "answer": "Lisbon", "evidence": ["D2:1; D2:2"], "category": 4},
            {"question": "When did Ana adopt the kitten?", "answer": "2 March 2024", "evidence": ["D1:1", "D:1:9"],
             "category": 2},
            {"question": "What class does Ben take?", "answer": "pottery", "evidence": ["D2:3"], "category": 1},
            {"question": "What is Ben's dog called?", "adversarial_answer": "Rex", "evidence": [], "category": 5},
        ],
    }
    p = tmp_path / "mini-locomo.json"
    p.write_text(json.dumps(conv))
    return p


def test_bench_locomo_reports_every_method(tmp_path: Path):
    res = json.loads(kgmem("bench", "locomo", str(locomo_fixture(tmp_path)), "--k", "1,5", "--json",
                           home=tmp_path / "h").stdout)
    assert res["questions"] == 4 and res["adversarial_excluded"] == 1
    assert res["dropped_evidence"] == ["D:1:9"]
    assert set(res["methods"]) == {"bm25", "dense", "paper", "memor", "memor-dated", "gold-facts", "ours", "facts"}
    for m in res["methods"].values():
        assert set(m["overall"]) == {"recall@1", "recall@5", "hit@1", "hit@5"}
        assert all(0.0 <= v <= 100.0 for v in m["overall"].values())
        assert set(m["by_category"]) == {"single-hop", "temporal", "multi-hop"}
    # six turns, k=5: every method must find the one-turn evidence of the easy questions
    assert res["methods"]["ours"]["overall"]["hit@5"] == 100.0
    assert res["methods"]["bm25"]["by_category"]["single-hop"]["questions"] == 2
    # the fact layer alone: facts cover the turns they came from; gold facts the turns they cite
    assert res["methods"]["gold-facts"]["by_category"]["single-hop"]["hit@1"] == 100.0
    assert res["methods"]["facts"]["by_category"]["single-hop"]["hit@5"] == 100.0  # Pixel, Lisbon
    x = res["extraction"]
    assert x["episodes"] == 6 and x["facts_current"] >= 3 and x["extractor"].startswith("rules")
    assert x["calls_per_episode"] == 0.0 and x["seconds_per_episode"] > 0


def test_bench_longmemeval_with_time_travel(tmp_path: Path):
    data = [{
        "question_id": "q-move", "question_type": "knowledge-update", "question": "Which city do I live in?",
        "answer": "Porto", "question_date": "2023/06/01 (Thu) 10:00", "answer_session_ids": ["s2"],
        "haystack_session_ids": ["s1", "s2", "s3"],
        "haystack_dates": ["2023/01/10 (Tue) 09:00", "2023/05/02 (Tue) 18:00", "2023/08/01 (Tue) 12:00"],
        "haystack_sessions": [
            [{"role": "user", "content": "I live in Lisbon and love it."},
             {"role": "assistant", "content": "Lisbon is a lovely city."}],
            [{"role": "user", "content": "I moved to Porto last week, which city should I explore next?",
              "has_answer": True}, {"role": "assistant", "content": "Try Braga."}],
            [{"role": "user", "content": "Which city do I live in now? I moved to Faro, the city by the sea."},
             {"role": "assistant", "content": "Faro, then."}],
        ],
    }]
    p = tmp_path / "lme.json"
    p.write_text(json.dumps(data))
    res = json.loads(kgmem("bench", "longmemeval", str(p), "--k", "1,3", "--json", home=tmp_path / "h").stdout)
    assert res["questions"] == 1
    assert set(res["methods"]) == {"bm25", "dense", "time-travel", "ours"}
    ours = res["methods"]["ours"]["overall"]
    assert ours["session_recall@3"] == 100.0
    assert res["methods"]["time-travel"]["by_type"]["knowledge-update"]["questions"] == 1


def test_recall_as_of_the_question_date_never_sees_later_sessions(tmp_path: Path):
    """What the harness relies on for LongMemEval: as of the question date, the
    later session (which matches the question best) is not returned."""
    from kg_memory.ingest.formats import parse_file
    from kg_memory.memory import Memory

    p = tmp_path / "lme.json"
    p.write_text(json.dumps([{
        "question_id": "q", "question": "Which city do I live in?", "question_date": "2023/06/01 (Thu) 10:00",
        "haystack_session_ids": ["early", "late"],
        "haystack_dates": ["2023/05/02 (Tue) 18:00", "2023/08/01 (Tue) 12:00"],
        "haystack_sessions": [[{"role": "user", "content": "I moved to Porto last week."}],
                              [{"role": "user", "content": "Which city do I live in now? Faro, the city I love."}]],
    }]))
    with Memory.open(f"sqlite:///{tmp_path / 'm.db'}") as mem:
        mem.add_episodes(parse_file(p, "longmemeval").episodes)
        then = mem.recall("Which city do I live in?", group="q", as_of="2023/06/01 (Thu) 10:00")
        now = mem.recall("Which city do I live in?", group="q")
    assert {e.episode.session_id for e in then.episodes} == {"early"}
    assert "late" in {e.episode.session_id for e in now.episodes}


def test_bench_contradictions_has_a_per_kind_breakdown(tmp_path: Path):
    from ..conftest import CONTRADICTIONS

    res = json.loads(kgmem("bench", "contradictions", str(CONTRADICTIONS), "--json", home=tmp_path / "h").stdout)
    assert res["by_kind"]["single-valued update"]["checks"] >= 8
    assert sum(v["passed"] for v in res["by_kind"].values()) == res["passed"]


def test_bench_contradictions_exits_1_on_a_failed_check_unless_report_only(tmp_path: Path):
    """A failed check fails the command (a gate), but make bench reports the hard sets with --report-only."""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"format": "kgmem-contradictions/1", "cases": [{
        "id": "move", "kind": "single-valued update",
        "episodes": [{"t": "2026-01-12T18:00:00Z", "role": "user", "text": "I live in Lisbon."},
                     {"t": "2026-07-03T09:30:00Z", "role": "user", "text": "I moved to Porto."}],
        "checks": [{"query": "Where do I live?", "as_of": None, "known_at": None,
                    "expect": ["Porto"], "reject": ["Lisbon"]},
                   {"query": "Where do I live?", "as_of": None, "known_at": None,
                    "expect": ["Lisbon"], "reject": []}],
    }]}))
    gate = kgmem("bench", "contradictions", str(cases), "--json", home=tmp_path / "h", check=False)
    assert gate.returncode == 1
    assert json.loads(gate.stdout)["passed"] == 1
    report = kgmem("bench", "contradictions", str(cases), "--report-only", "--json", home=tmp_path / "h")
    res = json.loads(report.stdout)
    assert (res["passed"], res["checks"]) == (1, 2) and res["failures"][0]["missing"] == ["Lisbon"]


def test_bench_precision_reuses_labels_and_lists_the_rest(tmp_path: Path):
    """Labels are matched by statement: label two of the facts a first run lists, and the second run counts them
    and lists only the rest (whatever the extractor of the day writes)."""
    chat = Path(__file__).resolve().parents[1] / "fixtures" / "precision-chat.jsonl"
    labels, todo = tmp_path / "labels.jsonl", tmp_path / "todo.jsonl"
    labels.write_text("")
    kgmem("bench", "precision", str(chat), "--labels", str(labels), "--todo", str(todo), "--json", home=tmp_path)
    first = [json.loads(line)["statement"] for line in todo.read_text().splitlines()]
    assert len(first) >= 3
    labels.write_text(json.dumps({"source": "precision-chat.jsonl", "statement": first[0], "label": "useful",
                                  "note": ""}) + "\n"
                      + json.dumps({"source": "precision-chat.jsonl", "statement": first[1], "label": "junk",
                                    "note": "a test label"}) + "\n")
    r = kgmem("bench", "precision", str(chat), "--labels", str(labels), "--todo", str(todo), "--json", home=tmp_path)
    out = json.loads(r.stdout)["sources"]["precision-chat.jsonl"]
    assert (out["useful"], out["junk"], out["weak"]) == (1, 1, 0) and out["useful_pct"] == 50.0
    left = [json.loads(line)["statement"] for line in todo.read_text().splitlines()]
    assert len(left) == out["unlabelled"] == out["sampled"] - 2 and set(left) == set(first[2:])
    labels.write_text('{"source": "x", "statement": "y", "label": "great"}\n')
    bad = kgmem("bench", "precision", str(chat), "--labels", str(labels), "--todo", str(todo), home=tmp_path,
                check=False)
    assert bad.returncode == 3 and "label 'great'" in bad.stderr and "Traceback" not in bad.stderr


def test_bench_precision_reads_a_domain_set_under_its_ontology(tmp_path: Path):
    """A kgmem-contradictions/1 set is one source: each case in a group of its own, under the ontology the set
    names, so its facts use the ontology's predicates."""
    ontology = Path(__file__).resolve().parents[2] / "examples" / "ontologies" / "project.toml"
    said = {"a": "The billing service uses Postgres.", "b": "Search is written in Go."}
    cases = {"format": "kgmem-contradictions/1", "ontology": str(ontology), "cases": [
        {"id": k, "kind": "update", "episodes": [{"t": "2025-01-10T12:00:00Z", "text": text}], "checks": []}
        for k, text in said.items()]}
    path = tmp_path / "set.json"
    path.write_text(json.dumps(cases))
    todo = tmp_path / "todo.jsonl"
    (tmp_path / "labels.jsonl").write_text("")
    r = kgmem("bench", "precision", str(path), "--labels", str(tmp_path / "labels.jsonl"), "--todo", str(todo),
              "--json", home=tmp_path)
    assert json.loads(r.stdout)["sources"]["set.json"]["facts_now"] == 2
    drawn = {json.loads(line)["statement"] for line in todo.read_text().splitlines()}
    assert drawn == {"billing uses database Postgres", "Search written in Go"}
