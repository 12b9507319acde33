"""Moves, ends and who holds what, read structurally (rules-21): a name the parser took for an adverb as the
subject of a role, one who goes to a thing of the group's (no slot of it), "it" after a thing of the speaker's,
a chat line that drops its "I", a place of work that is no home, a street address that is one, "we are" said
of the speaker, a year of a school that is no job, and an end said as the time of another clause. Sentences
of their own, none of the update sets'."""

from __future__ import annotations

import pytest

from .said import facts_said as _facts
from .said import under as _under


@pytest.fixture(scope="module")
def builder(embedder):
    return _under(embedder, "construction")


def test_a_name_the_parser_took_for_an_adverb_holds_the_role(builder):
    """spaCy's small model tags "Kier" an adverb of "is": the role's holder all the same."""
    facts = _facts(builder, "Kier is the main contractor on the Eastfield depot.")
    assert ("eastfield depot", "main_contractor", "Kier", False) in facts
    assert not any(f[0] == "user" for f in facts)


def test_one_who_goes_to_a_thing_of_the_groups_holds_no_slot_of_it(builder):
    """construction.toml's project lists "job": Nina Shah going to the Harlow job says no slot's value (not a
    site manager whose value is a job, nor the job's stage); what she does there is not said."""
    assert not _facts(builder, "Nina Shah has moved to the Harlow job.")


def test_it_after_a_thing_of_the_speakers_is_the_speakers(rules):
    assert ("user", "uses_phone", "Galaxy S24", False) in _facts(rules, "Replaced my phone, it's a Galaxy S24 now.")


def test_what_an_ended_thing_was_is_no_new_value(rules):
    facts = _facts(rules, "I sold my van, it was a Transit.")
    assert not any(f[1] == "drives" and not f[3] for f in facts)


@pytest.mark.parametrize("text, new, old", [
    ("Sold my Corsa and bought a Polo.", "Polo", "Corsa"),
    ("Got rid of my Fiesta and bought a Jazz.", "Jazz", "Fiesta"),
])
def test_a_chat_line_that_drops_its_i_is_the_speakers(rules, text, new, old):
    facts = _facts(rules, text)
    assert ("user", "drives", new, False) in facts
    assert ("user", "drives", old, True) in facts


@pytest.mark.parametrize("text", ["Priya moved to the Bristol office last week.",
                                  "I've been transferred to the York branch."])
def test_a_place_of_work_one_is_moved_to_is_no_home(rules, text):
    assert not any(f[1] in ("lives_in", "studies_at", "has_pet") for f in _facts(rules, text))


def test_an_office_a_groups_own_slot_names_is_still_read(embedder):
    """people.toml has an office slot: there a move to "our Lisbon office" is that slot's change."""
    facts = _facts(_under(embedder, "people"), "Tomasz relocated to our Lisbon office.")
    assert any(f[0] == "tomasz" and f[1] == "office" and "Lisbon" in f[2] for f in facts)


@pytest.mark.parametrize("text, value", [
    ("Our new address is 27 Orchard Road.", "27 Orchard Road"),
    ("New address: 4 Kings Crescent.", "4 Kings Crescent"),
])
def test_a_street_address_of_ones_own_is_where_one_lives(rules, text, value):
    assert ("user", "lives_in", value, False) in _facts(rules, text)


@pytest.mark.parametrize("text", ["My work address is 5 Dock Street.", "My email address is ana@example.org."])
def test_an_address_of_work_or_mail_is_no_home(rules, text):
    assert not any(f[1] == "lives_in" for f in _facts(rules, text))


@pytest.mark.parametrize("text, fact", [
    ("We're married now!", ("user", "relationship_status", "married", False)),
    ("We are vegetarian these days.", ("user", "diet", "vegetarian", False)),
])
def test_we_are_is_said_of_the_speaker(rules, text, fact):
    assert fact in _facts(rules, text)


def test_a_year_of_a_school_is_no_job(rules):
    facts = _facts(rules, "I'm a final-year at Cardiff University.")
    assert ("user", "studies_at", "Cardiff University", False) in facts
    assert not any(f[1] in ("job_title", "works_at") for f in facts)


def test_a_job_at_a_school_is_still_a_job(rules):
    facts = _facts(rules, "I'm a lecturer at Cardiff University.")
    assert ("user", "works_at", "Cardiff University", False) in facts
    assert ("user", "job_title", "lecturer", False) in facts


@pytest.mark.parametrize("text", ["I joined Arup after leaving Atkins.",
                                  "Joined Arup's rail team after leaving Atkins."])
def test_an_end_said_as_the_time_of_another_clause_ends_the_slot(rules, text):
    facts = _facts(rules, text)
    assert ("user", "works_at", "Arup", False) in facts
    assert ("user", "works_at", "Atkins", True) in facts


@pytest.fixture(scope="module")
def trials(embedder):
    return _under(embedder, "trials")


def test_a_slots_state_noun_said_with_whose_names_its_owner(trials):
    """trials.toml's sponsor "funds a trial": "funding for DELTA" is DELTA's sponsor."""
    assert ("delta", "sponsor", "Pfizer", False) in _facts(trials, "Funding for DELTA now comes from Pfizer.")


def test_a_role_said_by_its_letters_on_a_thing_is_the_things(trials):
    """"its PI" in the description: one who took over as PI on a trial is its principal investigator."""
    facts = _facts(trials, "Dr Ines Roth took over as PI on CALM-3.")
    assert ("calm-3", "principal_investigator", "Dr Ines Roth", False) in facts


