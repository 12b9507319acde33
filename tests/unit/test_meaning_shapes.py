"""The clause shapes the meaning reader reads structurally, for any ontology: whose slot a clause is
(a subject the small parser missed, a possessed role, "there", a fronted owner, "X and I"), which
value it names (a name a thing is called, the place a role is held at, an aimed-at phrase) and when
it ends a slot (a stop said with a particle, an end whose object is the slot's own noun). Each test
uses sentences of its own, none of the update sets' (tests/fixtures/updates-*.json)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from kg_memory.core.models import Episode
from kg_memory.core.ontology import load_ontology_file
from kg_memory.extract import parse
from kg_memory.extract.clauses import readings
from kg_memory.extract.rules import SENTENCE, RulesExtractor

from .said import facts_said as _facts

ROOT = Path(__file__).resolve().parents[2]
T = datetime(2026, 4, 10, 10, tzinfo=UTC)


EXAMPLES, FIXTURES = ROOT / "examples" / "ontologies", ROOT / "tests" / "fixtures" / "ontologies"


def _extractor(embedder, name, folder=EXAMPLES):
    return RulesExtractor(embedder).with_vocabulary(load_ontology_file(folder / f"{name}.toml").vocab)


def _domain(name, folder=EXAMPLES):
    """A module fixture: the rules extractor reading one of the example (or the fixtures') ontologies."""
    @pytest.fixture(scope="module", name=name)
    def reader(embedder):
        return _extractor(embedder, name, folder)
    return reader


project, sales, health, personal = (_domain(n) for n in ("project", "sales", "health", "personal"))
# the dev sets' own vocabularies (tests/fixtures/updates-fresh7.json, updates-fresh8.json)
fleet, people, services, school = (_domain(n, FIXTURES) for n in ("fleet", "people", "services", "school"))
household = _domain("household", FIXTURES)  # (tests/fixtures/updates-fresh6.json, read since)
band, itassets = (_domain(n, FIXTURES) for n in ("band", "itassets"))  # (updates-fresh10.json's, dev)
kitchen = _domain("kitchen", FIXTURES)  # (updates-fresh11.json's, dev)
club, lettings = (_domain(n, FIXTURES) for n in ("club", "lettings"))  # (updates-fresh9.json's, read since)
podcast, renovation = (_domain(n, FIXTURES) for n in ("podcast", "renovation"))  # (updates-fresh13.json's, dev)


# -- whose slot -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, fact", [
    # the parser took the verb for a noun: the words before it are the subject, not the speaker
    ("Invoicing deploys to Fly.io.", ("invoicing", "deploys_to", "Fly.io", False)),
    ("The analytics pipeline stores events in ClickHouse.", ("analytics pipeline", "uses_database", "ClickHouse",
                                                             False)),
    # an entity type's own noun is whose slot it is, never the slot ("our search service")
    ("Our search service talks to an Elasticsearch cluster.", ("search", "uses_database", "Elasticsearch", False)),
])
def test_a_things_subject_is_read_where_the_parser_missed_it(project, text, fact):
    found = _facts(project, text)
    assert fact in found
    assert not any(f[0] == "user" for f in found)


@pytest.mark.parametrize("text, fact", [
    ("Acme signed; the deal is closed won.", ("acme", "deal_stage", "closed won", False)),  # the topic's deal
    ("Bob left Initech; our contact there is Joanna Lee.", ("initech", "main_contact", "Joanna Lee", False)),
    ("For Globex we talk to Hank Scorpio.", ("globex", "main_contact", "Hank Scorpio", False)),  # a fronted owner
    ("We lost the deal with Massive Dynamic.", ("massive dynamic", "deal_stage", "", True)),  # the deal's owner
])
def test_whose_slot_a_sales_clause_is(sales, text, fact):
    assert fact in _facts(sales, text)


@pytest.mark.parametrize("text, fact", [
    ("Dr. Okafor is my GP.", ("user", "primary_doctor", "Dr. Okafor", False)),  # a thing of mine, inverted
    ("My dermatologist is Dr. Lund.", ("user", "primary_doctor", "Dr. Lund", False)),  # no slot word, a name
])
def test_a_possessed_role_with_a_name_is_the_speakers_slot(health, text, fact):
    assert fact in _facts(health, text)


@pytest.mark.parametrize("text, fact", [
    ("Home is Lisbon these days.", ("user", "lives_in", "Lisbon", False)),  # a bare slot noun is the speaker's
    ("The band I play loudest is Pixies.", ("user", "favourite_band", "Pixies", False)),  # picked out by "I"
    ("Our family relocated from Leeds to York.", ("user", "lives_in", "York", False)),  # our household: us
    ("Mo and I split up.", ("user", "partner", "Mo", True)),  # "X and I" + an end said "with X"
    ("Traded the Corolla in for a Mazda CX-5.", ("user", "owns_car", "Mazda CX-5", False)),  # a dropped "I"
])
def test_the_speaker_is_read_where_the_sentence_does_not_say_I(personal, text, fact):
    assert fact in _facts(personal, text)


@pytest.mark.parametrize("text, fact", [
    ("Call me on 555 867 5309.", ("user", "phone_number", "555 867 5309", False)),  # someone reaches me at it
    ("Last week they made me a staff engineer.", ("user", "job_title", "staff engineer", False)),  # made me X
])
def test_what_someone_does_to_me_gives_me_a_value(personal, text, fact):
    assert fact in _facts(personal, text)


def test_the_speakers_I_is_never_a_value(personal):
    assert not any(f[2] == "I" for f in _facts(personal, "Kim and I broke up."))


def test_a_bound_after_a_name_with_a_digit_stays_in_the_value(health):
    found = _facts(health, "I want to get my LDL under 100.")
    assert any(f[2] == "LDL under 100" for f in found)
    assert any(f[2] == "A1C under 6" for f in _facts(health, "I want to get my A1C under 6."))  # "A1C" is no number


def test_the_slots_own_noun_and_a_bare_number_are_no_values(health):
    found = _facts(health, "I switched physicians; I see Dr. Kaur now.")
    assert ("user", "primary_doctor", "Dr. Kaur", False) in found
    assert not any(f[2].lower() in ("physicians", "physician") for f in found)
    assert not any(f[2] == "3" for f in _facts(health, "My trainer has me on a 3 day split."))


def test_someone_named_before_is_my_relation_by_name(personal):
    found = _facts(personal, "Priya is my sister.")
    assert ("user", "has_sibling", "Priya", False) in found
    assert not any("'s sister" in f[2] for f in found)  # no placeholder when the name is said


# -- which value ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, fact", [
    ("I joined a bouldering gym called Crux Climbing.", ("user", "gym", "Crux Climbing", False)),  # its name
    ("I'm a member at Anytime Fitness.", ("user", "gym", "Anytime Fitness", False)),  # where a role is held
    ("I'm a regular at Gold's Gym.", ("user", "gym", "Gold's Gym", False)),  # a name's own possessive
])
def test_the_value_is_the_name_not_the_role(personal, text, fact):
    assert fact in _facts(personal, text)


def test_what_is_aimed_at_is_the_value(health):
    found = _facts(health, "I want to row 2000 metres without a break.")  # the aimed-at phrase, not "a break"
    assert ("user", "fitness_goal", "row 2000 metres", False) in found
    assert not any(f[2].lower() in ("break", "a break") for f in found)


@pytest.mark.parametrize("text, value", [
    ("I'm training for an ultramarathon.", "ultramarathon"),  # what a verb of aiming is "for"
    ("Latest goal: I'm training for a century ride.", "century ride"),  # a headline's colon ends a sentence
])
def test_what_a_verb_of_aiming_is_for_is_its_value(health, text, value):
    # the reading, before meaning picks between the aims (training for a race is near both of them)
    sentences = [s for s in SENTENCE.split(text) if s]
    found = [r for s in sentences for r in readings(parse.parsed(s), "User")]
    assert [(r.subject, r.object) for r in found] == [("User", value)]


def test_a_value_named_with_its_slots_noun_is_of_that_slot(health):
    assert ("user", "diet", "paleo diet", False) in _facts(health, "I eat a paleo diet.")


def test_a_value_like_the_examples_values_leans_to_their_slot(project):
    # "Rust" is a language like the written_in examples' Go and Java; nothing else in the clause says so
    assert ("scheduler", "written_in", "Rust", False) in _facts(project, "The scheduler got ported to Rust.")


def test_a_slot_whose_values_are_never_names_takes_no_name(sales):
    assert not any(f[1] == "deal_stage" for f in _facts(sales, "At Cyberdyne we deal with Miles Dyson."))


# -- ends ---------------------------------------------------------------------------------------------
def test_a_stop_said_with_a_particle_ends_the_slot_whatever_it_holds(health):
    assert ("user", "fitness_goal", "", True) in _facts(health, "I gave up on the plank goal.")


def test_an_end_whose_object_is_the_slots_noun_ends_it_whatever_it_holds(personal, sales):
    assert ("user", "owns_car", "", True) in _facts(personal, "I sold my car last week.")
    assert ("user", "gym", "", True) in _facts(personal, "I cancelled my gym membership.")
    assert ("globex", "on_plan", "", True) in _facts(sales, "Globex cancelled their subscription.")


def test_a_named_subjects_end_said_whole_ends_its_slot(sales):
    assert ("soylent", "on_plan", "", True) in _facts(sales, "Soylent churned.")
    assert not any(f[3] for f in _facts(sales, "Soylent churned out a new product line."))


def test_an_end_with_a_value_names_it_so_the_slot_holding_it_ends(health):
    ended = [f for f in health.meaning.read("I came off sertraline in May.", "User", T) if f.ending]
    assert ended and ended[0].object == "sertraline" and ended[0].replaces == "sertraline"


