"""Entity resolution's pure parts: names, blocking, scores, and the merge decision."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from kg_memory.core.merged import survivors
from kg_memory.core.models import Entity, FactVersion
from kg_memory.core.temporal import decide_merge, decide_unmerge, reconcile
from kg_memory.maintenance.resolve import (
    MAX_BLOCK,
    Context,
    candidate_pairs,
    context_of,
    find_matches,
    name_of,
    name_similarity,
    score,
)

T = datetime(2026, 1, 1, tzinfo=UTC)


def ent(name: str, i: str | None = None, **kw: object) -> Entity:
    return Entity(id=i or f"en_{name.lower().replace(' ', '_').replace('.', '')}", group_id="g", name=name,
                  created_at=T, **kw)  # type: ignore[arg-type]


def d(y: int, m: int = 1) -> datetime:
    return datetime(y, m, 1, tzinfo=UTC)


def v(subj: str, pred: str, obj: str, vf: datetime | None, vt: datetime | None = None, eps: tuple[str, ...] = ("e1",),
      **kw: object) -> FactVersion:
    return FactVersion(group_id="g", subject_id=subj, subject=subj, predicate=pred, object_id=obj, object=obj,
                       statement=f"{subj} {pred} {obj}", valid_from=vf, valid_to=vt, created_at=d(2025),
                       episode_ids=eps, **kw)  # type: ignore[arg-type]


def test_names_drop_case_punctuation_articles_and_legal_suffixes():
    assert name_of(ent("ACME Inc.")).core == name_of(ent("Acme Corp")).core == name_of(ent("acme")).core == "acme"
    assert name_of(ent("Siemens AG")).core == "siemens" and name_of(ent("Müller GmbH")).core == "muller"
    assert name_of(ent("The Guardian")).core == "guardian"
    assert "ibm" in name_of(ent("International Business Machines Corp.")).acronyms
    assert "bbc" in name_of(ent("British Broadcasting Corporation")).acronyms  # the suffix is a word here
    assert name_of(ent("Dr. Sarah Chen")).core == "sarah chen"
    assert name_similarity(name_of(ent("Mr Patel")), name_of(ent("Mrs. Patel"))) == 0.5
    assert name_of(ent("Inc")).core == "inc"  # a name that is only a suffix keeps it
    assert name_similarity(name_of(ent("IBM")), name_of(ent("International Business Machines"))) == 0.92
    assert name_similarity(name_of(ent("Jon Smith")), name_of(ent("John Smith"))) > 0.9
    assert name_similarity(name_of(ent("Jane Smith")), name_of(ent("Leeds"))) < 0.5


def test_blocking_finds_short_names_acronyms_and_suffixes_without_comparing_everything():
    names = [name_of(ent(n)) for n in ("ACME Inc.", "Acme Corp", "IBM", "International Business Machines",
                                       "Jon Smith", "John Smith", "Leeds")]
    pairs = candidate_pairs(names)
    assert ("en_acme_corp", "en_acme_inc") in pairs
    assert ("en_ibm", "en_international_business_machines") in pairs
    assert ("en_john_smith", "en_jon_smith") in pairs
    assert not any("en_leeds" in p for p in pairs)
    crowd = [name_of(ent(f"Smith {i:05d}", f"en_{i:05d}")) for i in range(2000)]  # one huge word block
    assert len(candidate_pairs(crowd)) < 2000 * 12  # a sorted window, not 2 million pairs
    assert MAX_BLOCK < 2000


def test_conflicting_single_values_argue_against_a_merge_and_shared_neighbours_for_it():
    a, b = name_of(ent("Jonathan Smith", "en_a")), name_of(ent("Jon Smith", "en_b"))
    alone, _ = score(a, b, 0.9, Context())
    ctx = context_of([v("en_a", "has_friend", "u", d(2020)), v("en_b", "has_friend", "u", d(2021))],
                     lambda p: p == "lives_in")
    friends, ev = score(a, b, 0.9, ctx)
    assert friends > alone and ev.shared_neighbours == 1
    ctx = context_of([v("en_a", "lives_in", "leeds", d(2020)), v("en_b", "lives_in", "porto", d(2021))],
                     lambda p: p == "lives_in")
    apart, ev = score(a, b, 0.9, ctx)
    assert apart < alone - 0.3 and ev.conflicts == ["lives_in"]
    ctx = context_of([v("en_a", "lives_in", "leeds", d(2020)), v("en_b", "lives_in", "leeds", d(2021))],
                     lambda p: p == "lives_in")
    assert score(a, b, 0.9, ctx)[1].conflicts == []  # the same value is no conflict


def test_find_matches_skips_merged_entities_values_and_decided_pairs():
    ents = [ent("ACME Inc."), ent("Acme Corp"), ent("Acme", merged_into="en_acme_inc"), ent("2024", kind="value"),
            ent("2024.", "en_2024b", kind="value")]
    vecs = {e.id: np.ones(4, dtype=np.float32) / 2 for e in ents}
    found = find_matches(ents, vecs, Context(), 0.5)
    assert [(m.a, m.b) for m in found] == [("en_acme_corp", "en_acme_inc")]
    assert find_matches(ents, vecs, Context(), 0.5, skip={"en_acme_corp|en_acme_inc"}) == []


def test_survivors_follow_merge_chains():
    a, b, c = ent("A", "en_a", merged_into="en_b"), ent("B", "en_b", merged_into="en_c"), ent("C", "en_c")
    by_id = {e.id: e for e in (a, b, c)}
    found = survivors({"a": a}, lambda ids: [by_id[i] for i in ids])
    assert found["a"].id == "en_c"


def test_a_merge_joins_touching_versions_of_one_value_and_cuts_single_valued_collisions():
    # User works at Acme Corp until June, then at ACME Inc: one employment once they are one
    old = v("u", "works_at", "corp", d(2024, 1), d(2024, 6), eps=("e1",))
    new = v("u", "works_at", "inc", d(2024, 6), None, eps=("e2",))
    decision = decide_merge([old], [new], "corp", "inc", "ACME Inc", lambda p: True, T, "merge_1")
    assert {x.version_id for x in decision.expiries} == {old.id, new.id}
    (joined,) = decision.inserts
    assert (joined.object_id, joined.valid_from, joined.valid_to, joined.episode_ids) == (
        "inc", d(2024, 1), None, ("e1", "e2"))
    assert all(x.expired_by == "merge_1" for x in decision.expiries)
    # two people merged: the later value of a single-valued predicate ends the earlier one where it starts
    a = v("jon", "lives_in", "leeds", d(2020))
    b = v("jonathan", "lives_in", "porto", d(2022))
    decision = decide_merge([b], [a], "jonathan", "jon", "Jon", lambda p: p == "lives_in", T, "m")
    got = sorted((x.object_id, x.valid_from, x.valid_to) for x in decision.inserts)
    assert got == [("leeds", d(2020), d(2022)), ("porto", d(2022), None)]
    # a many-valued predicate keeps both; a fact between the two entities disappears
    decision = decide_merge([v("jonathan", "plays", "cello", d(2021)), v("jon", "knows", "jonathan", d(2021))],
                            [v("jon", "plays", "piano", d(2020))], "jonathan", "jon", "Jon", lambda p: False, T, "m")
    assert sorted((x.subject_id, x.predicate, x.object_id) for x in decision.inserts) == [("jon", "plays", "cello")]
    assert len(decision.expiries) == 2


def test_reconcile_leaves_unchanged_versions_alone_and_unmerge_believes_the_closed_ones_again():
    a = v("u", "plays", "cello", d(2020), d(2021))
    b = v("u", "plays", "cello", d(2022))
    assert reconcile([a, b], False, T) == [a, b]  # a gap between them: still two versions, the same objects
    undo = decide_unmerge([a.replace(expired_at=T), b], [a], T, "unmerge_1")
    assert [x.version_id for x in undo.expiries] == [b.id]
    (back,) = undo.inserts
    assert (back.fact_id, back.valid_from, back.valid_to, back.episode_ids) == (a.fact_id, a.valid_from,
                                                                                a.valid_to, a.episode_ids)
    assert back.id != a.id and back.created_at == T and back.expired_at is None
