"""The LLM extractor end to end on both stores, against recorded model output."""

from __future__ import annotations

import json

import pytest

from kg_memory.bench.contradictions import run_contradictions
from kg_memory.core.models import Episode
from kg_memory.extract.client import LLMClient
from kg_memory.extract.llm import LLMExtractor
from kg_memory.extract.prompts import load_prompt

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
    # Of the multi-valued facts that met other values (cello, Miso, shellfish), only Miso went through the
    # judge: "I also started learning the cello" and "I'm also allergic to shellfish" say themselves that they add.
    assert len(judged) == 1 and "Miso" in judged[0]


def test_llm_facts_record_prompt_version_and_usage(make_memory, replay, group):
    m = make_memory()
    m.extractor = llm_extractor(replay)
    stats = m.add("I'm a junior data analyst at Northwind.", group=group, occurred_at="2024-04-01T09:00:00Z")
    assert stats.llm_calls == 1 and stats.prompt_tokens > 0 and stats.completion_tokens > 0
    versions = m.history("User", group=group)
    assert versions and all(v.extractor == "llm" and v.prompt_version == load_prompt("extract").version
                            for v in versions)


def test_one_concurrency_limit_for_the_whole_ingest(make_memory, group, tmp_path):
    from kg_memory.core.models import Episode
    from kg_memory.core.timeutil import parse_datetime

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