def test_a_thing_said_with_its_name_is_the_value_not_a_thing_moved(project):
    found = _facts(project, "I adopted a dog named Biscuit.")
    assert ("user", "has_pet", "Biscuit", False) in found
    assert not any(f[0] == "dog" for f in found)  # the dog is no service with a database


def test_a_models_fact_is_checked_against_the_clause_that_says_it(project):
    """Only the clause with the value is compared: the other clause of the sentence (a pet) does not
    make a database implausible."""
    said = "Reporting reads from BigQuery since last week; I adopted a cat named Miso."
    assert project.meaning.plausible(said, "reporting", "BigQuery", "uses_database")  # (False, read whole)
    assert not project.meaning.plausible(said, "reporting", "BigQuery", "has_pet")


def test_a_models_subject_said_with_a_slots_noun_is_its_owner(sales, project):
    """The model writes "The Hooli contract"; the offline reader files the slot under Hooli."""
    assert sales.meaning.whose("The Hooli contract") == "Hooli"
    assert sales.meaning.whose("Initech's deal") == "Initech"
    assert sales.meaning.whose("the deal") == "the deal"  # no name to own it
    assert project.meaning.whose("the billing service") == "billing"  # an entity type's noun
    assert project.meaning.whose("The API gateway") == "API gateway"


def test_a_slot_whose_examples_never_give_an_amount_takes_none(health):
    said = "I take 5 mg of amlodipine."
    assert not health.meaning.plausible(said, "User", "5 mg of amlodipine", "takes_medication")
    assert health.meaning.plausible(said, "User", "5 mg", "medication_dose")


def test_the_value_after_an_end_is_the_ended_slots_successor(personal):
    """"I quit keto and eat Nordic now": no class list names "Nordic" a diet, but the clause that follows
    the end of the diet slot gives its new value (and no gym called Nordic)."""
    found = _facts(personal, "I quit keto and eat Nordic now.")
    assert ("user", "diet", "keto", True) in found and ("user", "diet", "Nordic", False) in found
    assert not any(f[1] == "gym" for f in found)


def test_one_value_per_slot_from_a_clause_and_its_complement(health):
    """"I'm trying to lose twenty pounds" reads "twenty pounds" off "trying" and "lose twenty pounds" off
    "lose": the value the other contains is dropped, so the slot gets one value, not two in one turn."""
    goals = [f for f in _facts(health, "I'm trying to lose twenty pounds.") if f[1] == "fitness_goal"]
    assert goals == [("user", "fitness_goal", "lose twenty pounds", False)]


@pytest.mark.parametrize("text, fact", [
    # a name that begins like a month is a name, not the clause's date ("Marco", "Augustus", "Junie")
    ("Search now belongs to Augustus.", ("search", "owned_by", "Augustus", False)),
    # a when or a why after the value names no value ("after Kim's reorg", "because of Lee's audit")
    ("Billing belongs to Junie after Kim's reorg.", ("billing", "owned_by", "Junie", False)),
    ("Ledger belongs to Omar because of Lee's audit.", ("ledger", "owned_by", "Omar", False)),
])
def test_a_value_is_a_name_and_not_a_when_said_after_it(project, text, fact):
    found = _facts(project, text)
    assert fact in found, found
    assert not any(f[2] in ("Kim's", "Lee's", "") for f in found if f[1] == "owned_by")


@pytest.mark.parametrize("text, fact", [
    # a thing the speaker possesses is the speaker's slot's ("my metformin" is no subject of its own), and
    # the amount it went up or down to is the value, without the "to"
    ("My metformin went up to 1000 mg.", ("user", "medication_dose", "1000 mg", False)),
    ("My insulin went down to 12 units.", ("user", "medication_dose", "12 units", False)),
])
def test_what_is_said_of_my_thing_is_said_of_me(health, text, fact):
    found = _facts(health, text)
    assert fact in found, found
    assert not any(f[0] in ("metformin", "insulin") for f in found)


def test_a_named_one_acting_on_an_unnamed_thing_is_the_things_slot(project):
    """"Ines owns the ledger service": no slot takes it as said, since the owner's values are names;
    turned round it is the thing's slot whose value is the one named."""
    assert ("ledger", "owned_by", "Ines", False) in _facts(project, "Ines owns the ledger service.")
    assert not any(f[0] == "ines" for f in _facts(project, "Ines owns the ledger service."))
    # a built-in slot (people's) that took it as said gives way: the invoicing service is no one's pet
    assert _facts(project, "Tariq owns the invoicing service.") == {("invoicing", "owned_by", "Tariq", False)}


def test_a_name_that_acts_as_my_slots_noun_is_its_value(health, sales):
    """"Dr. Okafor stepped in as my GP", as "Dr. Okafor is my GP": the slot noun after "as" is whose
    slot it is, the one who acts its value."""
    assert ("user", "primary_doctor", "Dr. Okafor", False) in _facts(health, "Dr. Okafor stepped in as my GP.")
    assert ("hooli", "main_contact", "Ana", False) in _facts(sales, "Ana took over as our contact at Hooli.")


def test_what_someone_takes_me_off_ends_and_puts_me_on_follows(health):
    """"The nurse took me off metformin and put me on insulin": done to the speaker, "off" ends the
    value and the "on" after it changes the slot to the new one."""
    found = _facts(health, "The nurse took me off metformin and put me on insulin.")
    assert {("user", "takes_medication", "metformin", True), ("user", "takes_medication", "insulin", False)} <= found


@pytest.mark.parametrize("text, fact", [
    # a subject the parser hung on the verb as a compound ("The inventory deploys"): still the subject
    ("The inventory deploys to Render.", ("inventory", "deploys_to", "Render", False)),
    # and with no noun phrase seen at all (a value it took for a number)
    ("The scheduler deploys to Fly.io.", ("scheduler", "deploys_to", "Fly.io", False)),
    # a subject said as its owner and the slot's own noun: the owner's
    ("Scheduler deploys go to Vercel now.", ("scheduler", "deploys_to", "Vercel", False)),
])
def test_a_things_subject_the_parser_hung_elsewhere_is_still_the_subject(project, text, fact):
    found = _facts(project, text)
    assert fact in found, found
    assert not any(f[0] in ("user", "scheduler deploys") for f in found)


def test_a_second_verb_taken_for_a_noun_is_a_clause_of_its_own(project):
    """"uses Redis and deploys to Render": "deploys" read as a noun beside "Redis" put "to Render" on
    "uses", and Redis became where it deploys. Each clause gives its own slot."""
    found = _facts(project, "The cart service uses Redis and deploys to Render.")
    assert {("cart", "uses_database", "Redis", False), ("cart", "deploys_to", "Render", False)} <= found
    assert ("cart", "deploys_to", "Redis", False) not in found


def test_a_subject_hung_on_the_clause_before_reads_its_own_clause(sales):
    """"Acme is on the Growth plan and our contact there is Lin Wu": the parser hung "contact" on the
    first clause; the second is still Acme's contact, and the first is the plan alone."""
    found = _facts(sales, "Acme is on the Growth plan and our contact there is Lin Wu.")
    assert {("acme", "on_plan", "Growth plan", False), ("acme", "main_contact", "Lin Wu", False)} <= found
    assert ("acme", "main_contact", "Growth plan", False) not in found


@pytest.mark.parametrize("text, new, old", [
    ("Telemetry runs on Nomad instead of Kubernetes.", "Nomad", "Kubernetes"),
    ("Inventory dropped MongoDB in favour of Postgres.", "Postgres", "MongoDB"),
])
def test_a_value_said_in_place_of_another_changes_it(project, text, new, old):
    found = _facts(project, text)
    assert any(f[2] == new and not f[3] for f in found), found
    assert any(f[2] == old and f[3] for f in found), found  # the one it replaced ends


def test_a_thing_taken_to_a_value_changes_the_slot_it_holds(project):
    """"We carried the wiki over to Heroku": a thing moved to a value, read as a change of the thing's
    slot (the pipeline settles which by what it holds), never as where the speaker lives."""
    found = _facts(project, "We carried the wiki over to Heroku last spring.")
    assert not any(f[0] == "user" for f in found), found
    assert any(f[0] == "wiki" and f[2] == "Heroku" for f in found), found


def test_a_tie_is_said_by_its_noun(sales, personal):
    """A model's kinship fact needs the kinship noun in the turn: handing an account over makes no one a
    parent or a sibling."""
    said = "Olga transferred Globex to Piet before her leave."
    assert not sales.meaning.plausible(said, "Olga", "Piet", "has_parent")
    assert not sales.meaning.plausible(said, "Olga", "Globex", "has_sibling")
    assert personal.meaning.plausible("My brother Sven moved in with us.", "User", "Sven", "has_sibling")


@pytest.mark.parametrize("text, fact", [
    # the one who does the slot's verb, said as a noun ("owner" of owns) or an adjective of its words
    ("Rosa is the owner of the search service.", ("search", "owned_by", "Rosa", False)),
    ("Tomas is responsible for the billing service.", ("billing", "owned_by", "Tomas", False)),
])
def test_the_one_a_slots_noun_names_is_the_things_value(project, text, fact):
    found = _facts(project, text)
    assert fact in found, found
    assert not any(f[0] in ("owner", "rosa", "tomas") for f in found)


@pytest.mark.parametrize("text, fact", [
    # a role noun after an entity type ("the account lead for Soylent"): the account's slot
    ("Petra is the account lead for Soylent.", ("soylent", "account_owner", "Petra", False)),
    # a thing of one of the group's entity types is no value: the thing's slot, the one named its value
    ("Marta manages the Vandelay account.", ("vandelay", "account_owner", "Marta", False)),
    # the one who takes a thing over holds it now
    ("Bo took over Cyberdyne from Hal.", ("cyberdyne", "account_owner", "Bo", False)),
])
def test_whose_slot_a_person_and_an_account_are_in(sales, text, fact):
    found = _facts(sales, text)
    assert fact in found, found
    assert not any(f[0] in ("petra", "marta", "bo") for f in found)


