"""A one-value slot changed when nothing holds it (both stores, ``ingest.lookback``): the turns just before are read
again for that slot alone, and the value the latest gives is held from that turn until the change, with that turn
as its source. Sentences of their own, none of the update sets'."""

from __future__ import annotations


def _turns(make_memory, group, turns):
    mem = make_memory()
    ids = []
    for month, text in enumerate(turns, start=1):
        ep = mem.episode(text, group=group, occurred_at=f"2026-{month:02d}-10T10:00:00Z")
        mem.add_episode(ep)
        ids.append(ep.id)
    return mem, ids


def test_a_value_said_too_plainly_is_held_until_the_change_that_names_it(make_memory, group):
    mem, ids = _turns(make_memory, group, ["I'm on the tills at Asda.", "I've swapped Asda for a job at Greggs."])
    assert {f.object for f in mem.facts(group=group, predicate="works_at")} == {"Greggs"}
    before = mem.facts(group=group, predicate="works_at", as_of="2026-01-20")
    assert [f.object for f in before] == ["Asda"]
    assert tuple(before[0].episode_ids) == (ids[0],), "the earlier turn is the source of what it said"
    assert before[0].valid_to is not None and before[0].valid_to.month == 2


def test_a_slot_nearest_an_earlier_turn_is_its_value_before_a_change(make_memory, group):
    mem, _ = _turns(make_memory, group, ["I'm at sixth form at Parkside.", "I've started at Leeds University."])
    assert {f.object for f in mem.facts(group=group, predicate="studies_at", as_of="2026-01-20")} == {"Parkside"}


def test_a_passing_act_before_a_change_is_no_earlier_value(make_memory, group):
    mem, _ = _turns(make_memory, group, ["I had a long lunch with Sam at Nando's.", "I've got a new job at Greggs."])
    assert mem.facts(group=group, predicate="works_at", as_of="2026-01-20") == []
    assert {f.object for f in mem.facts(group=group, predicate="works_at")} == {"Greggs"}


def test_a_slot_held_before_is_not_read_again(make_memory, group):
    mem, _ = _turns(make_memory, group, ["I work at Boots.", "I'm on the tills at Asda.",
                                         "I've swapped Asda for a job at Greggs."])
    assert {f.object for f in mem.facts(group=group, predicate="works_at", as_of="2026-01-20")} == {"Boots"}
    assert {f.object for f in mem.facts(group=group, predicate="works_at", all_versions=True)} <= {"Boots", "Greggs"}


def test_a_thing_of_the_speakers_said_with_the_value_a_later_turn_leaves_is_where_the_speaker_was(make_memory, group):
    mem, _ = _turns(make_memory, group, ["We have a house share in Jesmond.",
                                         "Moved out of Jesmond and into a studio in Heaton."])
    assert {f.object for f in mem.facts(group=group, predicate="lives_in", as_of="2026-01-20")} == {"Jesmond"}
    assert {f.object for f in mem.facts(group=group, predicate="lives_in")} == {"Heaton"}


def test_a_change_dated_by_a_period_ends_the_earlier_value_where_the_period_ends(make_memory, group):
    """"Last month" (January, said in February) is the latest the swap may have begun: Asda, said on 10 January,
    holds until then, and no version runs backwards."""
    mem, _ = _turns(make_memory, group, ["I'm on the tills at Asda.", "Last month I swapped Asda for a job at Greggs."])
    versions = mem.facts(group=group, predicate="works_at", all_versions=True)
    held = sorted((f.object, f.valid_from.day, f.valid_to and f.valid_to.month) for f in versions
                  if f.expired_at is None)
    assert held == [("Asda", 10, 2), ("Greggs", 1, None)], held
    assert all(f.valid_to is None or f.valid_to > f.valid_from for f in versions)
