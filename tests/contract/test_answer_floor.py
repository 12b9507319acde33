"""The facts recall answers with (both stores): those far below the best (``fact_floor`` of its score) are left out,
unless the question's predicate or an entity it names brought them in. "Who is my partner?" answers with the
partner, not with the last partner's job; "What languages do I speak?" keeps every language."""

from __future__ import annotations


def _answer(mem, group, query):
    return [(f.fact.subject, f.fact.predicate, f.fact.object) for f in mem.recall(query, group=group, k=5).facts]


def _told(mem, group, turns):
    for month, text in enumerate(turns, start=1):
        mem.add(text, group=group, occurred_at=f"2026-{month:02d}-10T10:00:00Z")


def test_a_fact_far_below_the_answer_is_left_out(make_memory, group):
    mem = make_memory()
    _told(mem, group, ["My boyfriend Joaquin is a carpenter.", "Joaquin and I split up, and I'm with Idris now."])
    facts = _answer(mem, group, "Who is my partner?")
    assert ("User", "partner", "Idris") in facts
    assert not any("Joaquin" in (s, o) for s, _, o in facts), facts
    kept = make_memory(weights={"fact_floor": 0.0})  # (with no floor the last partner's job is in the answer)
    assert ("Joaquin", "job_title", "carpenter") in _answer(kept, group, "Who is my partner?")


def test_a_fact_of_an_entity_the_question_names_stays_however_far_below(make_memory, group):
    """"I" names the speaker: the speaker's learning Turkish stays, under half the best score; the sister's home,
    which nothing in the question brought in, goes."""
    turns = ["My sister Ana lives in Porto.", "I speak Dutch and Greek.", "I've been learning Turkish too."]
    kept = make_memory(weights={"fact_floor": 0.0})
    _told(kept, group, turns)
    scored = kept.recall("What languages do I speak?", group=group, k=5).facts
    turkish = next(f.score for f in scored if f.fact.object == "Turkish")
    assert turkish < 0.5 * scored[0].score  # (below the floor: only the named entity keeps it)
    facts = _answer(make_memory(), group, "What languages do I speak?")
    assert any(o == "Turkish" for _, _, o in facts) and not any(o == "Porto" for _, _, o in facts), facts
    assert {o.title() for _, p, o in facts if p == "speaks"} == {"Dutch", "Greek"}
