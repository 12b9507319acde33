"""Extraction pipeline: pending episodes -> entities + fact versions.

Episodes are already committed when this runs. Each batch is extracted, its
names resolved to entities, every candidate passed through the pure
:func:`kg_memory.core.temporal.decide`, and the result written in one store
transaction together with the episodes' ``done``/``failed`` status. A crash
leaves the batch ``pending``; the next run picks it up again."""

from __future__ import annotations

import logging
import random
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from ..core.merged import find_live
from ..core.models import Entity, Episode, FactVersion, normalize_name
from ..core.temporal import Candidate, Decision, decide, names_value
from ..core.vocab import Vocabulary, check_predicate, load_vocabulary
from ..embed.base import Embedder
from ..errors import KgMemError
from ..extract.base import ExtractContext, ExtractedFact, Extraction, Extractor
from ..progress import NoProgress, Progress
from ..store.base import EpisodeStored, StoreCore, WriteBatch, WriteConflict
from .attributes import an_attribute, as_held
from .holders import rehomed
from .leases import claim_owner, dead_owners
from .links import related_links
from .lookback import looked_back

log = logging.getLogger(__name__)


@dataclass
class IngestStats:
    episodes_added: int = 0
    episodes_skipped: int = 0
    episodes_extracted: int = 0
    episodes_failed: int = 0
    facts_added: int = 0
    facts_invalidated: int = 0
    facts_reinforced: int = 0
    entities_added: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)
    # episode id -> [calls, prompt tokens, completion tokens], for episodes that cost model calls
    llm_usage_by_episode: dict[str, list[int]] = field(default_factory=dict)

    def merge(self, other: IngestStats) -> None:
        for k, v in other.__dict__.items():
            if isinstance(v, int):
                setattr(self, k, getattr(self, k) + v)
            elif isinstance(v, dict):
                for key, usage in v.items():
                    mine = getattr(self, k).setdefault(key, [0, 0, 0])
                    for i, n in enumerate(usage):
                        mine[i] += n
            else:
                getattr(self, k).extend(v)

    def charge(self, episode_id: str, calls: int, prompt_tokens: int, completion_tokens: int) -> None:
        """Count model usage for the run and for the episode it was spent on."""
        if not calls:
            return
        self.llm_calls += calls
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        mine = self.llm_usage_by_episode.setdefault(episode_id, [0, 0, 0])
        mine[0] += calls
        mine[1] += prompt_tokens
        mine[2] += completion_tokens

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


CONFLICT_ATTEMPTS = 10  # decisions of a batch re-made after losing a race with another writer
CONFLICT_PAUSE_S = 0.05  # up to this many seconds x the attempt, at random, before deciding again

# Words with which a turn says that a value adds to the others; such a turn needs no judge call.
ADDITIVE = re.compile(r"\b(?:also|too|as well|another|in addition|besides)\b", re.I)


def windows(eps: list[Episode], size: int) -> list[list[Episode]]:
    """Chunks of at most ``size`` consecutive turns of one session, in time order.
    Turns without a session form their own run; a window never spans two sessions."""
    by_session: dict[str | None, list[Episode]] = defaultdict(list)
    for e in eps:
        by_session[e.session_id].append(e)
    out: list[list[Episode]] = []
    for turns in by_session.values():
        turns = sorted(turns, key=lambda e: (e.occurred_at, e.id))
        out.extend(turns[i:i + size] for i in range(0, len(turns), size))
    return out


