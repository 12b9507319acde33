"""Where things are kept and when people work (rules-25): a clause of its own after a code the parser took for a
verb ("... to bay 4 once it rained"); a preposition said after "out" or "over" ("out on the back bench"); a
hyphened modifier kept with its noun ("slow-release feed"); a plural noun opening a sentence is no name ("Tulips
are Omar's job"); one's own things kept in a numbered place; "at uni" names no place; words of time a group's
slots say are values ("on nights"); a thing's own part or event is no value ("had its service"); what another gives
the speaker; "team leader"; a home said as the copula's subject ("Our cottage is just outside Ludlow"). Sentences
of their own, none of the update sets'."""

from __future__ import annotations

import pytest

from kg_memory.extract import parse
from kg_memory.extract.values import noun_phrase

from .said import facts_said as _facts


def test_a_code_the_parser_took_for_a_verb_keeps_its_clause_apart(under):
    facts = _facts(under("brewery"), "We shifted the stout over to FV7 when it had finished.")
    assert ("stout", "vessel", "FV7", False) in facts


def test_a_preposition_said_after_out_gives_the_place(under):
    assert ("basil", "growing_house", "back bench", False) in _facts(under("nursery"),
                                                                      "The basil is out on the back bench.")


def test_a_hyphened_modifier_stays_with_its_noun(under):
    doc = parse.parsed("The slow-release feed arrived.")
    assert noun_phrase(doc[4], frozenset()) == "slow-release feed"
    facts = _facts(under("nursery"), "Our slow-release feed comes from Vitax.")
    assert ("slow-release feed", "supplier", "Vitax", False) in facts


def test_a_plural_noun_opening_a_sentence_is_no_name(under):
    facts = _facts(under("nursery"), "Tulips are Omar's job now.")
    assert ("tulips", "grower", "Omar", False) in facts
    assert not any(f[0] == "omar" for f in facts)


def test_ones_own_things_kept_in_a_numbered_place_give_the_place(under):
    facts = _facts(under("makerspace"), "Jo keeps his tools in locker 17.")
    assert ("jo", "locker", "locker 17", False) in facts
    assert not any(f[2] == "tools" for f in facts)


def test_at_uni_names_no_place(rules):
    facts = _facts(rules, "I'm studying law at uni.")
    assert ("user", "field_of_study", "law", False) in facts
    assert not any(f[2] == "uni" for f in facts)


def test_words_of_time_the_slots_say_are_values(under):
    assert ("priya", "shift", "nights", False) in _facts(under("taxifirm"), "Priya is on nights.")
    assert ("dev", "shift", "weekends", False) in _facts(under("taxifirm"), "Dev works weekends.")


def test_words_of_time_are_no_value_where_no_slot_says_so(rules):
    assert not any(f[2] == "nights" for f in _facts(rules, "I moved to nights."))


def test_a_things_own_part_or_event_is_no_value(under):
    facts = _facts(under("taxifirm"), "Cab 3 had its service, so Dev is in cab 9.")
    assert ("dev", "assigned_car", "cab 9", False) in facts
    assert not any("service" in f[2] for f in facts)


def test_what_another_gives_the_speaker_after_an_end_is_the_speakers_change(rules):
    facts = _facts(rules, "The nurse stopped my sertraline and gave me citalopram.")
    assert ("user", "takes_medication", "citalopram", False) in facts
    assert ("user", "takes_medication", "sertraline", True) in facts
    assert not any(f[0] == "nurse" for f in facts)


def test_a_team_leader_is_a_manager(rules):
    assert ("user", "has_manager", "Femi", False) in _facts(rules, "Femi is my team leader.")


@pytest.mark.parametrize("text, town", [("Our cottage is just outside Ludlow.", "Ludlow"),
                                        ("Our flat is above a chemist in Hove.", "Hove")])
def test_a_home_said_as_the_copulas_subject_is_where_one_lives(rules, text, town):
    assert ("user", "lives_in", town, False) in _facts(rules, text)


def test_because_of_gives_no_value(under):
    facts = _facts(under("gym"), "Because of the roadworks, spin now starts at 7.30pm.")
    assert not any(f[2] in ("of", "roadworks") for f in facts)


@pytest.mark.parametrize("text, gone, new", [
    ("The Corsa got written off, so I bought a Kia Picanto.", "Corsa", "Kia Picanto"),
    ("The Polo's gone; I bought a Seat Ibiza.", "Polo", "Seat Ibiza"),
    ("The Astra finally gave up, so I've leased a Nissan Leaf.", "Astra", "Nissan Leaf")])
