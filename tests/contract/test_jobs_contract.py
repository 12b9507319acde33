"""`kgmem jobs hubs` on both stores: degrees from what is believed now."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from kg_memory.core.timeutil import FixedClock
from kg_memory.maintenance.runner import hubs

from ..conftest import SAMPLE


def test_hubs_count_facts_believed_now(store, group, make_memory):
    mem = make_memory(clock=FixedClock(datetime(2026, 1, 1, tzinfo=UTC)))
    mem.ingest_files([SAMPLE], group=group)
    now = [f for f in mem.facts(group=group, all_versions=True) if f.expired_at is None]  # believed now
    want: Counter[str] = Counter()
    for f in now:
        want[f.subject] += 1
        want[f.object] += 1
    found = hubs(store, group, min_degree=2, top=3)
    assert [(h.name, h.degree) for h in found] == sorted(((n, d) for n, d in want.items() if d >= 2),
                                                          key=lambda nd: (-nd[1], nd[0]))
    user = found[0]
    assert user.name == "User" and len(user.predicates) == 3
    per_predicate = Counter(f.predicate for f in now if "User" in (f.subject, f.object))
    assert list(user.predicates.values()) == sorted(per_predicate.values(), reverse=True)[:3]
    assert hubs(store, f"{group}-none", 1) == [] and hubs(store, group, 10_000) == []
    pet = next(f for f in mem.facts(group=group) if f.predicate == "has_pet")
    mem.retire(pet.id, group=group)
    mem.clock.advance(timedelta(seconds=1))  # type: ignore[attr-defined]
    assert pet.fact_id not in {f.fact_id for f in mem.facts(group=group)}  # the retirement happened
    closing = [v for v in mem.facts(group=group, all_versions=True)
               if v.fact_id == pet.fact_id and v.expired_at is None]
    assert len(closing) == 1 and closing[0].valid_to is not None
    assert hubs(store, group, 2)[0].degree == user.degree  # its closing version is believed now: same degree