class Pipeline:
    def __init__(self, store: StoreCore, extractor: Extractor, embedder: Embedder | None,
                 now: Callable[[], datetime], vocab: Vocabulary | None = None, context_turns: int = 4,
                 related_k: int = 5, related_min_cosine: float = 0.75, lease_seconds: float = 1800.0,
                 scope: Callable[[str], tuple[Extractor, Vocabulary]] | None = None):
        """``scope``: a group's extractor and vocabulary (its ontology); default, these two for every group."""
        self.store = store
        self.extractor = extractor
        self.scope = scope
        self.embedder = embedder
        self.now = now
        self.vocab = vocab or load_vocabulary()
        self.context_turns = context_turns
        self.related_k = related_k
        self.lease = timedelta(seconds=lease_seconds)  # how long a claim on a batch holds
        self.related_min_cosine = related_min_cosine
        self.progress: Progress = NoProgress()

    def run(self, group_id: str | None = None, batch_size: int = 256, retry_failed: bool = False,
            progress: Progress | None = None) -> IngestStats:
        """Extract the pending episodes of one group (``None``: every group), a batch at a
        time. Each batch is claimed first (kg_memory/ingest/leases.py), so two writers never
        extract the same episode; a batch that fails gives its claims back."""
        stats = IngestStats()
        if retry_failed:
            self.store.requeue_failed(group_id)
        self.progress = progress or NoProgress()
        owner = claim_owner()
        while True:
            eps = self._claim(group_id, batch_size, owner)
            if not eps:
                break
            try:
                stats.merge(self.process(eps))
            except BaseException:
                self.store.release_claims(group_id, owner, [e.id for e in eps])
                raise
            if len(eps) < batch_size:  # the claim took every claimable episode: no second round trip
                break
        return stats

    def _scopes(self, groups: Iterable[str]) -> dict[str, tuple[Extractor, Vocabulary]]:
        """Each group's extractor and vocabulary (its ontology's), read once per batch: a batch is
        extracted and decided under the same ontology even if it changes meanwhile."""
        return {g: self.scope(g) if self.scope is not None else (self.extractor, self.vocab) for g in groups}

    @contextmanager
    def _ontology_of(self, scope: tuple[Extractor, Vocabulary]) -> Iterator[None]:
        """Extract and decide under a group's own ontology (its extractor and vocabulary)."""
        saved = self.extractor, self.vocab
        self.extractor, self.vocab = scope
        try:
            yield
        finally:
            self.extractor, self.vocab = saved

    def _claim(self, group_id: str | None, batch_size: int, owner: str) -> list[Episode]:
        """Claim up to ``batch_size`` pending episodes, the earliest first, with those of claimants that
        are dead processes of this machine (read first, so a crashed run's earlier episodes are decided
        before later ones: the order they were said decides what supersedes what). An add costs one
        owners read and one claim, whatever the size of the group."""
        now = self.now()
        dead = dead_owners(self.store.claim_owners(group_id))
        return self.store.claim_pending(group_id, batch_size, owner, now, now + self.lease, dead)

    def add_new(self, episode: Episode) -> IngestStats:
        """Store a new episode and its extraction in one transaction: no claim is needed, since no
        one else sees the episode before it is extracted (an add paid three commits and a read of
        the claimants for that; docs/benchmarks.md, "The public path, round two"). The caller has
        seen no pending episode in its group, which would have to be decided first. A turn stored
        already is skipped. Should its extraction or decision fail, the episode is still stored,
        pending, before the error is raised."""
        try:
            stats = self.process([episode], new=True)
        except EpisodeStored:
            return IngestStats(episodes_skipped=1)
        except BaseException:
            self._keep(episode)
            raise
        stats.episodes_added = 1
        return stats

    def _keep(self, episode: Episode) -> None:
        """Episodes first: store the episode an add could not extract (it stays pending)."""
        try:
            self.store.add_episodes([episode])
        except Exception:  # the store itself failed: the caller sees the first error
            log.exception("could not store episode %s after its extraction failed", episode.id)

    def process(self, episodes: list[Episode], new: bool = False) -> IngestStats:
        """Extract a batch once, then decide and write it; a write that loses a race with
        another writer (``WriteConflict``) is decided again on what is now stored. ``new``:
        the episodes are not stored yet, and the write stores them first."""
        stats = IngestStats()
        vectors = self._embed_episodes(episodes)
        by_group: dict[str, list[Episode]] = defaultdict(list)
        for e in episodes:
            by_group[e.group_id].append(e)
        self.progress.phase("extract", len(episodes))
        extracted: dict[str, dict[str, Extraction]] = {}
        failed: list[tuple[str, str, str, str | None]] = []
        scopes = self._scopes(by_group)
        for group_id, eps in by_group.items():
            with self._ontology_of(scopes[group_id]):
                extracted[group_id] = self._extractions(group_id, sorted(eps, key=lambda e: e.occurred_at), failed,
                                                        stats)
        self.progress.phase("store facts", len(episodes))
        for attempt in range(1, CONFLICT_ATTEMPTS + 1):
            batch = WriteBatch(episodes=list(episodes) if new else [],
                               episode_vectors=dict(vectors), statuses=list(failed))
            decided = IngestStats()
            for group_id, eps in by_group.items():
                with self._ontology_of(scopes[group_id]):
                    self._group(group_id, eps, extracted[group_id], batch, decided)
            self._embed_batch(batch)
            try:
                self.store.write(batch)
                break
            except WriteConflict as exc:
                if attempt == CONFLICT_ATTEMPTS:
                    raise
                log.info("another writer changed the same facts (%s); deciding again (%d)", exc, attempt)
                time.sleep(random.uniform(0, CONFLICT_PAUSE_S * attempt))  # writers that collided spread out
        stats.merge(decided)
        self.progress.advance(len(episodes))
        log.info("batch of %d episodes: %d facts added, %d invalidated, %d reinforced, %d failed",
                 len(episodes), stats.facts_added, stats.facts_invalidated, stats.facts_reinforced,
                 stats.episodes_failed)
        for f in batch.inserts:  # content only at debug
            log.debug("fact %s from %s: %s", f.id, f.episode_ids[-1] if f.episode_ids else "-", f.statement)
        return stats

    def _embed_episodes(self, episodes: list[Episode]) -> dict[tuple[str, str], Any]:
        if self.embedder is None:
            return {}
        self.progress.phase("embed", len(episodes))
        vecs = self.embedder.embed([e.index_text() for e in episodes])
        self.progress.advance(len(episodes))
        return {(e.group_id, e.id): vecs[i] for i, e in enumerate(episodes)}

    def _embed_batch(self, batch: WriteBatch) -> None:
        """Vectors of the new facts and entities, and the new facts' RELATED_TO links."""
        if self.embedder is None:
            return
        if batch.inserts:
            fv = self.embedder.embed([f.statement for f in batch.inserts])
            batch.fact_vectors = {f.id: fv[i] for i, f in enumerate(batch.inserts)}
        if batch.entities:
            ev = self.embedder.embed([e.name for e in batch.entities])
            batch.entity_vectors = {e.id: ev[i] for i, e in enumerate(batch.entities)}
        self._link(batch)

    def _link(self, batch: WriteBatch) -> None:
        """RELATED_TO links for the batch's new facts (kg_memory/ingest/links.py)."""
        now = self.now()
        for group_id in dict.fromkeys(v.group_id for v in batch.inserts):
            batch.links.extend(related_links(self.store, group_id, batch.inserts, batch.fact_vectors, now,
                                             self.related_k, self.related_min_cosine))

    def _try_extract(self, e: Episode) -> tuple[Extraction | None, str | None]:
        """Extract one episode; a failure is returned, never raised, so the
        episode stays stored and is marked failed with the reason."""
        try:
            x = self._extract(e)
            for f in x.facts:
                check_predicate(f.predicate)
            return x, None
        except KgMemError as exc:
            return None, str(exc)
        except Exception as exc:  # an extractor bug must not lose the episode
            log.exception("extractor failed on episode %s", e.id)
            return None, f"{type(exc).__name__}: {exc}"

    def _extract_all(self, eps: list[Episode]) -> list[tuple[Extraction | None, str | None]]:
        """Extract every episode (in time order), one call per window of turns
        when the extractor reads windows, else one per episode. Model calls run
        in parallel; the client's process-wide limit bounds them."""
        window = int(getattr(self.extractor, "window", 1) or 1)
        if window > 1 and hasattr(self.extractor, "extract_window"):
            chunks = windows(eps, window)
            run_one: Callable[[Any], Any] = self._try_window
        else:
            chunks = [[e] for e in eps]
            run_one = self._try_extract_one
        workers = int(getattr(self.extractor, "concurrency", 1) or 1)
        def counted(chunk: list[Episode]) -> Any:
            out = run_one(chunk)
            self.progress.advance(len(chunk))
            return out

        if workers > 1 and len(chunks) > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                per_chunk = list(pool.map(counted, chunks))
        else:
            per_chunk = [counted(c) for c in chunks]
        found: dict[str, tuple[Extraction | None, str | None]] = {}
        for chunk_result in per_chunk:
            found.update(chunk_result)
        return [found[e.id] for e in eps]

    def _try_extract_one(self, chunk: list[Episode]) -> dict[str, tuple[Extraction | None, str | None]]:
        return {chunk[0].id: self._try_extract(chunk[0])}

    def _try_window(self, chunk: list[Episode]) -> dict[str, tuple[Extraction | None, str | None]]:
        """Extract one window; a failure marks every episode of the window failed."""
        try:
            found = self.extractor.extract_window(chunk)  # type: ignore[attr-defined]
            for x in found.values():
                for f in x.facts:
                    check_predicate(f.predicate)
            return {e.id: (found.get(e.id, Extraction()), None) for e in chunk}
        except KgMemError as exc:
            return {e.id: (None, str(exc)) for e in chunk}
        except Exception as exc:  # an extractor bug must not lose the episodes
            log.exception("extractor failed on a window starting at episode %s", chunk[0].id)
            return {e.id: (None, f"{type(exc).__name__}: {exc}") for e in chunk}

    def _extract(self, e: Episode) -> Extraction:
        ctx = ExtractContext()
        if self.context_turns and getattr(self.extractor, "wants_context", False):
            ctx = ExtractContext(tuple(self.store.previous_turns(e.group_id, e.session_id, e.occurred_at,
                                                                 self.context_turns)))
        return self.extractor.extract(e, ctx)

    def _group(self, group_id: str, eps: list[Episode], extractions: dict[str, Extraction], batch: WriteBatch,
               stats: IngestStats) -> None:
        """Decide what one group's extracted episodes (in time order) change.

        Invariant: a version that this batch creates and then closes is written
        once, already closed; ``batch.expiries`` names only versions committed
        before the batch (tests/unit/test_pipeline_batch.py)."""
        eps = sorted(eps, key=lambda e: e.occurred_at)
        now = self.now()
        extractions = rehomed(self.store, group_id, self.vocab, extractions, [e.id for e in eps],
                              {e.id: e.speaker or "User" for e in eps}, now)
        known = self._resolve_entities(group_id, extractions, batch, stats, now)
        extractions = as_held(self.store, group_id, self.vocab, extractions, [e.id for e in eps], known, now)
        state = self._believed(group_id, extractions, known)
        before = looked_back(self.store, group_id, self.vocab, self.extractor, extractions, eps, known, state)
        if before is not extractions:  # (the earlier values found: their names, as the others')
            extractions = before
            known = self._resolve_entities(group_id, extractions, batch, stats, now, known)
        pending: dict[str, FactVersion] = {}  # versions this batch creates, by id
        for e in eps:
            found = extractions.get(e.id)
            if found is None:
                continue
            mentioned = self._decide_facts(group_id, e, found, known, state, pending, batch, stats, now)
            for m in found.mentions:
                named = known.get(normalize_name(m))
                if named:
                    mentioned.add(named.id)
            batch.mentions.extend((group_id, e.id, ent_id) for ent_id in sorted(mentioned))
            batch.statuses.append((group_id, e.id, "done", None))
            stats.episodes_extracted += 1
        batch.inserts.extend(pending.values())

    def _extractions(self, group_id: str, eps: list[Episode], failed: list[tuple[str, str, str, str | None]],
                     stats: IngestStats) -> dict[str, Extraction]:
        """Run the extractor; a failed episode is marked failed (kept, with its reason)."""
        extractions: dict[str, Extraction] = {}
        for e, (result, error) in zip(eps, self._extract_all(eps), strict=True):
            if result is not None:
                extractions[e.id] = result
                stats.charge(e.id, result.llm_calls, result.prompt_tokens, result.completion_tokens)
            else:
                failed.append((group_id, e.id, "failed", (error or "unknown error")[:500]))
                stats.episodes_failed += 1
                stats.errors.append(f"episode {e.id}: {error}")
        return extractions

    def _resolve_entities(self, group_id: str, extractions: dict[str, Extraction], batch: WriteBatch,
                          stats: IngestStats, now: datetime, known: dict[str, Entity] | None = None
                          ) -> dict[str, Entity]:
        """Every name the extractions use, by key: the stored entity, or a new one in this batch (those ``known``
        already, as they are)."""
        had = known or {}
        kinds: dict[str, tuple[str, str]] = {}
        for x in extractions.values():
            for f in x.facts:
                kinds.setdefault(normalize_name(f.subject), (f.subject, f.subject_kind))
                if f.object and not f.ending:
                    kinds.setdefault(normalize_name(f.object), (f.object, f.object_kind))
            for m in x.mentions:
                kinds.setdefault(normalize_name(m), (m, "entity"))
        ending_objects = {normalize_name(f.object if f.ending else f.replaces) for x in extractions.values()
                          for f in x.facts if f.ending and f.object or f.replaces}  # (and the values changes leave)
        kinds = {k: v for k, v in kinds.items() if k not in had}
        keys = [k for k in (*kinds, *ending_objects) if k not in had]
        known = {**had, **(find_live(self.store, group_id, keys) if keys or not had else {})}
        for key, (name, kind) in kinds.items():
            if key and key not in known:
                ent = Entity(group_id=group_id, name=name, kind=kind, created_at=now)  # type: ignore[arg-type]
                known[key] = ent
                batch.entities.append(ent)
                stats.entities_added += 1
        return known

    def _believed(self, group_id: str, extractions: dict[str, Extraction], known: dict[str, Entity]
                  ) -> dict[tuple[str, str], dict[str, FactVersion]]:
        """The versions believed now of every (subject, predicate) the batch touches."""
        pairs: set[tuple[str, str]] = set()
        for x in extractions.values():
            for f in x.facts:
                subj = known.get(normalize_name(f.subject))
                if subj:
                    pairs.update((subj.id, p) for p in (f.predicate, *f.alternatives))
                    if f.replaces:  # the slot holding the value a change replaces, whichever it is
                        pairs.update((subj.id, p) for p in self.vocab.predicates)
        state: dict[tuple[str, str], dict[str, FactVersion]] = defaultdict(dict)
        for v in self.store.current_facts(group_id, sorted(pairs)):
            state[(v.subject_id, v.predicate)][v.id] = v
        left = {e.id: subj.id for x in extractions.values() for f in x.facts if f.replaces
                if (e := known.get(normalize_name(f.replaces))) and (subj := known.get(normalize_name(f.subject)))}
        for v in self.store.current_facts(group_id, object_ids=sorted(left)) if left else ():
            if left.get(v.object_id) == v.subject_id and v.predicate not in self.vocab.predicates:
                state[(v.subject_id, v.predicate)][v.id] = v  # an open fact of the value a change leaves
        return state

    def _open_ends(self, facts: list[ExtractedFact], known: dict[str, Entity],
                   state: dict[tuple[str, str], dict[str, FactVersion]]) -> list[ExtractedFact]:
        """The facts, each change followed by the end of the open facts (no predicate of the ontology) its
        subject holds of the value it leaves: "I switched from history to politics" ends "User read history",
        whatever the slot it changes."""
        out: list[ExtractedFact] = []
        for f in facts:
            out += [*self._held_end(f, known, state), f]
            subj = known.get(normalize_name(f.subject)) if f.replaces and not f.ending else None
            out += [_end_of(f, p, f.replaces)
                    for (sid, p), versions in sorted(state.items()) if subj is not None and sid == subj.id
                    and p not in self.vocab.predicates and any(names_value(f.replaces, v.object)
                                                                for v in versions.values())]
        return out

    def _held_end(self, f: ExtractedFact, known: dict[str, Entity],
                  state: dict[tuple[str, str], dict[str, FactVersion]]) -> list[ExtractedFact]:
        """The end of the one value a change takes the place of (``ExtractedFact.in_place_of_held``), if its
        subject holds exactly one other value of the slot now."""
        subj = known.get(normalize_name(f.subject)) if f.in_place_of_held else None
        held = [v for v in state.get((subj.id, f.predicate), {}).values()
                if not names_value(f.object, v.object)] if subj is not None else []
        if len(held) != 1:
            return []
        return [replace(_end_of(f, f.predicate, held[0].object), object_kind=f.object_kind)]

    def _decide_facts(self, group_id: str, e: Episode, found: Extraction, known: dict[str, Entity],
                      state: dict[tuple[str, str], dict[str, FactVersion]], pending: dict[str, FactVersion],
                      batch: WriteBatch, stats: IngestStats, now: datetime) -> set[str]:
        """Decide each fact of one episode against what is believed (``state``, which
        this updates); return the ids of the entities the facts name."""
        mentioned: set[str] = set()
        for said in self._open_ends(found.facts, known, state):
            subj = known.get(normalize_name(said.subject))
            obj = known.get(normalize_name(said.object)) if said.object else None
            if subj is None or (obj is None and not (said.ending and (said.any_object or said.object))):
                continue
            f = self._slotted(said, subj.id, state)
            if f is None:
                continue
            mentioned.add(subj.id)
            if obj is not None:
                mentioned.add(obj.id)
            cand = self._candidate(group_id, e, f, subj, obj)
            pair = (subj.id, f.predicate)
            single = self.vocab.is_single(f.predicate) or an_attribute(f, self.vocab)
            cand, current, single = self._judged(cand, list(state[pair].values()), single, e, stats)
            decision = decide(cand, current, single, now)
            self._persist(group_id, pair, decision, state, pending, batch)
            stats.facts_added += decision.facts_added
            stats.facts_invalidated += decision.facts_invalidated
            stats.facts_reinforced += 1 if decision.kind == "reinforce" else 0
        return mentioned

    def _candidate(self, group_id: str, e: Episode, f: ExtractedFact, subj: Entity, obj: Entity | None) -> Candidate:
        return Candidate(
            group_id=group_id, subject_id=subj.id, subject=subj.name, predicate=f.predicate,
            object_id=obj.id if obj else "", object=obj.name if obj else "", statement=f.statement,
            valid_from=f.valid_from, valid_to=f.valid_to, episode_id=f.source_episode or e.id, ending=f.ending,
            dated=f.dated, extractor=self.extractor.name, prompt_version=self.extractor.version,
            confidence=f.confidence, any_object=f.any_object, said=f.object if f.ending and obj is None else "",
            started_by=f.started_by,
        )

    def _slotted(self, f: ExtractedFact, subject_id: str,
                 state: dict[tuple[str, str], dict[str, FactVersion]]) -> ExtractedFact | None:
        """A change says its slot by what its subject holds now: the slot whose value it names as the
        one it replaces, else the first of its predicates held (see ``ExtractedFact.alternatives``)."""
        held = self._holding(f.replaces, subject_id, state, named_only=not f.needs_slot) if f.replaces else None
        if held is None and not f.alternatives and not f.needs_slot:
            return f
        held = held or next((p for p in (f.predicate, *f.alternatives) if state.get((subject_id, p))), None)
        if held is None:
            return None if f.needs_slot else f
        spec = self.vocab.predicates.get(held)
        statement = f.statement if f.ending else spec.render(f.subject, f.object) if spec is not None \
            else f"{f.subject} {held.replace('_', ' ')} {f.object}"  # (a slot no predicate names: "favorite author")
        return replace(f, predicate=held, statement=statement, alternatives=(), needs_slot=False)

    def _holding(self, value: str, subject_id: str, state: dict[tuple[str, str], dict[str, FactVersion]],
                 named_only: bool = True) -> str | None:
        """The predicate whose value the subject holds now is ``value`` ("ibuprofen"): a change from it
        ends it there, and the new value starts there (a single slot's successor, or one more of many). Unless
        ``named_only``, also a slot no predicate names, after those they do: a change meaning could not place
        ("I've gone off Sally Rooney; Claire Keegan is ...") is of the slot the one it leaves holds."""
        held = [p for (sid, p), versions in sorted(state.items())
                if sid == subject_id and (not named_only or p in self.vocab.predicates)
                and any(names_value(value, v.object) for v in versions.values())]
        return min(held, key=lambda p: p not in self.vocab.predicates, default=None)

    @staticmethod
    def _persist(group_id: str, pair: tuple[str, str], decision: Decision,
                 state: dict[tuple[str, str], dict[str, FactVersion]], pending: dict[str, FactVersion],
                 batch: WriteBatch) -> None:
        """Record a decision in the batch, keeping the invariant of ``_group``: an
        expiry of a version this batch created closes that pending version instead."""
        for exp in decision.expiries:
            state[pair].pop(exp.version_id, None)
            if exp.version_id in pending:
                pending[exp.version_id] = pending[exp.version_id].replace(
                    expired_at=exp.expired_at, expired_by=exp.expired_by)
            else:
                batch.expiries.append((group_id, exp))
        for v in decision.inserts:
            pending[v.id] = v
            state[pair][v.id] = v

    def _judged(self, cand: Candidate, current: list[FactVersion], single: bool, e: Episode,
                stats: IngestStats) -> tuple[Candidate, list[FactVersion], bool]:
        """The slow path: a multi-valued or unknown predicate whose subject already
        holds other values may be adding or replacing. Single-valued predicates
        never reach it. At most one judge call per ambiguous fact."""
        judge = getattr(self.extractor, "judge", None)
        if judge is None or single or cand.ending:
            return cand, current, single
        if cand.predicate not in self.vocab.predicates:
            return cand, current, False  # an open predicate never retires anything
        if ADDITIVE.search(e.content):
            return cand, current, False  # "I also ...", "... too": the turn itself says it adds
        others = [v for v in current if v.object_id != cand.object_id]
        if not others or len(others) < len(current):
            return cand, current, single  # nothing to replace, or a restatement
        try:
            verdict, usage = judge(cand.subject, cand.statement, cand.predicate, cand.object, others,
                                   e.occurred_at)
        except KgMemError as exc:
            stats.errors.append(f"episode {e.id}: judge failed ({exc}); kept the fact as an addition")
            return cand, current, False
        stats.charge(e.id, usage.calls, usage.prompt_tokens, usage.completion_tokens)
        if verdict.decision == "REPLACE":
            chosen = [v for v in others if v.id in set(verdict.replaces)] or others
            return cand, chosen, True
        if verdict.decision == "DUPLICATE":
            dup = next((v for v in others if v.id == verdict.duplicate_of), others[0])
            return replace(cand, object_id=dup.object_id, object=dup.object), [dup], single
        return cand, current, False


def _end_of(f: ExtractedFact, predicate: str, value: str) -> ExtractedFact:
    """The end, when the change ``f`` starts, of the subject's ``value`` in ``predicate``."""
    return ExtractedFact(subject=f.subject, predicate=predicate, object=value,
                         statement=f"{f.subject} no longer {predicate} {value}", valid_from=f.valid_from,
                         dated=f.dated, ending=True)
