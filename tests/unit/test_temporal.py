from datetime import UTC, datetime, timedelta

from kg_memory.core.models import FactVersion
from kg_memory.core.temporal import Candidate, contains, decide, is_empty, overlaps, visible


def d(y: int, m: int = 1, day: int = 1) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


NOW = d(2026, 1, 1)


def version(obj: str, vf: datetime | None, vt: datetime | None = None, created: datetime = d(2020),
            expired: datetime | None = None) -> FactVersion:
    return FactVersion(group_id="g", subject_id="u", subject="User", predicate="lives_in", object_id=obj,
                       object=obj, statement=f"User lives in {obj}", valid_from=vf, valid_to=vt,
                       created_at=created, expired_at=expired)


def cand(obj: str, vf: datetime, vt: datetime | None = None, **kw: object) -> Candidate:
    return Candidate(group_id="g", subject_id="u", subject="User", predicate="lives_in", object_id=obj,
                     object=obj, statement=f"User lives in {obj}", valid_from=vf, valid_to=vt, episode_id="ep",
                     **kw)  # type: ignore[arg-type]


def test_closed_open_intervals():
    assert contains(d(2020), d(2021), d(2020))
    assert not contains(d(2020), d(2021), d(2021))  # the end is open
    assert contains(None, None, d(1900))  # NULL means open on both sides
    assert overlaps(d(2020), d(2021), d(2020, 6), None)
    assert not overlaps(d(2020), d(2021), d(2021), d(2022))  # touching is not overlapping
    assert is_empty(d(2021), d(2021)) and not is_empty(d(2021), None)


def test_visible_needs_both_times():
    v = version("A", d(2020), d(2022), created=d(2021), expired=d(2023))
    assert visible(v, as_of=d(2021), known_at=d(2022))
    assert not visible(v, as_of=d(2022), known_at=d(2022))  # no longer valid
    assert not visible(v, as_of=d(2021), known_at=d(2020))  # not yet believed
    assert not visible(v, as_of=d(2021), known_at=d(2023))  # retired from belief


def test_supersede_closes_old_version_and_writes_successor():
    old = version("A", d(2020))
    dec = decide(cand("B", d(2024)), [old], single_valued=True, now=NOW)
    assert dec.kind == "supersede"
    new, successor = dec.inserts
    assert (new.object_id, new.valid_from, new.valid_to) == ("B", d(2024), None)
    assert successor.fact_id == old.fact_id and successor.id != old.id
    assert (successor.valid_from, successor.valid_to) == (d(2020), d(2024))
    assert len(dec.expiries) == 1
    assert dec.expiries[0].version_id == old.id and dec.expiries[0].expired_by == new.id
    assert dec.expiries[0].expired_at == NOW
    # the old version itself is untouched (never edited)
    assert old.valid_to is None and old.expired_at is None


def test_late_arriving_older_fact_does_not_retire_newer():
    newer = version("Denver", d(2026, 3, 2))
    dec = decide(cand("Boston", d(2019), d(2020)), [newer], single_valued=True, now=NOW)
    assert dec.expiries == []
    assert dec.inserts[0].valid_to == d(2020)
    open_late = decide(cand("Boston", d(2019)), [newer], single_valued=True, now=NOW)
    assert open_late.kind == "late" and open_late.inserts[0].valid_to == d(2026, 3, 2)
    assert open_late.expiries == []


def test_a_start_said_as_a_period_comes_after_a_value_known_from_inside_it():
    """"Moved to York in March", said in October after "I live in Leeds" said on 10 March: the move came after
    10 March, so it starts at the month's end and supersedes Leeds (not a late, earlier value before it)."""
    leeds = version("Leeds", d(2025, 3, 10))
    dec = decide(cand("York", d(2025, 3, 1), dated=True, started_by=d(2025, 4, 1)), [leeds], single_valued=True,
                 now=NOW)
    assert dec.kind == "supersede" and dec.inserts[0].valid_from == d(2025, 4, 1)
    assert (dec.inserts[1].valid_from, dec.inserts[1].valid_to) == (d(2025, 3, 10), d(2025, 4, 1))
    # a value known only from before the period keeps the period's start; so does a day's date
    earlier = version("Leeds", d(2024, 6, 1))
    assert decide(cand("York", d(2025, 3, 1), dated=True, started_by=d(2025, 4, 1)), [earlier], single_valued=True,
                  now=NOW).inserts[0].valid_from == d(2025, 3, 1)
    assert decide(cand("York", d(2025, 3, 1), dated=True), [leeds], single_valued=True, now=NOW).kind == "late"


