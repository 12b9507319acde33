"""A group's own ontology on both stores: set, versioned, used by extraction for that group only,
refused when it would retype a predicate in use, and the changed slot's history right in time."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_memory.core.ontology import OntologyInUse, default_ontology, load_ontology_file

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "examples" / "ontologies" / "project.toml"

TURNS = [
    ("2026-01-10T10:00:00Z", "The billing service uses Postgres and deploys to Heroku."),
    ("2026-02-10T10:00:00Z", "The billing service is owned by Priya."),
    ("2026-05-10T10:00:00Z", "We finished migrating billing off Postgres; it runs on CockroachDB now."),
    ("2026-06-10T10:00:00Z", "Priya handed the billing service over to Tom."),
]


def _values(mem, group, predicate, **when):
    return sorted(f.object for f in mem.facts(group=group, predicate=predicate, **when))


def test_a_custom_ontology_drives_extraction_and_time(make_memory, group):
    mem = make_memory()
    assert mem.ontology(group).is_default
    change = mem.set_ontology(PROJECT, group=group)
    assert change.written and change.after == load_ontology_file(PROJECT).version
    assert mem.set_ontology(PROJECT, group=group).written is False  # the same version: nothing new
    assert mem.ontology(group).version == change.after and mem.ontology(f"{group}-other").is_default
    for at, text in TURNS:
        mem.add(text, group=group, occurred_at=at)
        mem.add(text, group=f"{group}-other", occurred_at=at)  # the same turns under the default ontology
    assert _values(mem, group, "uses_database") == ["CockroachDB"]
    assert _values(mem, group, "uses_database", as_of="2026-04-01") == ["Postgres"]
    assert _values(mem, group, "owned_by") == ["Tom"] and _values(mem, group, "owned_by", as_of="2026-04-01") == [
        "Priya"]
    assert _values(mem, group, "deploys_to") == ["Heroku"]
    history = [v for v in mem.facts(group=group, predicate="uses_database", all_versions=True)]
    closed = [v for v in history if v.object == "Postgres" and v.valid_to is not None]
    assert closed and closed[0].valid_to.date().isoformat() == "2026-05-10"
    assert all(v.prompt_version and v.prompt_version.endswith(f"+ontology:{change.after}") for v in history)
    assert mem.facts(group=f"{group}-other", predicate="uses_database") == []  # the default has no such slot


def test_a_change_changes_the_slot_its_subject_holds(make_memory, group):
    """"We moved the wiki to Notion" is near several slots in meaning (hosted on, owned by); the wiki
    holds one of them, and that is the one the change closes. A thing with no such slot gets nothing
    from a change too unsure to call, and the change ends a value named as said ("the Zone 2 plan")."""
    mem = make_memory()
    mem.set_ontology(PROJECT, group=group)
    mem.add("The wiki is hosted on Confluence Cloud.", group=group, occurred_at="2026-01-10T10:00:00Z")
    mem.add("We moved the wiki to Notion.", group=group, occurred_at="2026-03-10T10:00:00Z")
    assert _values(mem, group, "deploys_to") == ["Notion"]
    assert _values(mem, group, "deploys_to", as_of="2026-02-01") == ["Confluence Cloud"]
    assert _values(mem, group, "owned_by") == [] and _values(mem, group, "partner") == []
    mem.set_ontology(PROJECT, group=f"{group}-fresh")
    mem.add("We moved the wiki to Notion.", group=f"{group}-fresh", occurred_at="2026-03-10T10:00:00Z")
    assert [(f.subject, f.predicate, f.object) for f in mem.facts(group=f"{group}-fresh")] == []


def test_a_change_from_a_value_changes_the_slot_that_holds_it(make_memory, group):
    """"I switched from ibuprofen to naproxen": meaning ranks other slots first (a goal, a plan), but the
    user holds ibuprofen as a medication, so that is the slot the change ends and continues; the
    doctor's swap of "my omeprazole" is the speaker's."""
    mem = make_memory()
    mem.set_ontology(ROOT / "examples" / "ontologies" / "health.toml", group=group)
    mem.add("I'm taking ibuprofen for my knee.", group=group, occurred_at="2026-01-10T10:00:00Z")
    mem.add("I take omeprazole for reflux.", group=group, occurred_at="2026-01-11T10:00:00Z")
    mem.add("I switched from ibuprofen to naproxen.", group=group, occurred_at="2026-03-10T10:00:00Z")
    mem.add("The doctor swapped my omeprazole for famotidine.", group=group, occurred_at="2026-04-10T10:00:00Z")
    assert _values(mem, group, "takes_medication") == ["famotidine", "naproxen"]
    assert _values(mem, group, "takes_medication", as_of="2026-02-01") == ["ibuprofen", "omeprazole"]
    assert _values(mem, group, "fitness_goal") == [] and _values(mem, group, "training_plan") == []


def test_retyping_a_predicate_in_use_needs_force(make_memory, group, tmp_path):
    mem = make_memory()
    mem.set_ontology(PROJECT, group=group)
    mem.add("The billing service uses Postgres.", group=group, occurred_at="2026-01-10T10:00:00Z")
    retyped = tmp_path / "retyped.toml"
    retyped.write_text(PROJECT.read_text().replace('cardinality = "single"\nobject = "value"\n'
                                                   'description = "the database',
                                                   'cardinality = "multi"\nobject = "value"\n'
                                                   'description = "the database', 1))
    before = mem.ontology(group).version
    with pytest.raises(OntologyInUse, match="uses_database: retyped from single/value to multi/value"):
        mem.set_ontology(retyped, group=group)
    assert mem.ontology(group).version == before  # nothing written
    done = mem.set_ontology(retyped, group=group, force=True)
    assert done.written and mem.ontology(group).version != before and done.changes
    assert not mem.ontology(group).vocab.is_single("uses_database")
    assert default_ontology().is_default


def test_a_new_ontology_is_replayed_in_a_shadow_by_the_nightly_run(make_memory, group):
    """Facts made under the default; the group then gets its own ontology: the nightly run sees the
    facts were made by another version, builds the shadow under the new ontology and reports the diff;
    the live group is unchanged until a person promotes, and the promoted group keeps the ontology."""
    from kg_memory.maintenance.nightly import Maintenance
    from kg_memory.maintenance.shadow import shadow_of

    mem = make_memory()
    for at, text in TURNS[:3]:
        mem.add(text, group=group, occurred_at=at)
    assert _values(mem, group, "uses_database") == []
    jobs = Maintenance(mem)
    assert jobs.stale_versions(group) == []
    mem.set_ontology(PROJECT, group=group)
    assert jobs.stale_versions(group)  # made by the default's extractor version
    report = jobs.nightly([group])
    run = next(r for r in report.runs if r["job"] == "reextract")
    counts = run["counts"]
    assert run["outcome"] == "ok" and counts["stale"] >= 1 and counts["facts_shadow"] > counts["facts_live"], run
    assert counts["added"] >= 2  # billing's database and deployment, by the new ontology
    assert _values(mem, group, "uses_database") == []  # not promoted
    assert _values(mem, shadow_of(group), "uses_database") == ["CockroachDB"]
    assert mem.ontology(shadow_of(group)).version == mem.ontology(group).version
    jobs.promote(group)
    assert _values(mem, group, "uses_database") == ["CockroachDB"]
    assert not mem.ontology(group).is_default and jobs.stale_versions(group) == []
    again = next(r for r in jobs.nightly([group]).runs if r["job"] == "reextract")
    assert again["counts"] == {"stale": 0}


PERSONAL = ROOT / "examples" / "ontologies" / "personal.toml"
HEALTH = ROOT / "examples" / "ontologies" / "health.toml"


def test_an_end_that_names_the_slot_ends_the_one_held(make_memory, group):
    """"I sold my car" names no value: it ends whichever of the slots the noun names the speaker holds
    (the car they own, or the car they drive); "I came off sertraline" names a value, and ends the
    slot that holds it, whatever the reading's nearest predicate."""
    mem = make_memory()
    mem.set_ontology(PERSONAL, group=group)
    for g in (group, f"{group}-default"):  # owns_car under the group's ontology; drives under the default
        mem.add("I drive a Volvo XC60.", group=g, occurred_at="2026-01-10T10:00:00Z")
        mem.add("I sold my car last week.", group=g, occurred_at="2026-03-10T10:00:00Z")
    assert _values(mem, group, "owns_car", as_of="2026-02-01") == ["Volvo XC60"]
    assert _values(mem, f"{group}-default", "drives", as_of="2026-02-01") == ["Volvo XC60"]
    assert _values(mem, group, "owns_car") == _values(mem, group, "drives") == []
    assert _values(mem, f"{group}-default", "drives") == []
    mem.set_ontology(HEALTH, group=f"{group}-health")
    mem.add("I take sertraline for anxiety.", group=f"{group}-health", occurred_at="2026-01-10T10:00:00Z")
    held = [f.predicate for f in mem.facts(group=f"{group}-health") if f.object.lower() == "sertraline"]
    assert held
    mem.add("I came off sertraline in May.", group=f"{group}-health", occurred_at="2026-06-10T10:00:00Z")
    assert not [f for f in mem.facts(group=f"{group}-health") if f.object.lower() == "sertraline"]


