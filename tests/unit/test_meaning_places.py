"""Where a slot is held, and of whom (rules-29): one taught or kept at a place is there (not the place's value, in a
sentence or in an ontology's own examples); one who acts at a named place is that place's value when the examples
say so ("plays the organ at St Peter's"); a common noun said after a name's "'s" is the name's; a church's name is a
subject; an address said in parts is whole; "plant-based" is a diet. Sentences of their own, none of the update
sets'."""

from __future__ import annotations

from .said import facts_said as _facts


def test_one_taught_at_a_place_is_there_not_the_places_value(under):
    said = _facts(under("tutoring"), "Noor is taught at the community centre.")
    assert ("noor", "lesson_venue", "community centre", False) in said
    assert not any(f[0] == "community centre" for f in said), said


def test_one_acting_at_a_named_church_is_its_value_as_the_examples_say(under):
    assert ("st anne's", "organist", "Dennis", False) in _facts(under("parish"),
                                                                "Dennis plays the organ at St Anne's.")
    took = _facts(under("parish"), "Joyce has taken over on the organ at St Anne's.")
    assert ("st anne's", "organist", "Joyce", False) in took
    assert not any(f[0] == "joyce" for f in took), took


def test_a_common_noun_after_a_names_possessive_is_the_names(under):
    said = _facts(under("tutoring"), "Noor's classes run on Skype now.")
    assert ("noor", "lesson_venue", "Skype", False) in said
    assert not any(f[0] == "classes" for f in said), said


def test_a_name_only_cut_short_at_its_possessive_is_still_no_subject(under):
    assert not any(f[0].endswith("'s") and not f[0].startswith("st ")
                   for f in _facts(under("tutoring"), "Noor's is on Skype."))


def test_an_address_said_in_parts_is_whole(rules):
    said = _facts(rules, "My new address is Flat 2, 17 Station Road.")
    assert any(f[0] == "user" and f[2] == "Flat 2, 17 Station Road" for f in said), said


def test_plant_based_is_a_diet(rules):
    assert ("user", "diet", "plant-based", False) in _facts(rules, "I've gone totally plant-based this year.")


def test_one_who_teaches_a_subject_said_with_a_capital_at_a_school_works_there(rules):
    said = _facts(rules, "I teach RE at Oakfield School.")
    assert ("user", "works_at", "Oakfield School", False) in said
    assert not any(f[1] == "studies_at" for f in said), said


def test_one_name_working_on_another_is_its_value_as_the_examples_say(under):
    """The examples say the value first ("Sam is working on INC-208"; "the mechanic working on a customer's
    vehicle"): a sentence said the same way is read the same way round."""
    said = _facts(under("helpdesk"), "Ravi is working on INC-310.")
    assert ("inc-310", "assignee", "Ravi", False) in said and not any(f[0] == "ravi" for f in said), said
    car = _facts(under("garage"), "Mo is working on the Fiesta.")
    assert ("fiesta", "assigned_mechanic", "Mo", False) in car and not any(f[0] == "mo" for f in car), car
