"""An ontology's examples read as the group's clauses are read (rules-23): a value listed after a colon in a slot of
values' description is no slot noun; an example read with the prepositions the group's examples give values with;
a passive participle that is itself a value ("has been shortlisted"); the verbs a slot's own examples say its value
does; a value the parser took for a verb after "changed to"; a change of a many-valued slot that replaces the value
another clause names; a couple said to have separated; a home near a place; a time that is a value where the
group's examples give one so ("collected on Friday"); the verb of an example the parser reads as a noun; work said
by what one does at a name ("I teach geography at X"); a relative one has by name; one of many values said with
a word of its class ("I do pilates"); a diet said with its own noun. Sentences
of their own, none of the update sets'."""

from __future__ import annotations

import pytest

from kg_memory.extract import parse
from kg_memory.extract.exemplars import PASSIVE

from .said import facts_said as _facts


def test_a_value_listed_after_a_colon_is_a_value_not_the_slots_noun(under):
    """carehome's mobility says "...: with a stick or a frame, or in a wheelchair": those are values."""
    assert ("mrs lowe", "mobility", "wheelchair", False) in _facts(under("carehome"), "Mrs Lowe uses a wheelchair.")


def test_a_relation_list_after_a_colon_stays_the_slots_nouns(rules):
    """has_relative lists "cousin, aunt, uncle": kinds of the slot's own noun, not values."""
    facts = _facts(rules, "My aunt Carys lives in Aberystwyth.")
    assert not any(f[1] == "has_relative" and f[2].lower() == "aunt" for f in facts)


def test_a_value_given_with_the_groups_own_preposition(under):
    """recruitment's examples say "applied for the ... job" and "is up for the ... role"."""
    assert ("kofi", "role", "payroll clerk job", False) in _facts(under("recruitment"),
                                                                    "Kofi applied for the payroll clerk job.")
    assert ("ines", "role", "sous chef role", False) in _facts(under("recruitment"),
                                                                 "Ines is up for the sous chef role.")


@pytest.mark.parametrize("text, value", [
    ("Nadia has been shortlisted.", "shortlisted"),
    ("Kofi has been hired.", "hired"),
    ("Ines has been offered the post.", "offered"),
])
def test_a_passive_participle_the_slot_lists_is_its_value(under, text, value):
    facts = _facts(under("recruitment"), text)
    assert any(f[1] == "stage" and f[2] == value for f in facts), facts


def test_a_participle_said_with_its_doer_is_no_value(under):
    facts = _facts(under("recruitment"), "Kofi was interviewed by Dan.")
    assert not any(f[1] == "stage" and f[2] == "interviewed" for f in facts)


def test_a_verb_the_examples_say_the_value_does(under):
    """hotel's "Carla runs housekeeping": one who runs a department is its head."""
    assert ("spa", "department_head", "Tomasz", False) in _facts(under("hotel"), "Tomasz runs the spa.")


def test_the_one_a_slots_verb_is_done_for_is_whose(under):
    facts = _facts(under("club"), "Dermot runs training for the under-9s.")
    assert ("under-9s", "head_coach", "Dermot", False) in facts


def test_a_passive_said_with_a_particle_before_its_doer():
    assert PASSIVE.search("Leo gets dropped off by his uncle")
    assert PASSIVE.search("The bins are picked up by Biffa")


def test_a_value_taken_for_a_verb_after_changed_to_is_reparsed(rules):
    doc = parse.parsed("I've been switched to lisinopril.")
    assert next(t for t in doc if t.text == "lisinopril").dep_ == "pobj"
    assert ("user", "takes_medication", "lisinopril", False) in _facts(rules, "I've been switched to lisinopril.")


def test_a_purpose_after_moved_to_is_no_value():
    doc = parse.parsed("I moved to work at the hospital.")
    assert next(t for t in doc if t.text == "work").pos_ == "VERB"


def test_a_change_of_many_values_replaces_the_one_named_beside_it(rules):
    facts = _facts(rules, "The amlodipine made me dizzy, so I've been changed to lisinopril.")
    assert ("user", "takes_medication", "lisinopril", False) in facts
    assert ("user", "takes_medication", "amlodipine", True) in facts


def test_a_value_added_beside_replaces_none(rules):
    facts = _facts(rules, "The amlodipine is fine, but I've also been put on lisinopril.")
    assert ("user", "takes_medication", "lisinopril", False) in facts
    assert ("user", "takes_medication", "amlodipine", True) not in facts


def test_a_couple_said_to_have_separated(rules):
    facts = _facts(rules, "My wife and I have separated.")
    assert ("user", "relationship_status", "separated", False) in facts
    assert ("user", "partner", "", True) in facts
    assert not any(f[1] == "partner" and "wife" in f[2] for f in facts)


def test_a_home_near_a_place_is_where_one_lives(rules):
    assert ("user", "lives_in", "Skegness", False) in _facts(rules, "I live in a static caravan near Skegness.")
    assert not any(f[1] == "lives_in" for f in _facts(rules, "I stayed in a caravan near Skegness."))


@pytest.mark.parametrize("name, text, fact", [
    ("facilities", "Recycling is collected on Tuesday.", ("recycling", "collection_day", "Tuesday", False)),
    ("film", "Northern Lights is released in May 2027.", ("northern lights", "release_date", "May 2027", False)),
])
def test_a_time_is_a_value_where_the_groups_examples_give_one_so(under, name, text, fact):
    assert fact in _facts(under(name), text)


def test_a_time_said_with_another_verb_is_still_when(under):
    """facilities gives a time with "collected on": "serviced on Tuesday" says when, not a value."""
    assert not any(f[2] == "Tuesday" for f in _facts(under("facilities"), "The lifts were serviced on Tuesday."))