INSURED = {"extends": "default", "predicates": {"insured_by": {
    "cardinality": "single", "object": "value", "description": "the company that insures a vehicle or a building",
    "examples": ["The van is insured with Hiscox.", "Our shop insurance is through Zurich."]}}}


def _held(make_memory, group, ontology, turns, predicate):
    """The (subject, value) pairs of a predicate true now and on 2026-01-20, after one turn a month."""
    mem = make_memory()
    mem.set_ontology(ontology, group=group)
    for month, text in enumerate(turns, start=1):
        mem.add(text, group=group, occurred_at=f"2026-{month:02d}-10T10:00:00Z")
    return {(f.subject, f.object) for f in mem.facts(group=group, predicate=predicate)}, \
        {(f.subject, f.object) for f in mem.facts(group=group, predicate=predicate, as_of="2026-01-20")}


def _insured(make_memory, group, turns):
    return _held(make_memory, group, INSURED, turns, "insured_by")


def test_a_change_said_of_a_slot_in_other_words_is_the_holders(make_memory, group):
    """"The motorbike insurance" names the motorbike's slot: the change is the motorbike's, not a new subject's."""
    now, before = _insured(make_memory, group, ["The motorbike is insured with Bikesure.",
                                                "I moved the motorbike insurance over to Devitt."])
    assert now == {("motorbike", "Devitt")} and before == {("motorbike", "Bikesure")}


