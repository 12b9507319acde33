"""The offline extractor's parse path: structure, not phrasings, and no junk."""

from datetime import UTC, datetime

import pytest

from kg_memory.extract import parse
from kg_memory.extract.rules import RulesExtractor
from kg_memory.models import Episode

T = datetime(2025, 6, 1, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def rules(embedder) -> RulesExtractor:
    ex = RulesExtractor(embedder)
    assert ex.parser, "the dependency parser is part of `make install`; it must be present in the tests"
    return ex


def facts(rules: RulesExtractor, text: str, speaker: str | None = None):
    e = Episode(group_id="g", content=text, occurred_at=T, speaker=speaker, created_at=T)
    return {(f.subject, f.predicate, f.object) for f in rules.extract(e).facts}


def test_structure_maps_onto_the_vocabulary(rules):
    assert ("User", "lives_in", "Minneapolis") in facts(rules, "Home for me is Minneapolis these days.")
    assert ("User", "has_manager", "Luis") in facts(rules, "Luis is my boss now after the reorg.")
    assert ("User", "drives", "Honda Civic") in facts(rules, "My car is a Honda Civic.")
    assert ("User", "lives_in", "Dublin") in facts(rules, "Packed everything up and moved over to Dublin.")
    assert ("User", "works_at", "SAP") in facts(rules, "I started a job at SAP in March.")


def test_open_facts_belong_to_their_speaker(rules):
    got = facts(rules, "I went to an LGBTQ support group yesterday.", speaker="Caroline")
    assert got == {("Caroline", "go_to", "LGBTQ support group")}


@pytest.mark.parametrize("text", [
    "Do you think I should move to Manchester?",     # a question
    "Someday I'd love to live in Edinburgh.",        # a wish
    "I didn't get the job at Canva.",                # negated
    "I loved the concert last night!",               # an opinion about a passing event
    "Caroline likes me.", "I think it was great.",   # pronoun objects, a state of mind
    "I was so happy and thankful for the support.",  # a feeling
])
def test_no_junk(rules, text):
    assert facts(rules, text) == set()


def test_statements_are_third_person(rules):
    e = Episode(group_id="g", content="I signed up for a pottery class with my kids.", occurred_at=T,
                speaker="Melanie", created_at=T)
    (f,) = rules.extract(e).facts
    assert f.statement.startswith("Melanie signed up for a pottery class") and " my " not in f.statement


def test_without_the_parser_the_patterns_still_work(embedder):
    ex = RulesExtractor(embedder, use_parser=False)
    assert not ex.parser and ex.version == "rules-2"
    e = Episode(group_id="g", content="I moved to Lisbon in March.", occurred_at=T, created_at=T)
    assert {(f.predicate, f.object) for f in ex.extract(e).facts} == {("lives_in", "Lisbon")}
    assert parse.parser_version() is not None


def test_the_parser_loads_on_the_first_sentence_it_parses(embedder):
    """Building the extractor (every command opens one) does not load spaCy; extracting does,
    and the extractor's version names the pipeline either way."""
    parse._load.cache_clear()
    ex = RulesExtractor(embedder)
    assert ex.parser and parse._load.cache_info().currsize == 0
    assert ex.version == f"rules-2+{parse.parser_version()}" and parse.parser_version().startswith("core_web_sm")
    e = Episode(group_id="g", content="Home for me is Lisbon these days.", occurred_at=T, created_at=T)
    ex.extract(e)
    assert parse._load.cache_info().currsize == 1 and parse.load_parser() is not None
