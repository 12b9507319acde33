"""Whose slot a change is (both stores): a thing said by its head noun or in the other number is the one thing that
holds the slot ("the trailer" is the refrigerated trailer, "the lorry" the lorries); a change near two slots is the
one held."""

from __future__ import annotations

from .test_ontology_contract import _held, _held_by_default, _insured


def test_a_thing_said_by_its_head_noun_is_the_one_that_holds_the_slot(make_memory, group):
    now, before = _insured(make_memory, group, ["Our refrigerated trailer is insured with Hiscox.",
                                                "The trailer is insured with Aviva now."])
    assert now == {("refrigerated trailer", "Aviva")} and before == {("refrigerated trailer", "Hiscox")}


def test_a_thing_said_in_the_other_number_with_its_ending_changed_is_the_same_holder(make_memory, group):
    now, before = _insured(make_memory, group, ["The lorries are insured with Hiscox.",
                                                "The lorry insurance is with Aviva now."])
    assert now == {("lorries", "Aviva")} and before == {("lorries", "Hiscox")}


def test_a_change_near_two_slots_goes_to_the_one_the_speaker_holds(make_memory, group):
    """"I transferred to Bath": nearest a home, and near enough a place of study (``SLOT_BAND``); the speaker holds
    only a place of study, so that one changes."""
    now, before = _held_by_default(make_memory, group, ["I'm doing my degree at Exeter.",
                                                        "I transferred to Bath for my final year."], "studies_at")
    assert now == {("User", "Bath")} and before == {("User", "Exeter")}


def test_a_thing_said_with_a_word_of_its_name_left_out_is_the_one_that_holds_the_slot(make_memory, group):
    """"The mountain unit" is the mountain rescue unit, which alone holds a leader: the hand-over is its."""
    now, before = _held(make_memory, group, LED, ["The mountain rescue unit is led by Ffion.",
                                                  "Ffion passed the mountain unit over to Dai."], "team_leader")
    assert now == {("mountain rescue unit", "Dai")} and before == {("mountain rescue unit", "Ffion")}


def test_a_role_taken_on_from_its_holder_is_the_holders_slot(make_memory, group):
    """"Owain has taken on the rota from Mair": Mair was the speaker's rota keeper, so Owain is now."""
    now, before = _held(make_memory, group, ROTA, ["Mair is our rota keeper.",
                                                   "Owain has taken on the rota from Mair."], "rota_keeper")
    assert now == {("User", "Owain")} and before == {("User", "Mair")}


LED = {"extends": "default", "predicates": {"team_leader": {
    "cardinality": "single", "object": "entity", "description": "the volunteer who leads a team or one of its units",
    "examples": ["Morag leads the search dog section.", "The boat crew is led by Ifan."]}}}
ROTA = {"extends": "default", "predicates": {"rota_keeper": {
    "cardinality": "single", "object": "entity", "description": "the member who draws up the rota of shifts",
    "examples": ["Gwen keeps our rota.", "The rota is done by Rhys."]}}}


def test_a_thing_said_by_no_name_of_its_own_handed_on_is_the_slot_whose_value_it_replaces(make_memory, group):
    """"Brenda has given the bookings ledger to Keith": no thing is "the bookings ledger", and Brenda keeps the parish
    hall's bookings, so Keith does now."""
    now, before = _held(make_memory, group, BOOKINGS, ["Bookings for the parish hall go through Brenda.",
                                                       "Brenda has given the bookings ledger to Keith."],
                        "hall_bookings")
    assert now == {("parish hall", "Keith")} and before == {("parish hall", "Brenda")}


BOOKINGS = {"extends": "default", "predicates": {"hall_bookings": {
    "cardinality": "single", "object": "entity", "description": "the person who takes bookings for a hall",
    "examples": ["Bookings for the hall go through Brenda.", "Keith keeps the hall diary."]}}}