def test_it_after_a_things_clause_is_the_thing_and_its_negation_is_its_own(project):
    """"The queue no longer uses RabbitMQ; it uses NATS": "it" is the queue (not RabbitMQ, what the
    first clause acts on), and the first clause's "no longer" does not end the second's value."""
    found = _facts(project, "The job queue no longer uses RabbitMQ; it uses NATS.")
    assert ("job queue", "uses_database", "RabbitMQ", True) in found, found
    assert ("job queue", "uses_database", "NATS", False) in found, found
    assert not any(f[0] == "rabbitmq" for f in found)


def test_there_is_the_place_said_before_and_not_the_copulas_own_subject(sales):
    """"Lars left Vandelay; Mette is our contact there now": there is Vandelay, and Mette the value."""
    found = _facts(sales, "Lars left Vandelay; Mette is our contact there now.")
    assert ("vandelay", "main_contact", "Mette", False) in found, found
    assert not any(f[1] == "main_contact" and f[0] in ("user", "mette") for f in found)


def test_the_one_who_hands_a_thing_over_held_it(sales):
    """A hand-over names the value it replaces: the giver ("Rita handed Tyrell over to Sven"), so the
    pipeline changes the slot the giver holds (see ``ExtractedFact.replaces``)."""
    ex = sales
    ep = Episode(group_id="g", role="user", content="Rita handed Tyrell over to Sven.", occurred_at=T, created_at=T)
    new = [f for f in ex.extract(ep).facts if f.object == "Sven"]
    assert new and new[0].subject == "Tyrell" and new[0].replaces == "Rita", new


def test_the_one_who_takes_me_from_another_is_my_new_value(personal):
    """"Umbrella poached me from Cyberdyne": a change of the speaker's slot from Cyberdyne to Umbrella
    (which slot, the pipeline settles by the one that holds Cyberdyne)."""
    ep = Episode(group_id="g", role="user", content="Umbrella poached me from Cyberdyne.", occurred_at=T,
                 created_at=T)
    facts = personal.extract(ep).facts
    assert any(f.subject == "User" and f.object == "Umbrella" and f.replaces == "Cyberdyne" and not f.ending
               for f in facts), facts


@pytest.mark.parametrize("text, fact", [
    # a name the parser read as a verb after "to" ("ported the scheduler to Go": "Go" a verb)
    ("The platform team ported the router to Go.", ("router", "written_in", "Go", False)),
    # a stop with what it was left for is a change ("left AWS for GCP")
    ("Reporting left Heroku for Render.", ("reporting", "deploys_to", "Render", False)),
])
def test_a_change_the_parser_half_saw(project, text, fact):
    found = _facts(project, text)
    assert fact in found, found
    assert not any(f[0] in ("team", "platform team") for f in found)


def test_the_slot_noun_inside_a_phrase_says_whose_slot(sales):
    """"Our point of contact at Umbrella is Wes": the contact is Umbrella's, not the speaker's."""
    found = _facts(sales, "Our point of contact at Umbrella is Wes.")
    assert ("umbrella", "main_contact", "Wes", False) in found, found
    assert not any(f[0] == "user" for f in found)


def test_a_thing_taken_off_one_value_and_put_on_another_changes_that_slot(project):
    """"We pulled the wiki off Heroku and put it on Render": "it" is the wiki, and the second clause is
    the successor of the slot the first ended, though the clause alone leans elsewhere."""
    found = _facts(project, "We pulled the wiki off Heroku and put it on Render.")
    assert {("wiki", "deploys_to", "Heroku", True), ("wiki", "deploys_to", "Render", False)} <= found, found
    assert not any(f[0] == "user" for f in found)


@pytest.mark.parametrize("text, fact", [
    ("Billing is Noor's now.", ("billing", "owned_by", "Noor", False)),  # a thing that is someone's
    ("Mateo is the owner of checkout.", ("checkout", "owned_by", "Mateo", False)),  # the owner of a thing
    ("The crawler is a Go service.", ("crawler", "written_in", "Go", False)),  # a value said before its type
])
def test_whose_a_thing_is_and_what_it_is(project, text, fact):
    found = _facts(project, text)
    assert fact in found, found


def test_a_name_after_the_value_says_whose_and_a_choice_after_an_end_follows_it(sales):
    """"We deal with Ola at Hooli": Hooli's contact; "Tyrell cancelled Basic and signed up for Pro": the
    plan that follows the one ended."""
    # (whose and which value is the structure's; contact or owner is the meaning's, near here)
    assert any(f[0] == "hooli" and f[2] == "Ola" for f in _facts(sales, "We deal with Ola at Hooli."))
    found = _facts(sales, "Tyrell cancelled Basic and signed up for Pro.")
    assert {("tyrell", "on_plan", "Basic", True), ("tyrell", "on_plan", "Pro", False)} <= found, found


def test_an_amount_upped_is_a_change_of_mine(health):
    found = _facts(health, "My nurse upped my insulin to 14 units.")
    assert ("user", "medication_dose", "14 units", False) in found, found


def test_a_persons_tie_takes_a_name_and_a_measure_is_none(health):
    """A tie (has_parent) takes no common-noun phrase, and a measure before a noun ("4-day") is no
    name: "I moved to a 4-day upper split" is no parent, and "4-day" alone no value."""
    found = _facts(health, "I moved to a 4-day upper split.")
    assert not any(f[1] in ("has_parent", "has_child", "has_sibling", "partner") for f in found), found
    assert not any(f[2] == "4-day" for f in found), found


def test_a_value_said_as_the_one_now_is_a_change_the_held_slot_settles(project):
    """"The wiki now lives on Render": said as the value now, it is a change; its slots are those near in
    meaning, and the pipeline keeps the one the wiki holds (see ``ExtractedFact.alternatives``)."""
    ep = Episode(group_id="g", role="user", content="The status page now lives on Render.", occurred_at=T,
                 created_at=T)
    facts = [f for f in project.extract(ep).facts if f.object == "Render"]
    assert facts and facts[0].alternatives, facts  # a plain clause has no others for the held slot to choose
    ep = Episode(group_id="g", role="user", content="The status page lives on Render.", occurred_at=T, created_at=T)
    assert all(not f.alternatives for f in project.extract(ep).facts)


def test_a_passing_act_gives_no_peoples_slot_but_the_groups_own_may_take_it(personal, project):
    """Under a group's own ontology, "have" and the like state no built-in (people's) slot by themselves
    ("we had a long lunch with the designers" is no liking), but the group's own slots still read them."""
    assert ("user", "owns_car", "Mazda CX-5", False) in _facts(personal, "I have a Mazda CX-5.")
    assert not any(f[1] == "likes" for f in _facts(project, "We had a quick dinner with the auditors."))


def test_a_clause_the_parser_took_for_a_subject_is_not_one(project, health):
    """"Payroll outgrew MySQL, so it uses Postgres now": the parser made "Payroll outgrew MySQL" a noun
    phrase and the subject of "uses"; the words before the verb are the subject. And "cut my X to N" is
    a change of my dose."""
    found = _facts(project, "Payroll outgrew MySQL, so it uses Postgres now.")
    assert ("payroll", "uses_database", "Postgres", False) in found, found
    assert not any("outgrew" in f[0] for f in found)
    assert ("user", "medication_dose", "5 mg", False) in _facts(health, "I cut my ramipril to 5 mg.")


# -- round five: a slot whose value does the verb, names with numbers, roles held at names ------------------
def test_the_verbs_a_slots_value_does_come_from_the_ontologys_own_words():
    from kg_memory.core.ontology import parse_ontology
    from kg_memory.extract.exemplars import value_verbs
    ont = parse_ontology('''
[predicates.groomed_by]
cardinality = "single"
object = "entity"
description = "the groomer a dog goes to"
examples = ["Rex is groomed by Paula.", "Paula grooms Bella."]
[predicates.vet]
cardinality = "single"
object = "entity"
description = "the vet who treats an animal"
examples = ["Dr. Ng treats Rex."]
[predicates.walker]
cardinality = "single"
object = "entity"
description = "the walker a dog is walked by on weekdays"
examples = ["Bella is walked by Sam on weekdays."]
[predicates.food]
cardinality = "single"
object = "value"
description = "the food a dog eats"
examples = ["Rex eats Orijen."]
''')
    verbs = {name: value_verbs(ont.vocab.predicates[name]) for name in ("groomed_by", "vet", "walker", "food")}
    assert "groom" in verbs["groomed_by"]  # the name said in the passive
    assert "treat" in verbs["vet"]  # what the value's noun does in the description
    assert "walk" in verbs["walker"]  # an example in the passive, and the value's agent noun
    assert verbs["food"] == frozenset()  # the dog eats: the subject does the verb


@pytest.mark.parametrize("text, fact", [
    ("Tomasz drives Van 30.", ("van 30", "assigned_driver", "Tomasz", False)),
    ("Quickfix Garage repairs the Vito.", ("vito", "serviced_by", "Quickfix Garage", False)),
    ("The Vito is repaired by Quickfix Garage.", ("vito", "serviced_by", "Quickfix Garage", False)),
    ("Truck 9 is kept at the Dover yard.", ("truck 9", "based_at", "Dover yard", False)),
])
def test_a_slot_whose_value_does_the_verb_is_the_done_things(fleet, text, fact):
    assert fact in _facts(fleet, text)


def test_a_doer_said_first_is_the_value_and_one_said_after_is_not_turned_twice(people, health):
    assert ("arun", "mentor", "Selma", False) in _facts(people, "Selma mentors Arun.")
    assert ("arun", "mentor", "Selma", False) in _facts(people, "Arun is mentored by Selma.")
    found = _facts(health, "Dr. Abebe looks after me these days.")
    assert ("user", "primary_doctor", "Dr. Abebe", False) in found
    assert not any(f[0] == "dr. abebe" for f in found)


