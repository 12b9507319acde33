"""Which one is meant, and who holds it (rules-26): a plural noun's possessive with a bare apostrophe is a word of the
thing's name ("the Saturday kids' class"), not one's own ("my grandparents' house"); "one of Bea's" names Bea;
"Lou's away" is "Lou is away"; a role's noun said as a verb in "-ing" ("is engineering") is done by the slot's value;
a taking over said beside another adverb ("so Rafa has taken over"); a relation set beside the name it is of
("Imogen, my wife, ..."); "off X onto Y"; a verb the parser took for a plural noun after a name. Sentences of their
own, none of the update sets'."""

from __future__ import annotations

import pytest

from kg_memory.extract import parse
from kg_memory.extract.values import noun_phrase, value_text

from .said import facts_said as _facts


def test_a_plural_possessive_with_a_bare_apostrophe_is_a_word_of_the_name():
    doc = parse.parsed("Omar runs the Saturday kids' class.")
    cls = next(t for t in doc if t.text == "class")
    assert noun_phrase(cls, frozenset()) == "Saturday kids' class"
    assert value_text(cls) == "Saturday kids' class"


def test_ones_own_plural_possessive_is_no_word_of_the_name():
    doc = parse.parsed("I moved back into my grandparents' house in Ely.")
    house = next(t for t in doc if t.text == "house")
    assert "grandparents" not in noun_phrase(house, frozenset())
    assert "grandparents" not in value_text(house)


def test_a_class_named_by_a_plural_possessive_is_one_thing(under):
    facts = _facts(under("climbingwall"), "Omar runs the Saturday kids' class.")
    assert ("saturday kids", "instructor", "Omar", False) in facts
    assert not any(f[0] in ("class", "saturday") for f in facts)


def test_one_of_a_names_gives_the_name(under):
    facts = _facts(under("climbingwall"), "The crimp ladder is one of Bea's.")
    assert ("crimp ladder", "route_setter", "Bea", False) in facts


def test_a_names_s_said_for_is_before_an_adverb(under):
    for said in ("Lou's away, so Rafa has taken over the Lantern EP.",
                 "Lou is away, so Rafa has taken over the Lantern EP."):
        facts = _facts(under("studio"), said)
        assert ("lantern ep", "engineer", "Rafa", False) in facts, said
        assert not any(f[2] == "Lou" for f in facts)


def test_a_roles_noun_said_as_a_verb_in_ing_is_done_by_the_value(under):
    facts = _facts(under("studio"), "Tariq is engineering the Ashgrove record.")
    assert any(f[1:] == ("engineer", "Tariq", False) and f[0].startswith("ashgrove") for f in facts)
    assert not any(f[0] == "tariq" for f in facts)


def test_a_relation_set_beside_the_name_it_is_of(rules):
    assert ("user", "partner", "Imogen", False) in _facts(rules, "Imogen, my wife, is a nurse.")
    assert ("user", "partner", "Gethin", False) in _facts(rules, "I met Gethin, my husband, at college.")
    assert not any(f[1] == "partner" for f in _facts(rules, "Yesterday, my husband, who hates queues, went home."))


def test_off_one_value_onto_another_gives_the_second(rules):
    facts = _facts(rules, "My GP moved me off naproxen onto ibuprofen.")
    assert ("user", "takes_medication", "ibuprofen", False) in facts
    assert ("user", "takes_medication", "naproxen", False) not in facts


def test_a_verb_the_parser_took_for_a_plural_noun_after_a_name(under):
    first = parse.load_parser()("Schindler services the lifts.")
    assert not any(t.pos_ == "VERB" for t in first)  # (the misreading the repair is for)
    assert any(t.pos_ == "VERB" for t in parse.parsed("Schindler services the lifts."))
    facts = _facts(under("facilities"), "Schindler services the lifts.")
    assert ("lifts", "maintained_by", "Schindler", False) in facts


def test_one_who_lets_the_speaker_go_held_the_slot_and_the_next_employer_takes_it(rules):
    facts = _facts(rules, "Currys let me go in March, and Argos took me on.")
    assert ("user", "works_at", "Currys", True) in facts
    assert ("user", "works_at", "Argos", False) in facts
    assert ("user", "works_at", "Wickes", True) in _facts(rules, "Wickes laid me off.")
    assert not any(f[3] for f in _facts(rules, "Dad let me go to the match."))  # (going somewhere ends nothing)


def test_one_is_with_a_firm_as_a_role_not_with_a_partner(rules):
    facts = _facts(rules, "I'm with Accenture as an analyst.")
    assert ("user", "works_at", "Accenture", False) in facts and not any(f[1] == "partner" for f in facts)
    assert ("user", "partner", "Rowan", False) in _facts(rules, "I'm with Rowan.")


def test_a_slots_noun_the_parser_took_for_a_participle(under):
    """"Rhona is warden for the east meadow": the small parser reads "warden" as a passive verb ("-en")."""
    first = parse.load_parser()("Rhona is warden for the east meadow.")
    assert next(t for t in first if t.text == "warden").tag_ == "VBN"  # (the misreading this is for)
    facts = _facts(under("caravanpark"), "Rhona is warden for the east meadow.")
    assert ("east meadow", "warden", "Rhona", False) in facts


@pytest.mark.parametrize("text", ["We went over to Bruges for the weekend.", "I went back to Hull for Christmas."])
def test_a_visit_is_no_home(rules, text):
    assert not any(f[1] in ("lives_in", "studies_at", "works_at") for f in _facts(rules, text))


def test_a_move_for_a_reason_is_a_home(rules):
    assert ("user", "lives_in", "Bristol", False) in _facts(rules, "I moved to Bristol for a new job.")
