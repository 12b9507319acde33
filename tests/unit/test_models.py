"""The model helpers stores use to rebuild rows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from kg_memory.models import Episode, FactVersion, from_trusted

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
