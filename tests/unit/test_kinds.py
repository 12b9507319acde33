"""Which entity type a thing is, and which types a slot is said of, by the ontology's own words."""

from __future__ import annotations

from kg_memory.extract.kinds import kind_of, kinds_said

NOTES = (("building", "an office building the team looks after"),
         ("equipment", "a lift, boiler, door or other piece of a building"))


def test_a_thing_is_the_type_it_is_named_by_or_the_one_whose_description_lists_it():
    assert kind_of("the Arches building", NOTES) == "building"  # the type's own name wins over a listing
    assert kind_of("lifts", NOTES) == "equipment" and kind_of("boilers", NOTES) == "equipment"
    assert kind_of("offices", NOTES) == "building"
    assert kind_of("the team", NOTES) is None  # a description's common words list no kind
    assert kind_of("recycling", NOTES) is None and kind_of("lifts", ()) is None


def test_a_thing_two_descriptions_list_is_of_no_one_type():
    notes = (("room", "a room or a hall"), ("venue", "a hall we hire"))
    assert kind_of("the hall", notes) is None


def test_a_slot_is_said_of_the_types_its_description_names_the_last_of_a_run():
    assert kinds_said("the contractor that services a piece of building equipment", NOTES) == {"equipment"}
    assert kinds_said("the company that provides a building's internet connection", NOTES) == {"building"}
    assert kinds_said("the entry code of a door", NOTES) == frozenset()
