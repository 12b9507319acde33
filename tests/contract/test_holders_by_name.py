"""A thing said by its head noun or in the other number is the thing that holds the slot (both stores): "the
trailer" is the refrigerated trailer, "the lorry" the lorries, when that one alone holds the slot."""

from __future__ import annotations

from .test_ontology_contract import _insured


def test_a_thing_said_by_its_head_noun_is_the_one_that_holds_the_slot(make_memory, group):
    now, before = _insured(make_memory, group, ["Our refrigerated trailer is insured with Hiscox.",
                                                "The trailer is insured with Aviva now."])
    assert now == {("refrigerated trailer", "Aviva")} and before == {("refrigerated trailer", "Hiscox")}


def test_a_thing_said_in_the_other_number_with_its_ending_changed_is_the_same_holder(make_memory, group):
    now, before = _insured(make_memory, group, ["The lorries are insured with Hiscox.",
                                                "The lorry insurance is with Aviva now."])
    assert now == {("lorries", "Aviva")} and before == {("lorries", "Hiscox")}
