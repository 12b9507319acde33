"""The pipeline's batch invariant: a version created and closed within one batch is
written once, already closed, and the batch's expiries name only versions that were
committed before it. Run on the reference store (a real in-memory store; it records
each batch it is given)."""

from datetime import UTC, datetime

from kg_memory.core.models import Episode
from kg_memory.core.temporal import visible
from kg_memory.extract.rules import RulesExtractor
from kg_memory.ingest.pipeline import Pipeline
from kg_memory.store.base import WriteBatch
from kg_memory.store.reference import ReferenceStore


class RecordingStore(ReferenceStore):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list[WriteBatch] = []

    def write(self, batch: WriteBatch) -> None:
        self.batches.append(batch)
        super().write(batch)


def turn(text: str, month: int) -> Episode:
    at = datetime(2024, month, 1, 10, tzinfo=UTC)
    return Episode(group_id="g", content=text, occurred_at=at, created_at=datetime(2025, 1, 1, tzinfo=UTC))


def test_versions_closed_in_their_own_batch_are_written_closed():
    store = RecordingStore()
    store.add_episodes([turn("I live in Leeds.", 1)])
    pipe = Pipeline(store, RulesExtractor(use_parser=False), None, lambda: datetime(2025, 1, 1, tzinfo=UTC))
    pipe.run("g")
    store.add_episodes([turn("I moved to York.", 3), turn("I moved to Bath.", 6), turn("I moved to Hull.", 9)])
    pipe.now = lambda: datetime(2025, 2, 1, tzinfo=UTC)
    pipe.run("g", batch_size=10)  # one batch: York and Bath are created and closed inside it
    batch = store.batches[-1]
    inserted = {v.id for v in batch.inserts}
    committed_before = {v.id for b in store.batches[:-1] for v in b.inserts}
    assert batch.expiries and all(x.version_id in committed_before for _, x in batch.expiries)
    assert not any(x.version_id in inserted for _, x in batch.expiries)
    closed_inside = [v for v in batch.inserts if v.expired_at is not None]
    assert {v.object for v in closed_inside} >= {"York", "Bath"}
    assert all(v.expired_by in inserted for v in closed_inside)
    lives = [v for v in store.facts.values() if v.predicate == "lives_in"]
    at = datetime(2030, 1, 1, tzinfo=UTC)
    assert [v.object for v in lives if visible(v, at, at)] == ["Hull"]
    assert sorted(v.object for v in lives if visible(v, datetime(2024, 7, 1, tzinfo=UTC), at)) == ["Bath"]