def test_the_speakers_change_of_a_held_value_is_the_holders(make_memory, group):
    """"We dropped Navigators": the one thing that holds Navigators loses it, and the new provider is its."""
    now, before = _insured(make_memory, group, ["The boat is insured with Navigators.",
                                                "We dropped Navigators and took out a policy with Haven."])
    assert now == {("boat", "Haven")} and before == {("boat", "Navigators")}


def test_an_end_the_speaker_says_by_part_of_a_held_values_name_ends_it_where_it_is_held(make_memory, group):
    """"We dropped Saga" names the caravan's "Saga Insurance" by part of its name, and meaning alone reads the
    clause as no slot in particular: the one own slot that holds it ends, and the new provider is its."""
    now, before = _insured(make_memory, group, ["The caravan is insured with Saga Insurance.",
                                                "We dropped Saga and took out a policy with Caravan Guard."])
    assert now == {("caravan", "Caravan Guard")} and before == {("caravan", "Saga Insurance")}


def test_a_thing_said_in_the_other_number_is_the_same_holder(make_memory, group):
    """"Van insurance" is the vans' when the vans hold the slot."""
    now, before = _insured(make_memory, group, ["The vans are insured with Hiscox.",
                                                "We switched van insurance from Hiscox to Aviva."])
    assert now == {("vans", "Aviva")} and before == {("vans", "Hiscox")}


def test_a_thing_said_by_the_first_word_of_its_name_is_that_holder(make_memory, group):
    """"Hartley" is Hartley Farm Shop when that is the one thing whose name it begins."""
    now, before = _insured(make_memory, group, ["Hartley Farm Shop is insured with Hiscox.",
                                                "Hartley is insured with Aviva now."])
    assert now == {("Hartley Farm Shop", "Aviva")} and before == {("Hartley Farm Shop", "Hiscox")}


