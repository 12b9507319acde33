"""Hybrid recall: episode vectors + BM25 + token overlap, neighbouring turns,
graph expansion through mentioned and named entities, direct fact search, and
recency decay, all at one point in valid time (as_of) and transaction time
(known_at). The ranking is pure Python over what the store returns, so both
stores rank the same way."""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import numpy as np

from ..core.merged import find_live
from ..core.models import Episode, FactVersion, RecallResult, ScoredEpisode, ScoredFact, from_trusted, normalize_name
from ..core.temporal import EPISODE_VISIBLE, episode_visible, rule_check, superseded_episodes, visible
from ..core.text import query_terms
from ..core.timeutil import days_between
from ..core.vocab import Vocabulary, load_vocabulary
from ..embed.base import Embedder
from ..extract.dates import asks_for_time, mentions_time, query_periods
from ..settings import RecallWeights
from ..store.base import SearchHits, StoreCore, TimeFilter

PROVENANCE_PER_FACT = 3
# Pool sizes, as multiples of k (the weights are in settings.RecallWeights):
POOL_PER_K = 3  # candidates each retriever and the graph hand to the blend: room for three k-sized answers
NEIGHBOURS_PER_K = 4  # leading turns whose neighbours (question -> reply) are looked at
HOP_PER_K = 2  # facts per hop from the named entities when the question names no predicate
_FIRST_PERSON = re.compile(r"\b(i|me|my|mine|myself|we|us|our)\b", re.I)
_TOKEN = re.compile(r"[\w']+")


def _scored(e: Episode, score: float, components: dict[str, float]) -> ScoredEpisode:
    """A candidate's score (no validation: recall builds hundreds per query)."""
    return from_trusted(ScoredEpisode, episode=e, score=score, components=components)


def token_overlap(query_terms_: set[str], text: str) -> float:
    """|T(q) ∩ T(d)| / |T(d)| over lower-cased word tokens."""
    return _overlap(query_terms_, frozenset(_TOKEN.findall(text.lower())))


def _overlap(query_terms_: set[str], doc: frozenset[str]) -> float:
    return len(query_terms_ & doc) / len(doc) if doc else 0.0


class EpisodeWords:
    """The word set of each candidate episode's indexed text, kept across recalls
    (a recall scores ~200 candidates, most of them seen before), least recently
    used first out. Keyed by everything the text is made of that can change."""

    def __init__(self, max_items: int = 8_192):
        self.max_items = max_items
        self._sets: OrderedDict[tuple[object, ...], frozenset[str]] = OrderedDict()
        self._lock = threading.Lock()  # one Recaller serves the async API's threads

    def of(self, e: Episode) -> frozenset[str]:
        key = (e.group_id, e.id, e.speaker, e.content, e.occurred_at)
        with self._lock:
            found = self._sets.get(key)
            if found is not None:
                self._sets.move_to_end(key)
                return found
        found = frozenset(_TOKEN.findall(e.index_text().lower()))
        with self._lock:
            self._sets[key] = found
            if len(self._sets) > self.max_items:
                self._sets.popitem(last=False)
        return found


def scale_by_max(scores: dict[str, float]) -> dict[str, float]:
    """Divide by the best score (negatives count as 0). Unlike min-max over a
    candidate pool, the weakest candidate keeps the credit it earned."""
    if not scores:
        return {}
    hi = max(scores.values())
    if hi <= 1e-12:
        return {k: 0.0 for k in scores}
    return {k: max(v, 0.0) / hi for k, v in scores.items()}


