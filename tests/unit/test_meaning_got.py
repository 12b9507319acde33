"""What a group's own examples say plainly (rules-27): a thing the speaker gets from a name is that name's to supply
("We buy our syringes from Alliance"); a value made of the nouns of two slots is a value ("the sports hall"), not a
slot's own noun; a change of a many-valued slot said with no old value takes the place of the one value held
(tests/contract/test_swapped_value.py). Sentences of their own, none of the update sets'."""

from __future__ import annotations

from kg_memory.extract import parse
from kg_memory.extract.objects import got_from

from .said import facts_said as _facts


def _root(text):
    return next(t for t in parse.parsed(text) if t.dep_ == "ROOT")


def test_a_thing_the_speaker_gets_from_a_name_is_the_names_to_supply(under):
    facts = _facts(under("pharmacy"), "We buy our syringes from Alliance.")
    assert ("syringes", "supplier", "Alliance", False) in facts
    assert not any(f[0] == "user" for f in facts), facts


def test_got_from_reads_only_the_speakers_getting_from_a_name():
    read = got_from(_root("We buy our syringes from Alliance."))
    assert read is not None and (read.subject, read.object) == ("syringes", "Alliance")
    assert got_from(_root("We got a puppy from a rescue.")) is None  # (no name it is got from)
    assert got_from(_root("The depot gets its diesel from Certas.")) is None  # (the depot's own slot: read as it was)


def test_an_example_said_with_another_thing_and_name_is_read(under):
    facts = _facts(under("pharmacy"), "We get our dressings from Numark.")
    assert ("dressings", "supplier", "Numark", False) in facts


def test_a_value_of_two_slots_nouns_is_a_value(under):
    facts = _facts(under("leisure"), "Zumba is held in the sports hall.")
    assert ("zumba", "venue", "sports hall", False) in facts
