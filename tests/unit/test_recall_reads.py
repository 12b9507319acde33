"""How recall reads a store that serves reads in parallel (Neo4j): it reads the
neighbouring turns of the first 4k candidates while the decay check runs, instead
of waiting for decay to place the best k. That must not change any answer, and it
must never need a second neighbours read. Run on the reference store (a real
in-memory store), each question once as it is and once declaring parallel reads.
Also: no ended-value read when every value the question asks for is held now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kg_memory.bench.scale import QUESTIONS
from kg_memory.bench.synthetic import CITIES, NAMES, generate
from kg_memory.extract.rules import RulesExtractor
from kg_memory.ingest.pipeline import Pipeline
from kg_memory.recall.ranking import Recaller
from kg_memory.settings import RecallWeights
from kg_memory.store.reference import ReferenceStore

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class CountingStore(ReferenceStore):
    """The reference store, counting the reads recall makes of neighbours and ended values."""

    def __init__(self) -> None:
        super().__init__()
        self.neighbour_reads: list[list[str]] = []
        self.ended_reads = 0

    def neighbours(self, group_id, episode_ids, tf):  # noqa: ANN001, ANN201
        self.neighbour_reads.append(list(episode_ids))
        return super().neighbours(group_id, episode_ids, tf)

    def ended_facts(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        self.ended_reads += 1
        return super().ended_facts(*args, **kwargs)


def _filled() -> tuple[CountingStore, str]:
    store = CountingStore()
    episodes = list(generate(1200, seed=7, span=timedelta(days=200)))
    store.add_episodes(episodes)
    group = episodes[0].group_id
    Pipeline(store, RulesExtractor(use_parser=False), None, lambda: NOW).run(group, batch_size=200)
    return store, group


def _questions() -> list[str]:
    out = []
    for i, q in enumerate(QUESTIONS):
        out.append(q.format(name=NAMES[i % len(NAMES)], city=CITIES[i % len(CITIES)]))
    return out


def test_parallel_reads_give_the_same_answers_with_one_neighbours_read():
    store, group = _filled()
    decayed_past_the_leading = 0
    for k in (3, 10):
        for question in _questions():
            runs = []
            for parallel in (False, True):
                rec = Recaller(store, None, RecallWeights(), parallel_reads=parallel)
                judged: list[tuple[int, int]] = []
                superseded = rec._superseded

                def watch(g, tf, leading, _inner=superseded, _seen=judged):  # noqa: ANN001, ANN202
                    stale = _inner(g, tf, leading)
                    _seen.append((len(leading), len(stale)))
                    return stale

                rec._superseded = watch
                store.neighbour_reads.clear()
                result = rec.recall(question, group, NOW, NOW, k=k)
                rec.close()
                runs.append((result, list(store.neighbour_reads), judged))
            (a, _, judged), (b, reads, _) = runs
            assert [(s.episode.id, round(s.score, 12)) for s in a.episodes] == \
                [(s.episode.id, round(s.score, 12)) for s in b.episodes], question
            assert [(s.fact.id, round(s.score, 12)) for s in a.facts] == \
                [(s.fact.id, round(s.score, 12)) for s in b.facts], question
            assert len(reads) <= 1, (question, reads)  # never a second read for turns decay moved up
            if judged and judged[0][1] > 2 * k:  # more than 2k of the 3k leading decayed: the best k
                decayed_past_the_leading += 1   # after decay reach past the leading candidates
    assert decayed_past_the_leading, "the history never decayed most leading turns; the case is not tested"


def test_no_ended_value_read_when_every_asked_value_is_held():
    from kg_memory.core.models import Episode

    store = CountingStore()
    said = [("I live in Leeds.", 1), ("I work at Acme.", 2), ("I quit my job at Acme.", 5)]
    store.add_episodes([Episode(group_id="g", content=text, occurred_at=datetime(2025, month, 1, tzinfo=UTC),
                                created_at=datetime(2025, month, 1, tzinfo=UTC)) for text, month in said])
    Pipeline(store, RulesExtractor(use_parser=False), None, lambda: NOW).run("g")
    rec = Recaller(store, None, RecallWeights())
    home = rec.recall("Where do I live?", "g", NOW, NOW, k=5)
    assert store.ended_reads == 0 and not home.ended  # the user holds a home now: nothing to look up
    job = rec.recall("Where do I work?", "g", NOW, NOW, k=5)
    assert store.ended_reads == 1 and [f.object for f in job.ended] == ["Acme"]
    rec.close()
