"""The ontology as data: the TOML loader, its checks (with line numbers), the default ontology, and
mapping clauses onto a group's own predicates by meaning (the real MiniLM model and parser)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from kg_memory.core.ontology import (
    changes_in_use,
    default_ontology,
    dump_toml,
    load_ontology_file,
    ontology_from_mapping,
    parse_ontology,
)
from kg_memory.core.vocab import load_vocabulary
from kg_memory.errors import InputError
from kg_memory.extract.meaning import MeaningReader, ontology_tag
from kg_memory.extract.rules import RulesExtractor

from .said import facts_said as _facts

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "examples" / "ontologies" / "project.toml"
T = datetime(2026, 4, 10, 10, tzinfo=UTC)

GOOD = '''extends = "default"
[predicates.uses_database]
cardinality = "single"
object = "value"
description = "the database a service stores its data in"
examples = ["The billing service uses Postgres.", "Search keeps its index in Elasticsearch."]
ends = ["stopped using", "dropped"]
[entity_types.service]
description = "a software service the team runs"
'''


def test_the_issue_format_loads_and_extends_the_default():
    ont = parse_ontology(GOOD)
    spec = ont.vocab.predicates["uses_database"]
    assert spec.single_valued and spec.object_kind == "value" and spec.ending == ("stopped using", "dropped")
    assert spec.examples[0] == "The billing service uses Postgres."
    assert "lives_in" in ont.vocab.predicates and ont.custom == {"uses_database"}
    assert ont.vocab.entity_types == ("service",) and not ont.is_default
    assert ont.version != default_ontology().version and ont.version == parse_ontology(GOOD).version


def test_without_extends_only_the_files_predicates():
    ont = parse_ontology(GOOD.replace('extends = "default"\n', ""))
    assert set(ont.vocab.predicates) == {"uses_database"}


def test_the_default_ontology_is_the_vocabulary_every_group_starts_from():
    ont = default_ontology()
    assert ont.is_default and load_vocabulary() is ont.vocab and len(ont.vocab.predicates) == 23
    lives = ont.vocab.predicates["lives_in"]
    assert lives.single_valued and "moved to" in lives.first_person and "moved out of" in lives.ending
    assert ont.vocab.relations["sister"] == "has_sibling" and "vegan" in ont.vocab.value_classes["diet"]
    assert ontology_tag(ont.vocab) == "" and ontology_tag(parse_ontology(GOOD).vocab).startswith("+ontology:")


@pytest.mark.parametrize("edit, line, words", [
    (('cardinality = "single"', 'cardinality = "one"'), 3, "cardinality 'one': use single or multi"),
    (('object = "value"', 'object = "thing"'), 4, "object 'thing': use one of entity, value, date, number"),
    (('[predicates.uses_database]', '[predicates.UsesDB]'), 2, "lower_snake_case"),
    (('ends = ["stopped using", "dropped"]', 'ends = "dropped"'), 7, "ends must be a list"),
    (('description = "the database', 'colour = "red"\ndescription = "the database'), 5, "unknown key 'colour'"),
    (('extends = "default"', 'extends = "mine"'), 1, "the only base is"),
    (('[entity_types.service]', '[predicates.uses_database]'), 8, "Cannot declare"),  # a duplicate name
])
def test_every_problem_names_its_line(edit, line, words, tmp_path):
    path = tmp_path / "team.toml"
    path.write_text(GOOD.replace(*edit))
    with pytest.raises(InputError) as info:
        load_ontology_file(path)
    assert info.value.problems[0].startswith(f"{path}:{line}: "), info.value.problems
    assert words in info.value.problems[0]


def test_a_missing_key_and_several_problems_are_all_reported():
    with pytest.raises(InputError) as info:
        parse_ontology('[predicates.a]\ncardinality = "single"\n[predicates.b]\nobject = "x"\n', "f.toml")
    problems = info.value.problems
    assert any(p.startswith("f.toml:1: a has no object") for p in problems)
    assert any(p.startswith("f.toml:4: object 'x'") for p in problems) and len(problems) >= 4


def test_removing_or_retyping_a_predicate_in_use_is_named():
    old = parse_ontology(GOOD)
    retyped = parse_ontology(GOOD.replace('cardinality = "single"', 'cardinality = "multi"'))
    gone = parse_ontology('extends = "default"\n')
    assert changes_in_use(old, retyped, {"uses_database": 3})[0].startswith("uses_database: retyped from single")
    assert changes_in_use(old, gone, {"uses_database": 2})[0].startswith("uses_database: removed, and 2")
    assert changes_in_use(old, gone, {"lives_in": 2}) == [] and changes_in_use(old, retyped, {}) == []


def test_a_mapping_and_its_toml_round_trip():
    ont = parse_ontology(GOOD)
    again = parse_ontology(dump_toml(ont.source))
    assert again.version == ont.version == ontology_from_mapping(ont.source).version


# -- by meaning ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def project(embedder):
    return RulesExtractor(embedder).with_vocabulary(load_ontology_file(PROJECT).vocab)


@pytest.mark.parametrize("text, fact", [
    ("The payments service stores its ledger in MySQL.", ("payments", "uses_database", "MySQL", False)),
    ("The billing service uses Postgres and deploys to Heroku.", ("billing", "deploys_to", "Heroku", False)),
    ("Billing moved from Heroku to AWS last week.", ("billing", "deploys_to", "AWS", False)),
    ("We finished migrating billing off Postgres; it runs on CockroachDB now.",
     ("billing", "uses_database", "CockroachDB", False)),
    ("Priya handed the billing service over to Tom.", ("billing", "owned_by", "Tom", False)),
    ("The search team rewrote search in Rust.", ("search", "written_in", "Rust", False)),
    ("The auth service switched to Redis for sessions.", ("auth", "uses_database", "Redis", False)),
    ("Auth no longer uses Redis.", ("auth", "uses_database", "Redis", True)),
])
def test_clauses_map_onto_the_groups_predicates_by_meaning(project, text, fact):
    assert fact in _facts(project, text)


def test_a_clause_near_no_predicate_maps_to_none(project, embedder):
    reader = MeaningReader(project.vocab, embedder)
    assert reader.read("We had a long lunch with the designers.", "User", T) == []
    assert project.version.endswith(load_ontology_file(PROJECT).version)


def test_the_default_ontology_reads_only_changes_by_meaning(embedder):
    """A group without an ontology of its own reads by meaning only the clauses that state a change
    (chit-chat read whole became facts on LoCoMo); its phrase patterns read the rest, as before."""
    plain = RulesExtractor(embedder)
    assert plain.meaning.changes_only and "ontology" not in (plain.version or "")
    assert ("user", "lives_in", "Porto", False) in _facts(plain, "I moved to Porto last month.")
    assert ("user", "drives", "Subaru Outback", False) in _facts(plain, "We traded in the Civic for a Subaru Outback.")
    assert ("user", "drives", "Civic", True) in _facts(plain, "We traded in the Civic for a Subaru Outback.")
    assert plain.meaning.read("My roommate is really into board games lately.", "User", T) == []
    assert plain.meaning.read("Do you think I should move to Manchester?", "User", T) == []


def test_a_proposed_fact_must_be_plausible(embedder):
    """A fact a model proposes is checked against its sentence: not from a question or a wish, and not
    under a predicate the sentence does not mean."""
    reader = MeaningReader(default_ontology().vocab, embedder)
    assert reader.plausible("I switched to a Samsung Galaxy S21.", "User", "Samsung Galaxy S21", "uses_phone")
    assert not reader.plausible("I switched to a Samsung Galaxy S21.", "User", "Samsung Galaxy S21", "has_pet")
    assert not reader.plausible("Do you think I should move to Manchester?", "User", "Manchester", "lives_in")
    assert not reader.plausible("Someday I'd love to live in Edinburgh.", "User", "Edinburgh", "lives_in")
    assert reader.plausible("I love hiking.", "User", "hiking", "not_in_the_ontology")  # an open one: not judged


# -- values as said, and whose slot -------------------------------------------------------------
HEALTH = ROOT / "examples" / "ontologies" / "health.toml"
PERSONAL = ROOT / "examples" / "ontologies" / "personal.toml"


@pytest.fixture(scope="module")
def health(embedder):
    return RulesExtractor(embedder).with_vocabulary(load_ontology_file(HEALTH).vocab)


@pytest.fixture(scope="module")
def personal(embedder):
    return RulesExtractor(embedder).with_vocabulary(load_ontology_file(PERSONAL).vocab)


@pytest.mark.parametrize("text, fact", [
    # a unit after its number, wherever the small parser hung it
    ("My metformin dose is 500 mg twice a day.", ("user", "medication_dose", "500 mg", False)),
    ("I was prescribed 20 mg of atorvastatin.", ("user", "medication_dose", "20 mg", False)),
    # a level that moved, whatever the verb
    ("We cut the atorvastatin down to 10 mg.", ("user", "medication_dose", "10 mg", False)),
    # number words with a half
    ("My sleep target is six and a half hours.", ("user", "sleep_target", "six and a half hours", False)),
    # "my X is <value>": the speaker's slot, not X's
    ("My vitamin D is 1000 IU a day.", ("user", "medication_dose", "1000 IU", False)),
    # a wish states the value of a slot that is itself an aim
    ("I want to get my resting heart rate under 55.", ("user", "fitness_goal", "resting heart rate under 55", False)),
    # a stop with its object ends the slot that held it
    ("I quit the Zone 2 plan.", ("user", "training_plan", "Zone 2 plan", True)),
    # a change to doing something is a change to what it is done to
    ("My goal changed to finishing a sprint triathlon.", ("user", "fitness_goal", "sprint triathlon", False)),
])
def test_health_values_are_read_whole(health, text, fact):
    assert fact in _facts(health, text)


@pytest.mark.parametrize("text, fact", [
    ("My number is 555-0134.", ("user", "phone_number", "555-0134", False)),
    ("My number changed to 555 300 1122.", ("user", "phone_number", "555 300 1122", False)),
    ("My cell is 555-4400.", ("user", "phone_number", "555-4400", False)),
])
def test_phone_numbers_are_read_whole_and_are_the_speakers(personal, text, fact):
    assert fact in _facts(personal, text)


def test_a_wish_states_nothing_of_a_slot_that_is_no_aim(health, personal):
    assert not any(f[1] == "medication_dose" for f in _facts(health, "I might take 40 mg of sertraline."))
    assert not any(f[1] == "phone_number" for f in _facts(personal, "I want to get a number like 555-0000."))


@pytest.mark.parametrize("text, fact", [
    # the speaker acts; the slot is the thing's, as the predicate's examples say it
    ("We moved reporting from Snowflake to BigQuery.", ("reporting", "uses_database", "BigQuery", False)),
    ("The team ported billing to Kotlin.", ("billing", "written_in", "Kotlin", False)),
    ("We rebuilt the CLI in Go.", ("cli", "written_in", "Go", False)),
    ("The gateway stopped using Memcached last sprint.", ("gateway", "uses_database", "Memcached", True)),
])
def test_a_clause_the_speaker_acts_in_states_the_things_slot(project, text, fact):
    found = _facts(project, text)
    assert fact in found
    assert not any(f[0] == "user" for f in found)


def test_value_shapes(embedder):
    from kg_memory.extract.values import value_shape
    assert value_shape("555-0134") == "phone"
    assert value_shape("500 mg") == "amount:mg"
    assert value_shape("six and a half hours") == value_shape("8 hours") == "amount:hour"
    assert value_shape("$40k") == "amount:$"
    assert value_shape("Postgres") is None


def test_an_ending_names_the_value_it_ends_by_its_words():
    from kg_memory.core.temporal import names_value
    assert names_value("Zone 2 plan", "zone 2") and names_value("the stronglifts program", "Stronglifts")
    assert names_value("Civic", "Honda Civic")
    assert not names_value("Zone 2 plan", "zone 3") and not names_value("plan", "") and not names_value("car", "Jeep")


@pytest.mark.parametrize("name, least", [("project", 38), ("sales", 38), ("health", 38), ("personal", 38),
                                         ("heldout", 38), ("fresh", 24), ("fresh2", 24), ("fresh3", 24),
                                         ("fresh4", 24), ("fresh5", 24), ("fresh6", 24), ("fresh7", 24),
                                         ("fresh8", 24), ("fresh9", 24), ("fresh10", 12),
                                         ("fresh11", 10), ("fresh12", 24), ("fresh13", 20),
                                         ("fresh14", 24), ("fresh15", 20), ("fresh16", 20),
                                         ("fresh17", 24), ("fresh18", 20), ("fresh19", 20),
                                         ("fresh20", 24), ("fresh21", 24), ("fresh22", 24),
                                         ("fresh23", 24), ("fresh24", 24),
                                         ("fresh25", 24), ("fresh26", 24), ("fresh27", 24),
                                         ("fresh28", 24), ("fresh29", 24), ("fresh30", 24),
                                         ("fresh31", 24), ("fresh32", 24), ("fresh33", 24),
                                         ("fresh34", 24), ("fresh35", 24), ("fresh36", 24),
                                         ("fresh37", 24), ("fresh38", 24), ("fresh39", 24),
                                         ("fresh40", 24), ("fresh41", 24), ("fresh42", 24),
                                         ("fresh43", 24), ("fresh44", 24),
                                         ("fresh45", 24)])
def test_every_update_set_loads_with_the_ontologies_it_names(name, least):
    """make bench runs these sets: each is a kgmem-contradictions/1 file whose every case's ontology
    (its own or the file's) is an example ontology that checks, with episodes in time order."""
    from kg_memory.bench.contradictions import load_cases

    path = ROOT / "tests" / "fixtures" / f"updates-{name}.json"
    data = load_cases(path)
    assert len(data["cases"]) >= least and len({c["id"] for c in data["cases"]}) == len(data["cases"])
    for case in data["cases"]:
        named = case.get("ontology", data.get("ontology"))
        if named:
            assert load_ontology_file(path.parent / named).custom
        times = [e["t"] for e in case["episodes"]]
        assert times == sorted(times) and case["checks"]


def test_someone_else_and_no_one_are_never_the_speaker(embedder):
    """"He moved to Utrecht" is not the speaker's move (said by Tobias, of his brother); "their new kid"
    names no child; love given to a child is no hand-over; a service handed over is no one's partner."""
    plain = RulesExtractor(embedder)
    for text in ("He moved to Utrecht in January.", "Now they're super happy with their new kid.",
                 "I'm ready to give all my love to a child.", "Priya handed the billing service over to Tom."):
        assert _facts(plain, text) == set(), text
    assert ("user", "lives_in", "Utrecht", False) in _facts(plain, "Moved to Utrecht in January.")
    assert ("user", "lives_in", "Utrecht", False) in _facts(plain, "Moved to Utrecht in January, it was hard.")