def test_a_names_subject_is_made_of_names_and_a_shift_is_no_value(people, fleet):
    assert ("ilse", "reports_to", "Bram", False) in _facts(people, "Following the merger Ilse reports to Bram.")
    assert ("ilse", "member_of_team", "design team", False) in _facts(people, "Ilse is a member of the design team.")
    assert not any("night" in f[2].lower() for f in _facts(fleet, "Tariq moved to nights."))


def test_a_role_held_at_a_name_and_a_job_said_as_one(embedder):
    default = RulesExtractor(embedder)
    assert ("user", "works_at", "Aldi", False) in _facts(default, "I left Tesco for a job at Aldi.")
    assert ("user", "job_title", "sommelier", False) in _facts(default, "I work as a sommelier.")
    found = _facts(default, "I'm a glassblower at Murano Studio.")
    assert {("user", "job_title", "glassblower", False), ("user", "works_at", "Murano Studio", False)} <= found
    assert not any(f[1] == "job_title" for f in _facts(default, "We work as a team."))
    assert not any(f[1] == "job_title" for f in _facts(default, "I'm a glassblower's biggest fan."))


def test_a_thing_rewritten_in_the_passive_is_the_thing_rewritten(project):
    assert ("exporter", "written_in", "Kotlin", False) in _facts(project, "The exporter was rewritten in Kotlin.")


def test_a_things_owner_said_as_theirs_and_a_compound_name_says_whose_contact(project, sales):
    assert ("exporter", "owned_by", "Mirela", False) in _facts(project, "The exporter is Mirela's responsibility.")
    found = _facts(sales, "Our Vandelay contact is Kenny these days.")
    assert ("vandelay", "main_contact", "Kenny", False) in found
    assert not any(f[0] == "user" and f[1] == "main_contact" for f in found)


def test_a_thing_got_rid_of_ends_and_a_plan_named_by_its_noun_is_the_plan(embedder, health):
    found = _facts(RulesExtractor(embedder), "I got rid of the Corolla and bought a Kia Niro.")
    assert ("user", "drives", "Corolla", True) in found or any(f[2].endswith("Corolla") and f[3] for f in found)
    assert any(f[1] == "drives" and "Niro" in f[2] and not f[3] for f in found)
    assert ("user", "training_plan", "15k plan", False) in _facts(health,
                                                                           "I started a 15k plan.")


def test_a_copula_with_a_particle_is_mapped_by_no_meaning(embedder):
    assert not any(f[1] == "likes" for f in _facts(RulesExtractor(embedder), "I've been in Oslo since March."))


def test_a_value_noun_names_its_verb_and_a_possessor_says_whose_thing(school, services):
    # "teacher" in the description is who teaches: the class taught is the owner's
    assert ("ruby", "teacher", "Mr Achebe", False) in _facts(school, "Mr Achebe teaches Ruby's class.")
    # an example said with the value as the doer ("Ayo maintains the orders service") is read round too:
    # every maintainer its examples give is a name, so the slot takes names only
    assert "maintainer" in services.meaning._exemplars().named


def test_a_thing_moved_off_one_value_and_onto_another_and_passed_on_to_someone(services):
    said = readings(parse.parsed("We shifted invoicing off Lambda and onto Kubernetes."), "User")
    assert [(r.subject, r.object, r.old, r.shape) for r in said] == [("invoicing", "Kubernetes", "Lambda", "change")]
    assert any(f[0] == "invoicing" and f[1] == "maintainer" and f[2] == "Ines" and not f[3]
               for f in _facts(services, "Bruno passed invoicing on to Ines."))


def test_a_thing_named_by_a_common_noun_acts_for_itself_and_its_owner_is_said_with_s(services):
    found = _facts(services, "Alerts switched from SNS to Pub/Sub.")
    assert any(f[0] == "alerts" and f[2] == "Pub/Sub" and not f[3] for f in found)
    assert not any(f[0] == "user" for f in found)
    assert ("ledger", "maintainer", "Odette", False) in _facts(services, "The ledger's maintainer is Odette.")


def test_a_name_that_ends_in_a_possessive_keeps_it_and_a_compound_after_for_is_whole(school, project):
    assert any(f[1] == "school" and f[2] == "St Hilda's" for f in _facts(school, "We moved Ruby to St Hilda's."))
    assert ("billing", "owned_by", "Noor", False) in _facts(project, "Billing is Noor's these days.")
    found = _facts(school, "Ruby swapped ballet club for robotics club.")
    assert any(f[1] == "after_school_club" and f[2] == "robotics club" and not f[3] for f in found)


def test_a_partner_said_as_seeing_or_being_with_and_a_title_inside_a_name(embedder):
    default = RulesExtractor(embedder)
    assert ("user", "partner", "Noa", False) in _facts(default, "I'm with Noa now.")
    assert ("user", "partner", "Ravi", False) in _facts(default, "I've been seeing Ravi since June.")
    assert not any(f[1] == "partner" for f in _facts(default, "I'm seeing Dr. Okafor as my GP."))
    assert not any(f[1] == "partner" for f in _facts(default, "I'm with my family this week."))
    assert ("user", "lives_in", "St. Albans", False) in _facts(default, "I live in St. Albans.")


def test_an_unlisted_job_near_a_listed_one_is_a_job_and_other_nouns_are_not(embedder):
    from kg_memory.core.vocab import load_vocabulary
    from kg_memory.extract.canonical import near_class_word
    vocab = load_vocabulary()
    assert near_class_word(embedder, vocab, "job", "solicitor") == "solicitor"
    assert near_class_word(embedder, vocab, "job", "night owl") is None
    assert near_class_word(embedder, vocab, "diet", "pescetarian") is None  # only jobs are an open class
    default = RulesExtractor(embedder)
    assert ("user", "job_title", "solicitor", False) in _facts(default, "I'm a solicitor now.")
    assert not any(f[1] == "job_title" for f in _facts(default, "I'm a night owl."))


def test_a_new_home_in_a_named_place_is_a_move_there(embedder, personal):
    default = RulesExtractor(embedder)
    assert any(f[1] == "lives_in" and f[2] == "Galway" and not f[3]
               for f in _facts(default, "We finally closed on a house in Galway."))
    assert any(f[1] == "lives_in" and f[2] == "Porto" for f in _facts(personal, "We bought an apartment in Porto."))
    assert not any(f[1] == "lives_in" for f in _facts(default, "I'd love a house in Porto someday."))


def test_a_role_said_with_in_or_on_is_the_role_of_what_follows_and_a_dose_is_no_role(project, health):
    found = _facts(project, "Tereza is in charge of the reporting service.")
    assert ("reporting", "owned_by", "Tereza", False) in found
    found = _facts(health, "I'm on 40 mg of simvastatin.")
    assert any(f[1] == "medication_dose" and f[2] == "40 mg" for f in found)


def test_an_ontology_that_extends_nothing_reads_and_a_number_after_a_noun_is_part_of_it(embedder):
    from kg_memory.core.ontology import parse_ontology
    ont = parse_ontology('''
[predicates.kept_in]
cardinality = "single"
object = "value"
description = "the shelf or cupboard where a tool is kept"
examples = ["The drill is kept in cupboard 2.", "We keep the saw on shelf 4."]
''')
    found = _facts(RulesExtractor(embedder).with_vocabulary(ont.vocab), "The sander is kept in cupboard 7.")
    assert ("sander", "kept_in", "cupboard 7", False) in found
    # (a turn about something else reads without failing, and the built-in pet patterns write no has_pet the
    # ontology lacks; it may still land on the ontology's own slots: a known gap, in docs/benchmarks.md)
    assert not any(f[1] == "has_pet" for f in _facts(RulesExtractor(embedder).with_vocabulary(ont.vocab),
                                                     "I have a dog named Rex."))


def test_a_thing_that_reads_from_its_only_named_source_takes_it_as_its_value(project):
    assert ("ledger", "uses_database", "Spanner", False) in _facts(project, "The ledger service reads from Spanner.")
    assert not any(f[2] == "Spanner" for f in _facts(project, "The ledger moved from Spanner to Postgres.")
                   if not f[3] and f[2] != "Postgres")


# -- a provider, an end said in other words, a slot's noun by its stem -----------------------------
@pytest.mark.parametrize("text, fact", [
    # an arrangement held with a provider: the provider is the value, not the arrangement
    ("We opened a joint account with Nationwide.", ("user", "bank", "Nationwide", False)),
    ("I took out a travel insurance policy with Hastings.", ("user", "insurer", "Hastings", False)),
    # "over", which the parser takes for an adverb, carries "to" as a particle does
    ("We moved the broadband over to BT.", ("broadband", "internet_provider", "BT", False)),
    # the slot's noun said by its stem ("insurance" of "insures") is whose slot it is
    ("The van insurance is with Hiscox now.", ("van", "insurer", "Hiscox", False)),
    # an end whose noun is said with a name the slot takes as its value: the speaker's slot ends
    ("I closed my old Santander account.", ("user", "bank", "Santander", True)),
])
def test_a_provider_and_its_slot_are_read_from_the_ontologys_words(household, text, fact):
    assert fact in _facts(household, text)


def test_a_clause_of_no_slot_gives_no_fact_when_the_examples_name_their_values(household):
    """The internet provider's examples name a company ("from Comcast") though the reader takes their
    object for the noun ("our internet"): a meal is no provider."""
    own = {"internet_provider", "energy_supplier", "landlord", "insurer", "bank"}
    for text in ("I had lunch with Jenny.", "We had a long lunch with the Smiths."):
        assert not {f for f in _facts(household, text) if f[1] in own}


