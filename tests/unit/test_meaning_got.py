"""What a clause says plainly (rules-27): a value made of the nouns of two slots is a value ("the sports hall"), not
a slot's own noun; the speaker at a street address lives there ("We're at 7 Linden Crescent"); a change of a
many-valued slot said with no old value takes the place of the one value held
(tests/contract/test_swapped_value.py). Sentences of their own, none of the update sets'."""

from __future__ import annotations

from kg_memory.extract import parse

from .said import facts_said as _facts


def _root(text):
    return next(t for t in parse.parsed(text) if t.dep_ == "ROOT")


def test_a_value_of_two_slots_nouns_is_a_value(under):
    facts = _facts(under("leisure"), "Zumba is held in the sports hall.")
    assert ("zumba", "venue", "sports hall", False) in facts


def test_the_speaker_at_a_street_address_lives_there(rules):
    assert ("user", "lives_in", "7 Linden Crescent", False) in _facts(rules, "We're at 7 Linden Crescent.")
    assert ("user", "lives_in", "2 Quarry Row", False) in _facts(rules, "We've just completed on 2 Quarry Row.")
    office = _facts(rules, "Our office is at 7 Linden Crescent.")
    assert not any(f[1] == "lives_in" for f in office), office  # (another thing's address)
    assert not any(f[1] == "lives_in" for f in _facts(rules, "We stayed at 7 Linden Crescent on holiday."))


def test_a_name_the_parser_took_for_the_verbs_adjective_is_the_subject(under):
    said = "Aqua fit starts at 8:15 on Saturdays."
    assert any(t.dep_ == "amod" and t.text == "fit" for t in parse.parsed(said))  # (the parse this reads past)
    assert ("aqua fit", "start_time", "8:15", False) in _facts(under("leisure"), said)


def test_the_rivals_of_a_plain_reading_are_the_slots_nearly_as_near():
    from kg_memory.extract.shapes import near_rivals
    from kg_memory.extract.thresholds import SLOT_BAND

    scores = {"dispensing_system": 0.52, "supplier": 0.50, "responsible_pharmacist": 0.52 - SLOT_BAND - 0.01,
              "lives_in": 0.1}
    alike = {"dispensing_system": 0.3, "supplier": 0.35, "responsible_pharmacist": 0.3, "lives_in": 0.9}
    assert near_rivals(scores, "dispensing_system", alike) == ("supplier",)
    assert near_rivals(scores, "supplier", alike) == ("dispensing_system", "responsible_pharmacist")  # (nearest first)
    assert near_rivals(scores, "has_pet", alike) == ()  # (a slot meaning did not score)
    # a slot whose example values are far less like the value is no rival ("Kirkdale" is like a station, no person)
    assert near_rivals(scores, "supplier", {**alike, "dispensing_system": 0.1}) == ("responsible_pharmacist",)
