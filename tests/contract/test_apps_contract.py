"""Changes said in a team's and a market's words (both stores, rules-30): a name taken out of a thing ends its value
and "it" is the thing that takes the next; a thing that "builds on" a service keeps its side; a name's thing said with
describing words is the name's, so the later change replaces it. Sentences of their own, none of the update sets'."""

from __future__ import annotations

from pathlib import Path

from .test_ontology_contract import _held

ONTOLOGIES = Path(__file__).resolve().parents[1] / "fixtures" / "ontologies"


def test_a_name_taken_out_of_a_thing_is_replaced_by_what_it_does_now(make_memory, group):
    now, before = _held(make_memory, group, ONTOLOGIES / "mobileapp.toml",
                        ["The web app sends its crashes to Bugsnag.",
                         "We pulled Bugsnag out of the web app and it reports to Rollbar now."], "crash_reporter")
    assert now == {("web", "Rollbar")} and before == {("web", "Bugsnag")}


def test_a_thing_that_builds_on_a_service_changes_service(make_memory, group):
    now, before = _held(make_memory, group, ONTOLOGIES / "mobileapp.toml",
                        ["The Wear OS app builds on Codemagic.",
                         "The Wear OS app's builds have moved over to Bitrise."], "build_service")
    assert now == {("Wear OS", "Bitrise")} and before == {("Wear OS", "Codemagic")}


def test_a_names_thing_said_with_describing_words_is_replaced_by_the_names_change(make_memory, group):
    now, before = _held(make_memory, group, ONTOLOGIES / "market.toml",
                        ["Dev's flower stall is on pitch 7.", "Dev has moved his stall up to pitch 15."], "stall_pitch")
    assert now == {("Dev", "pitch 15")} and before == {("Dev", "pitch 7")}