def test_a_verb_said_of_a_slots_doer_leans_to_the_slot(embedder):
    """radio.toml's presenter "hosts a radio show": "is presented by" says a presenter, not a producer or studio."""
    facts = _facts(_under(embedder, "radio"), "The Weekend Show is presented by Ruth Ames.")
    assert any(f[1] == "presenter" and f[2] == "Ruth Ames" for f in facts)


def test_a_thing_moved_onto_a_value_keeps_its_whole_name(embedder):
    facts = _facts(_under(embedder, "radio"), "Early Doors Soul has been moved to Mondays.")
    assert ("early doors soul", "time_slot", "Mondays", False) in facts


@pytest.mark.parametrize("text, place", [("I'm in a houseshare in Peckham.", "Peckham"),
                                         ("We've been renting in Headingley.", "Headingley")])
def test_a_shared_or_rented_home_is_where_one_lives(rules, text, place):
    assert ("user", "lives_in", place, False) in _facts(rules, text)


@pytest.mark.parametrize("text, fact", [
    ("I've changed my email to kim@example.net.", ("user", "email", "kim@example.net", False)),
    ("I switched my GP to Dr Obi.", ("user", "gp", "Dr Obi", False)),
])
def test_a_thing_of_mine_changed_to_a_value_is_its_value(rules, text, fact):
    facts = _facts(rules, text)
    assert fact in facts
    assert not any(f[1] in ("works_at", "has_pet", "drives") for f in facts)


@pytest.mark.parametrize("text, name", [("My phone's a scratched iPhone 12.", "iPhone 12"),
                                        ("Work gave me a Pixel 8a, so that's my phone now.", "Pixel 8a")])
def test_a_phone_said_by_its_model_keeps_it(rules, text, name):
    assert ("user", "uses_phone", name, False) in _facts(rules, text)


@pytest.mark.parametrize("text, drug", [("I take bisoprolol for my heart.", "bisoprolol"),
                                        ("I've been put on pregabalin.", "pregabalin")])
def test_a_drug_named_by_its_stem_is_a_medication(rules, text, drug):
    assert ("user", "takes_medication", drug, False) in _facts(rules, text)


@pytest.mark.parametrize("text", ["I was moved to the night shift.", "I've been put on a waiting list."])
def test_the_speaker_put_onto_a_thing_takes_no_value(rules, text):
    assert not any(f[1] in rules.vocab.predicates for f in _facts(rules, text))


@pytest.mark.parametrize("text, title", [("I'm a trainee pharmacist.", "trainee pharmacist"),
                                         ("I'm now an associate solicitor.", "associate solicitor")])
def test_a_title_whose_head_is_a_job_is_a_job(rules, text, title):
    assert ("user", "job_title", title, False) in _facts(rules, text)


def test_a_class_word_said_with_spaces_for_its_hyphen_is_the_word(rules):
    assert ("user", "diet", "dairy-free", False) in _facts(rules, "I follow a dairy-free diet.")


def test_one_that_has_become_my_favourite_is_it(rules):
    assert ("user", "favorite_band", "Wet Leg", False) in _facts(rules, "Wet Leg have become my favourite band.")


@pytest.mark.parametrize("text", ["I'm seeing someone new, Idris.", "I'm dating a guy called Idris."])
def test_someone_said_then_named_is_the_name(rules, text):
    assert ("user", "partner", "Idris", False) in _facts(rules, text)


def test_a_model_said_of_the_slots_own_noun_is_its_value(rules):
    assert ("user", "uses_phone", "Fairphone 5", False) in _facts(rules, "My new phone is a Fairphone 5.")


@pytest.fixture(scope="module")
def fleet(embedder):
    return _under(embedder, "shipping")


def test_one_with_a_persons_title_acting_on_a_name_is_its_value(fleet):
    """shipping.toml's examples give titled captains as the master: "Captain Ruiz commands the Isle of Mull" is the
    ship's master, not a master whose value is the ship."""
    assert ("isle of mull", "master", "Captain Ruiz", False) in _facts(fleet, "Captain Ruiz commands the Isle of Mull.")


@pytest.mark.parametrize("text", ["Captain Ruiz has taken command of the Isle of Mull.",
                                  "Captain Okoro handed over command of the Isle of Mull to Captain Ruiz."])
def test_command_of_a_named_thing_taken_or_handed_over_is_its_holder(fleet, text):
    assert ("isle of mull", "master", "Captain Ruiz", False) in _facts(fleet, text)


def test_taken_on_by_an_employer_is_working_there(rules):
    assert ("user", "works_at", "Lidl", False) in _facts(rules, "I got taken on by Lidl as a supervisor.")


def test_one_said_to_have_become_a_relation_is_named_not_a_placeholder(rules):
    """docs/labelling.md: "my best friend" with the friend's name said is the name, not "User's best friend"."""
    facts = _facts(rules, "Ayesha has become my best friend.")
    assert ("user", "has_friend", "Ayesha", False) in facts
    assert not any("'s" in f[2] for f in facts)


def test_one_acting_on_a_thing_of_their_own_holds_no_slot_of_it(embedder):
    """council.toml: "Cllr Moss lost her seat" says no slot of a seat (not the seat's portfolio holder)."""
    facts = _facts(_under(embedder, "council"), "Cllr Ada Moss lost her seat.")
    assert not any(f[0] == "seat" for f in facts)
