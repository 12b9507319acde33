"""Who holds a role and where one lives, read structurally (rules-20): one who does a role's work to the
speaker ("Ms Okoro supervises me"), one that took another's place in a role said with "as" ("overtook Idles as
my favourite band"), one who took over a thing said with a name ("the Halcyon merger"), a slot's noun said with
a name's word as its own subject ("the Aztec collection"), a home of one's own in a named place, and a clause
of time that says when, not what. Sentences of their own, none of the update sets'."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg_memory.core.ontology import default_ontology, load_ontology_file
from kg_memory.extract import parse
from kg_memory.extract.clauses import readings
from kg_memory.extract.rules import RulesExtractor

from .said import ONTOLOGIES
from .said import facts_said as _facts
from .said import under as _under

FIXTURES = ONTOLOGIES
T = datetime(2026, 4, 10, 10, tzinfo=UTC)


@pytest.fixture(scope="module")
def rules(embedder):
    return RulesExtractor(embedder)




@pytest.mark.parametrize("text, fact", [
    ("Ms Okoro supervises me now.", ("user", "has_manager", "Ms Okoro", False)),
    ("Daniel Berg manages me these days.", ("user", "has_manager", "Daniel Berg", False)),
])
def test_one_who_does_a_roles_work_to_the_speaker_holds_it(rules, text, fact):
    assert fact in _facts(rules, text)


@pytest.mark.parametrize("text", ["Jo waved at me.", "Tom hugged me after the match.", "Priya called me twice."])
def test_one_who_only_acts_on_the_speaker_holds_nothing(rules, text):
    assert _facts(rules, text) == set()


def test_a_change_said_to_the_speaker_keeps_its_values(rules):
    """"My nurse moved me from X to Y" says its values; the one who did it is no value of the speaker's."""
    facts = _facts(rules, "My nurse moved me from warfarin to apixaban.")
    assert ("user", "takes_medication", "apixaban", False) in facts
    assert not any(f[2] == "nurse" or f[2].lower().endswith("nurse") for f in facts)


@pytest.mark.parametrize("text, fact", [
    ("Wet Leg overtook Idles as my favourite band.", ("user", "favorite_band", "Wet Leg", False)),
    ("Dr Shah took over from Dr Lee as my GP.", ("user", "gp", "Dr Shah", False)),
    ("Monzo has replaced Barclays as my bank.", ("user", "bank", "Monzo", False)),
])
def test_one_that_took_anothers_place_in_the_speakers_role_holds_it(rules, text, fact):
    facts = _facts(rules, text)
    assert fact in facts
    assert not any(f[1] == fact[1] and f[2] != fact[2] and not f[3] for f in facts)  # (not the one replaced)


@pytest.mark.parametrize("text", ["Laura replaced Tom as captain.", "I replaced the tyres last week."])
def test_a_replacement_in_no_role_of_the_speakers_is_no_new_role(rules, text):
    assert not any(f[1].startswith("favorite_") or f[1] in ("captain", "gp") for f in _facts(rules, text))


def test_one_who_took_over_a_thing_said_with_a_name_is_its_new_holder(embedder):
    doc = parse.parsed("Sana has taken over the Halcyon merger.")
    vocab = load_ontology_file(FIXTURES / "lawfirm.toml").vocab
    read = readings(doc, "User", frozenset(vocab.entity_types))
    assert [(r.subject, r.object, r.shape) for r in read] == [("Halcyon merger", "Sana", "hand_over")]
    assert ("halcyon merger", "lead_counsel", "Sana", False) in _facts(_under(embedder, "lawfirm"),
                                                                      "Sana has taken over the Halcyon merger.")


def test_a_slot_noun_said_with_a_names_word_is_its_own_subject(embedder):
    """After "Ada Reyes retired;", "the Aztec collection" is not hers (as "the deal" after "Tyrell signed" is
    Tyrell's): a slot's noun said with a name's word names its own thing."""
    facts = _facts(_under(embedder, "museum"),
                   "Ada Reyes retired in May; the Aztec collection is now looked after by Ben Cole.")
    assert any(f[1] == "curator" and f[2] == "Ben Cole" and "aztec" in f[0] for f in facts)
    assert not any(f[0] == "ada reyes" for f in facts)