@pytest.mark.parametrize("text, fact", [
    # an ``ends`` phrasing said with other words between its own ("lost the deal": "lost the Initech deal")
    ("We lost the Initech deal.", ("initech", "deal_stage", "Initech deal", True)),
    # and a name said with the slot's noun keeps the slot its value's when the slot takes names
    ("Hooli cancelled their Pro subscription.", ("hooli", "on_plan", "Pro", True)),
])
def test_an_end_is_read_in_the_ontologys_words_with_others_between(sales, text, fact):
    assert fact in _facts(sales, text)


@pytest.mark.parametrize("text, fact", [
    # a thing had from a name: the name is the value of the group's slot that names its values
    ("We lease the garage from Mr Dunn.", ("user", "landlord", "Mr Dunn", False)),
    ("We get our power through Bulb.", ("user", "energy_supplier", "Bulb", False)),
])
def test_a_thing_had_from_a_name_is_the_names(household, text, fact):
    assert fact in _facts(household, text)


def test_from_a_to_b_is_a_change_not_a_thing_had_from_a(services):
    found = _facts(services, "We moved the ledger from Scala to Kotlin.")
    assert ("ledger", "language", "Kotlin", False) in found and ("ledger", "language", "Scala", False) not in found


@pytest.mark.parametrize("text", ["We rent our house from Mrs Patel.", "We bought a sofa from Ikea.",
                                  "I had lunch with Jenny."])
def test_a_persons_slot_of_many_values_is_read_by_its_own_words_under_a_groups_ontology(household, text):
    """Under a group's own ontology the built-in pets, allergies and likes are read only when the clause says
    their words: a house rented from someone is no pet, however near it falls."""
    assert not {f for f in _facts(household, text) if f[1] in ("has_pet", "allergic_to", "likes", "has_friend")}


def test_a_clause_after_so_has_its_own_subject_on_the_surface(household, project):
    """Read off the surface, a result after a comma is a clause of its own, with its own subject; one that goes
    on with "it" is the first clause's subject's."""
    assert ("user", "internet_provider", "Zen", False) in _facts(
        household, "Plusnet kept cutting out, so we went with Zen instead.")
    assert ("payroll", "uses_database", "Postgres", False) in _facts(
        project, "Payroll outgrew MySQL, so it uses Postgres now.")


def test_a_noun_said_with_its_owner_that_the_parser_took_for_an_adverb_is_the_owners():
    """"The invoicing service's datastore is MariaDB", parsed (as the small parser does) with "datastore" an
    adverb of "is": the clause is still said of the invoicing service's datastore, not of the speaker."""
    from spacy.tokens import Doc
    words = ["The", "invoicing", "service", "'s", "datastore", "is", "MariaDB", "."]
    doc = Doc(parse.parsed("x").vocab, words=words, heads=[2, 2, 4, 2, 5, 5, 5, 5],
              deps=["det", "compound", "poss", "case", "advmod", "ROOT", "attr", "punct"],
              pos=["DET", "NOUN", "NOUN", "PART", "ADV", "AUX", "PROPN", "PUNCT"],
              lemmas=["the", "invoicing", "service", "'s", "datastore", "be", "MariaDB", "."])
    found = readings(doc, "User", frozenset({"service"}), frozenset({"datastore"}))
    assert [(r.subject, r.object) for r in found] == [("invoicing", "MariaDB")]



@pytest.mark.parametrize("text, fact", [
    # the predicate's name is an agent noun ("drummer"): its verb's doer is the value, though the parser takes
    # "drums" for a noun
    ("Ruth drums for The Owls.", ("the owls", "drummer", "Ruth", False)),
    # a verb the predicate's name says ("rehearses_at") ends the subject the parser missed
    ("The Owls rehearse at Soundhouse.", ("owls", "rehearses_at", "Soundhouse", False)),
])
def test_a_predicates_own_name_says_its_verb(band, text, fact):
    assert fact in _facts(band, text)


def test_a_thing_named_by_its_number_is_its_own_subject_after_another_clause(itassets):
    """"Mo left, so Laptop 9 went to Priya": "Laptop 9" is no slot noun of Mo's."""
    assert ("laptop 9", "assigned_to", "Priya", False) in _facts(itassets, "Mo left, so Laptop 9 went to Priya.")


def test_a_name_the_parser_set_beside_its_noun_is_part_of_the_phrase():
    from spacy.tokens import Doc

    from kg_memory.extract.values import noun_phrase
    words = ["The", "studio", "Mac", "is", "on", "Sonoma", "."]
    doc = Doc(parse.parsed("x").vocab, words=words, heads=[1, 3, 1, 3, 3, 4, 3],
              deps=["det", "nsubj", "appos", "ROOT", "prep", "pobj", "punct"],
              pos=["DET", "NOUN", "PROPN", "AUX", "ADP", "PROPN", "PUNCT"])
    assert noun_phrase(doc[1], frozenset()) == "studio Mac"


def test_the_one_who_drops_the_speaker_was_the_value_and_the_next_with_is_the_new_one(band):
    found = _facts(band, "Matador dropped us, and we signed with Warp.")
    # (which slot the end is of, meaning alone leaves close: the pipeline settles it by where Matador is held,
    # tests/contract/test_ontology_contract.py)
    assert any(f[0] == "user" and f[2] == "Matador" and f[3] for f in found)
    assert ("user", "record_label", "Warp", False) in found


@pytest.mark.parametrize("value, shape", [("£950", "amount:£"), ("€1,200", "amount:€"), ("$40k", "amount:$")])
def test_an_amount_in_any_currency_is_an_amount(value, shape):
    from kg_memory.extract.values import value_shape
    assert value_shape(value) == shape


def test_a_slot_of_amounts_takes_pounds_as_dollars(sales):
    assert ("initech", "contract_value", "£40k", False) in _facts(sales, "Initech's deal is worth £40k.")



@pytest.mark.parametrize("text, fact", [
    # the doer of a slot's verb runs a thing's noun at a name: the name's slot
    ("Pia runs the kitchen at Ember.", ("ember", "head_chef", "Pia", False)),
    # one said to be a slot's role at a name is the name's value of it
    ("Tom is now head chef at The Larder.", ("larder", "head_chef", "Tom", False)),
    # a preposition the ontology's examples give a value with ("known for")
    ("Ember is known for its smoked brisket.", ("ember", "signature_dish", "smoked brisket", False)),
])
def test_a_role_held_at_a_name_and_a_value_given_by_the_examples_preposition(kitchen, text, fact):
    assert fact in _facts(kitchen, text)


def test_the_prepositions_examples_give_values_with():
    from kg_memory.extract.exemplars import value_preps
    assert ("know", "for") in value_preps(("The Anchor is known for its fish pie.",))
    assert value_preps(("Luca's takes bookings on OpenTable.",)) == frozenset()  # ("on" gives values anyway)


@pytest.mark.parametrize("text, fact", [
    # a name doing a slot's verb to a thing with no name is the thing's value ("captains the thirds")
    ("Gemma captains the thirds.", ("thirds", "captain", "Gemma", False)),
    # and the one the thing is done for is whose slot it is
    ("Ana runs practice for the under-9s.", ("under-9s", "head_coach", "Ana", False)),
    # a name beside a slot's noun ("the Station Road boiler") is the name's, said with "now" too
    ("Ruth Kane does the Station Road boiler now.", ("station road", "boiler_engineer", "Ruth Kane", False)),
    ("Omar Said does the cottage boiler.", ("cottage", "boiler_engineer", "Omar Said", False)),
])
def test_a_name_acting_on_a_thing_without_one_is_the_things_value(club, lettings, text, fact):
    assert fact in _facts(club if "boiler" not in text else lettings, text)


def test_a_name_said_to_be_on_a_plan_is_not_turned_round(sales):
    assert ("hooli", "on_plan", "Starter plan", False) in _facts(sales, "Hooli is on the Starter plan.")


@pytest.mark.parametrize("text, fact", [
    # a name the parser took for an adjective before its number ("Flat 2")
    ("Flat 2 is let at £700 a month.", ("flat 2", "monthly_rent", "£700", False)),
    # a noun's noun the parser took for an adjective after it ("the garden flat")
    ("The garden flat is now let to the Okoros.", ("garden flat", "tenant", "Okoros", False)),
    # being with a name is having it ("is with Octopus for gas")
    ("Flat 6 is with Octopus for gas.", ("flat 6", "energy_supplier", "Octopus", False)),
])
def test_names_the_parser_splits_and_the_name_a_thing_is_with(lettings, text, fact):
    assert fact in _facts(lettings, text)


def test_a_possessive_that_says_which_one_of_a_type_stays_in_the_name(club):
    found = _facts(club, "The men's team plays in the Sunday League.")
    assert ("men's team", "league", "Sunday League", False) in found


def test_a_thing_of_the_groups_types_keeps_its_slot_when_it_wins_something(club):
    found = _facts(club, "The youth team won promotion to Division Four.")
    assert ("youth", "league", "Division Four", False) in found
    assert not any(f[0] == "promotion" for f in found)


def test_an_unnamed_place_is_said_with_the_named_place_it_is_at(club):
    found = _facts(club, "The juniors have moved to the old cricket pitch at Ashby Park.")
    assert ("juniors", "home_ground", "old cricket pitch at Ashby Park", False) in found


def test_a_model_name_with_digits_is_a_value():
    from kg_memory.extract import parse as p
    doc = p.parsed("My phone is a Galaxy A54.")
    assert p._noun(doc[5]) and doc[5].text == "A54"


def test_a_noun_said_with_no_article_is_no_thing_to_turn_round(lettings):
    """"Mr Kay gave notice": no tenant of a "notice"."""
    found = _facts(lettings, "Mr Kay gave notice, and Flat 5 is now let to the Bells.")
    assert not any(f[0] == "notice" for f in found)