def test_bounded_value_inside_open_one_keeps_the_tail():
    old = version("A", d(2018))
    dec = decide(cand("B", d(2019), d(2020)), [old], single_valued=True, now=NOW)
    spans = sorted((v.object_id, v.valid_from, v.valid_to) for v in dec.inserts)
    assert spans == [("A", d(2018), d(2019)), ("A", d(2020), None), ("B", d(2019), d(2020))]


def test_restatement_reinforces_without_new_fact():
    old = version("A", d(2020))
    dec = decide(cand("A", d(2024)), [old], single_valued=True, now=NOW)
    assert dec.kind == "reinforce"
    (succ,) = dec.inserts
    assert succ.fact_id == old.fact_id and succ.reinforcement_count == 2
    assert "ep" in succ.episode_ids and succ.valid_from == d(2020)
    assert dec.facts_added == 0


def test_multi_valued_accumulates_and_ending_closes_one_value():
    violin = version("violin", d(2025))
    add = decide(cand("cello", d(2025, 4)), [violin], single_valued=False, now=NOW)
    assert add.kind == "add" and add.expiries == []
    end = decide(cand("violin", d(2025, 9), ending=True), [violin, add.inserts[0]], single_valued=False, now=NOW)
    assert end.kind == "end"
    assert [x.version_id for x in end.expiries] == [violin.id]
    assert end.inserts[0].valid_to == d(2025, 9) and end.inserts[0].object_id == "violin"


def test_ending_without_named_value_ends_current_single_value():
    job = version("Acme", d(2025))
    dec = decide(cand("", d(2025, 8), ending=True, any_object=True), [job], single_valued=True, now=NOW)
    assert dec.kind == "end" and dec.inserts[0].valid_to == d(2025, 8)


def test_ending_of_unknown_value_is_noop():
    job = version("Acme", d(2025))
    assert decide(cand("Other", d(2025, 8), ending=True), [job], single_valued=True, now=NOW).kind == "noop"


def test_same_start_replaces_without_empty_version():
    old = version("A", d(2024))
    dec = decide(cand("B", d(2024)), [old], single_valued=True, now=NOW)
    assert [v.object_id for v in dec.inserts] == ["B"]
    assert dec.expiries[0].version_id == old.id


def test_provenance_is_capped_but_the_count_is_not():
    from kg_memory.core.temporal import MAX_PROVENANCE

    v = version("A", d(2020)).replace(episode_ids=tuple(f"e{i}" for i in range(MAX_PROVENANCE)),
                                      reinforcement_count=MAX_PROVENANCE)
    dec = decide(cand("A", d(2024)), [v], single_valued=True, now=NOW)
    (succ,) = dec.inserts
    assert len(succ.episode_ids) == MAX_PROVENANCE and succ.episode_ids[-1] == "ep" and "e0" not in succ.episode_ids
    assert succ.reinforcement_count == MAX_PROVENANCE + 1


def _shape(dec) -> tuple:
    return (dec.kind, sorted((v.object, v.valid_from, v.valid_to) for v in dec.inserts),
            sorted(x.version_id for x in dec.expiries))


def test_decisions_do_not_depend_on_the_order_of_current_versions():
    """Stores return current versions in different orders; the decision must be
    the same. Random histories on one single-valued predicate, replayed with the
    believed versions in given and in reversed order."""
    import random

    from kg_memory.core.temporal import Candidate

    cities = ["Oslo", "Rome", "Lima", "Kyiv"]
    for seed in range(200):
        rng = random.Random(seed)
        believed: dict[str, FactVersion] = {}
        for step in range(12):
            now = d(2030) + timedelta(days=step)
            vf = d(2020, 1, 1) + timedelta(days=rng.randrange(0, 400))
            vt = vf + timedelta(days=rng.randrange(1, 200)) if rng.random() < 0.3 else None
            city = rng.choice(cities)
            c = Candidate(group_id="g", subject_id="u", subject="User", predicate="lives_in", object_id=city,
                          object=city, statement=f"User lives in {city}", valid_from=vf, valid_to=vt,
                          episode_id=f"ep{step}", dated=rng.random() < 0.5, ending=rng.random() < 0.1)
            versions = list(believed.values())
            a, b = decide(c, versions, True, now), decide(c, versions[::-1], True, now)
            assert _shape(a) == _shape(b), (seed, step)
            for x in a.expiries:
                believed.pop(x.version_id, None)
            for v in a.inserts:
                believed[v.id] = v


