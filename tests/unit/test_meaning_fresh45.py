"""What a clause says of numbered things, a thing sent to a place, a verb's doer, a wedding and what was done to the
speaker (rules-28, after reading the unseen fresh45): sentences of their own, none of the update sets'."""

from __future__ import annotations

from .said import facts_said as _facts


def test_a_thing_named_by_its_number_is_its_own_subject_not_a_slot_noun(under):
    # ("bus" is a word of the depot's description, so "Bus 412" read as the slot's noun: the speaker's)
    assert ("bus 412", "livery", "blue Metro livery", False) in _facts(under("buses"),
                                                                        "Bus 412 is in the blue Metro livery.")


def test_a_number_the_parser_hung_on_the_verb_is_the_subject(under):
    assert ("18", "depot", "Hulme", False) in _facts(under("buses"), "The 18 runs out of Hulme depot.")


def test_a_thing_handed_over_to_a_place_is_sent_there(under):
    said = _facts(under("buses"), "We handed the 22 over to Moss Side garage.")
    assert ("22", "depot", "Moss Side garage", False) in said
    assert not any(f[1] == "regular_driver" for f in said), said  # (a garage drives nothing)


def test_the_verbs_doer_named_by_a_slot_chooses_it_among_near_ones(rules):
    said = _facts(rules, "Chris manages me now.")
    assert ("user", "has_manager", "Chris", False) in said
    assert not any(f[1] == "partner" for f in said), said


def test_a_wedding_said_as_an_idiom_is_a_marriage(rules):
    assert ("user", "relationship_status", "married", False) in _facts(rules, "We got hitched in May!")


def test_what_they_did_to_the_speaker_is_read_as_done_to_the_speaker(rules):
    assert ("user", "job_title", "shift supervisor", False) in _facts(rules, "They've promoted me to shift supervisor.")


def test_a_body_that_sets_a_things_terms_acts_on_the_thing(under):
    said = _facts(under("canteen"), "The council has raised school breakfasts to £1.10.")
    assert ("school breakfasts", "meal_price", "£1.10", False) in said
    assert not any(f[0] == "council" for f in said), said


def test_a_place_said_as_a_noun_called_a_name_is_the_name(rules):
    said = _facts(rules, "I'm serving coffee at a tiny bakery called Crumbs these days.")
    assert ("user", "works_at", "Crumbs", False) in said  # (kept only if the speaker holds a workplace: the pipeline)
    assert not any(f[2] in ("tiny bakery", "bakery", "coffee") for f in said), said
