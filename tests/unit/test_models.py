"""The model helpers stores use to rebuild rows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from kg_memory.core.models import Episode, FactVersion, from_trusted

T = datetime(2025, 3, 1, 12, tzinfo=UTC)


def test_from_trusted_equals_a_validated_model() -> None:
    fv = FactVersion(id="fv_1", fact_id="fact_1", group_id="g", subject_id="en_u", subject="user",
                     predicate="lives_in", object_id="en_p", object="Paris", statement="user lives in Paris",
                     valid_from=T, created_at=T, episode_ids=("ep_1",))
    rebuilt = from_trusted(FactVersion, **fv.model_dump())
    assert rebuilt == fv
    assert rebuilt.model_dump() == fv.model_dump()
    assert rebuilt.replace(object="Rome").object == "Rome"
    with pytest.raises(ValidationError):  # still frozen
        rebuilt.object = "Rome"  # type: ignore[misc]


def test_from_trusted_episode_keeps_methods() -> None:
    ep = Episode(id="ep_1", group_id="g", speaker="Ana", content="I moved to Oslo", occurred_at=T, created_at=T)
    rebuilt = from_trusted(Episode, **ep.model_dump())
    assert rebuilt == ep
    assert rebuilt.index_text() == ep.index_text()
    assert rebuilt.dedupe_key == ep.dedupe_key


def test_context_block_reads_open_facts_as_sentences() -> None:
    from kg_memory.core.models import RecallResult, ScoredFact

    def fact(pred: str, obj: str, statement: str) -> ScoredFact:
        f = FactVersion(group_id="g", subject_id="e1", subject="Caroline", predicate=pred, object_id="e2",
                        object=obj, statement=statement, valid_from=T, created_at=T)
        return ScoredFact(fact=f, score=1.0, components={})

    res = RecallResult(query="q", group_id="g", as_of=T, known_at=T, episodes=[],
                       facts=[fact("lives_in", "Lisbon", "Caroline lives in Lisbon"),
                              fact("go_to", "lgbtq support group", "Caroline went to an LGBTQ support group")])
    block = res.context_block()
    assert "- Caroline lives_in Lisbon (since 2025-03-01)" in block
    assert "- Caroline went to an LGBTQ support group (since 2025-03-01)" in block
    assert res.to_json()["context_block"] == block
