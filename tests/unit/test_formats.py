import json
from pathlib import Path

import pytest

from kg_memory.errors import InputError
from kg_memory.ingest.formats import parse_file

ROOT = Path(__file__).resolve().parents[2]
LOCOMO = ROOT / "tests" / "fixtures" / "locomo-mini.json"  # LoCoMo-shaped, our own text


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


def test_jsonl_good(tmp_path: Path):
    p = write(tmp_path, "a.jsonl", '{"content": "hi", "occurred_at": "2025-01-01T10:00:00+02:00", '
                                    '"role": "assistant", "speaker": "Bot", "session_id": 5}\n\n{"content": "yo"}\n')
    out = parse_file(p, group="g")
    assert not out.problems
    a, b = out.episodes
    assert a.occurred_at.isoformat() == "2025-01-01T08:00:00+00:00"  # converted to UTC
    assert (a.role, a.speaker, a.session_id, a.group_id) == ("assistant", "Bot", "5", "g")
    assert b.occurred_at.tzinfo is not None and b.role == "user"


def test_jsonl_without_times_is_stable_across_parses(tmp_path: Path):
    p = write(tmp_path, "a.jsonl", '{"content": "one"}\n{"content": "two"}\n')
    first = [e.dedupe_key for e in parse_file(p).episodes]
    second = [e.dedupe_key for e in parse_file(p).episodes]
    assert first == second and first[0] != first[1]


@pytest.mark.parametrize("body,line,words", [
    ('{"content": "ok"}\n{"content": \n', 2, "malformed JSON"),
    ('{"content": "ok"}\n{"role": "user"}\n', 2, "missing 'content'"),
    ('{"content": "ok", "occurred_at": "yesterday-ish"}\n', 1, "unparseable date"),
    ('{"content": "ok", "role": "wizard"}\n', 1, "role 'wizard'"),
    ('[1, 2]\n', 1, "expected a JSON object"),
])
def test_jsonl_bad_lines(tmp_path: Path, body: str, line: int, words: str):
    p = write(tmp_path, "bad.jsonl", body)
    out = parse_file(p)
    assert any(pr.startswith(f"{p}:{line}: ") and words in pr for pr in out.problems), out.problems


def test_non_utf8_is_reported_with_line(tmp_path: Path):
    p = write(tmp_path, "bin.jsonl", b'{"content": "ok"}\n{"content": "caf\xe9"}\n')
    out = parse_file(p)
    assert out.problems and out.problems[0].startswith(f"{p}:2: not valid UTF-8")
    p2 = write(tmp_path, "bin.json", b'{"messages": [{"role": "user", "content": "\xff"}]}')
    with pytest.raises(InputError, match=r"bin.json:1: not valid UTF-8"):
        parse_file(p2)


def test_invalid_json_file(tmp_path: Path):
    p = write(tmp_path, "x.json", '{\n "messages": [\n  oops\n]}')
    with pytest.raises(InputError, match=r"x.json:3: invalid JSON"):
        parse_file(p, "chat")


def test_chat_format(tmp_path: Path):
    conv = [{"session_id": "s1", "occurred_at": "2025-02-01T09:00:00Z",
             "messages": [{"role": "system", "content": "be nice"}, {"role": "user", "content": "I live in Oslo."},
                          {"role": "assistant", "content": "Noted."}]},
            {"messages": [{"role": "user", "content": "again"}]}]
    p = write(tmp_path, "c.json", json.dumps(conv))
    out = parse_file(p)  # auto-detected
    assert [e.role for e in out.episodes] == ["system", "user", "assistant", "user"]
    assert out.episodes[1].session_id == "s1"
    assert out.episodes[2].occurred_at > out.episodes[1].occurred_at


def test_locomo_format_with_captions():
    out = parse_file(LOCOMO)
    assert not out.problems
    eps = out.episodes
    assert len(eps) == 5 and {e.group_id for e in eps} == {"kgmem-mini-1"}
    first = eps[0]
    assert first.metadata["dia_id"] == "D1:1" and first.speaker == "Caroline"
    assert first.occurred_at.isoformat().startswith("2023-05-08T13:56")
    assert eps[3].occurred_at.isoformat().startswith("2023-05-20T10:00") and eps[3].session_id != first.session_id
    captioned = [e for e in eps if "blip_caption" in e.metadata]
    assert captioned and "[image:" in captioned[0].index_text()


def test_longmemeval_format(tmp_path: Path):
    data = [{"question_id": "q1", "question_type": "single-session-user", "question": "Where?",
             "answer": "Oslo", "question_date": "2023/05/30 (Tue) 10:00",
             "haystack_session_ids": ["a", "b"], "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/25 (Thu) 09:00"],
             "haystack_sessions": [[{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}],
                                   [{"role": "user", "content": "I moved to Oslo.", "has_answer": True}]]}]
    p = write(tmp_path, "lme.json", json.dumps(data))
    out = parse_file(p)
    assert [e.group_id for e in out.episodes] == ["q1"] * 3
    assert out.episodes[2].metadata["has_answer"] is True and out.episodes[1].role == "assistant"
    assert out.episodes[2].session_id == "b"


def test_unknown_format_and_missing_file(tmp_path: Path):
    with pytest.raises(InputError, match="no such file"):
        parse_file(tmp_path / "nope.jsonl")
    p = write(tmp_path, "odd.json", '{"weird": 1}')
    with pytest.raises(InputError, match="cannot tell the format"):
        parse_file(p)
