"""A change meaning cannot place in a predicate is of the slot the value it leaves is held in, when that slot is one no
predicate names (both stores): after "my favourite poet is Wendy Cope", "I've gone off Wendy Cope; Simon Armitage is
my favourite poet these days" makes Simon Armitage the favourite poet, where Wendy Cope was, and no partner or job."""

from __future__ import annotations


def test_a_change_meaning_cannot_place_is_of_the_open_slot_the_old_value_holds(make_memory, group):
    mem = make_memory()
    mem.add("My favourite poet is Wendy Cope.", group=group, occurred_at="2026-01-10T10:00:00Z")
    mem.add("I've gone off Wendy Cope; Simon Armitage is my favourite poet these days.", group=group,
            occurred_at="2026-05-10T10:00:00Z")
    now = {(f.predicate, f.object) for f in mem.facts(group=group)}
    assert ("favorite_poet", "Simon Armitage") in now
    assert not any(o == "Wendy Cope" for _, o in now), now
    assert not any(p in ("partner", "works_at", "has_manager") for p, _ in now), now
    before = {(f.predicate, f.object) for f in mem.facts(group=group, as_of="2026-03-01T00:00:00Z")}
    assert ("favorite_poet", "Wendy Cope") in before
