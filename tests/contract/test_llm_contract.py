"""The LLM extractor end to end on both stores, against recorded model output."""

from __future__ import annotations

import pytest

from kg_memory.bench.contradictions import run_contradictions
from kg_memory.extract.llm import LLMExtractor
from kg_memory.llm import LLMClient
from kg_memory.prompts import load_prompt

from ..conftest import CONTRADICTIONS
from ..llm_server import ReplayServer


@pytest.fixture
def replay():
    with ReplayServer() as s:
        yield s


def llm_extractor(server: ReplayServer) -> LLMExtractor:
    c = LLMClient(base_url=server.url, api_key="sk-test", model="replay-1", retry_base=0.01,
                  sleep=lambda _: None)
    return LLMExtractor(c, concurrency=2)


def test_dev_contradictions_pass_with_the_llm_extractor(make_memory, replay):
    ex = llm_extractor(replay)

    def make(clock):
        m = make_memory(clock=clock)
        m.extractor = ex
        return m

    res = run_contradictions(CONTRADICTIONS, make)
    assert res["failures"] == [] and res["passed"] == res["checks"] == 22
    prompts = [r["messages"][0]["content"] for r in replay.requests]
    judged = [p for p in prompts if "Decide what the new statement does" in p]
    # additive multi-valued facts (cello, Miso, shellfish) went through the judge, and only those
    assert len(judged) == 3


def test_llm_facts_record_prompt_version_and_usage(make_memory, replay, group):
    m = make_memory()
    m.extractor = llm_extractor(replay)
    stats = m.add("I'm a junior data analyst at Northwind.", group=group, occurred_at="2024-04-01T09:00:00Z")
    assert stats.llm_calls == 1 and stats.prompt_tokens > 0 and stats.completion_tokens > 0
    versions = m.history("User", group=group)
    assert versions and all(v.extractor == "llm" and v.prompt_version == load_prompt("extract").version
                            for v in versions)


def test_one_concurrency_limit_for_the_whole_ingest(make_memory, group, tmp_path):
    from kg_memory.models import Episode
    from kg_memory.timeutil import parse_datetime

    with ReplayServer() as server:
        for _ in range(12):
            server.script.append({"delay": 0.15, "content": '{"entities": [], "facts": []}'})
        c = LLMClient(base_url=server.url, api_key="k", model="m", concurrency=2, sleep=lambda _: None)
        m = make_memory()
        m.extractor = LLMExtractor(c, concurrency=6)  # more workers than the limit allows in flight
        t = parse_datetime("2025-01-01T00:00:00Z")
        eps = [Episode(group_id=group, content=f"turn {i}", occurred_at=t, created_at=t, session_id=f"s{i}")
               for i in range(12)]
        stats = m.add_episodes(eps)
        assert stats.episodes_extracted == 12 and stats.llm_calls == 12
        assert server.max_in_flight == 2
        assert len(stats.llm_usage_by_episode) == 12
        assert all(u[0] == 1 and u[1] > 0 for u in stats.llm_usage_by_episode.values())
