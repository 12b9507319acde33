"""A thing said to work "on" a service as its examples say it ("The web app builds on Buildkite"), a name's thing said
with describing words ("Rosa's cheese stall"), a name taken out of a thing, a "from" phrase that says when, and, in
personal life, work said by a named one's verb, one standing in a role, a move to a job (rules-30). Sentences of their
own, none of the update sets'."""

from __future__ import annotations

from .said import facts_said as _facts


def test_a_thing_said_to_work_on_a_service_as_the_examples_say_keeps_its_side(under):
    """mobileapp.toml says "The iOS app builds on Bitrise" of "the service that builds and tests an app": the app is
    the subject and the service its value, though the description's verb has the service as its doer."""
    said = _facts(under("mobileapp"), "The Wear OS app builds on Codemagic.")
    assert ("wear os", "build_service", "Codemagic", False) in said, said
    assert not any(f[0] == "codemagic" for f in said), said


def test_a_names_thing_said_with_describing_words_is_the_names(under):
    said = _facts(under("market"), "Dev's flower stall is on pitch 7.")
    assert ("dev", "stall_pitch", "pitch 7", False) in said, said


def test_a_name_taken_out_of_a_thing_ends_its_value_and_it_is_the_thing_that_does_the_next(under):
    said = _facts(under("mobileapp"), "We pulled Bugsnag out of the web app and it reports to Rollbar now.")
    assert ("web", "crash_reporter", "Bugsnag", True) in said, said
    assert ("web", "crash_reporter", "Rollbar", False) in said, said
    assert not any(f[0] == "bugsnag" for f in said), said


def test_a_from_phrase_before_the_subject_says_when_not_what(under):
    """"release" in "From the 3.0 release" is no release manager's word: the clause is the app's oldest OS."""
    said = _facts(under("mobileapp"), "From the 3.0 release the web app needs Android 12 or later.")
    assert {f[1] for f in said} == {"min_os_version"}, said


def test_work_said_by_what_a_named_one_does_at_a_place(rules):
    said = _facts(rules, "My husband Tariq teaches at Fairfield High.")
    assert ("tariq", "works_at", "Fairfield High", False) in said, said
    assert not any(f[1] == "studies_at" for f in said), said
    assert not any(f[1] == "works_at" for f in _facts(rules, "The nurses at Fairfield are kind.")), \
        "a describing word is no one who works"


def test_one_standing_in_a_role_of_the_speakers_holds_it(rules):
    said = _facts(rules, "Gail is off sick, so Marcus is acting as my manager.")
    assert ("user", "has_manager", "Marcus", False) in said, said


def test_a_move_to_a_job_is_work_not_a_home(rules):
    said = _facts(rules, "I moved to a new role at Nationwide in May.")
    assert ("user", "works_at", "Nationwide", False) in said, said
    assert not any(f[1] == "lives_in" for f in said), said


def test_work_said_by_what_a_named_one_is_doing_for_a_name(rules):
    said = _facts(rules, "Kemi is driving for Deliveroo this summer.")
    assert ("kemi", "works_at", "Deliveroo", False) in said, said
    assert not any(f[1] == "drives" for f in said), said


def test_a_subject_read_at_a_university_is_studied(rules):
    said = _facts(rules, "My cousin says I'm reading geography at uni.")
    assert ("user", "field_of_study", "geography", False) in said, said
    assert not any(f[1] == "field_of_study" for f in _facts(rules, "I'm reading Middlemarch at the moment.")), \
        "a book read is no subject"


def test_a_value_said_as_one_of_many_is_no_value_of_a_slot_whose_examples_say_theirs_bare(rules):
    """field_of_study's examples say "chemistry", "law", "history": "a magistrate" is none of its values."""
    said = _facts(rules, "I've just become a magistrate.")
    assert not any(f[1] == "field_of_study" for f in said), said


def test_a_numbered_place_read_as_a_verb_is_a_value(under):
    """The small parser reads "to pitch 15" as an infinitive: the numbered noun is where the stall went."""
    said = _facts(under("market"), "Sol has moved his stall up to pitch 15.")
    assert ("sol", "stall_pitch", "pitch 15", False) in said, said


def test_a_time_of_day_after_a_verb_the_parser_read_as_a_noun_is_the_value(under):
    """The small parser takes "leaves" in "The Paris flight leaves at 21:40" for a noun: the clause's surface gives
    the flight's departure time (airline.toml), not another slot's."""
    said = _facts(under("airline"), "The Paris flight leaves at 21:40.")
    assert ("paris", "departure_time", "21:40", False) in said, said
    said = _facts(under("airline"), "The Leeds flight leaves at 7pm.")
    assert ("leeds", "departure_time", "7pm", False) in said and not any(f[1] == "aircraft_type" for f in said), said


def test_a_thing_said_by_its_number_after_a_verb_the_parser_misread_is_a_value(under):
    """The small parser reads "Gwen inspects hive 4" as a compound and a verb "hive": the surface gives the name, its
    verb and the numbered thing, which the hive's inspector slot (apiary.toml) turns round."""
    assert ("hive 4", "inspector", "Gwen", False) in _facts(under("apiary"), "Gwen inspects hive 4.")
    assert ("van 6", "serviced_by", "Halfords", False) in _facts(under("fleet"), "Halfords services van 6.")
