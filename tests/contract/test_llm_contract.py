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