def test_it_in_a_joined_clause_is_the_first_clauses_object(lettings):
    """"took the mews house away from Foxtons and gave it to Chestertons": the mews house's agent."""
    found = _facts(lettings, "I took the Mill Lane cottage away from Foxtons and gave it to Chestertons.")
    assert ("mill lane cottage", "managing_agent", "Chestertons", False) in found


def test_a_value_gone_back_to_is_a_change(sales):
    """"slipped back to discovery": "back to" says the slot took a value again, whatever the verb."""
    found = _facts(sales, "Globex's deal fell back to qualification.")
    assert ("globex", "deal_stage", "qualification", False) in found


def test_have_got_is_having(embedder):
    found = _facts(RulesExtractor(embedder), "I've got a OnePlus 11.")
    assert any(f[1] == "uses_phone" for f in found), found


@pytest.mark.parametrize("text, fact", [
    # the speaker doing a verb to a named thing at a named place: the place is the thing's
    ("We record Loose Ends at Polar Studios.", ("loose ends", "recorded_at", "Polar Studios", False)),
    # a role's own noun said as its holder's verb ("hosts"), which the small parser takes for a noun
    ("Maya hosts Loose Ends.", ("loose ends", "host", "Maya", False)),
    # a slot's noun "for the" thing is the thing's
    ("Our architect for the porch is Lena Berg.", ("porch", "architect", "Lena Berg", False)),
    # a thing worked on said as its owner and the slot's noun; an amount set aside for a thing
    ("We raised the kitchen budget to £8,000.", ("kitchen", "budget", "£8,000", False)),
    ("We have set aside £5k for the porch.", ("porch", "budget", "£5k", False)),
    # a name joined by "&"
    ("Birch & Co are building our porch.", ("porch", "builder", "Birch & Co", False)),
    # a place said as someone's room is the room
    ("Loose Ends is taped in Maya's attic.", ("loose ends", "recorded_at", "attic", False)),
])
def test_whose_thing_and_which_value_in_a_podcast_and_a_renovation(podcast, renovation, text, fact):
    assert fact in _facts(podcast if fact[1] in ("recorded_at", "host") else renovation, text)


def test_stepping_down_from_a_role_ends_it(podcast):
    found = _facts(podcast, "Raj stepped down as producer of Loose Ends.")
    assert any(f[1] == "producer" and f[3] and "Raj" in (f[2], f[0].title()) for f in found), found


def test_the_one_replaced_is_the_old_value_not_the_thing(renovation):
    found = _facts(renovation, "We replaced Lena Berg with Ivo Marsh as architect on the porch.")
    assert ("user", "architect", "Ivo Marsh", False) in found and not any(f[0] == "lena berg" for f in found)


def test_an_examples_possessor_is_no_name_it_gives():
    from kg_memory.extract.exemplars import last_name
    assert last_name(parse.parsed("The show is taped in Marcus's spare room.")) is None


def test_a_name_said_in_the_passive_with_any_preposition_is_what_the_verb_is_done_to(fleet):
    """"Van Nine is serviced at Harlow Motors": Harlow Motors services Van Nine, not the other way round."""
    found = _facts(fleet, "Van Nine is serviced at Harlow Motors.")
    assert ("van nine", "serviced_by", "Harlow Motors", False) in found


def test_a_name_ending_in_a_slots_noun_is_still_a_name(band):
    """"Lakeside Studios" is a name (no studio of Lakeside's), so the band is not turned into its value."""
    found = _facts(band, "The Moths rehearse at Lakeside Studios.")
    assert found == {("moths", "rehearses_at", "Lakeside Studios", False)}


@pytest.mark.parametrize("text, fact", [
    ("We hired Dana Cole as our manager.", ("user", "band_manager", "Dana Cole", False)),
    ("We took on Priya as our drummer.", ("user", "drummer", "Priya", False)),
])
def test_one_taken_on_as_a_role_is_its_value_not_we(band, text, fact):
    """"We hired Ravi as our tour manager": Ravi is the role's value; "We" is no name."""
    assert fact in _facts(band, text)



wedding, opensource = (_domain(n, FIXTURES) for n in ("wedding", "opensource"))  # (updates-fresh12.json's, read since)


def test_a_date_slots_value_is_no_start_of_the_fact(wedding):
    """"The wedding is on 9 May 2027": the date is the value; the fact holds from when it was said."""
    ep = Episode(group_id="g", role="user", content="The wedding is on 9 May 2027.", occurred_at=T, created_at=T)
    found = [f for f in wedding.extract(ep).facts if f.predicate == "wedding_date"]
    assert [(f.subject, f.object) for f in found] == [("wedding", "9 May 2027")]
    assert found[0].valid_from == T and not found[0].dated


@pytest.mark.parametrize("text, fact", [
    # a subject that is only the slot's own noun is the speaker's
    ("The date has moved: we are now getting married on 2 July 2027.", ("user", "wedding_date", "2 July 2027",
                                                                         False)),
    # a thing's arrangement said ahead is stated, not wished for
    ("The reception is going to be at Millbrook Barn.", ("reception", "venue", "Millbrook Barn", False)),
    # one who stops on the speaker ends the value
    ("Millbrook Barn cancelled on us.", ("user", "venue", "Millbrook Barn", True)),
    # a name doing a thing the examples name a slot of: the thing's value, not the other way round
    ("Ola Berg will photograph the wedding.", ("wedding", "photographer", "Ola Berg", False)),
    # a name doing the work a slot is named for
    ("Olive Tree is doing the catering.", ("user", "caterer", "Olive Tree", False)),
    # who acts after "let X go and" is who let X go
    ("We let Olive Tree go and hired Fig & Vine for the food.", ("user", "caterer", "Fig & Vine", False)),
])
def test_whose_date_venue_and_supplier_at_a_wedding(wedding, text, fact):
    assert fact in _facts(wedding, text)


@pytest.mark.parametrize("text, fact", [
    # a value after a preposition is no doer of the verb
    ("The lexer crate builds on Drone CI.", ("lexer crate", "ci_provider", "Drone CI", False)),
    # a thing's possessed slot noun says whose the change is
    ("We moved the lexer crate's CI from Drone to Buildkite.", ("lexer crate", "ci_provider", "Buildkite", False)),
    ("We took Orbit's docs off Netlify.", ("orbit", "docs_host", "Netlify", True)),
    # a name that goes on through "the" to another capital
    ("The Orbit docs live on Read the Docs.", ("orbit", "docs_host", "Read the Docs", False)),
])
def test_whose_thing_and_which_value_in_an_open_source_project(opensource, text, fact):
    assert fact in _facts(opensource, text)


def test_a_day_said_before_the_clause_is_when_not_whose(embedder):
    """"On Friday I start at Bain": the day says when; the speaker starts at Bain."""
    assert ("user", "works_at", "Bain", False) in _facts(RulesExtractor(embedder), "On Friday I start at Bain.")


def test_the_one_who_steps_in_after_a_names_end_replaces_that_name(band):
    """"Omar pulled out, and Tess is covering": a fact of Omar's replacing Omar, whose slot the holders settle;
    nothing else is said of Omar."""
    ep = Episode(group_id="g", role="user", content="Omar pulled out, and Tess is covering the tour.",
                 occurred_at=T, created_at=T)
    found = band.extract(ep).facts
    assert [(f.object, f.replaces, f.needs_slot) for f in found if f.subject == "Omar"] == [("Tess", "Omar", True)]
    assert not any(f.object == "Omar" and not f.ending for f in found)


logistics, bookclub = (_domain(n, FIXTURES) for n in ("logistics", "bookclub"))  # (updates-fresh15.json's, dev)


@pytest.mark.parametrize("text, fact", [
    # a name acting on a slot's noun held at a name is that name's slot's value
    ("Marta looks after our account at Hermes.", ("hermes", "account_manager", "Marta", False)),
    ("Kwame handles our account at UPS.", ("ups", "account_manager", "Kwame", False)),
])
def test_one_who_acts_on_a_slot_held_at_a_name_is_its_value(logistics, text, fact):
    assert fact in _facts(logistics, text)


def test_a_thing_finished_ends_and_what_follows_it_replaces_it(bookclub):
    """"finished Emma and started Persuasion": Emma ends, and Persuasion replaces it (its slot is Emma's)."""
    ep = Episode(group_id="g", role="user", content="The Sunday group finished Emma and started Persuasion.",
                 occurred_at=T, created_at=T)
    found = {(f.object, f.ending, f.replaces) for f in bookclub.extract(ep).facts}
    assert ("Emma", True, "Emma") in found and ("Persuasion", False, "Emma") in found


def test_a_thing_passed_on_to_someone_is_handed_over(bookclub):
    """The "to" under "on" is who it is handed to: the Sunday group's value is Nell now, and Ivo's ends (the
    pipeline settles which slot by what the group holds)."""
    found = _facts(bookclub, "Ivo passed the Sunday group on to Nell.")
    assert {(f[0], f[2], f[3]) for f in found} == {("sunday", "Nell", False), ("sunday", "Ivo", True)}


@pytest.mark.parametrize("text, fact", [
    # a slot whose examples all say a weekday takes a weekday, and one whose examples never do takes none
    ("The Sunday group meets on Tuesdays now.", ("sunday", "meeting_day", "Tuesdays", False)),
    ("The Sunday group meets at the Old Mill.", ("sunday", "meets_at", "Old Mill", False)),
])
def test_a_weekday_goes_to_the_slot_whose_examples_say_one(bookclub, text, fact):
    found = _facts(bookclub, text)
    assert fact in found and not any(f[2] == fact[2] and f[1] != fact[1] for f in found), found


gym, theatre = (_domain(n, FIXTURES) for n in ("gym", "theatre"))  # (updates-fresh16.json's, dev)