def test_a_things_own_change_stays_its_own(make_memory, group):
    """Another thing holding the same value is not what "the lorry switched from Hiscox" changes; and with two
    holders of a value the speaker's change settles on neither."""
    now, _ = _insured(make_memory, group, ["The van is insured with Hiscox.", "The lorry is insured with Hiscox.",
                                           "The lorry switched from Hiscox to Aviva."])
    assert now == {("van", "Hiscox"), ("lorry", "Aviva")}
    now, _ = _insured(make_memory, f"{group}-two", ["The van is insured with Hiscox.",
                                                    "The lorry is insured with Hiscox.", "We dropped Hiscox."])
    assert ("van", "Hiscox") in now and ("lorry", "Hiscox") in now


BAND = {"extends": "default", "entity_types": {"band": {"description": "a group of musicians"}},
        "predicates": {
            "bassist": {"cardinality": "single", "object": "entity",
                        "description": "the person who plays bass in a band",
                        "examples": ["Keith plays bass for The Strays.", "The band's bassist is Priya."]},
            "tour_manager": {"cardinality": "single", "object": "entity",
                             "description": "the person who runs a band's tours",
                             "examples": ["Dana runs tours for The Strays.", "Our tour manager is Tom Reyes."]}}}


def test_an_end_said_by_the_value_of_the_thing_ends_the_things_slot(make_memory, group):
    """"Omar quit The Moths": The Moths' bassist was Omar, and is no one now."""
    now, before = _held(make_memory, group, BAND, ["The Moths' bassist is Omar.", "Omar quit The Moths."], "bassist")
    assert now == set() and before == {("Moths", "Omar")}


@pytest.mark.parametrize("successor", ["and Tess took over", "and Tess replaced him", "so Tess stepped in",
                                       "and Tess is the new bassist"])
def test_one_who_steps_in_after_an_end_is_the_things_next_value(make_memory, group, successor):
    """"Omar quit The Moths and Tess took over": The Moths' bassist was Omar, and is Tess now."""
    now, before = _held(make_memory, group, BAND, ["The Moths' bassist is Omar.", f"Omar quit The Moths {successor}."],
                        "bassist")
    assert now == {("Moths", "Tess")} and before == {("Moths", "Omar")}


def test_the_speakers_change_of_a_slot_one_thing_holds_is_that_things(make_memory, group):
    """"We hired Ravi as our tour manager": The Moths' when they are the one band with one; with two, neither's."""
    joy, ravi = "The Moths' tour manager is Joy.", "We hired Ravi as our tour manager."
    now, before = _held(make_memory, group, BAND, [joy, ravi], "tour_manager")
    assert now == {("Moths", "Ravi")} and before == {("Moths", "Joy")}
    now, _ = _held(make_memory, f"{group}-two", BAND, [joy, "The Wasps' tour manager is Kim.", ravi], "tour_manager")
    assert {("Moths", "Joy"), ("Wasps", "Kim")} <= now and ("Moths", "Ravi") not in now


def test_a_subject_said_only_as_its_type_is_the_one_thing_that_holds_the_slot(make_memory, group):
    """"The band's tour manager" is The Moths' when they are the one band with one; with two, neither's."""
    joy, ravi = "The Moths' tour manager is Joy.", "Ravi is the band's tour manager now."
    now, before = _held(make_memory, group, BAND, [joy, ravi], "tour_manager")
    assert now == {("Moths", "Ravi")} and before == {("Moths", "Joy")}
    now, _ = _held(make_memory, f"{group}-two", BAND, [joy, "The Wasps' tour manager is Kim.", ravi], "tour_manager")
    assert {("Moths", "Joy"), ("Wasps", "Kim")} <= now


@pytest.mark.parametrize("said", ["Omar pulled out, and Tess is covering the tour.",
                                  "Omar backed out; his friend Tess is taking over the bass parts.",
                                  "Omar stepped down from the band; Tess is looking after it from now on."])
def test_one_who_steps_in_after_a_names_own_end_holds_its_slot(make_memory, group, said):
    """"Omar pulled out, and Tess is covering": Omar was The Moths' bassist, so Tess is; said with no slot."""
    now, before = _held(make_memory, group, BAND, ["The Moths' bassist is Omar.", said], "bassist")
    assert now == {("Moths", "Tess")} and before == {("Moths", "Omar")}


