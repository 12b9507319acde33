"""The real local LLM (Qwen2.5-Coder-1.5B-Instruct through xllamacpp), end to end.

Slow, so not part of `make test`: run `make test-llm`, which installs the model first.
Without the model these tests fail with the reason and the command that installs it (as the Neo4j tests
do without Neo4j): they are never skipped. Nothing here is mocked."""

from __future__ import annotations

import json

import pytest

from kg_memory.bench.contradictions import run_contradictions
from kg_memory.core.models import Episode
from kg_memory.core.timeutil import parse_datetime
from kg_memory.extract import local as localllm
from kg_memory.extract.llm import LLMExtractor
from kg_memory.memory import Memory
from kg_memory.settings import Settings

from ..conftest import CONTRADICTIONS, FIXTURES

pytestmark = pytest.mark.llm

# Where `kgmem model install --llm` put the model, read before the tests point KGMEM_HOME at temp dirs.
INSTALLED = localllm.model_path()


@pytest.fixture(scope="module")
def extractor(embedder) -> LLMExtractor:
    try:
        localllm.verify(INSTALLED)
    except Exception as exc:  # noqa: BLE001 - any reason the model cannot be used is the failure
        pytest.fail(f"the local LLM is not usable ({exc}); run `make test-llm`, which installs it first",
                    pytrace=False)
    return LLMExtractor.from_settings(Settings(extractor="llm", llm_model_path=str(INSTALLED)), embedder)


def test_the_local_server_answers_on_loopback(extractor: LLMExtractor):
    url = str(extractor.client.client.base_url)
    assert url.startswith("http://127.0.0.1:")




def test_dev_contradictions_with_the_local_llm(sqlite_store, embedder, extractor: LLMExtractor):
    def make(clock):
        return Memory(sqlite_store, settings=Settings(), embedder=embedder, extractor=extractor, clock=clock,
                      owns_store=False)

    res = run_contradictions(CONTRADICTIONS, make)
    assert res["passed"] / res["checks"] >= 0.95, res["failures"]


def test_own_extraction_set(extractor: LLMExtractor):
    data = json.loads((FIXTURES / "extraction-set.json").read_text())
    found = missing = 0
    for w in data["windows"]:
        eps = [Episode(group_id="llm-set", content=text, speaker=who, occurred_at=parse_datetime(at),
                       created_at=parse_datetime(at), session_id="s") for who, at, text in w["turns"]]
        out = extractor.extract_window(eps)
        facts = [(f.subject.lower(), f.predicate, f.object.lower()) for x in out.values() for f in x.facts]
        for subj, pred, obj in w["expect"]:
            ok = any(s == subj.lower() and (not pred or p == pred) and obj.lower() in o for s, p, o in facts)
            found += ok
            missing += not ok
    assert found / (found + missing) >= 0.7, (found, missing)


def test_the_local_llm_writes_facts_under_a_custom_ontology(sqlite_store, embedder, extractor: LLMExtractor):
    """The real model, its answer constrained by the ontology's schema, on the project team's update cases
    (examples/ontologies/project.toml): what is true now, and as of an earlier date."""
    def make(clock):
        return Memory(sqlite_store, settings=Settings(), embedder=embedder, extractor=extractor, clock=clock,
                      owns_store=False)

    res = run_contradictions(FIXTURES / "updates-project.json", make)
    assert res["passed"] / res["checks"] >= 0.75, res["failures"]
