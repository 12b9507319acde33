"""A value the speaker says is theirs now, near slots none of which it is clearly of, changes the one of them the
speaker holds (both stores): after "I work at Boots", "I'm packing boxes at Currys these days" is the new
workplace; after "I'm studying geography", "I'm doing geology instead" the new subject. Being somewhere "now"
says too little ("I'm at Gatwick now, the flight is late" is no new job)."""

from __future__ import annotations


def _now_and_before(make_memory, group, turns, predicate):
    mem = make_memory()
    for month, text in enumerate(turns, start=1):
        mem.add(text, group=group, occurred_at=f"2026-{month:02d}-10T10:00:00Z")
    return {f.object for f in mem.facts(group=group, predicate=predicate)}, \
        {f.object for f in mem.facts(group=group, predicate=predicate, as_of="2026-01-20")}


def test_a_name_said_as_the_speakers_these_days_changes_the_slot_held(make_memory, group):
    now, before = _now_and_before(make_memory, group, ["I work at Boots.",
                                                       "I'm packing boxes at Currys these days."], "works_at")
    assert now == {"Currys"} and before == {"Boots"}


def test_a_value_said_instead_changes_the_slot_held(make_memory, group):
    now, before = _now_and_before(make_memory, group, ["I'm studying geography.", "I'm doing geology instead."],
                                  "field_of_study")
    assert now == {"geology"} and before == {"geography"}


def test_being_somewhere_now_changes_nothing_held(make_memory, group):
    now, _ = _now_and_before(make_memory, group, ["I work at Boots.", "I'm at Gatwick now, the flight is late."],
                             "works_at")
    assert now == {"Boots"}


def test_ones_last_spell_at_a_name_ends_the_slot_it_is_held_in(make_memory, group):
    """"My last shift at Pizza Express was on Friday; I'm at Wagamama now": the last shift ends the job held there, and
    where the speaker is now, said after it, is the new one."""
    now, before = _now_and_before(make_memory, group, ["I've been at Pizza Express for two years.",
                                                       "My last shift at Pizza Express was on Friday; I'm at Wagamama "
                                                       "now."], "works_at")
    assert now == {"Wagamama"} and before == {"Pizza Express"}


def test_working_full_time_names_no_place_of_work(make_memory, group):
    """"I'm coaching full time with Premier Sport now": the name is the new place of work, not "full time"."""
    now, _ = _now_and_before(make_memory, group, ["I teach PE at Ashfield School.",
                                                  "I finished my final term at Ashfield and I'm coaching full time "
                                                  "with Premier Sport now."], "works_at")
    assert now == {"Premier Sport"}
