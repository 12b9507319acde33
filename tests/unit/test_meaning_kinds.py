"""Names said with their kind, and values said through a noun (rules-22): "the tapir Tavi" and "Bongo the gorilla"
whose kind the small parser misreads, a kind that weighs nothing in the masked clause, a possessive charge
("Kandula's care"), a value said as "a diet of X", a value said with its slot's noun where the examples name
one, a verb's lemma as a cue, a full stop the tokenizer kept on a name, homes one moves back to or lives on, a
year of study at a place, an adverb between "have" and "been", cases named by their parties ("R v Okoro"), a
name taken for a verb, a value said with a slot's keyword, irregular participles, "the X I love most" and "put me
on X". Sentences of their own, none of the update sets'."""

from __future__ import annotations

import pytest

from kg_memory.extract import parse
from kg_memory.extract.exemplars import mask

from .said import facts_said as _facts


def test_a_name_after_its_kind_is_parsed_as_the_subject():
    """spaCy's small model heads "The tortoise Rosa lives in ..." with "tortoise" and hangs the rest on it as a
    relative clause; the repaired parse makes "Rosa" the subject's name."""
    doc = parse.parsed("The tortoise Rosa lives in the Reptile House.")
    verb = next(t for t in doc if t.lemma_ == "live")
    assert verb.dep_ == "ROOT"
    assert any(t.text == "Rosa" and t.dep_ == "appos" for t in doc)


def test_a_name_set_after_a_noun_of_the_subject_is_that_nouns_name(under):
    """"the keeper of the camel Omar is ...": the parser made "Omar" a second subject of "is"."""
    assert ("omar", "keeper", "Lucy Hart", False) in _facts(under("zoo"), "The keeper of the camel Omar is Lucy Hart.")


def test_a_kind_and_a_name_made_two_subjects_keep_the_name(under):
    facts = _facts(under("zoo"), "The sloth Mango is looked after by Keeper Ian Cole.")
    assert ("mango", "keeper", "Keeper Ian Cole", False) in facts
    assert not any(f[0] == "sloth" for f in facts)


def test_a_subject_the_parser_hung_on_its_auxiliary_is_read(under):
    assert ("sunny", "feed", "mealworms", False) in _facts(under("zoo"), "The meerkat Sunny is fed mealworms.")


@pytest.mark.parametrize("text, masked", [
    ("The lion Asha lives in the Pride Lands", "S lives in the X"),
    ("Keeper Jo looks after the red panda Ruby", "X looks after S"),
    ("Rocco the rhino is cared for by Kim", "S is cared for by X"),
    ("The billing service is run by Tom", "S is run by X"),
])
def test_a_names_kind_is_masked_with_it(text, masked):
    subject, value = {"S lives in the X": ("Asha", "Pride Lands"), "X looks after S": ("Ruby", "Keeper Jo"),
                      "S is cared for by X": ("Rocco", "Kim"), "S is run by X": ("billing service", "Tom")}[masked]
    assert mask(text, subject, value) == masked


def test_a_kind_that_no_relation_says_does_not_pick_the_slot(under):
    """zoo.toml's vet example names "the tapir Tavi": another tapir's home is still its enclosure."""
    facts = _facts(under("zoo"), "The tapir Bruno lives in the Cloud Forest House.")
    assert ("bruno", "enclosure", "Cloud Forest House", False) in facts
    assert not any(f[1] == "vet" for f in facts)


def test_a_charge_said_with_a_possessive_is_of_the_possessor(under):
    facts = _facts(under("zoo"), "Dr Lowe has handed Ziggy's care over to Dr Anna Bryce.")
    assert ("ziggy", "vet", "Dr Anna Bryce", False) in facts  # (and no full stop kept on the name)
    assert not any(f[0] == "care" for f in facts)


def test_a_value_said_as_a_slot_noun_of_it_is_the_value(under):
    assert ("sunny", "feed", "crickets", False) in _facts(under("zoo"), "Sunny has been moved onto a diet of crickets.")


def test_a_value_said_with_its_slots_noun_is_taken_where_examples_name_one(under):
    """railway.toml's livery examples name their values ("TransPennine blue"): "the new red livery" is one too."""
    facts = _facts(under("railway"), "Unit 158 711 has been repainted in the new red livery.")
    assert ("unit 158 711", "livery", "new red livery", False) in facts


