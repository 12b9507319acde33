"""Homes said by their bedrooms or at a town's edge, a move said "out of A and into B", and a named thing got
(rules-29): each reads as where one lives or what one drives. Sentences of their own, none of the update sets'."""

from __future__ import annotations

from .said import facts_said as _facts


def test_a_home_said_by_its_bedrooms_is_where_one_lives(rules):
    assert ("user", "lives_in", "Hove", False) in _facts(rules, "We rent a three-bed in Hove.")


def test_a_home_on_the_edge_of_a_town_is_in_it(rules):
    assert ("user", "lives_in", "Malton", False) in _facts(rules, "We've bought a bungalow on the edge of Malton.")


def test_a_move_out_of_one_place_and_into_another_goes_to_the_second(rules):
    said = _facts(rules, "I moved out of Didsbury in May and into a studio in Ancoats.")
    assert ("user", "lives_in", "Ancoats", False) in said
    assert not any(f[1] == "lives_in" and f[2] == "Didsbury" and not f[3] for f in said), said


def test_a_named_thing_got_is_had_when_it_is_of_a_slots_kind(rules):
    said = _facts(rules, "My Fiesta died, so I got a cheap Skoda Fabia.")
    assert ("user", "drives", "Skoda Fabia", False) in said  # (the name, not the words describing it)
    assert not any(f[1] in ("drives", "uses_phone") for f in _facts(rules, "I got a Kindle for the train.")), \
        "a thing got that is like no slot's values is a passing act"


def test_an_amount_said_with_a_short_unit_is_a_value(rules):
    assert ("user", "ibuprofen_dose", "40mg", False) in _facts(rules, "My ibuprofen dose is 40mg.")
