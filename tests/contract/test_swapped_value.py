"""A change of a many-valued slot said with no old value ("the nurse has swapped me to losartan") takes the place of
the one value the subject holds (both stores); with two held it cannot say which and ends neither, and a value said
as added ("I've also been put on ...") ends nothing."""

from __future__ import annotations


def _told(mem, group, turns):
    for month, text in enumerate(turns, start=1):
        mem.add(text, group=group, occurred_at=f"2026-{month:02d}-10T10:00:00Z")


def _taken(mem, group):
    return {f.object.lower() for f in mem.facts(group=group) if f.predicate == "takes_medication"}


def test_a_swap_takes_the_place_of_the_one_value_held(make_memory, group):
    mem = make_memory()
    _told(mem, group, ["I take lisinopril for my blood pressure.", "The nurse has swapped me to losartan."])
    assert _taken(mem, group) == {"losartan"}
    ended = [f for f in mem.facts(group=group, all_versions=True) if f.object.lower() == "lisinopril"
             and f.expired_at is None]
    assert [str(f.valid_to)[:10] for f in ended] == ["2026-02-10"]  # (it held until the swap)


def test_a_swap_beside_two_held_values_ends_neither(make_memory, group):
    mem = make_memory()
    _told(mem, group, ["I take lisinopril and metformin.", "My doctor switched me to losartan."])
    assert _taken(mem, group) == {"lisinopril", "metformin", "losartan"}


def test_a_value_said_as_added_ends_nothing(make_memory, group):
    mem = make_memory()
    _told(mem, group, ["I take lisinopril.", "I've also been switched onto aspirin as well."])
    assert _taken(mem, group) == {"lisinopril", "aspirin"}