def test_a_thing_lost_or_gone_ends_and_the_next_replaces_it(rules, text, gone, new):
    facts = _facts(rules, text)
    assert ("user", "drives", gone, True) in facts
    assert ("user", "drives", new, False) in facts


def test_one_who_gives_up_ends_nothing(rules):
    assert _facts(rules, "Tom gave up.") == set()


def test_a_role_done_at_a_name_gives_the_name(rules):
    from kg_memory.extract.clauses import readings

    found = readings(parse.parsed("I'm on the checkouts at Asda."), "User")
    assert [r.object for r in found] == ["Asda"]
    found = readings(parse.parsed("I do weekends at the Royal Free."), "User")
    assert [r.object for r in found] == ["Royal Free"]


def test_a_word_alone_before_rather_than_is_the_new_value_and_no_opener_is_one(under):
    facts = _facts(under("hotel"), "From Monday breakfast will be at eight rather than 7am.")
    assert not any(f[2] == "From" for f in facts)


def test_a_title_said_first_is_the_favourite_it_is_said_to_be(rules):
    assert ("user", "favorite_album", "Rumours", False) in _facts(rules, "Rumours is my favourite album now.")
    assert ("user", "favorite_film", "Heat", False) in _facts(rules, "Heat is my favourite film.")


def test_an_aside_that_opens_a_sentence_is_no_supposition(rules):
    facts = _facts(rules, "If I'm being honest, my favourite band these days is Idles.")
    assert ("user", "favorite_band", "Idles", False) in facts


@pytest.mark.parametrize("text", ["If we move to York I'll sell the car.", "I'd sell my car if I could."])
def test_an_end_to_come_or_supposed_is_no_end(rules, text):
    assert not any(f[3] for f in _facts(rules, text))


def test_an_end_said_with_a_supposition_after_it_still_ends(rules):
    assert ("user", "drives", "", True) in _facts(rules, "I sold my car so I could buy a bike.")


def test_a_state_lasting_since_a_season_is_held_now(rules):
    assert ("user", "lives_in", "Cardiff", False) in _facts(rules, "I've been in Cardiff since the autumn.")


def test_does_taken_for_an_auxiliary_is_read_as_the_verb(under):
    """"Leo does judo club after school": the small parser makes "does" an auxiliary of "club"."""
    from kg_memory.extract.repair import repaired

    sentence = "Leo does judo club after school."
    doc = repaired(parse.parsed(sentence), sentence, parse.parsed)
    assert any(t.dep_ == "ROOT" and t.pos_ == "VERB" for t in doc)


@pytest.mark.parametrize("text, who", [("Priya and I are finished.", "Priya"),
                                       ("Dan and I called it quits last spring.", "Dan"),
                                       ("Femi and I called it a day in June.", "Femi")])
def test_a_couple_that_ended_together_ends_the_partner(rules, text, who):
    facts = _facts(rules, text)
    assert ("user", "partner", who, True) in facts
    assert not any(f[2] in ("June", "spring") for f in facts)


@pytest.mark.parametrize("text, who", [("Ines and I have been dating since college.", "Ines"),
                                       ("Omar and I are together.", "Omar"),
                                       ("Zoe and I started going out in March.", "Zoe")])
def test_a_couple_said_together_is_the_speakers_partner(rules, text, who):
    assert ("user", "partner", who, False) in _facts(rules, text)


def test_each_clause_is_dated_by_its_own_date():
    from datetime import UTC, datetime

    from kg_memory.extract import dates

    said = datetime(2025, 10, 20, 12, tzinfo=UTC)
    sentence = "Ola and I split up in April; I've been with Sami since August."
    span = dates.resolve(sentence, said)
    assert dates.in_clause(sentence, sentence.find("Ola"), said, span).start.month == 4
    assert dates.in_clause(sentence, sentence.find("Sami"), said, span).start.month == 8
    assert dates.in_clause("We moved to Hull in May.", 3, said, span) is span  # (one clause: the sentence's)
    assert dates.in_clause("I split up in April; I live in Hull.", 25, said, span) is None


@pytest.mark.parametrize("name, other", [("the chillies", "chilli"), ("lorries", "lorry"), ("movies", "movie"),
                                         ("batches", "batch"), ("van", "vans"), ("the key", "keys"),
                                         ("the wood shop", "wood shops")])
def test_a_name_in_the_other_number(name, other):
    from kg_memory.ingest.holders import _numbers

    assert other in _numbers(name)
    assert _numbers("van 3") == () and "glas" not in _numbers("glass")