def test_a_named_place_with_its_kind_is_the_slots_owner(under):
    """"Crewe South depot is managed by ...": Crewe South's manager (not "South", nor the depot slot)."""
    facts = _facts(under("railway"), "Crewe South depot is managed by Hana Ito.")
    assert ("crewe south", "line_manager", "Hana Ito", False) in facts


def test_a_verbs_lemma_cues_its_slot(under):
    """"cared" is too short to stem; its lemma "care" is a word of the keeper's description."""
    assert ("rocco", "keeper", "Kim Doyle", False) in _facts(under("zoo"), "Rocco the rhino is cared for by Kim Doyle.")


@pytest.mark.parametrize("text, place", [
    ("I moved back to my mum's place in Dundee.", "Dundee"),
    ("We've been living on a narrowboat on the canal in Banbury.", "Banbury"),
])
def test_a_home_one_moves_to_or_lives_on_is_where_one_lives(rules, text, place):
    assert ("user", "lives_in", place, False) in _facts(rules, text)


def test_an_old_home_one_only_visits_is_not(rules):
    assert not any(f[1] == "lives_in" for f in _facts(rules, "I cleaned my mum's place in Dundee."))


def test_a_year_of_study_at_a_place_is_studied_at(rules):
    facts = _facts(rules, "I'm a second-year at Sheffield Hallam.")
    assert ("user", "studies_at", "Sheffield Hallam", False) in facts
    assert not any(f[1] in ("works_at", "job_title") for f in facts)


def test_an_adverb_between_have_and_been_keeps_the_phrase(rules):
    assert ("user", "job_title", "senior buyer", False) in _facts(rules, "I've finally been promoted to senior buyer.")


def test_handing_in_ones_notice_ends_the_job(rules):
    assert ("user", "works_at", "Lidl", True) in _facts(rules, "I handed in my notice at Lidl.")


def test_a_case_named_by_its_parties_is_one_name(under):
    facts = _facts(under("courts"), "Judge Ellery is hearing R v Hussain.")
    assert ("r v hussain", "judge", "Judge Ellery", False) in facts


def test_the_slots_noun_in_a_named_thing_is_that_things(under):
    """"the prosecutor in R v Kemp": R v Kemp's; (the parser hangs "R" on "Kemp" and "v" on "R")."""
    facts = _facts(under("courts"), "The prosecutor in R v Kemp is Gina Tate.")
    assert ("r v kemp", "prosecutor", "Gina Tate", False) in facts


def test_my_slot_in_a_place_stays_mine(rules):
    assert ("user", "doctor", "Dr Imrie", False) in _facts(rules, "My doctor in Perth is Dr Imrie.")


def test_a_name_the_parser_took_for_a_verb_after_and_starts_a_clause_of_its_own(under):
    """"Speke" tagged a verb joined to "retired": the clause after "and" is read alone, its station Croxby's."""
    facts = _facts(under("fire"), "Alan Moss retired and Croxby fire station is now commanded by Jo Lyons.")
    assert ("croxby", "station_commander", "Jo Lyons", False) in facts
    assert not any(f[0] == "alan moss" for f in facts)


def test_a_value_said_with_a_keyword_of_a_slot_with_no_class(rules):
    assert ("user", "field_of_study", "chemistry degree", False) in _facts(rules, "I'm doing a chemistry degree.")
    assert not any(f[1] == "field_of_study" for f in _facts(rules, "I'm doing a degree."))


@pytest.mark.parametrize("text, value", [
    ("I've gone pescatarian.", "pescatarian"),
    ("I've cut out sugar and gone keto.", "keto"),
])
def test_an_irregular_pasts_participle_keeps_the_phrase(rules, text, value):
    assert ("user", "diet", value, False) in _facts(rules, text)


def test_the_one_liked_most_is_the_favourite(rules):
    facts = _facts(rules, "The album I like best is Blue.")
    assert ("user", "favorite_album", "Blue", False) in facts