@pytest.mark.parametrize("text, place", [
    ("Picked up the keys to our bungalow in Whitby.", "Whitby"),
    ("Moved into a maisonette in Luton.", "Luton"),
    ("Got the keys to our place in Truro at last.", "Truro"),
    ("Moved out of my parents' house into a flatshare in Derby.", "Derby"),
])
def test_a_home_of_ones_own_in_a_named_place_is_where_one_lives(rules, text, place):
    assert ("user", "lives_in", place, False) in _facts(rules, text)


@pytest.mark.parametrize("text, place", [
    ("I cleaned my old flat in Derby.", "Derby"),
    ("We sold our flat in Hove.", "Hove"),
    ("I stayed at my parents' house in Hull.", "Hull"),
])
def test_a_home_let_go_or_anothers_is_not_where_one_lives(rules, text, place):
    assert ("user", "lives_in", place, False) not in _facts(rules, text)


def test_a_clause_of_time_is_no_part_of_what_a_clause_says():
    doc = parse.parsed("We have been renting in Chorlton since my son started nursery.")
    rent = [r.text for r in readings(doc, "User", frozenset(default_ontology().vocab.entity_types)) if r.verb == "rent"]
    assert rent == ["We have been renting in Chorlton"]


def test_a_name_the_parser_took_for_its_verbs_compound_is_its_subject(embedder):
    """"IBM funds the digital gallery": the small parser hangs "IBM" on "funds" as a compound."""
    assert ("digital gallery", "sponsor", "IBM", False) in _facts(_under(embedder, "museum"),
                                                                  "IBM funds the digital gallery.")


@pytest.mark.parametrize("text, old, new", [
    ("The Corsa finally died, so I've bought a Skoda Octavia.", "Corsa", "Skoda Octavia"),
    ("I scrapped the Corsa, so I've bought a Skoda Octavia.", "Corsa", "Skoda Octavia"),
])
def test_a_thing_that_gave_out_ends_and_what_came_after_it_is_the_new_value(rules, text, old, new):
    facts = _facts(rules, text)
    assert ("user", "drives", old, True) in facts and ("user", "drives", new, False) in facts


def test_a_clause_after_an_unrelated_one_is_no_change(rules):
    assert not any(f[3] or f[1] == "drives" for f in _facts(rules, "The meeting ran late, so I bought a sandwich."))


@pytest.mark.parametrize("text, title", [
    ("Got the charge nurse job last week.", "charge nurse"),
    ("I've landed the sous chef role at Mildreds.", "sous chef"),
])
def test_a_post_taken_up_by_its_title_is_the_speakers_job(rules, text, title):
    assert ("user", "job_title", title, False) in _facts(rules, text)


@pytest.mark.parametrize("text", ["I got the Acme job!", "She got the charge nurse job.", "I got a new job."])
def test_a_post_said_without_a_title_or_of_another_is_no_job_title(rules, text):
    assert not any(f[1] == "job_title" for f in _facts(rules, text))


@pytest.mark.parametrize("text, fact", [
    ("New flat, new number: 07911 400500.", ("user", "number", "07911 400500", False)),
    ("New address: 9 Quay Street, Truro.", ("user", "lives_in", "9 Quay Street", False)),  # (a home: rules-21)
])
def test_a_line_with_no_verb_that_names_a_new_one_is_the_speakers(rules, text, fact):
    assert fact in _facts(rules, text)


def test_a_headline_before_a_clause_of_its_own_is_no_value(rules):
    assert not any(f[1] == "goal" for f in _facts(rules, "New goal: I'm training for the Bath half."))


def test_the_values_a_description_lists_are_values_not_the_slots_words(embedder):
    """lawfirm.toml's matter_stage: "the stage a matter or case has reached, such as pleadings, disclosure, trial
    or settled": "disclosure" is a stage, not a word that names the slot (which a value may never be)."""
    facts = _facts(_under(embedder, "lawfirm"), "The Okafor appeal has reached trial.")
    assert ("okafor appeal", "matter_stage", "trial", False) in facts


def test_a_relative_said_beside_a_slot_leaves_the_slot_read(rules):
    """"my daughter" is read by the phrase patterns; the parse still reads the one slot they did not touch."""
    facts = _facts(rules, "I've been living in Chorlton since my son started nursery.")
    assert ("user", "lives_in", "Chorlton", False) in facts


@pytest.mark.parametrize("text", ["The Corsa broke down on the M6.", "Windows crashed again."])
def test_a_fault_one_mends_ends_nothing(rules, text):
    assert not any(f[3] for f in _facts(rules, text))