def test_one_who_steps_in_after_a_name_that_holds_nothing_is_no_fact(make_memory, group):
    """An end of a name no thing holds gives its successor no slot: nothing is written of either."""
    now, _ = _held(make_memory, group, BAND, ["The Moths' bassist is Omar.", "Zed pulled out, and Tess took over."],
                   "bassist")
    assert now == {("Moths", "Omar")}


def _held_by_default(make_memory, group, turns, predicate):
    """As ``_held``, under the default ontology (no ontology set)."""
    mem = make_memory()
    for month, text in enumerate(turns, start=1):
        mem.add(text, group=group, occurred_at=f"2026-{month:02d}-10T10:00:00Z")
    return {(f.subject, f.object) for f in mem.facts(group=group, predicate=predicate)}, \
        {(f.subject, f.object) for f in mem.facts(group=group, predicate=predicate, as_of="2026-01-20")}


def test_one_who_steps_in_after_a_names_end_holds_its_slot_under_the_default_ontology(make_memory, group):
    """"Ingrid retired, and her replacement is a woman called Pia": Ingrid was the speaker's boss, so Pia is."""
    now, before = _held_by_default(make_memory, group, ["My boss is Ingrid.", "Ingrid retired, and her replacement "
                                                        "is a woman called Pia."], "has_manager")
    assert now == {("User", "Pia")} and before == {("User", "Ingrid")}


def test_one_who_steps_in_after_a_friends_end_takes_no_slot_under_the_default_ontology(make_memory, group):
    """A friend is no single slot's value: her replacement at work is no one's friend."""
    now, _ = _held_by_default(make_memory, group, ["My friend is Ingrid.", "Ingrid retired, and her replacement is "
                                                   "a woman called Pia."], "has_friend")
    assert now == {("User", "Ingrid")}


def test_a_new_value_said_with_the_value_one_thing_holds_is_that_things_change(make_memory, group):
    """"Omar is off sick, so Tess will play bass for the tour": the sentence names The Moths' bassist, so
    Tess is The Moths' bassist now (not a new subject's); with no holder named, nothing moves."""
    now, before = _held(make_memory, group, BAND, ["The Moths' bassist is Omar.",
                                                   "Omar is off sick, so Tess is the bassist for the tour."],
                        "bassist")
    assert now == {("Moths", "Tess")} and before == {("Moths", "Omar")}


def test_a_change_from_a_value_ends_the_open_fact_that_held_it(make_memory, group):
    """"I switched from law to economics": the value left was held only by an open fact ("User learn law",
    no predicate of the ontology); the change ends that fact too, and the new value starts in its own slot.
    ("I'm reading law" is now read as a field of study: its wording, masked, is studying's.)"""
    mem = make_memory()
    mem.add("I've been learning law.", group=group, occurred_at="2026-01-10T10:00:00Z")
    assert ("learn", "law") in {(f.predicate, f.object) for f in mem.facts(group=group)}
    mem.add("I switched from law to economics.", group=group, occurred_at="2026-03-10T10:00:00Z")
    now = {(f.predicate, f.object) for f in mem.facts(group=group)}
    assert ("field_of_study", "economics") in now and not any(o == "law" for _, o in now)
    before = {(f.predicate, f.object) for f in mem.facts(group=group, as_of="2026-02-01T00:00:00Z")}
    assert ("learn", "law") in before