def test_one_who_puts_me_on_a_value_makes_it_mine(rules):
    assert ("user", "takes_medication", "pregabalin", False) in _facts(rules, "The consultant put me on pregabalin.")


def test_a_name_joined_to_the_noun_before_it_starts_its_own_clause_past_an_adverb(under):
    facts = _facts(under("vineyard"), "Mia has left the estate and Rafael now manages the Chapel block.")
    assert ("chapel", "block_manager", "Rafael", False) in facts
    assert not any(f[2] == "Mia" and f[1] == "block_manager" for f in facts)


@pytest.mark.parametrize("text, fact", [
    ("I'm currently working for Lush.", ("user", "works_at", "Lush", False)),
    ("I was made a senior engineer in March.", ("user", "job_title", "senior engineer", False)),
    ("I'm going out with Noor.", ("user", "partner", "Noor", False)),
    ("I finished at Hull College.", ("user", "studies_at", "Hull College", True)),
    ("I go to Filton College.", ("user", "studies_at", "Filton College", False)),
])
def test_phrasings_in_their_forms(rules, text, fact):
    assert fact in _facts(rules, text)


def test_a_name_gone_to_that_names_no_slots_kind_is_no_slots_value(rules):
    assert not any(f[1] == "studies_at" for f in _facts(rules, "We go to St Anne's Church."))


def test_a_value_that_stopped_working_said_with_what_came_after_ends(rules):
    facts = _facts(rules, "Sumatriptan stopped working, so my GP put me on rizatriptan.")
    assert ("user", "takes_medication", "rizatriptan", False) in facts
    assert any(f[1] == "takes_medication" and f[3] and f[2].lower() == "sumatriptan" for f in facts)


def test_a_fault_said_alone_ends_nothing(rules):
    assert not any(f[3] for f in _facts(rules, "My Fitbit stopped working last week."))


@pytest.mark.parametrize("text", ["I bought a Kindle.", "I finally bought a new MacBook."])
def test_a_thing_bought_that_is_not_of_the_slots_kind_is_no_value_of_it(rules, text):
    assert not any(f[1] == "drives" for f in _facts(rules, text))


def test_a_car_bought_is_driven(rules):
    assert ("user", "drives", "Toyota Yaris", False) in _facts(rules, "I bought a Toyota Yaris.")


def test_where_the_speaker_is_after_an_end_is_the_slots_new_value(rules):
    facts = _facts(rules, "I handed in my notice at Costa and I'm at Pret now.")
    assert ("user", "works_at", "Costa", True) in facts
    assert ("user", "works_at", "Pret", False) in facts


def test_where_the_speaker_is_after_an_end_of_several_slots_takes_none_of_them_blindly(rules):
    """"left" ends where one lived, worked or studied: the first of them is no guide ("Lidl" is no home)."""
    facts = _facts(rules, "I left Tesco and I'm at Lidl now.")
    assert not any(f[2] == "Lidl" and f[1] in ("lives_in", "studies_at") for f in facts)


def test_hired_as_a_role_at_a_name(rules):
    facts = _facts(rules, "Got hired as a sous chef at Dishoom last month.")
    assert ("user", "job_title", "sous chef", False) in facts
    assert ("user", "works_at", "Dishoom", False) in facts


@pytest.mark.parametrize("text, car", [
    ("I get around in a battered old Vauxhall Astra.", "Vauxhall Astra"),
    ("We run about in a Toyota Aygo.", "Toyota Aygo"),
])
def test_a_named_vehicle_one_gets_about_in_is_driven(rules, text, car):
    assert ("user", "drives", car, False) in _facts(rules, text)


def test_a_vehicle_with_no_name_one_gets_about_in_is_no_car(rules):
    assert not any(f[1] == "drives" for f in _facts(rules, "I get to work in a taxi."))


def test_a_notice_handed_in_is_no_thing_moved(rules):
    """"I handed in my notice at Primark and I'm at Next now": the surface reading keeps the speaker as the subject
    (it made "notice" the subject, as "we handed the app over" makes the app)."""
    facts = _facts(rules, "I handed in my notice at Matalan and I'm at Zara now.")
    assert ("user", "works_at", "Zara", False) in facts
    assert not any(f[0] == "notice" for f in facts)