def minmax(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return {k: 1.0 for k in scores}
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def decay(half_life_days: float | None, as_of: datetime, at: datetime) -> float:
    """Exponential recency decay: 1 at ``as_of``, one half ``half_life_days`` before
    it. ``None`` or 0 turns it off. Recall applies it only to superseded evidence."""
    if not half_life_days:
        return 1.0
    age = max(0.0, days_between(as_of, at))
    return math.pow(0.5, age / half_life_days)


def _ngrams(words: list[str], n: int = 3) -> Iterable[str]:
    for size in range(1, n + 1):
        for i in range(len(words) - size + 1):
            yield " ".join(words[i : i + size])


class Recaller:
    def __init__(self, store: StoreCore, embedder: Embedder | None, weights: RecallWeights,
                 vocab: Vocabulary | None = None, self_names: tuple[str, ...] = ("user",),
                 parallel_reads: bool = False):
        """``parallel_reads``: the plan reads the named entities' facts and the neighbouring turns
        beside the search, on a worker (worth it where the store serves reads in parallel; where
        one connection serialises them, the work would queue behind itself). The caller chooses."""
        self.store = store
        self.parallel_reads = parallel_reads
        self.embedder = embedder
        self.w = weights
        self.vocab = vocab or load_vocabulary()
        self.keywords = self.vocab.keyword_index()
        self.self_names = self_names
        self._pool: ThreadPoolExecutor | None = None
        self._words = EpisodeWords()

    def recall(self, query: str, group_id: str, as_of: datetime, known_at: datetime, k: int = 10,
               query_vector: np.ndarray | None = None, half_life: float | None = None) -> RecallResult:
        """``half_life`` (days) overrides the configured decay of superseded evidence; 0 turns it off."""
        tf = TimeFilter(as_of=as_of, known_at=known_at)
        life = self.w.half_life_days if half_life is None else half_life
        qvec = query_vector
        if qvec is None and self.embedder is not None:
            qvec = self.embedder.embed([query])[0]
        pool = max(self.w.candidates, POOL_PER_K * k)
        with self.store.read_scope():
            # A plan for parallel reads looks up the named entities meanwhile.
            named_job = (self._worker().submit(self._named_facts_apart, query, group_id, tf, k, pool)
                         if self.parallel_reads else None)
            hits = self.store.search(group_id, query, qvec, pool, tf)
            episodes = self._episodes(query, group_id, tf, k, hits, life)
            named = named_job.result() if named_job else self._named_facts(query, group_id, tf, k, pool)
            facts = self._facts(query, group_id, tf, k, hits, episodes, named[:2])
            episodes = self._provenance(group_id, tf, episodes, facts, named[2])
        return RecallResult(query=query, group_id=group_id, as_of=as_of, known_at=known_at,
                            facts=facts, episodes=episodes[:k], ended=named[2])

    def _named_facts_apart(self, query: str, group_id: str, tf: TimeFilter, k: int, pool: int
                           ) -> tuple[dict[str, FactVersion], dict[str, float], list[FactVersion]]:
        """``_named_facts`` on the worker thread, its reads in one scope of their own
        (on Neo4j one transaction for its three or four queries, not one each)."""
        with self.store.read_scope():
            return self._named_facts(query, group_id, tf, k, pool)

    def _worker(self) -> ThreadPoolExecutor:
        if self._pool is None:  # the named facts, and one read beside the main thread's
            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kgmem-recall")
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def _provenance(self, group_id: str, tf: TimeFilter, episodes: list[ScoredEpisode],
                    facts: list[ScoredFact], endings: list[FactVersion]) -> list[ScoredEpisode]:
        """Facts count through the episodes they came from: each provenance episode
        of a top fact gains ``provenance`` x the fact's score relative to the best.
        When the question asks for a value that has ended ("where do I work?" after
        "I quit"), the episode that reported the end counts like the best fact."""
        if self.w.provenance <= 0 or ((not facts or facts[0].score <= 0) and not endings):
            return episodes
        best = facts[0].score if facts and facts[0].score > 0 else 1.0
        boost: dict[str, float] = {}
        for sf in facts:
            share = sf.score / best * (1.0 if sf.fact.predicate in self.vocab.predicates else self.w.provenance_open)
            for eid in sf.fact.episode_ids[-PROVENANCE_PER_FACT:]:  # the most recent evidence
                boost[eid] = max(boost.get(eid, 0.0), share)
        for f in endings:
            if f.episode_ids:  # the latest evidence of an ended version is the turn that ended it
                boost[f.episode_ids[-1]] = 1.0
        top = episodes[0].score if episodes else 1.0
        scored = {s.episode.id: s for s in episodes}
        missing = [eid for eid in boost if eid not in scored]
        for e in self.store.get_episodes(group_id, missing):
            if episode_visible(e, tf.as_of, tf.known_at):
                scored[e.id] = _scored(e, 0.0, {"decay": 1.0})
        for eid, b in boost.items():
            se = scored.get(eid)
            if se is None:
                continue
            extra = self.w.provenance * b * top * se.components.get("decay", 1.0)
            se.components["provenance"] = round(b, 6)
            se.score += extra
        return sorted(scored.values(), key=lambda s: (-s.score, s.episode.id))

    # -- episodes ----------------------------------------------------------
    def _episodes(self, query: str, group_id: str, tf: TimeFilter, k: int, hits: SearchHits,
                  half_life: float | None) -> list[ScoredEpisode]:
        vec = {**hits.episode_similarity, **dict(hits.episode_vector)}
        bm = dict(hits.episode_text)
        ids = list(dict.fromkeys([*vec, *bm]))
        if not ids:
            return []
        eps = {i: hits.episodes[i] for i in ids if i in hits.episodes}
        missing = [i for i in ids if i not in eps]
        if missing:
            eps.update((e.id, e) for e in self.store.get_episodes(group_id, missing))
        qterms = set(query_terms(query))
        overlap = {i: _overlap(qterms, self._words.of(eps[i])) for i in ids if i in eps}
        norm = scale_by_max if self.w.normalise == "max" else minmax
        nv, nb, no = norm(vec), norm(bm), norm(overlap)
        shown = rule_check(EPISODE_VISIBLE, tf.as_of, tf.known_at)
        seen = {i: e for i, e in eps.items() if shown(e)}
        blended = {i: self.w.episode_vector * nv.get(i, 0.0) + self.w.episode_bm25 * nb.get(i, 0.0)
                   + self.w.episode_overlap * no.get(i, 0.0) for i in ids if i in seen}
        # decay can only move the leading candidates out of the answer: only they are checked
        order = sorted(blended, key=lambda i: (-blended[i], i))
        stale, near = self._decay_and_neighbours(group_id, tf, {i: seen[i] for i in order[: POOL_PER_K * k]},
                                                 order[: NEIGHBOURS_PER_K * k], half_life)
        scored: dict[str, ScoredEpisode] = {}
        for i, base in blended.items():
            e = seen[i]
            comp = {"vector": nv.get(i, 0.0), "bm25": nb.get(i, 0.0), "overlap": no.get(i, 0.0)}
            comp["decay"] = decay(half_life, tf.as_of, e.occurred_at) if i in stale else 1.0
            scored[i] = _scored(e, base * comp["decay"], comp)
        ranked = sorted(scored.values(), key=lambda s: (-s.score, s.episode.id))
        # Neighbouring turns of the best hits often hold the answer (question -> reply).
        if self.w.neighbour > 0 and ranked:
            top = ranked[:k]
            unread = [s.episode.id for s in top if s.episode.id not in near]
            if unread:
                near.update(self.store.neighbours(group_id, unread, tf))
            for s, base in [(s, s.score) for s in top]:  # scores before any neighbour credit
                for n in near.get(s.episode.id, []):
                    val = base * self.w.neighbour
                    cur = scored.get(n.id)
                    if cur is not None and "neighbour_of" not in cur.components:
                        if self.w.neighbour_support > 0:  # a hit in its own right next to a top hit: both count
                            cur.components["neighbour_support"] = cur.components.get("neighbour_support", 0.0) + 1
                            cur.score += self.w.neighbour_support * val
                        continue
                    if cur is None or cur.score < val:
                        scored[n.id] = _scored(n, val, {"neighbour_of": 1.0, "decay": 1.0})
            ranked = sorted(scored.values(), key=lambda s: (-s.score, s.episode.id))
        return self._time_cues(query, ranked)

    def _decay_and_neighbours(self, group_id: str, tf: TimeFilter, leading: dict[str, Episode],
                              first: list[str], half_life: float | None
                              ) -> tuple[set[str], dict[str, list[Episode]]]:
        """The leading 3k candidates that are superseded evidence, and, with parallel reads
        (``parallel_reads``), meanwhile the neighbouring turns of the ``first`` 4k by
        blended score: the best k after decay are always among those (decay lowers only
        leading turns, and the rest keep their order), so the caller reads no more.
        Elsewhere the caller reads the neighbours of the best k once decay has placed them."""
        judge = half_life and leading
        if not (self.parallel_reads and self.w.neighbour > 0):
            return (self._superseded(group_id, tf, leading) if judge else set()), {}
        job = self._worker().submit(self._superseded, group_id, tf, leading) if judge else None
        near = self.store.neighbours(group_id, first, tf)
        near.update({i: [] for i in first if i not in near})  # asked: no neighbour
        return (job.result() if job else set()), near

    def _superseded(self, group_id: str, tf: TimeFilter, episodes: dict[str, Episode]) -> set[str]:
        """The candidates that are superseded evidence (``temporal.superseded_episodes``),
        judged on the versions that cite them (the store's evidence index). Facts of
        open predicates never end, so they neither supersede a turn nor vouch for it."""
        if not episodes:
            return set()
        citing: dict[str, list[FactVersion]] = {}
        for f in self.store.facts_citing(group_id, list(episodes), []):
            if f.predicate not in self.vocab.predicates:
                continue
            for eid in f.episode_ids:
                if eid in episodes:
                    citing.setdefault(eid, []).append(f)
        said = {eid: e.occurred_at for eid, e in episodes.items()}
        return superseded_episodes(said, citing, tf.as_of, tf.known_at)

    def _time_cues(self, query: str, ranked: list[ScoredEpisode]) -> list[ScoredEpisode]:
        """A "when" or "how long" question favours turns that state a time; a
        question naming a month or year favours turns from that period."""
        when = self.w.episode_time > 0 and asks_for_time(query)
        months, years = query_periods(query) if self.w.episode_period > 0 else (set(), set())
        if not (when or months or years) or not ranked:
            return ranked
        top = ranked[0].score or 1.0
        for s in ranked:
            e = s.episode
            if when and mentions_time(e.content):
                s.components["time"] = 1.0
                s.score += self.w.episode_time * top
            if (months or years) and (not months or e.occurred_at.month in months) and (
                    not years or e.occurred_at.year in years):
                s.components["period"] = 1.0
                s.score += self.w.episode_period * top
        return sorted(ranked, key=lambda s: (-s.score, s.episode.id))

    # -- facts -------------------------------------------------------------
    def _wanted(self, query: str) -> set[str]:
        """Predicates the query's words point to ("live" -> lives_in)."""
        wanted: set[str] = set()
        for w in query_terms(query):
            wanted |= self.keywords.get(w, set())
        return wanted

    def _named_facts(self, query: str, group_id: str, tf: TimeFilter, k: int, pool: int
                     ) -> tuple[dict[str, FactVersion], dict[str, float], list[FactVersion]]:
        """Entities named in the query ("Maya"; "my" -> the user): their facts, and a
        second hop through the entities those facts reach ("my brother" -> Alex -> pet).
        Also the latest ended value of each asked-for predicate of a named entity
        that holds no value now (the job the user quit). Returns those facts, the
        weight of each entity (1 named, 0.5 one step away) and the ended values.
        Depends on the query alone, so it can run beside the searches."""
        wanted = self._wanted(query)
        preds = sorted(wanted) if wanted else None
        found: dict[str, FactVersion] = {}
        words = _TOKEN.findall(query)
        keys = {normalize_name(g) for g in _ngrams(words)} - {""}
        if _FIRST_PERSON.search(query):
            keys.update(self.self_names)
        named = find_live(self.store, group_id, sorted(keys))
        named_ids = {e.id for e in named.values()}
        hop1 = self.store.facts_for_entities(group_id, sorted(named_ids), tf, pool if preds else HOP_PER_K * k,
                                            preds)
        next_ids = set()
        for f in hop1:
            found[f.id] = f
            if f.predicate in self.vocab.ties:  # people one step away: "my brother" -> Alex
                next_ids.update({f.subject_id, f.object_id} - named_ids)
        if next_ids:
            for f in self.store.facts_for_entities(group_id, sorted(next_ids), tf, HOP_PER_K * k, preds):
                found[f.id] = f
        # How near each entity is to the query: named, or one step away. A fact's entity score comes from
        # its own subject and object, so a fact found by a search scores as one fetched here would.
        weight = {i: 0.5 for i in next_ids} | {i: 1.0 for i in named_ids}
        return found, weight, self._endings(group_id, tf, k, named_ids, preds, hop1)

    def _endings(self, group_id: str, tf: TimeFilter, k: int, named_ids: set[str], preds: list[str] | None,
                 holding: list[FactVersion]) -> list[FactVersion]:
        """The latest ended version of each asked-for (named subject, predicate) with no value now."""
        if not preds or not named_ids:
            return []
        held = {(f.subject_id, f.predicate) for f in holding}
        if all((e, p) in held for e in named_ids for p in preds):
            return []  # every asked-for value is held now: no ended one would be chosen
        latest: dict[tuple[str, str], FactVersion] = {}
        for f in self.store.ended_facts(group_id, sorted(named_ids), tf, k, preds):  # latest end first
            key = (f.subject_id, f.predicate)
            if f.subject_id in named_ids and key not in held and key not in latest:
                latest[key] = f
        return list(latest.values())

    def _facts(self, query: str, group_id: str, tf: TimeFilter, k: int, hits: SearchHits,
               episodes: list[ScoredEpisode], named_facts: tuple[dict[str, FactVersion], dict[str, float]]
               ) -> list[ScoredFact]:
        cands: dict[str, FactVersion] = {}
        fvec: dict[str, float] = {}
        fbm: dict[str, float] = {}
        for f, sim in hits.fact_vector:
            cands[f.id] = f
            fvec[f.id] = sim
        for f, bm in hits.fact_text:
            cands[f.id] = f
            fbm[f.id] = bm
            if f.id not in fvec and f.id in hits.fact_similarity:
                fvec[f.id] = hits.fact_similarity[f.id]
        direct = {i: self.w.fact_direct_vector * v for i, v in minmax(fvec).items()}
        for i, v in minmax(fbm).items():
            direct[i] = direct.get(i, 0.0) + self.w.fact_direct_text * v

        # Graph: entities the best episodes mention -> their facts.
        ent_score: dict[str, float] = {}
        top_eps = episodes[:k]
        if top_eps:
            best = top_eps[0].score or 1.0
            ment = self.store.mentions(group_id, [s.episode.id for s in top_eps])
            for s in top_eps:
                for ent in ment.get(s.episode.id, []):
                    ent_score[ent] = max(ent_score.get(ent, 0.0), s.score / best)
            for f in self.store.facts_for_entities(group_id, list(ent_score), tf, POOL_PER_K * k):
                cands[f.id] = f

        turn_score = {s.episode.id: s.score for s in episodes}  # the turns a fact was said in count (source)
        best_turn = max(turn_score.values(), default=0.0) or 1.0
        named, weight = named_facts
        for fid, f in named.items():
            cands[fid] = f
        wanted = self._wanted(query)

        qterms = set(query_terms(query))

        out = []
        for fid, f in cands.items():
            if not visible(f, tf.as_of, tf.known_at):
                continue  # the store pre-filters; this guards the contract
            comp = {
                "direct": direct.get(fid, 0.0),
                # from the fact's own entities, however it became a candidate (a fetch's row limit must not
                # decide which of an entity's facts get the score)
                "graph": max(ent_score.get(f.subject_id, 0.0), ent_score.get(f.object_id, 0.0)),
                "entity": max(weight.get(f.subject_id, 0.0), weight.get(f.object_id, 0.0)),
                "predicate": 1.0 if f.predicate in wanted else 0.0,
                "overlap": token_overlap(qterms, f"{f.statement} {f.object}"),
                # (a set operation in C: a restated fact can cite thousands of turns)
                "source": max((turn_score[e] for e in turn_score.keys() & f.episode_ids), default=0.0) / best_turn,
            }
            base = (self.w.fact_direct * comp["direct"] + self.w.fact_graph * comp["graph"]
                    + self.w.fact_entity * comp["entity"] + self.w.fact_predicate * comp["predicate"]
                    + self.w.fact_overlap * comp["overlap"]
                    + self.w.fact_source * comp["source"])
            out.append(from_trusted(ScoredFact, fact=f, score=base, components=comp))  # visible: it holds, no decay
        out.sort(key=lambda s: (-s.score, s.fact.id))
        return _above_the_floor(out[:k], self.w.fact_floor)


def _above_the_floor(ranked: list[ScoredFact], share: float) -> list[ScoredFact]:
    """The ranked facts but those far below the best (under ``share`` of its score) that neither the question's
    predicate nor an entity it names brought in: context, not an answer ("Luis works as a chef" under "Who is my
    partner?" once Aaron is; every language of "What languages do I speak?" stays)."""
    floor = ranked[0].score * share if ranked and ranked[0].score > 0 else 0.0
    return [s for s in ranked if s.score >= floor or s.components.get("predicate", 0.0) > 0
            or s.components.get("entity", 0.0) > 0]