def test_an_attribute_no_predicate_names_keeps_one_value(make_memory, group):
    """"My optician is X" names one optician, though no predicate of the ontology does: a new one replaces
    it, on both stores, and the old one stays true for the time it held. An open relation does not
    ("I signed up for X", then "I signed up for Y": both stay)."""
    mem = make_memory()
    mem.add("My optician is Dr. Kaur on the high street.", group=group, occurred_at="2026-01-10T10:00:00Z")
    mem.add("I've signed up with a new optician, Dr. Moreau.", group=group, occurred_at="2026-03-10T10:00:00Z")
    mem.add("My favourite podcast is Hidden Brain.", group=group, occurred_at="2026-01-10T10:00:00Z")
    mem.add("These days my favourite podcast is Desert Island Discs.", group=group, occurred_at="2026-03-10T10:00:00Z")
    assert _values(mem, group, "optician") == ["Dr. Moreau"]
    assert _values(mem, group, "optician", as_of="2026-02-01") == ["Dr. Kaur"]
    assert _values(mem, group, "favorite_podcast") == ["Desert Island Discs"]
    assert _values(mem, group, "favorite_podcast", as_of="2026-02-01") == ["Hidden Brain"]
    mem.add("I signed up for a pottery course.", group=group, occurred_at="2026-01-10T10:00:00Z")
    mem.add("I signed up for a Spanish course.", group=group, occurred_at="2026-03-10T10:00:00Z")
    assert _values(mem, group, "sign_up_for") == ["Spanish course", "pottery course"]


def test_an_attribute_said_by_part_of_its_name_is_the_one_held(make_memory, group):
    """"My email is X" after "my work email is Y": the one email the speaker holds changes, on both stores;
    with two held ("work email", "personal email") the plain one is its own."""
    mem = make_memory()
    mem.add("My work email is jo@brightwave.io.", group=group, occurred_at="2026-01-10T10:00:00Z")
    mem.add("My email is jo@lumen.io now.", group=group, occurred_at="2026-03-10T10:00:00Z")
    assert _values(mem, group, "work_email") == ["jo@lumen.io"] and _values(mem, group, "email") == []
    assert _values(mem, group, "work_email", as_of="2026-02-01") == ["jo@brightwave.io"]
    other = f"{group}-b"
    for at, text in (("2026-01-10", "My work email is jo@brightwave.io."), ("2026-02-10", "My personal email is "
                     "jo@fastmail.com."), ("2026-03-10", "My email is jo@lumen.io.")):
        mem.add(text, group=other, occurred_at=f"{at}T10:00:00Z")
    assert [_values(mem, other, p) for p in ("work_email", "personal_email", "email")] == [
        ["jo@brightwave.io"], ["jo@fastmail.com"], ["jo@lumen.io"]]


RATE = {"extends": "default", "predicates": {"hourly_rate": {
    "cardinality": "single", "object": "value", "description": "what the studio charges an hour",
    "examples": ["The studio charges £40 an hour.", "Our hourly rate is £35."]}}}


def test_a_slot_said_with_words_that_name_no_thing_is_the_speakers(make_memory, group):
    """"We've raised the weekday hourly rate to £48": the words before the slot's noun ("weekday hourly") name
    no thing; the speaker alone holds the slot, so the change is the speaker's. A named thing's stays its own."""
    now, before = _held(make_memory, group, RATE, ["Our weekday hourly rate is £40.",
                                                   "We've raised the weekday hourly rate to £48."], "hourly_rate")
    assert now == {("User", "£48")} and before == {("User", "£40")}
    now, _ = _held(make_memory, f"{group}-b", RATE, ["Our hourly rate is £40.",
                                                     "Studio 5 charges £60 an hour."], "hourly_rate")
    assert ("User", "£40") in now


ZOO = ROOT / "tests" / "fixtures" / "ontologies" / "zoo.toml"


def test_a_name_said_with_its_kind_keeps_its_slot_through_a_change(make_memory, group):
    """"The capybara Nessa lives in ..." (a parse repaired, the kind masked) then "Nessa has moved to ...": the
    enclosure changes on both stores, and no vet is read from the kind an example names."""
    now, before = _held(make_memory, group, ZOO, ["The tapir Nessa lives in the Lowland Barn.",
                                                  "Nessa has moved to the new River Paddock."], "enclosure")
    assert now == {("Nessa", "River Paddock")} and before == {("Nessa", "Lowland Barn")}  # (not "new")


def test_where_the_speaker_is_after_a_jobs_end_is_the_next_employer_under_the_default_ontology(make_memory, group):
    now, before = _held_by_default(make_memory, group, ["I work at Primark.",
                                                        "I handed in my notice at Primark and I'm at Next now."],
                                   "works_at")
    assert now == {("User", "Next")} and before == {("User", "Primark")}