@pytest.mark.parametrize("text, fact", [
    # an example said of a named thing in a room ("We hold Pilates in the upstairs studio") reads the room as
    # the value, so a named class in a room is the class's room, not the room's class
    ("Barre is in the upstairs studio.", ("barre", "studio", "upstairs studio", False)),
    # "out of A into B" is a change to B
    ("We moved Spin out of Studio 2 into the sports hall.", ("spin", "studio", "sports hall", False)),
])
def test_whose_room_in_a_gym(gym, text, fact):
    found = _facts(gym, text)
    assert fact in found and not any(f[0] == fact[2].lower() for f in found), found


@pytest.mark.parametrize("text, fact", [
    # a day's number goes on through its month and year, which the parser hangs elsewhere
    ("Hamlet's opening has been put back to 11 May 2026.", ("hamlet", "opening_night", "11 May 2026", False)),
    # a clause with a named subject of its own, which the parser hung on the first, is read alone
    ("Ivy quarrelled with the cast and Raj Mehta took over directing Hamlet.", ("hamlet", "director", "Raj Mehta",
                                                                                False)),
    # a noun's name in apposition is the subject
    ("Her understudy Nia Cole is playing Hamlet now.", ("hamlet", "lead_actor", "Nia Cole", False)),
    # a name acting on a slot's noun held in a name is that name's value
    ("Kit Hart plays the lead in Hamlet.", ("hamlet", "lead_actor", "Kit Hart", False)),
])
def test_who_directs_and_plays_in_a_theatre(theatre, text, fact):
    assert fact in _facts(theatre, text)


def test_a_line_that_drops_its_i_after_an_adverb_is_the_speakers_and_so_is_its_conj(embedder):
    found = _facts(RulesExtractor(embedder), "Finally sold the Corsa and picked up a Honda Jazz.")
    assert ("user", "drives", "Honda Jazz", False) in found, found


@pytest.mark.parametrize("text, pair", [
    ("Danny's moved to another gym, so Leanne has picked up the class.", ("Danny", "Leanne")),
    ("Brenda's retiring, and her replacement for the class is Tom Wills.", ("Brenda", "Tom Wills")),
    ("Apex Lofts went bust, so Skyline Lofts have taken over.", ("Apex Lofts", "Skyline Lofts")),
    ("Dev pulled out; his colleague Ruth Okafor is covering the day.", ("Dev", "Ruth Okafor")),
    ("Lena moved out of Flat 9 and Marek moved in.", ("Lena", "Marek")),
])
def test_who_steps_in_after_whose_end(text, pair):
    from kg_memory.extract.succession import took_over
    assert took_over(text) == [pair]


def test_no_one_steps_in_without_an_end_or_a_successor():
    from kg_memory.extract.succession import took_over
    assert took_over("Dana and Tess took over the booking.") == [] and took_over("Omar quit The Moths.") == []


def test_these_days_is_no_part_of_a_value(embedder):
    found = _facts(RulesExtractor(embedder), "I'm a data analyst these days.")
    assert ("user", "job_title", "data analyst", False) in found, found


newsroom, charity = (_domain(n, FIXTURES) for n in ("newsroom", "charity"))  # (updates-fresh14.json's, read since)


@pytest.mark.parametrize("text, fact", [
    # the role a verb makes one ("was elected", "was made") is held as the copula's role is
    ("Yusuf Ali was elected treasurer of Hope Hall.", ("hope hall", "treasurer", "Yusuf Ali", False)),
    # a passive with any participle ("is paid for by") says the doer last
    ("The lunch club is paid for by Comic Relief now.", ("lunch club", "funded_by", "Comic Relief", False)),
])
def test_a_role_made_and_a_doer_said_last_in_a_charity(charity, text, fact):
    assert fact in _facts(charity, text)


@pytest.mark.parametrize("text, fact", [
    # a slot's noun the parser took for a verb, said with its owner
    ("Copy for the Sunday paper is due at 8pm.", ("sunday", "copy_deadline", "8pm", False)),
    # a role of ours said with a common noun: what the role is of
    ("Omar is our crime correspondent.", ("omar", "beat", "crime", False)),
    # in charge of a thing: the thing's holder
    ("Lucy Park is in charge of the night desk now.", ("night", "desk_head", "Lucy Park", False)),
    # a role one is made is one's job, no thing's slot
    ("Nina was promoted to news editor.", ("nina", "job_title", "news editor", False)),
])
def test_roles_in_a_newsroom(newsroom, text, fact):
    assert fact in _facts(newsroom, text)


def test_one_who_moves_to_a_thing_holds_no_slot_of_it(newsroom):
    found = _facts(newsroom, "Ravi moved to the business desk.")
    assert not any(f[2] == "Ravi" for f in found), found


@pytest.mark.parametrize("text, place", [
    ("We just bought a flat in Margate.", "Margate"),  # a home bought in a place
    ("Home these days is a narrowboat in Oxford.", "Oxford"),  # home said as the copula's subject
    ("Sold up in March; home is a cottage outside Whitby now.", "Whitby"),  # and with no article, not in a place
    ("Home is Falmouth these days.", "Falmouth"),  # home, bare, is one's own
])
def test_a_home_in_a_place_is_where_one_lives(embedder, text, place):
    assert ("user", "lives_in", place, False) in _facts(RulesExtractor(embedder), text)


def test_a_product_name_stays_whole(embedder):
    found = _facts(RulesExtractor(embedder), "My phone is a Motorola Edge 40.")
    assert any(f[1] == "uses_phone" and f[2].lower() == "motorola edge 40" for f in found), found


def test_what_someone_stops_of_mine_and_starts_me_on(embedder):
    found = _facts(RulesExtractor(embedder), "The GP stopped the sertraline and put me on citalopram.")
    assert {("user", "takes_medication", "sertraline", True), ("user", "takes_medication", "citalopram", False)} \
        <= found, found


farm, conference = (_domain(n, FIXTURES) for n in ("farm", "conference"))  # (updates-fresh18.json's, dev)


@pytest.mark.parametrize("text, fact", [
    # what a named thing is done with is its value ("sown X with linseed")
    ("We've sown Bottom Field with linseed.", ("bottom", "crop", "linseed", False)),
    # a thing that is someone's responsibility: they are responsible for it
    ("The dairy herd is Owen's responsibility.", ("dairy", "herdsman", "Owen", False)),
])
def test_what_a_field_is_sown_with_and_whose_the_herd_is(farm, text, fact):
    assert fact in _facts(farm, text)


def test_a_word_that_opens_a_clause_names_nothing(farm):
    assert not any(f[2] == "Since" for f in _facts(farm, "Since lambing the ewes have been turned out onto grass."))


@pytest.mark.parametrize("text, fact", [
    ("DataFest moves to the Lowry this year.", ("datafest", "venue", "Lowry", False)),  # a change said in any tense
    ("A RustFest ticket costs £99.", ("rustfest", "ticket_price", "£99", False)),  # "costs" the parser took for a noun
    # the name said for a common noun after a comma
    ("DataFest has moved to a larger hall, Central Hall Westminster.", ("datafest", "venue", "Central Hall Westminster",
                                                                         False)),
    # the noun of a slot's state ("sponsorship") with its owner
    ("RustFest's sponsorship has been picked up by Mozilla.", ("rustfest", "headline_sponsor", "Mozilla", False)),
])
def test_where_and_by_whom_in_a_conference(conference, text, fact):
    assert fact in _facts(conference, text)


@pytest.mark.parametrize("text, fact", [
    # a state the speaker says plainly, clearly one slot's, under the default ontology
    ("I'm at Keele for my PhD.", ("user", "studies_at", "Keele", False)),
    # a home of one's own in a named place, wherever the clause says it
    ("Got the keys to our new house in Frome.", ("user", "lives_in", "Frome", False)),
    ("I'm renting a room in Exeter.", ("user", "lives_in", "Exeter", False)),
    # "up" and "to" both the verb's: a level one moved to
    ("I've stepped up to deputy manager.", ("user", "job_title", "deputy manager", False)),
])
def test_plain_states_and_homes_of_ones_own(embedder, text, fact):
    assert fact in _facts(RulesExtractor(embedder), text)


@pytest.mark.parametrize("text, predicate", [
    ("We viewed a flat in Leeds.", "lives_in"),  # a home only looked at
    ("I'm in Leeds.", "studies_at"),  # near a slot only because an example names the value ("University of Leeds")
    ("I went up to the attic.", "works_at"),  # going up to a place is no level
])
def test_what_is_no_state_of_the_speakers(embedder, text, predicate):
    assert not any(f[1] == predicate for f in _facts(RulesExtractor(embedder), text))


bakery = _domain("bakery", FIXTURES)  # (updates-fresh19.json's, dev)


@pytest.mark.parametrize("text, fact", [
    ("We dropped brownies to £2.50.", ("brownies", "price", "£2.50", False)),  # a stop to an amount changes it
    # a thing of the group's types has only the group's slots said of things (no manager of the night shift)
    ("The night shift has a new lead, Sam Obi.", ("night", "shift_lead", "Sam Obi", False)),
])
def test_prices_and_leads_in_a_bakery(bakery, text, fact):
    assert fact in _facts(bakery, text)


def test_one_who_goes_on_leave_holds_no_slot_of_it(bakery):
    assert not any(f[2] == "Priya" for f in _facts(bakery, "Priya went on sick leave."))


@pytest.mark.parametrize("text, fact", [
    # a move said as moving in with someone, in a named place
    ("We've moved in with my in-laws in Swindon.", ("user", "lives_in", "Swindon", False)),
    # the relation nouns people use ("other half", "mum")
    ("My other half is Robin.", ("user", "partner", "Robin", False)),
    ("My mum is Sheila.", ("user", "has_parent", "Sheila", False)),
])
def test_moving_in_and_what_people_call_theirs(embedder, text, fact):
    assert fact in _facts(RulesExtractor(embedder), text)


