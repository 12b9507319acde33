"""States said of oneself under the default ontology (rules-24): a name one is with for a thing of one's own is a
provider, not a partner; more languages and relationship words; a state that has lasted ("I've been at X for three
years"); no placeholder in a slot of one value ("my partner" never stands in for the partner named); one's boss is
a tie whose own acts are theirs. Sentences of their own, none of the update sets'."""

from __future__ import annotations

import pytest

from .said import facts_said as _facts


def test_a_name_one_is_with_for_a_thing_of_ones_own_is_no_partner(rules):
    assert not any(f[1] == "partner" for f in _facts(rules, "I'm with Three for my mobile."))
    assert ("user", "partner", "Nadia", False) in _facts(rules, "I've been with Nadia for my whole adult life.")


@pytest.mark.parametrize("language", ["Welsh", "Tamil", "Yoruba"])
def test_more_languages(rules, language):
    assert ("user", "speaks", language.lower(), False) in _facts(rules, f"I speak {language}.")


def test_a_widow_says_a_relationship_status(rules):
    assert ("user", "relationship_status", "widower", False) in _facts(rules, "I'm a widower.")


def test_a_state_that_has_lasted(rules):
    assert ("user", "works_at", "PwC", False) in _facts(rules, "I've been at PwC for six years.")
    assert not any(f[1] == "works_at" for f in _facts(rules, "I was at Accenture for four years."))
    assert not any(f[1] == "works_at" for f in _facts(rules, "I've been at the dentist for two hours."))


def test_no_placeholder_in_a_slot_of_one_value(rules):
    facts = _facts(rules, "I've been with my partner for ages.")
    assert not any(f[1] == "partner" for f in facts)
    assert ("user", "has_sibling", "User's brother", False) in _facts(rules, "My brother is visiting.")


def test_ones_boss_is_a_tie_whose_acts_are_theirs(rules):
    facts = _facts(rules, "My boss lives in Harrogate.")
    assert ("user's boss", "lives_in", "Harrogate", False) in facts
    assert ("user", "lives_in", "Harrogate", False) not in facts
    assert ("user", "has_manager", "Imran", False) in _facts(rules, "My boss, Imran, is off sick.")