def test_windowed_extraction_reads_the_models_sentences_on_every_store(make_memory, replay, group, embedder):
    """One call reads a window of turns and the model restates each turn; the offline extractor reads the
    facts out of its sentences. A fact is kept only under a turn whose speaker owns it and which says its
    object: the nearest such turn when the model wrote it a turn off (its dates then resolve against that
    turn), nobody when no turn does. Speech acts and turns that only ask give nothing, and an invalid
    answer fails the window."""
    c = LLMClient(base_url=replay.url, api_key="sk-test", model="replay-1", retry_base=0.01, sleep=lambda _: None)
    ex = LLMExtractor(c, concurrency=1, window=8, embedder=embedder, window_prompt="restate_window")
    answer = {
        "1 Ana": ["Ana moved to Porto last month.", "Ana works at Google."],  # Google is never said: dropped
        "2 Ben": ["Ben praised the pottery class.",                          # a speech act: dropped
                  "Ana has a dog named Rex."],       # Ben names Ana, but her facts are hers to say: dropped
        "3 Ana": ["Ben signed up for a pottery class yesterday.",            # one turn off: Ben's turn 2
                  "Ben adopted a puppy named Rex."],
        "4 Ben": ["Ben plays the guitar."],                                  # the turn only asks: dropped
    }
    replay.script.append({"content": json.dumps(answer)})
    m = make_memory()
    m.extractor = ex
    turns = [("Ana", "2024-03-05T10:00:00Z", "Porto has been lovely since I got here last month."),
             ("Ben", "2024-03-05T10:01:00Z",
              "Nice, Ana! Yesterday was my first evening at the pottery class, and Rex the puppy is ours now."),
             ("Ana", "2024-03-07T09:00:00Z", "Ha, good luck with both."),
             ("Ben", "2024-03-07T09:01:00Z", "Which guitar is that? Been playing long?")]
    eps = [Episode(group_id=group, content=t, speaker=who, occurred_at=at, created_at=at, session_id="s1")
           for who, at, t in turns]
    stats = m.add_episodes(eps)
    assert stats.llm_calls == 1 and stats.episodes_extracted == 4  # one call for the window
    request = replay.requests[-1]
    window_prompt = request["messages"][0]["content"]
    assert window_prompt.index("Example") < window_prompt.index("[1] Ana: Porto")  # static part first
    schema = request["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == schema["required"] == ["1 Ana", "2 Ben", "3 Ana", "4 Ben"]  # a key per turn
    ana = m.history("Ana", group=group)
    assert [(v.predicate, v.object) for v in ana] == [("lives_in", "Porto")]
    assert ana[0].valid_from.month == 2 and ana[0].prompt_version == load_prompt("restate_window").version
    ben = {(v.predicate, v.object): v for v in m.history("Ben", group=group)}
    assert set(ben) == {("sign_up_for", "pottery class"), ("has_pet", "Rex")}
    assert all(tuple(v.episode_ids) == (eps[1].id,) for v in ben.values())  # the turn that says it
    assert ben["sign_up_for", "pottery class"].valid_from.date().isoformat() == "2024-03-04"  # turn 2's yesterday
    # an answer that stays invalid after the repair fails the whole window, and writes nothing for it
    replay.script.extend([{"content": "not json"}, {"content": json.dumps({"1 Ana": "I play the cello."})}])
    bad = m.add_episodes([Episode(group_id=group, content="I play the cello.", speaker="Ana",
                                  occurred_at="2024-04-01T10:00:00Z", created_at="2024-04-01T10:00:00Z",
                                  session_id="s2")])
    assert bad.episodes_failed == 1 and not [v for v in m.history("Ana", group=group) if v.predicate == "plays"]


def test_a_window_of_facts_written_under_the_groups_ontology(make_memory, replay, group, embedder):
    """The model writes each turn's facts directly, its predicates constrained to the group's ontology
    (or "other") by the response format's schema. A fact is kept when its subject and object are said
    in its turn and its predicate takes the object; the offline extractor's facts lie under them; the
    ontology's descriptions and examples are in the prompt's static part, before the turns."""
    from pathlib import Path

    project = Path(__file__).resolve().parents[2] / "examples" / "ontologies" / "project.toml"
    c = LLMClient(base_url=replay.url, api_key="sk-test", model="replay-1", retry_base=0.01, sleep=lambda _: None)
    m = make_memory()
    m.extractor = LLMExtractor(c, concurrency=1, window=8, embedder=embedder)
    m.set_ontology(project, group=group)
    answer = {
        "1 Mara": [{"subject": "reporting", "predicate": "uses_database", "object": "Snowflake"},
                   {"subject": "reporting", "predicate": "owned_by", "object": "Zoe"}],  # Zoe is never said
        "2 Mara": [{"subject": "reporting", "predicate": "uses_database", "object": "BigQuery", "began": "last week"},
                   {"subject": "Mara", "predicate": "other", "relation": "", "object": "BigQuery"},  # no relation
                   {"subject": "Mara", "predicate": "other", "relation": "adopted", "object": "a cat named Miso"}],
        "3 Mara": [{"subject": "the gateway", "predicate": "uses_database", "object": "Memcached", "ended": True}],
    }
    replay.script.append({"content": json.dumps(answer)})
    turns = [("2025-01-10T10:00:00Z", "Our reporting numbers come out of Snowflake."),
             ("2025-06-10T10:00:00Z", "Reporting reads from BigQuery since last week; I adopted a cat named Miso."),
             ("2025-07-01T10:00:00Z", "The gateway stopped caching in Memcached.")]
    eps = [Episode(group_id=group, content=t, speaker="Mara", occurred_at=at, created_at=at, session_id="s1")
           for at, t in turns]
    stats = m.add_episodes(eps)
    assert stats.llm_calls == 1 and stats.episodes_failed == 0
    request = replay.requests[-1]
    text = request["messages"][0]["content"]
    assert text.index("uses_database (single): the database a service stores its data in") < text.index("[1] Mara")
    assert 'For example: "The billing service uses Postgres."' in text
    schema = request["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]) == ["1 Mara", "2 Mara", "3 Mara"]
    assert schema["$defs"]["WindowFact"]["properties"]["predicate"]["enum"][-1] == "other"
    assert "uses_database" in schema["$defs"]["WindowFact"]["properties"]["predicate"]["enum"]
    now = {(f.subject, f.predicate, f.object) for f in m.facts(group=group)}
    # (BigQuery is the database of the reporting thing the first turn named, "reporting numbers", whose
    # Snowflake it replaces: the holders read "reporting" as the thing whose name it begins)
    reporting = {s for s, p, o in now if p == "uses_database" and o == "BigQuery"}
    assert reporting and all(s.lower().startswith("reporting") for s in reporting)
    assert not any(o == "Snowflake" for _, _, o in now) and not any(p == "owned_by" for _, p, _ in now)
    assert ("Mara", "adopt", "cat named Miso") in now or ("Mara", "has_pet", "Miso") in now
    before = {f.object for f in m.facts(group=group, predicate="uses_database", as_of="2025-03-01")}
    assert before == {"Snowflake"}
    bigquery = next(f for f in m.facts(group=group, predicate="uses_database") if f.object == "BigQuery")
    assert bigquery.valid_from.date().isoformat() == "2025-06-03"  # "since last week", said on June 10
    assert bigquery.prompt_version.startswith("facts_window-") and "+ontology:" in bigquery.prompt_version
    assert not [f for f in m.facts(group=group) if f.object == "Memcached"]  # ended the day it was said


def test_erasure_removes_the_cached_model_answers_of_erased_turns(make_memory, replay, group, embedder):
    """The response cache remembers which turns each answer came from; forget removes those answers."""
    from kg_memory.extract.client import ResponseCache
    from kg_memory.settings import data_dir

    path = data_dir() / "llm-cache.db"
    cache = ResponseCache(path)
    c = LLMClient(base_url=replay.url, api_key="sk-test", model="replay-1", retry_base=0.01, sleep=lambda _: None,
                  cache=cache)
    m = make_memory()
    m.extractor = LLMExtractor(c, concurrency=1, window=8, embedder=embedder, window_prompt="restate_window")
    replay.script.append({"content": json.dumps({"1 Ana": ["Ana's sister is Vortigernia."],
                                                 "2 Ana": ["Ana plays the cello."]})})
    replay.script.append({"content": json.dumps({"1 Ana": ["Ana lives in Porto."]})})
    turns = [("s1", "2024-03-05T10:00:00Z", "My sister Vortigernia is visiting."),
             ("s1", "2024-03-05T10:01:00Z", "I also play the cello."),
             ("s2", "2024-04-05T10:00:00Z", "I live in Porto now.")]
    m.add_episodes([Episode(group_id=group, content=t, speaker="Ana", occurred_at=at, created_at=at, session_id=s)
                    for s, at, t in turns])
    assert cache.conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 2
    assert b"Vortigernia" in path.read_bytes() + (path.parent / "llm-cache.db-wal").read_bytes()
    cache.close()
    m.forget(entity="Vortigernia", group=group)
    left = ResponseCache(path)
    try:
        assert left.conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 1  # the s2 answer stays
        assert "Porto" in left.conn.execute("SELECT body FROM responses").fetchone()[0]
    finally:
        left.close()
    files = [p for p in path.parent.glob("llm-cache.db*")]
    assert files and all(b"Vortigernia" not in p.read_bytes() for p in files)


def _said_under(make_memory, replay, group, embedder, ontology, turns):
    """A memory under an example ontology (``tests/fixtures/ontologies/<ontology>.toml``) whose model extractor reads
    each of ``turns`` (when, what Mara said, the facts the model writes for it) in one call of its own."""
    from pathlib import Path

    c = LLMClient(base_url=replay.url, api_key="sk-test", model="replay-1", retry_base=0.01, sleep=lambda _: None)
    m = make_memory()
    m.extractor = LLMExtractor(c, concurrency=1, window=8, embedder=embedder)
    m.set_ontology(Path(__file__).resolve().parents[1] / "fixtures" / "ontologies" / f"{ontology}.toml", group=group)
    for at, said, written in turns:
        replay.script.append({"content": json.dumps({"1 Mara": written})})
        stats = m.add_episodes([Episode(group_id=group, content=said, speaker="Mara", occurred_at=at, created_at=at,
                                        session_id="s1")])
        assert stats.llm_calls == 1 and stats.episodes_failed == 0
    return m


def test_the_model_chooses_among_the_slots_meaning_found_near(make_memory, replay, group, embedder):
    """Meaning reads "Hillside's travel vaccines are supplied by Sanofi" nearest as the dispensing system, with the
    supplier nearly as near (``ExtractedFact.rivals``); the model, which read the sentence, wrote the supplier, so the
    supplier it is: said its way ("Hillside supplier Sanofi"), or turned round ("Valneva supplier Hillside"), in
    which case the floor's way round is kept. The second value then replaces the first; no dispensing system stays."""
    m = _said_under(make_memory, replay, group, embedder, "pharmacy", [
        ("2025-03-10T10:00:00Z", "Hillside's travel vaccines are supplied by Sanofi.",
         [{"subject": "Hillside", "predicate": "supplier", "object": "Sanofi"}]),
        ("2025-10-10T10:00:00Z", "Hillside gets its travel vaccines from Valneva this year.",
         [{"subject": "Valneva", "predicate": "supplier", "object": "Hillside"}])])
    now = {(f.subject, f.predicate, f.object) for f in m.facts(group=group)}
    assert ("Hillside", "supplier", "Valneva") in now, now
    assert not any(o == "Sanofi" for _, _, o in now) and not any(p == "dispensing_system" for _, p, _ in now), now
    before = {(f.subject, f.object) for f in m.facts(group=group, predicate="supplier", as_of="2025-06-01")}
    assert before == {("Hillside", "Sanofi")}


def test_the_models_value_replaces_a_floor_that_took_the_thing_for_its_own_value(make_memory, replay, group,
                                                                                   embedder):
    """The floor reads "We've dressed the Crypt up as a pirate ship" as the speaker's theme, the Crypt; the model, as
    the Crypt's theme, a pirate ship. The model's takes the floor's place, and replaces the Crypt's theme before."""
    m = _said_under(make_memory, replay, group, embedder, "escaperooms", [
        ("2025-03-10T10:00:00Z", "The Crypt is themed as a Victorian prison.",
         [{"subject": "Crypt", "predicate": "room_theme", "object": "Victorian prison"}]),
        ("2025-10-10T10:00:00Z", "We've dressed the Crypt up as a pirate ship.",
         [{"subject": "Crypt", "predicate": "room_theme", "object": "pirate ship"}])])
    now = {(f.subject, f.object) for f in m.facts(group=group, predicate="room_theme")}
    assert now == {("Crypt", "pirate ship")}, now
    before = {(f.subject, f.object) for f in m.facts(group=group, predicate="room_theme", as_of="2025-06-01")}
    assert before == {("Crypt", "Victorian prison")}
