"""Reads added for the first hour, on both stores: ended facts (what recall's
decay and "no longer true" read), groups and entity names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kg_memory.core.models import normalize_name
from kg_memory.core.temporal import ended
from kg_memory.core.timeutil import FixedClock
from kg_memory.store.base import TimeFilter

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TURNS = [
    ("2024-01-08T09:00:00Z", "I live in Leeds and I work at Brightline Studio."),
    ("2024-09-02T08:00:00Z", "I started a new job at Northwind Labs today."),
    ("2024-11-18T19:00:00Z", "I moved to Manchester last month."),
    ("2025-08-11T09:00:00Z", "I quit my job at Northwind Labs yesterday."),
]


def _history(make_memory, group):
    clock = FixedClock(T0)
    mem = make_memory(clock=clock)
    for at, text in TURNS:
        mem.add(text, group=group, occurred_at=at)
        clock.advance(timedelta(hours=1))
    user = mem.store.find_entities(group, [normalize_name("user")])
    (uid,) = [e.id for e in user.values()]
    return mem, uid


def test_ended_facts_follow_the_temporal_rule(store, group, make_memory):
    mem, uid = _history(make_memory, group)
    every = store.history(group, uid)
    points = [datetime(2024, 6, 1, tzinfo=UTC), datetime(2024, 10, 1, tzinfo=UTC), datetime(2025, 8, 10, tzinfo=UTC),
              datetime(2026, 6, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, tzinfo=UTC)]
    beliefs = [T0 + timedelta(minutes=30), T0 + timedelta(hours=2, minutes=30), T0 + timedelta(days=1)]
    seen_any = False
    for as_of in points:
        for known_at in beliefs:
            want = sorted((v for v in every if ended(v, as_of, known_at)),
                          key=lambda v: (-(v.valid_to.timestamp() if v.valid_to else 0), v.id))
            tf = TimeFilter(as_of=as_of, known_at=known_at)
            got = store.ended_facts(group, [uid], tf, 50)
            assert [v.id for v in got] == [v.id for v in want], (as_of, known_at)
            assert [v.id for v in store.ended_facts(group, [uid], tf, 1)] == [v.id for v in want[:1]]
            only = store.ended_facts(group, [uid], tf, 50, ["works_at"])
            assert [v.id for v in only] == [v.id for v in want if v.predicate == "works_at"]
            seen_any = seen_any or bool(want)
    assert seen_any
    now = TimeFilter(as_of=datetime(2026, 6, 1, tzinfo=UTC), known_at=T0 + timedelta(days=1))
    assert {(v.predicate, v.object) for v in store.ended_facts(group, [uid], now, 50)} == {
        ("lives_in", "Leeds"), ("works_at", "Brightline Studio"), ("works_at", "Northwind Labs")}
    assert store.ended_facts(group, [], now, 50) == [] and store.ended_facts(f"{group}-x", [uid], now, 50) == []


def test_recall_names_the_ended_value_and_decays_superseded_turns(store, group, make_memory):
    mem, _ = _history(make_memory, group)
    res = mem.recall("Where do I work?", group=group, as_of="2026-06-01", known_at=T0 + timedelta(days=1))
    assert [(f.predicate, f.object) for f in res.ended] == [("works_at", "Northwind Labs")]
    assert "quit my job" in res.episodes[0].episode.content
    intro = next(s for s in res.episodes if "Brightline" in s.episode.content)
    assert intro.components["decay"] < 0.5
    flat = mem.recall("Where do I work?", group=group, as_of="2026-06-01", known_at=T0 + timedelta(days=1),
                      half_life=0)
    assert all(s.components.get("decay", 1.0) == 1.0 for s in flat.episodes)
    then = mem.recall("Where do I work?", group=group, as_of="2024-06-01", known_at=T0 + timedelta(days=1))
    assert then.ended == [] and [s.fact.object for s in then.facts if s.fact.predicate == "works_at"] == [
        "Brightline Studio"]
    assert "Brightline" in then.episodes[0].episode.content
    assert all(s.components.get("decay", 1.0) == 1.0 for s in then.episodes)


def test_groups_and_entity_names(store, group, make_memory):
    mem, _ = _history(make_memory, group)
    mem.add("My sister Ines lives in Porto.", group=f"{group}-b", occurred_at="2024-02-01T10:00:00Z")
    rows = dict(store.groups())
    assert rows[group] == {"episodes": 4, "entities": store.counts(group)["entities"],
                           "facts": store.counts(group)["facts"]}
    assert rows[f"{group}-b"]["episodes"] == 1
    names = [g for g, _ in store.groups()]
    assert names == sorted(names)
    found = store.entity_names(group, 100)
    assert found == sorted(found) and {"User", "Leeds", "Manchester", "Northwind Labs"} <= set(found)
    assert "Ines" not in found and store.entity_names(group, 2) == found[:2]


PLACES = ["aquarium", "old lighthouse", "botanical garden", "science museum", "night market", "rose garden",
          "city library", "harbour", "pottery studio", "jazz club", "flea market", "ice rink", "planetarium",
          "climbing gym", "farmers market", "sculpture park", "opera house", "bird sanctuary", "vineyard",
          "observatory", "tea house", "skate park"]


def test_a_fact_said_in_the_turn_the_question_matches_ranks_first(group, make_memory):
    """The question's words ("marathon", "knees") are in the turn that said the fact, not in its
    statement: the fact ranks by the turn it came from (``fact_source``). On statement similarity
    alone "Ana likes hiking" ranked first."""
    mem = make_memory()
    start = datetime(2024, 1, 1, 9, tzinfo=UTC)
    turns = [("Ana", "My knees hurt after the Boston marathon last spring, so I took up swimming."),
             ("Ana", "I started painting watercolours on Sunday mornings."),
             ("Ana", "I adopted a dog named Rex."),
             ("Ana", "I love hiking in the Alps."),
             ("Ben", "I play the violin in a quartet.")]
    for i, (speaker, text) in enumerate(turns):
        mem.add(text, group=group, speaker=speaker, occurred_at=start + timedelta(days=i))
    res = mem.recall("What did Ana take up after the marathon hurt her knees?", group=group, k=5)
    first = res.facts[0]
    assert "swimming" in first.fact.statement
    assert first.components["source"] == 1.0
    assert all(sf.components["source"] < 1.0 for sf in res.facts[1:])


def test_a_named_entitys_facts_score_alike_however_they_were_found(group, make_memory):
    """Every fact of an entity the query names gets the entity score, whether or not it was among the
    few the named-entity fetch returned (its row limit takes the latest first). The oldest of many of
    Ana's facts, which the fetch leaves out and only the searches find, still ranks first when it is
    the one asked about."""
    clock = FixedClock(T0)
    mem = make_memory(clock=clock)
    start = datetime(2024, 1, 1, 9, tzinfo=UTC)
    for i, place in enumerate(PLACES):  # the aquarium first: the oldest fact
        mem.add(f"I visited the {place}.", group=group, speaker="Ana", occurred_at=start + timedelta(days=i))
        clock.advance(timedelta(minutes=5))
    visits = [v for v in mem.history("Ana", group=group) if v.predicate == "visit"]
    assert len(visits) == len(PLACES)  # more than the fetch's 2 x k rows
    res = mem.recall("When did Ana visit the aquarium?", group=group, k=5)
    assert res.facts[0].fact.object == "aquarium"
    assert all(sf.components["entity"] == 1.0 for sf in res.facts if sf.fact.subject == "Ana")