def test_the_verb_of_an_example_with_none_the_parser_sees_is_a_verb(under):
    """vineyard's "Our rosé matures in steel tanks", whose "matures" the parser takes for a noun."""
    assert "matures" in under("vineyard").meaning.verbs


@pytest.mark.parametrize("text, place", [
    ("I teach geography at Oakfield Academy.", "Oakfield Academy"),
    ("I'm driving for Deliveroo these days.", "Deliveroo"),
    ("I've been nursing at the Royal Free.", "Royal Free"),
])
def test_work_said_by_what_one_does_at_a_name_is_where_one_works(rules, text, place):
    """A verb whose doer is a job ("teacher", "driver", "nurse"), said in the present at or for a name."""
    assert ("user", "works_at", place, False) in _facts(rules, text)


@pytest.mark.parametrize("text", [
    "I'm waiting for Priya at Costa.",  # ("wait for" is the verb's own "for")
    "I shop at Lidl.",  # (a shopper is no job)
    "I teach my kids at home.",  # (no name)
])
def test_what_one_does_at_a_name_that_is_no_work_says_no_employer(rules, text):
    assert not any(f[1] == "works_at" for f in _facts(rules, text))


@pytest.mark.parametrize("text, fact", [
    ("I have an older sister named Nia.", ("user", "has_sibling", "Nia", False)),
    ("We've got a son called Arlo.", ("user", "has_child", "Arlo", False)),
])
def test_a_relative_one_has_by_name(rules, text, fact):
    assert fact in _facts(rules, text)


def test_one_of_many_values_said_plainly_with_a_word_of_its_class(rules):
    assert ("user", "has_hobby", "pilates", False) in _facts(rules, "I do pilates.")
    assert not any(f[1] == "has_hobby" for f in _facts(rules, "I did some pilates yesterday."))  # (a passing act)
    assert not any(f[1] == "has_hobby" for f in _facts(rules, "I do the washing up."))  # (no word of the class)


def test_a_diet_said_with_its_own_noun(rules):
    assert ("user", "diet", "mostly paleo diet", False) in _facts(rules, "I eat a mostly paleo diet.")


@pytest.mark.parametrize("text", ["I've been training for the Bath half marathon.", "I found my wallet at Tesco.",
                                  "I'm heading for Leeds.", "I bank at Barclays."])
def test_a_verb_whose_doers_noun_is_a_job_but_says_no_work(rules, text):
    """("trainer", "founder" are jobs; training for a race, or finding a thing, is no work there)."""
    assert not any(f[1] == "works_at" for f in _facts(rules, text))


def test_a_change_replaces_a_named_value_the_sentence_opens_with(rules):
    """"Propranolol wasn't working so ...": the old value said with a capital, a drug by its stem."""
    facts = _facts(rules, "Atenolol wasn't helping, so I've been put on bisoprolol.")
    assert ("user", "takes_medication", "bisoprolol", False) in facts
    assert ("user", "takes_medication", "atenolol", True) in facts


def test_a_value_said_in_a_slots_noun(rules):
    """"a degree in history": the subject of the degree (field_of_study's description says it takes one)."""
    assert ("user", "field_of_study", "geology", False) in _facts(rules, "I'm doing a degree in geology.")
    assert not any(f[1] == "works_at" for f in _facts(rules, "I got a job in Glasgow."))


@pytest.mark.parametrize("text, fact", [
    ("Succession is my favourite show now.", ("user", "favorite_show", "Succession", False)),
    ("Honestly, Dune is my go-to film.", ("user", "favorite_film", "Dune", False)),
])
def test_a_favourite_said_with_its_name_first(rules, text, fact):
    assert fact in _facts(rules, text)


@pytest.mark.parametrize("text, facts", [
    ("Just started a new role as a data engineer.", {("user", "job_title", "data engineer", False)}),
    ("I've taken a job as an electrician at Wates.", {("user", "job_title", "electrician", False),
                                                       ("user", "works_at", "Wates", False)}),
])
def test_a_post_taken_up_as_a_role(rules, text, facts):
    assert facts <= _facts(rules, text)


def test_an_article_in_a_phrasing_may_be_the(rules):
    """works_at's "got a job at": "I got the job at Arup!"."""
    assert ("user", "works_at", "Arup", False) in _facts(rules, "I got the job at Arup!")


def test_a_state_just_begun_is_read_plainly(rules):
    assert ("user", "studies_at", "Bristol", False) in _facts(rules, "I've started a masters at Bristol.")


def test_off_one_value_onto_another_said_as_the_verbs_own(under):
    facts = _facts(under("services"), "We've lifted the orders service off ECS onto Cloud Run.")
    assert any(f[1] == "runs_on" and f[2] == "Cloud Run" and not f[3] for f in facts), facts


def test_no_one_is_no_value(under):
    assert not any("nobody" in (f[0], f[2].lower()) for f in _facts(under("services"),
                                                                     "Nobody maintains the ledger any more."))


def test_the_values_a_description_lists_are_read_once():
    """One rule (extract/slotwords.py) says which words of a description are its listed values: they name no slot,
    and a participle among them is a value."""
    from kg_memory.core.vocab import Predicate
    from kg_memory.extract.slotwords import described, listed_values

    def said(name, kind, description):
        return Predicate(name, True, kind, "", (), (), (), (), (), None, (), description=description)

    stage = said("stage", "value", "the stage reached, such as applied or hired")
    gets_about = said("mobility", "value", "how one gets about: with a frame, or a chair")
    relative = said("has_relative", "entity", "another relative: cousin, aunt")
    assert listed_values(stage) == "applied or hired" and "applied" not in described(stage)
    assert listed_values(gets_about) == "with a frame, or a chair" and "frame" not in described(gets_about)
    assert listed_values(relative) == "" and "aunt" in described(relative)