def test_ended_needs_a_closed_valid_time_and_belief():
    from kg_memory.core.temporal import ended

    v = version("A", d(2020), d(2022), created=d(2021), expired=d(2024))
    assert ended(v, as_of=d(2022), known_at=d(2023))  # the end is open: at 2022 it no longer holds
    assert not ended(v, as_of=d(2021, 12, 31), known_at=d(2023))  # still true then
    assert not ended(v, as_of=d(2023), known_at=d(2024))  # belief closed
    assert not ended(version("B", d(2020)), as_of=d(9999, 12, 31), known_at=d(2023))  # open never ends


def test_superseded_evidence():
    from kg_memory.core.temporal import superseded_evidence

    leeds = version("Leeds", d(2020), d(2024))  # ended 2024 (a later turn moved the user)
    home = version("Home", d(2020))  # still holds
    said = d(2020, 2)
    assert superseded_evidence(said, [leeds], as_of=d(2025), known_at=NOW)
    assert not superseded_evidence(said, [leeds], as_of=d(2023), known_at=NOW)  # not yet ended then
    assert not superseded_evidence(said, [leeds, home], as_of=d(2025), known_at=NOW)  # it still vouches for one
    assert not superseded_evidence(d(2024, 1, 2), [leeds], as_of=d(2025), known_at=NOW)  # it reported the end
    assert not superseded_evidence(said, [], as_of=d(2025), known_at=NOW)


def test_rule_check_agrees_with_holds_on_every_open_and_closed_field():
    from itertools import product

    from kg_memory.core.temporal import EPISODE_VISIBLE, FACT_ENDED, FACT_VISIBLE, holds, rule_check

    ends = (None, d(2019), d(2020), d(2021))
    points = (d(2019), d(2020), d(2021))
    for rule in (FACT_VISIBLE, FACT_ENDED):
        for vf, vt, expired, as_of, known in product(ends, ends, ends, points, points):
            v = version("A", vf, vt, created=d(2020), expired=expired)
            assert rule_check(rule, as_of, known)(v) == holds(rule, v, as_of, known) == _by_hand(rule, v, as_of, known)
    ep = type("E", (), {"occurred_at": d(2020), "created_at": d(2021)})()
    assert [rule_check(EPISODE_VISIBLE, a, k)(ep) for a, k in product(points, points)] == [
        a >= d(2020) and k >= d(2021) for a, k in product(points, points)]


def _by_hand(rule: object, v: FactVersion, as_of: datetime, known: datetime) -> bool:
    from kg_memory.core.temporal import FACT_VISIBLE

    believed = v.created_at <= known and (v.expired_at is None or v.expired_at > known)
    if rule is FACT_VISIBLE:
        starts = v.valid_from is None or v.valid_from <= as_of
        return believed and starts and (v.valid_to is None or v.valid_to > as_of)
    return believed and v.valid_to is not None and v.valid_to <= as_of


def test_superseded_episodes_judges_each_episode_by_the_definition():
    """The batch form against the definition written out (superseded_evidence now
    calls the batch form, so comparing with it would prove nothing)."""
    from kg_memory.core.temporal import ended, superseded_episodes

    leeds = version("Leeds", d(2020), d(2024))
    home = version("Home", d(2020))
    said = {"a": d(2020, 2), "b": d(2020, 2), "c": d(2024, 1, 2), "d": d(2020, 2), "e": d(2024)}
    citing = {"a": [leeds], "b": [leeds, home], "c": [leeds], "d": [], "e": [leeds]}  # leeds is shared
    for as_of in (d(2023), d(2024), d(2025)):
        expected = {e for e in said
                    if any(ended(v, as_of, NOW) and v.valid_to is not None and said[e] < v.valid_to for v in citing[e])
                    and not any(visible(v, as_of, NOW) for v in citing[e])}
        assert superseded_episodes(said, citing, as_of, NOW) == expected
    assert superseded_episodes(said, citing, d(2025), NOW) == {"a"}  # "e" was said as Leeds ended: not before it
