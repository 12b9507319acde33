"""The LLM client over real HTTP (tests/llm_server.py) with the real openai package."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import numpy as np
import pytest

from kg_memory.embed.openai_embedder import OpenAIEmbedder
from kg_memory.errors import ConfigError, ExtractionError
from kg_memory.extract.client import LLMClient, ResponseCache, clean_json_text
from kg_memory.extract.prompts import ExtractionResponse, load_prompt

from ..llm_server import ReplayServer

TURN = "I live in San Francisco and work as a kernel developer."


def render(turn: str = TURN) -> str:
    return load_prompt("extract").render(said_at="2026-01-12T18:00:00+00:00", speaker="User", role="user",
                                         previous=[], content=turn, predicates=[])


@pytest.fixture
def server():
    with ReplayServer() as s:
        yield s


def client(server: ReplayServer, sleeps: list[float] | None = None, **kw) -> LLMClient:
    sleeps = sleeps if sleeps is not None else []
    return LLMClient(base_url=server.url, api_key="sk-test", model="replay-1", retry_base=0.01,
                     sleep=sleeps.append, **kw)


def test_success_uses_json_schema_and_counts_tokens(server):
    parsed, usage = client(server).structured(load_prompt("extract"), render(), "k1")
    assert isinstance(parsed, ExtractionResponse)
    assert {(f.predicate, f.object) for f in parsed.facts} == {("lives_in", "San Francisco"),
                                                                ("job_title", "kernel developer")}
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert server.requests[0]["response_format"]["type"] == "json_schema"
    assert server.requests[0]["model"] == "replay-1"


def test_malformed_json_is_repaired_once(server):
    server.script.append({"content": '{"entities": [], "facts": [ {"subject": "User",'})
    parsed, usage = client(server).structured(load_prompt("extract"), render(), "k2")
    assert usage.calls == 2 and len(parsed.facts) == 2
    repair = server.requests[1]["messages"]
    assert repair[-1]["role"] == "user" and "not valid" in repair[-1]["content"]


def test_think_blocks_and_fences_are_stripped(server):
    body = json.dumps({"entities": [], "facts": []})
    server.script.append({"content": f"<think>hmm, let me see\nmaybe {{}}</think>\n```json\n{body}\n```"})
    parsed, usage = client(server).structured(load_prompt("extract"), render(), "k3")
    assert parsed.facts == [] and usage.calls == 1
    assert clean_json_text("<THINK>x</THINK> {\"a\": 1} trailing") == '{"a": 1}'


def test_429_honours_retry_after(server):
    server.script.append({"status": 429, "headers": {"retry-after": "0.25"}, "message": "slow down"})
    sleeps: list[float] = []
    parsed, usage = client(server, sleeps).structured(load_prompt("extract"), render(), "k4")
    assert sleeps == [0.25] and usage.calls == 1 and len(parsed.facts) == 2


def test_5xx_backs_off_exponentially_with_jitter(server):
    server.script.extend([{"status": 500}, {"status": 503}, {"status": 502}])
    sleeps: list[float] = []
    client(server, sleeps).structured(load_prompt("extract"), render(), "k5")
    assert len(sleeps) == 3
    for i, s in enumerate(sleeps):  # base 0.01 * 2^i, jittered into [50%, 100%]
        assert 0.005 * 2**i <= s <= 0.01 * 2**i


def test_timeouts_are_retried(server):
    server.script.append({"delay": 1.5, "content": "{}"})
    sleeps: list[float] = []
    parsed, _ = client(server, sleeps, timeout=0.5).structured(load_prompt("extract"), render(), "k6")
    assert len(sleeps) == 1 and len(parsed.facts) == 2


def test_wrong_schema_fails_after_one_repair(server):
    bad = json.dumps({"facts": [{"subject": "User", "predicate": "Lives In!"}]})
    server.script.extend([{"content": bad}, {"content": bad}])
    with pytest.raises(ExtractionError, match="still invalid after one repair"):
        client(server).structured(load_prompt("extract"), render(), "k7")
    assert server.chat_calls == 2


def test_unsupported_json_schema_falls_back_to_json_mode():
    with ReplayServer(refuse_json_schema=True) as server:
        c = client(server)
        parsed, _ = c.structured(load_prompt("extract"), render(), "k8")
        assert len(parsed.facts) == 2 and c.mode == "json_object"
        assert server.requests[-1]["response_format"] == {"type": "json_object"}


def test_unreachable_endpoint_is_an_extraction_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = LLMClient(base_url=f"http://127.0.0.1:{port}/v1", api_key=None, model="m", max_retries=2,
                  retry_base=0.001, sleep=lambda _: None)
    with pytest.raises(ExtractionError, match="unreachable after 3 tries"):
        c.structured(load_prompt("extract"), render(), "k9")


def test_cache_makes_reruns_free(server, tmp_path: Path):
    cache = ResponseCache(tmp_path / "cache.db")
    first, u1 = client(server, cache=cache).structured(load_prompt("extract"), render(), "same")
    again, u2 = client(server, cache=cache).structured(load_prompt("extract"), render(), "same")
    assert first == again and u1.calls == 1 and u2.calls == 0 and server.chat_calls == 1


def test_a_cached_window_answer_is_read_back(server, tmp_path: Path):
    """A window's answer is keyed by turn ("1 Ana"): the cache must give it back as the model wrote it,
    or every rerun of an ingest asks the model again (it did: the cache stored the field names)."""
    from kg_memory.extract.prompts import restated_window

    window = load_prompt("restate_window").answering(restated_window(("1 Ana", "2 Ben")))
    text = window.render(turns=[{"n": 1, "who": "Ana", "text": "I moved to Porto."},
                                {"n": 2, "who": "Ben", "text": "Nice!"}])
    server.script.append({"content": json.dumps({"1 Ana": ["Ana moved to Porto."], "2 Ben": []})})
    cache = ResponseCache(tmp_path / "cache.db")
    first, u1 = client(server, cache=cache).structured(window, text, "window")
    again, u2 = client(server, cache=cache).structured(window, text, "window")
    assert again.sentences() == first.sentences() == [["Ana moved to Porto."], []]  # type: ignore[attr-defined]
    assert (u1.calls, u2.calls, server.chat_calls) == (1, 0, 1)


def test_prompts_render_strictly_and_carry_a_version():
    p = load_prompt("extract")
    assert p.version.startswith("extract-") and len(p.version) == len("extract-") + 12
    from jinja2 import UndefinedError

    with pytest.raises(UndefinedError):
        p.template.render(schema="{}")  # missing variables are errors, not blanks


def test_a_window_answer_has_one_key_per_turn_in_order():
    """The window prompt's response model: a required key per turn, in turn order, at most two sentences
    each, nothing else; the same template version whatever the window."""
    from pydantic import ValidationError

    from kg_memory.extract.prompts import restated_window

    p = load_prompt("restate_window")
    window = p.answering(restated_window(("1 Ana", "2 Ben", "3 Ana")))
    assert window.version == p.version
    schema = window.json_schema()
    assert list(schema["properties"]) == schema["required"] == ["1 Ana", "2 Ben", "3 Ana"]
    ok = window.response_model.model_validate_json('{"1 Ana": ["Ana moved to Porto."], "2 Ben": [], "3 Ana": []}')
    assert ok.sentences() == [["Ana moved to Porto."], [], []]  # type: ignore[attr-defined]
    for bad in ('{"1 Ana": [], "2 Ben": []}',                                    # a turn is missing
                '{"1 Ana": [], "2 Ben": [], "3 Ana": [], "4 Ben": []}',          # a turn that is not there
                '{"1 Ana": ["Ana runs.", "Ana swims.", "Ana reads."], "2 Ben": [], "3 Ana": []}'):  # three
        with pytest.raises(ValidationError):
            window.response_model.model_validate_json(bad)


def test_openai_compatible_embedder(server):
    emb = OpenAIEmbedder(model="emb-1", base_url=server.url, api_key=None, dimensions=16)
    v = emb.embed(["hello", "world", "hello"])
    assert v.shape == (3, 16) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(v[0], v[2]) and not np.array_equal(v[0], v[1])
    with pytest.raises(ConfigError):
        OpenAIEmbedder(model="m", base_url=None, api_key=None, dimensions=None)


def test_a_prompts_dir_overrides_a_template_by_name_and_is_checked(tmp_path):
    """Custom instructions: a template of the same name replaces the packaged one (its own version hash);
    a file named after no prompt, or one that does not parse, is one clear error at start-up."""
    from kg_memory.errors import ConfigError
    from kg_memory.extract.prompts import check_prompts_dir, load_prompt

    own = tmp_path / "prompts"
    own.mkdir()
    (own / "facts_window.j2").write_text("Only facts about the billing team.\n{% for t in turns %}{{ t.text }}\n"
                                         "{% endfor %}{% for p in predicates %}{{ p.name }}{% endfor %}")
    assert check_prompts_dir(str(own)) == ["facts_window"]
    mine, packaged = load_prompt("facts_window", str(own)), load_prompt("facts_window")
    assert mine.version != packaged.version and mine.version.startswith("facts_window-")
    assert mine.render(turns=[{"text": "hi"}], predicates=[]).startswith("Only facts about the billing team.")
    assert load_prompt("judge", str(own)).version == load_prompt("judge").version  # not overridden
    (own / "extrct.j2").write_text("typo")
    with pytest.raises(ConfigError, match="no prompt is named 'extrct'"):
        check_prompts_dir(str(own))
    (own / "extrct.j2").unlink()
    (own / "judge.j2").write_text("{% if %}")
    with pytest.raises(ConfigError, match=r"judge.j2:1: .*fix the template"):
        check_prompts_dir(str(own))
    with pytest.raises(ConfigError, match="not a directory"):
        check_prompts_dir(str(tmp_path / "none"))