dental, facilities = (_domain(n, FIXTURES) for n in ("dental", "facilities"))  # (updates-fresh20.json's, dev)


@pytest.mark.parametrize("text, fact", [
    ("Bridges are made for us by Cobalt Lab.", ("bridges", "dental_lab", "Cobalt Lab", False)),  # a passive "for us"
    # a thing of ours said as its owner and a slot's noun: the owner's slot
    ("We've moved our denture work to Ivory Lab.", ("denture", "dental_lab", "Ivory Lab", False)),
    # one of someone's patients: the subject's slot, the someone its value
    ("Mrs Khan is one of Dr Rees's patients.", ("mrs khan", "treating_dentist", "Dr Rees", False)),
    # a named one's thing that passes to another: the named one's slot changes ("Miss", not "Miss care")
    ("Miss Ford's care has passed to Dr Shah.", ("miss ford", "treating_dentist", "Dr Shah", False)),
    # a thing's slot stretched to an amount, whatever the verb
    ("We've extended Mr Bell's recall to eighteen months.", ("mr bell", "recall_interval", "eighteen months", False)),
    # the slot's noun said with "the" is the thing's own, not the speaker's
    ("Jo Lane manages the practice.", ("practice", "practice_manager", "Jo Lane", False)),
])
def test_who_treats_whom_and_what_goes_where_in_a_dental_practice(dental, text, fact):
    assert fact in _facts(dental, text)


def test_a_slot_whose_examples_all_count_takes_no_act_as_its_value(dental):
    """An example the reader cannot read ("comes in every six months") still says its value has a number."""
    assert not any(f[1] == "recall_interval" for f in _facts(dental, "The lab kept losing impressions."))


def test_a_code_said_like_a_year_is_the_value_of_the_thing_it_is_for(facilities):
    assert ("side gate", "door_code", "1987", False) in _facts(facilities, "The code for the side gate is 1987.")


@pytest.mark.parametrize("text, fact, not_fact", [
    # a student's place is a place of study, not an employer
    ("I'm a first-year student at Leeds Beckett.", ("user", "studies_at", "Leeds Beckett", False),
     ("user", "works_at", "Leeds Beckett", False)),
    ("I qualified as an accountant last year.", ("user", "job_title", "accountant", False), None),
])
def test_students_and_those_newly_qualified(embedder, text, fact, not_fact):
    found = _facts(RulesExtractor(embedder), text)
    assert fact in found and not_fact not in found


@pytest.mark.parametrize("text, fact", [
    # a slot said of one kind of thing is not read of another: lifts are equipment (the type's own description
    # lists "lift"), which is serviced; a building is managed
    ("Kone looks after the escalators.", ("escalators", "maintained_by", "Kone", False)),
    ("Ravi Dutt looks after the Quay building.", ("quay", "building_manager", "Ravi Dutt", False)),
    # whoever changes a thing said with its slot's noun, the change is the thing's
    ("Facilities changed the fire door code to 8812.", ("fire door", "door_code", "8812", False)),
    # a compound the parser read as a verb and its object
    ("The council has moved composting collection to Fridays.", ("composting", "collection_day", "Fridays", False)),
])
def test_whose_slot_by_the_kind_of_thing_in_a_building(facilities, text, fact):
    assert fact in _facts(facilities, text)


@pytest.mark.parametrize("text, fact", [
    ("My phone's a Nokia G42.", ("user", "uses_phone", "Nokia G42", False)),  # "'s a": is, not whose
    ("My girlfriend now is Ama.", ("user", "partner", "Ama", False)),  # "now is": is
    ("Finally got myself a Fairphone 5.", ("user", "uses_phone", "Fairphone 5", False)),  # a dropped "I"
    ("I use a battered old Pixel 6.", ("user", "uses_phone", "Pixel 6", False)),  # an old phone is the phone
    ("My fiancée is Dora.", ("user", "partner", "Dora", False)),
    ("I answer to Mike these days.", ("user", "has_manager", "Mike", False)),
    ("I'm prescribed sertraline.", ("user", "takes_medication", "sertraline", False)),
    ("I've just started at Durham University.", ("user", "studies_at", "Durham University", False)),
])
def test_how_people_say_their_own_states(embedder, text, fact):
    assert fact in _facts(RulesExtractor(embedder), text)


def test_a_place_said_with_a_word_of_work_is_worked_at(embedder):
    assert ("user", "works_at", "Bristol University", False) in _facts(RulesExtractor(embedder),
                                                                      "I got a job at Bristol University.")


def test_a_change_by_someone_said_by_their_role_is_of_the_class_of_the_value_it_leaves(embedder):
    """"The practice nurse swapped ramipril for losartan": the speaker's medication (the value left is one), even
    when the new value is no word the class lists."""
    found = _facts(RulesExtractor(embedder), "The practice nurse replaced ramipril with losartan.")
    assert ("user", "takes_medication", "losartan", False) in found


garage = _domain("garage", FIXTURES)  # (updates-fresh21.json's, dev)


@pytest.mark.parametrize("text, fact", [
    ("We've put the welding rate up to £85 an hour.", ("welding", "labour_rate", "£85", False)),  # "to" a quantmod
    ("We buy our exhausts from Klarius.", ("exhausts", "parts_supplier", "Klarius", False)),  # the thing had holds it
    ("Marek is on the Fiesta job.", ("fiesta", "assigned_mechanic", "Marek", False)),  # on a thing's job
])
def test_rates_suppliers_and_jobs_in_a_garage(garage, text, fact):
    assert fact in _facts(garage, text)


# -- states said with a light verb, and the values an example names (updates-fresh22.json's round, dev) ------------
@pytest.mark.parametrize("text, fact", [
    ("I eat vegetarian.", ("user", "diet", "vegetarian", False)),  # a light verb with a word of the slot's class
    ("I'm doing a PhD at Bristol.", ("user", "studies_at", "Bristol", False)),  # the slot's own wording, masked
    ("Priya and I tied the knot in June.", ("user", "relationship_status", "married", False)),
    ("Priya and I have been engaged for a year.", ("user", "relationship_status", "engaged", False)),
    ("I got bumped up to senior editor.", ("user", "job_title", "senior editor", False)),
    ("We've adopted a tabby called Miso.", ("user", "has_pet", "Miso", False)),  # "we've": the pet said by name
    ("We lost Miso last winter.", ("user", "has_pet", "Miso", True)),  # a pet lost: its end
])
def test_states_said_with_a_light_verb_or_an_idiom(embedder, text, fact):
    assert fact in _facts(RulesExtractor(embedder), text)


@pytest.mark.parametrize("text", [
    "I'm doing my shopping at Tesco.",  # a light verb and no slot's wording: no place of study
    "I'm in Exeter.",  # a place an example names ("the University of Leeds" is Leeds) is no place of study
])
def test_a_light_verb_or_an_examples_value_alone_states_no_slot(embedder, text):
    assert not any(p in ("studies_at", "works_at") for _, p, _, _ in _facts(RulesExtractor(embedder), text))


film = _domain("film", FIXTURES)  # (updates-fresh22.json's, dev)


@pytest.mark.parametrize("text, fact", [
    ("Blue Lagoon has a budget of $8 million.", ("blue lagoon", "budget", "$8 million", False)),  # "has" an amount
    ("The studio cut Blue Lagoon's budget to $6 million.", ("blue lagoon", "budget", "$6 million", False)),  # 's slot
])
def test_amounts_a_film_is_said_with(film, text, fact):
    assert fact in _facts(film, text)


def test_a_quantity_of_a_thing_is_no_amount(film):
    """"Has a lot of fans": the fans, no budget (an example the reader misreads still says the slot takes amounts)."""
    assert not any(p == "budget" for _, p, _, _ in _facts(film, "Blue Lagoon has a lot of fans."))


@pytest.mark.parametrize("text, found", [
    ("I took a job with Halfords.", ("user", "works_at", "Halfords", False)),  # the slot's noun, then the value
    ("I took a job with Screwfix in May.", ("user", "works_at", "Screwfix", False)),
    ("I applied for a job with Halfords.", None),  # one sought is not held
    ("I didn't get the job at Halfords.", None),  # nor one denied
    ("Mel has gone to a farm with Dairy Crest.", None),  # nor where one went
])
def test_a_value_held_at_the_slots_own_noun(embedder, text, found):
    got = {f for f in _facts(RulesExtractor(embedder), text) if f[1] == "works_at"}
    assert got == ({found} if found else set())


def test_one_on_call_for_a_thing_is_that_things_value(embedder):
    """"Nadia is on call for the ingestion pipeline": the pipeline's on-call engineer is Nadia, as one in charge
    of a thing is its holder (not a slot of Nadia's that the verb's meaning is near)."""
    platform = _extractor(embedder, "platform", FIXTURES)
    assert _facts(platform, "Nadia is on call for the ingestion pipeline tonight.") == {
        ("ingestion", "on_call", "Nadia", False)}


@pytest.mark.parametrize("text, fact", [
    ("The locum put Biscuit on Metacam.", ("biscuit", "treatment", "Metacam", False)),
    ("The nurse has moved Pepper onto a renal diet.", ("pepper", "diet", "renal diet", False)),
    ("Pepper has been moved onto a renal diet.", ("pepper", "diet", "renal diet", False)),  # and in the passive
])
def test_one_put_onto_a_value_holds_it(embedder, text, fact):
    """"The locum put Biscuit on Metacam": the one a verb of placing puts onto a value holds it (not the one who
    put it there, nor the clause's name as a vet's)."""
    assert _facts(_extractor(embedder, "vetclinic", FIXTURES), text) == {fact}
