"""Things moved, handed on and cared for (rules-24): a value named by its slot's own noun where the examples give
numbers ("the bright tank" beside "FV3"); a code is no one a thing is handed to; a thing taken over from someone;
the prepositions of care ("looks after"); the verbs a description's relative clause says its value does, when the
small parser took the first for a noun ("a shop that stocks and sells a beer"); "it" in a verb a joined clause goes
on with; a stop under "started" is a start; a named one's stop of an unnamed thing turned round as its acts are; a
time said as a past state ("since she was a kitten") is no fact; one's own thing transferred is a change, not a
hand-over; an amount of a medication is the medication; one who has or swaps the speaker onto a value makes it
theirs and is no value; drugs named by more of their stems. Sentences of their own, none of the update sets'."""

from __future__ import annotations

import pytest

from kg_memory.extract import parse
from kg_memory.extract.clauses import readings
from kg_memory.extract.exemplars import value_verbs

from .said import facts_said as _facts


def test_a_value_said_with_its_slots_noun_where_the_examples_give_numbers(under):
    """brewery's vessel examples say "FV3" and "fermenter 5"; "the conditioning tank" names a tank all the same."""
    assert ("ipa", "vessel", "conditioning tank", False) in _facts(under("brewery"),
                                                                    "The IPA went into the conditioning tank.")
    assert not any(f[1] == "vessel" for f in _facts(under("brewery"), "The IPA went into the taproom."))


def test_a_code_is_no_one_a_thing_is_handed_to(under):
    facts = _facts(under("brewery"), "We transferred the IPA to FV4.")
    assert ("ipa", "vessel", "FV4", False) in facts
    assert not any(f[1] in ("brewer", "main_hop") for f in facts)


def test_a_thing_taken_over_from_someone_ends_theirs(under):
    facts = _facts(under("brewery"), "Marta took the porter over from Kofi.")
    assert ("porter", "brewer", "Marta", False) in facts
    assert ("porter", "brewer", "Kofi", True) in facts


def test_what_one_looks_after_is_the_thing_whose_slot_one_holds(under):
    assert ("lager", "brewer", "Kofi", False) in _facts(under("brewery"), "Kofi looks after the lager.")


def test_a_descriptions_coordinated_verbs_the_parser_took_for_a_noun():
    """ "a pub or shop that stocks and sells a beer": the small parser makes "stocks" the clause's subject."""
    from kg_memory.core.ontology import load_ontology_file

    from .said import ONTOLOGIES
    vocab = load_ontology_file(ONTOLOGIES / "brewery.toml").vocab
    assert {"stock", "sell"} <= value_verbs(vocab.predicates["stockist"])


def test_the_stockist_example_is_read_with_the_pub_as_the_value(under):
    assert ("porter", "stockist", "Crown", False) in _facts(under("brewery"), "The Crown stocks our porter.")


def test_it_in_a_verb_a_joined_clause_goes_on_with(under):
    facts = _facts(under("brewery"), "The Swan dropped our lager, but the Anchor has begun selling it.")
    assert ("lager", "stockist", "Anchor", False) in facts
    assert ("lager", "stockist", "Swan", True) in facts
    assert not any(f[1] == "works_at" for f in facts)


def test_a_stop_under_started_is_a_start():
    found = readings(parse.parsed("Greg has started selling our cider."), "User")
    assert [(r.verb, r.shape) for r in found if r.object == "cider"] == [("sell", "plain")]


def test_a_named_ones_stop_said_with_a_verb_is_turned_round(under):
    facts = _facts(under("brewery"), "The Swan stopped stocking our lager.")
    assert ("lager", "stockist", "Swan", True) in facts
    assert not any(f[1] == "works_at" for f in facts)


def test_a_time_said_as_a_past_state_is_no_fact(under):
    facts = _facts(under("vetclinic"), "Dr. Shah has treated Mango since she was a kitten.")
    assert not any("kitten" in (f[0] + f[2]).lower() for f in facts)
    assert not any(r.object == "kitten" for r in readings(parse.parsed("I have known Sam since I was a kid."), "User"))


def test_ones_own_thing_transferred_is_a_change_not_a_hand_over():
    found = readings(parse.parsed("I've transferred my PhD to Durham."), "User")
    assert [(r.subject, r.object, r.shape) for r in found] == [("User", "Durham", "change")]
    handed = readings(parse.parsed("Priya transferred the payroll service to Tom."), "User")
    assert [r.shape for r in handed] == ["hand_over"]


def test_an_amount_of_a_medication_is_the_medication(rules):
    assert ("user", "takes_medication", "metformin", False) in _facts(rules, "I'm on 500 mg of metformin.")


@pytest.mark.parametrize("text, drug", [
    ("The consultant has me on warfarin.", "warfarin"),
    ("My GP swapped me onto lansoprazole.", "lansoprazole"),
])
def test_one_who_has_or_swaps_me_onto_a_value_makes_it_mine_and_is_no_value(rules, text, drug):
    facts = _facts(rules, text)
    assert ("user", "takes_medication", drug, False) in facts
    assert not any(f[2].lower() in ("consultant", "gp") for f in facts)


@pytest.mark.parametrize("drug", ["salmeterol", "liothyronine", "metformin"])
def test_a_drug_named_by_its_stem(rules, drug):
    assert ("user", "takes_medication", drug, False) in _facts(rules, f"I've been put on {drug}.")


def test_a_letter_that_ends_a_sentence_is_a_word_of_the_value(under):
    assert ("kestrel", "berth", "pontoon G", False) in _facts(under("marina"), "We moved Kestrel across to pontoon G.")


def test_a_code_after_a_verb_of_changing_is_its_value_not_a_verbs_object(under):
    assert ("kestrel", "berth", "pontoon H", False) in _facts(under("marina"), "We shifted Kestrel to pontoon H today.")


def test_where_a_thing_is_moved_into_when_the_parser_hangs_it_on_the_thing(under):
    facts = _facts(under("vineyard"), "We moved the 2021 Reserve into amphorae.")
    assert ("reserve", "aged_in", "amphorae", False) in facts


def test_a_name_acting_on_a_names_slot_noun(under):
    facts = _facts(under("coworking"), "Omar handles Initech's invoices now.")
    assert ("initech", "billing_contact", "Omar", False) in facts
    ended = _facts(under("coworking"), "Omar no longer handles Initech's invoices.")
    assert ("initech", "billing_contact", "Omar", True) in ended


@pytest.mark.parametrize("name, text, ended, now", [
    ("coworking", "Omar no longer handles Initech's invoices; Bea does.", ("initech", "billing_contact", "Omar", True),
     ("initech", "billing_contact", "Bea", False)),
    ("brewery", "Kofi doesn't brew the mild any more, Ines does.", ("mild", "brewer", "Kofi", True),
     ("mild", "brewer", "Ines", False)),
])
def test_one_who_does_so_after_an_end_is_its_successor(under, name, text, ended, now):
    facts = _facts(under(name), text)
    assert ended in facts and now in facts


def test_any_more_says_a_state_is_over(rules):
    assert ("user", "lives_in", "Leeds", True) in _facts(rules, "I don't live in Leeds any more.")
    assert not any(f[0] == "tom" for f in _facts(rules, "I quit smoking and so did Tom."))


def test_a_thing_sold_to_someone_is_handed_over(under, rules):
    facts = _facts(under("marina"), "Mrs Hart sold Kestrel to the Osbornes.")
    assert ("kestrel", "boat_owner", "Osbornes", False) in facts
    assert ("user", "drives", "Polo", True) in _facts(rules, "I sold my Polo to my cousin.")  # (one's own: an end)
