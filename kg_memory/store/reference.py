"""The reference store: the executable specification of the ``Store`` interface.

It keeps everything in Python lists and dicts and answers every read by
applying the temporal core's rules (``temporal.visible``, ``temporal.ended``,
``temporal.episode_visible``) to every row, then the ordering, tie-break and
limit rules written once here. It is slow on purpose: nothing is indexed, so
nothing can be indexed wrongly. The differential tests
(``tests/contract/test_store_spec.py``) require SQLite and Neo4j to return
exactly what this store returns. It is also usable as a throw-away store
(``memory://``).

The rules, in one place:

* Ids: an id names one episode, entity or version across the whole store; a
  second episode with a known id, or with a known dedupe key (group, role,
  content hash, occurred_at), is skipped.
* Episode order: ``(occurred_at, id)``. Version order for ``history``:
  ``(created_at, id)``, and so for ``fact_versions`` and ``list_facts``.
  ``facts_for_entities``: latest ``valid_from`` first (an open start orders as
  0001-01-01T00:00Z), then id. ``ended_facts``: latest ``valid_to`` first, then id.
  ``current_facts``: by id. Mentions: entity ids sorted.
* A session-less episode belongs to the group's one session-less stream:
  ``previous_turns(group, None, ...)`` reads it, and ``neighbours`` does not
  (a turn without a session has no neighbours).
* Vector search: exact cosine; ties by id. Text search is the backend's own
  engine (FTS5, Lucene); only its filter (group, visibility, k) is specified.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..core.erasure import ErasePlan, Tombstone
from ..core.models import Entity, Episode, FactVersion
from ..core.temporal import ended, episode_visible, visible
from ..core.timeutil import micros
from ..errors import StoreError
from .base import DEFAULT_DIM, EpisodeStored, JobRecord, Store, TimeFilter, WriteBatch, WriteConflict, expired_already

_FIRST = micros(datetime.min.replace(tzinfo=UTC))  # an open start orders as the first instant
_WORD = re.compile(r"\w+")


def episode_order(e: Episode) -> tuple[datetime, str]:
    return (e.occurred_at, e.id)


def latest_start_first(v: FactVersion) -> tuple[int, str]:
    return (-(micros(v.valid_from) if v.valid_from else _FIRST), v.id)


def latest_end_first(v: FactVersion) -> tuple[int, str]:
    assert v.valid_to is not None
    return (-micros(v.valid_to), v.id)


class ReferenceStore(Store):
    kind = "reference"

    def __init__(self, dim: int = DEFAULT_DIM):
        self.dim = dim
        self._lock = threading.RLock()
        self.episodes: dict[str, Episode] = {}  # insertion order
        self.episode_vectors: dict[str, np.ndarray] = {}
        self.entity_rows: dict[str, Entity] = {}
        self.entity_vecs: dict[str, np.ndarray] = {}
        self.mention_pairs: set[tuple[str, str, str]] = set()  # (group, episode, entity)
        self.facts: dict[str, FactVersion] = {}  # insertion order
        self.fact_vectors: dict[str, np.ndarray] = {}
        self.links: dict[tuple[str, str, str], float] = {}  # (group, fact_id, other_id) -> score
        self.graves: list[Tombstone] = []
        self.claims: dict[str, tuple[str, datetime]] = {}  # episode id -> (owner, lease end)
        self.records: dict[tuple[str, str, str], JobRecord] = {}  # (group, kind, id)
        self.locks: dict[tuple[str, str], tuple[str, datetime]] = {}  # (group, name) -> (owner, until)

    # -- lifecycle ---------------------------------------------------------
    def migrate(self) -> list[str]:
        return []

    def applied_migrations(self) -> list[str]:
        return []

    def info(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": 0, "counts": self.counts()}

    def close(self) -> None:
        return None

    # -- episodes ----------------------------------------------------------
    def add_episodes(self, episodes: list[Episode]) -> tuple[list[Episode], int]:
        with self._lock:
            keys = {e.dedupe_key for e in self.episodes.values()}
            added = []
            for e in episodes:
                if e.id in self.episodes or e.dedupe_key in keys:
                    continue
                self.episodes[e.id] = e
                keys.add(e.dedupe_key)
                added.append(e)
            return added, len(episodes) - len(added)

    def _group_episodes(self, group_id: str | None) -> list[Episode]:
        return [e for e in self.episodes.values() if group_id is None or e.group_id == group_id]

    def pending_episodes(self, group_id: str | None, limit: int) -> list[Episode]:
        found = [e for e in self._group_episodes(group_id) if e.status == "pending"]
        return sorted(found, key=episode_order)[:limit]

    def _claimable(self, e: Episode, owner: str, now: datetime, steal: set[str]) -> bool:
        held = self.claims.get(e.id)
        return e.status == "pending" and (held is None or held[1] <= now or held[0] == owner or held[0] in steal)

    def claim_pending(self, group_id: str | None, limit: int, owner: str, now: datetime, lease_until: datetime,
                      steal_from: list[str] | None = None) -> list[Episode]:
        with self._lock:
            steal = set(steal_from or [])
            free = [e for e in self._group_episodes(group_id) if self._claimable(e, owner, now, steal)]
            chosen = sorted(free, key=episode_order)[:max(limit, 0)]
            for e in chosen:
                self.claims[e.id] = (owner, lease_until)
            return chosen

    def claim_owners(self, group_id: str | None) -> list[str]:
        return sorted({self.claims[e.id][0] for e in self._group_episodes(group_id)
                       if e.id in self.claims and e.status == "pending"})

    def release_claims(self, group_id: str | None, owner: str, episode_ids: list[str]) -> None:
        with self._lock:
            for i in episode_ids:
                e = self.episodes.get(i)
                if self.claims.get(i, ("",))[0] == owner and e is not None \
                        and (group_id is None or e.group_id == group_id):
                    del self.claims[i]

    def requeue_failed(self, group_id: str | None) -> int:
        with self._lock:
            failed = [e for e in self._group_episodes(group_id) if e.status == "failed"]
            for e in failed:
                self.episodes[e.id] = e.model_copy(update={"status": "pending", "status_reason": None})
            return len(failed)

    def get_episodes(self, group_id: str, ids: list[str]) -> list[Episode]:
        return [self.episodes[i] for i in ids if i in self.episodes and self.episodes[i].group_id == group_id]

    def previous_turns(self, group_id: str, session_id: str | None, before: datetime, n: int) -> list[Episode]:
        found = [e for e in self._group_episodes(group_id) if e.session_id == session_id and e.occurred_at < before]
        return sorted(found, key=episode_order)[-n:] if n > 0 else []

    def neighbours(self, group_id: str, episode_ids: list[str], tf: TimeFilter) -> dict[str, list[Episode]]:
        out: dict[str, list[Episode]] = {}
        for eid in episode_ids:
            e = self.episodes.get(eid)
            if e is None or e.group_id != group_id or e.session_id is None:
                continue
            turns = sorted((x for x in self._group_episodes(group_id) if x.session_id == e.session_id
                            and x.id != e.id and episode_visible(x, tf.as_of, tf.known_at)), key=episode_order)
            before = [x for x in turns if episode_order(x) < episode_order(e)]
            after = [x for x in turns if episode_order(x) > episode_order(e)]
            found = before[-1:] + after[:1]
            if found:
                out[eid] = found
        return out

    # -- entities ----------------------------------------------------------
    def find_entities(self, group_id: str, keys: list[str]) -> dict[str, Entity]:
        wanted = set(keys)
        return {n.key: n for n in self.entity_rows.values() if n.group_id == group_id and n.key in wanted}

    def mentions(self, group_id: str, episode_ids: list[str]) -> dict[str, list[str]]:
        wanted = set(episode_ids)
        out: dict[str, list[str]] = {}
        for g, ep, en in self.mention_pairs:
            if g == group_id and ep in wanted:
                out.setdefault(ep, []).append(en)
        return {ep: sorted(ens) for ep, ens in out.items()}

    # -- facts -------------------------------------------------------------
    def _group_facts(self, group_id: str) -> list[FactVersion]:
        return [f for f in self.facts.values() if f.group_id == group_id]

    def current_facts(self, group_id: str, pairs: list[tuple[str, str]] | None = None,
                      object_ids: list[str] | None = None) -> list[FactVersion]:
        want_pairs, want_objects = set(pairs or []), set(object_ids or [])
        found = [f for f in self._group_facts(group_id) if f.expired_at is None
                 and ((f.subject_id, f.predicate) in want_pairs or f.object_id in want_objects)]
        return sorted(found, key=lambda f: f.id)

    def write(self, batch: WriteBatch) -> None:
        with self._lock:
            self._check(batch)
            self.add_episodes(batch.episodes)
            for n in batch.entities:
                self.entity_rows[n.id] = n
                if n.id in batch.entity_vectors:
                    self.entity_vecs[n.id] = batch.entity_vectors[n.id]
            for (g, eid), vec in batch.episode_vectors.items():
                if eid in self.episodes and self.episodes[eid].group_id == g:
                    self.episode_vectors[eid] = vec
            for g, ep, en in batch.mentions:
                if ep in self.episodes and en in self.entity_rows and self.episodes[ep].group_id == g \
                        and self.entity_rows[en].group_id == g:
                    self.mention_pairs.add((g, ep, en))
            for f in batch.inserts:
                self.facts[f.id] = f
                if f.id in batch.fact_vectors:
                    self.fact_vectors[f.id] = batch.fact_vectors[f.id]
            for _, x in batch.expiries:
                self.facts[x.version_id] = self.facts[x.version_id].replace(expired_at=x.expired_at,
                                                                            expired_by=x.expired_by)
            for g, a, b, score in batch.links:
                self.links.setdefault((g, a, b), score)
            for g, eid, status, why in batch.statuses:
                e = self.episodes.get(eid)
                if e is not None and e.group_id == g:
                    self.episodes[eid] = e.model_copy(update={"status": status, "status_reason": why})
                    self.claims.pop(eid, None)
            for n in batch.entity_updates:
                old = self.entity_rows.get(n.id)
                if old is not None and old.group_id == n.group_id:
                    self.entity_rows[n.id] = old.model_copy(update={"aliases": n.aliases, "merged_into": n.merged_into})
            self.mention_pairs -= set(batch.unmentions)
            for r in batch.records:
                self.records[(r.group_id, r.kind, r.id)] = r

    def _check(self, batch: WriteBatch) -> None:
        """All or nothing: a batch that would break a rule changes nothing."""
        stored = {e.dedupe_key for e in self.episodes.values()}
        for e in batch.episodes:
            if e.id in self.episodes or e.dedupe_key in stored:
                raise EpisodeStored("an episode of this write is stored already")
            stored.add(e.dedupe_key)
        keys = {(n.group_id, n.key) for n in self.entity_rows.values()}
        for n in batch.entities:
            if (n.group_id, n.key) in keys or n.id in self.entity_rows:
                raise WriteConflict(f"entity {n.name!r} was created by another writer")
            keys.add((n.group_id, n.key))
        entities = {n.id: n for n in (*self.entity_rows.values(), *batch.entities)}
        for f in batch.inserts:
            s, o = entities.get(f.subject_id), entities.get(f.object_id)
            if s is None or o is None or s.group_id != f.group_id or o.group_id != f.group_id:
                raise StoreError(f"fact version {f.id}: its entities are missing from group {f.group_id!r}")
        pending = {f.id: f for f in batch.inserts}
        for g, x in batch.expiries:
            v = pending.get(x.version_id) or self.facts.get(x.version_id)
            if v is None or v.group_id != g or v.expired_at is not None:
                raise expired_already(x.version_id)

    def history(self, group_id: str, entity_id: str, predicate: str | None = None) -> list[FactVersion]:
        found = [f for f in self._group_facts(group_id) if entity_id in (f.subject_id, f.object_id)
                 and (predicate is None or f.predicate == predicate)]
        return sorted(found, key=lambda f: (f.created_at, f.id))

    def fact_versions(self, group_id: str, ids: list[str]) -> list[FactVersion]:
        want = set(ids)
        found = [f for f in self._group_facts(group_id) if f.id in want or f.fact_id in want]
        return sorted(found, key=lambda f: (f.created_at, f.id))

    def list_facts(self, group_id: str, tf: TimeFilter | None, entity_id: str | None = None,
                   predicate: str | None = None, limit: int = 10_000) -> list[FactVersion]:
        found = [f for f in self._group_facts(group_id)
                 if (tf is None or visible(f, tf.as_of, tf.known_at))
                 and (entity_id is None or entity_id in (f.subject_id, f.object_id))
                 and (predicate is None or f.predicate == predicate)]
        return sorted(found, key=lambda f: (f.created_at, f.id))[:max(limit, 0)]

    def related(self, group_id: str, fact_id: str, k: int) -> list[tuple[str, float]]:
        best: dict[str, float] = {}
        for (g, a, b), score in self.links.items():
            if g == group_id and fact_id in (a, b) and a != b:
                other = b if a == fact_id else a
                best[other] = max(score, best.get(other, score))
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:max(k, 0)]

    # -- erasure -------------------------------------------------------------
    def episodes_about(self, group_id: str, entity_ids: list[str], text: str | None) -> list[str]:
        ents = set(entity_ids)
        found = {ep for g, ep, en in self.mention_pairs if g == group_id and en in ents}
        if text:
            found |= {e.id for e in self._group_episodes(group_id) if text.lower() in e.content.lower()}
        return sorted(found)

    def episode_hashes(self, group_id: str) -> list[str]:
        return sorted({e.content_sha256 for e in self._group_episodes(group_id)})

    def facts_citing(self, group_id: str, episode_ids: list[str], entity_ids: list[str]) -> list[FactVersion]:
        eps, ents = set(episode_ids), set(entity_ids)
        found = [f for f in self._group_facts(group_id)
                 if eps & set(f.episode_ids) or f.subject_id in ents or f.object_id in ents]
        return sorted(found, key=lambda f: (f.created_at, f.id))

    def erase(self, plan: ErasePlan, tombstone: Tombstone) -> Tombstone:
        with self._lock:
            g = plan.group_id
            if plan.whole_group:
                eps = [e.id for e in self._group_episodes(g)]
                versions = [f.id for f in self._group_facts(g)]
                ents = [n.id for n in self.entity_rows.values() if n.group_id == g]
            else:
                eps = [i for i in plan.episode_ids if i in self.episodes and self.episodes[i].group_id == g]
                versions = [i for i in plan.version_ids if i in self.facts and self.facts[i].group_id == g]
                ents = []
            for i in eps:
                del self.episodes[i]
                self.episode_vectors.pop(i, None)
            for i in versions:
                del self.facts[i]
                self.fact_vectors.pop(i, None)
            for vid, (ids, evidence) in plan.provenance.items():
                if vid in self.facts and not plan.whole_group:
                    self.facts[vid] = self.facts[vid].replace(episode_ids=ids, reinforcement_count=evidence)
            left = {f.fact_id for f in self._group_facts(g)}
            self.links = {k: v for k, v in self.links.items()
                          if not (k[0] == g and (plan.whole_group or k[1] not in left and k[1] in plan.fact_ids
                                                 or k[2] not in left and k[2] in plan.fact_ids))}
            gone = set(eps) | set(plan.entity_ids)
            self.mention_pairs = {m for m in self.mention_pairs if not (m[0] == g and (m[1] in gone or m[2] in gone))}
            if not plan.whole_group:
                named = {x for f in self._group_facts(g) for x in (f.subject_id, f.object_id)}
                named |= {en for gg, _, en in self.mention_pairs if gg == g}
                ents = [i for i in dict.fromkeys([*plan.entity_ids, *plan.maybe_orphans])
                        if i in self.entity_rows and self.entity_rows[i].group_id == g and i not in named]
            for i in ents:
                del self.entity_rows[i]
                self.entity_vecs.pop(i, None)
            done = replace(tombstone, episodes=len(eps), facts=len(versions), entities=len(ents))
            self.graves.append(done)
            return done

    def tombstones(self, group_id: str) -> list[Tombstone]:
        return sorted((t for t in self.graves if t.group_id == group_id), key=lambda t: (t.erased_at, t.id))

    def _touching(self, group_id: str, entity_ids: list[str], predicates: list[str] | None,
                  both_ends: bool) -> list[FactVersion]:
        ents, preds = set(entity_ids), set(predicates) if predicates is not None else None
        joined = all if both_ends else any
        return [f for f in self._group_facts(group_id) if joined((f.subject_id in ents, f.object_id in ents))
                and (preds is None or f.predicate in preds)]

    def facts_for_entities(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                           predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        found = [f for f in self._touching(group_id, entity_ids, predicates, both_ends)
                 if visible(f, tf.as_of, tf.known_at)]
        return sorted(found, key=latest_start_first)[:max(limit, 0)]

    def ended_facts(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                    predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        found = [f for f in self._touching(group_id, entity_ids, predicates, both_ends)
                 if ended(f, tf.as_of, tf.known_at)]
        return sorted(found, key=latest_end_first)[:max(limit, 0)]

    # -- search ------------------------------------------------------------
    def _visible_episodes(self, group_id: str, tf: TimeFilter) -> list[Episode]:
        return [e for e in self._group_episodes(group_id) if episode_visible(e, tf.as_of, tf.known_at)]

    def _visible_facts(self, group_id: str, tf: TimeFilter) -> list[FactVersion]:
        return [f for f in self._group_facts(group_id) if visible(f, tf.as_of, tf.known_at)]

    @staticmethod
    def _cosine_top(vector: np.ndarray, rows: list[tuple[str, np.ndarray]], k: int) -> list[tuple[str, float]]:
        scored = [(rid, float(np.dot(vec.astype(np.float32), vector.astype(np.float32)))) for rid, vec in rows]
        return sorted(scored, key=lambda r: (-r[1], r[0]))[:max(k, 0)]

    @staticmethod
    def _bm25_top(query: str, docs: list[tuple[str, str]], k: int) -> list[tuple[str, float]]:
        """Okapi BM25 over words (the filter is the specification; the scoring is illustrative)."""
        terms = set(_WORD.findall(query.lower()))
        if not terms or not docs:
            return []
        toks = {d: set(_WORD.findall(text.lower())) for d, text in docs}
        lens = {d: len(_WORD.findall(text)) for d, text in docs}
        avg = sum(lens.values()) / len(lens) or 1.0
        scores: dict[str, float] = {}
        for t in terms:
            hits = [d for d in toks if t in toks[d]]
            idf = max(math.log((len(docs) - len(hits) + 0.5) / (len(hits) + 0.5)), 1e-6)
            for d in hits:
                scores[d] = scores.get(d, 0.0) + idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * lens[d] / avg))
        return sorted(scores.items(), key=lambda r: (-r[1], r[0]))[:max(k, 0)]

    def episode_text_search(self, group_id: str, query: str, k: int, tf: TimeFilter) -> list[tuple[str, float]]:
        return self._bm25_top(query, [(e.id, e.index_text()) for e in self._visible_episodes(group_id, tf)], k)

    def episode_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                              ) -> list[tuple[str, float]]:
        rows = [(e.id, self.episode_vectors[e.id]) for e in self._visible_episodes(group_id, tf)
                if e.id in self.episode_vectors]
        return self._cosine_top(vector, rows, k)

    def fact_text_search(self, group_id: str, query: str, k: int, tf: TimeFilter
                         ) -> list[tuple[FactVersion, float]]:
        facts = {f.id: f for f in self._visible_facts(group_id, tf)}
        docs = [(f.id, f"{f.statement} {f.subject} {f.predicate.replace('_', ' ')} {f.object}")
                for f in facts.values()]
        return [(facts[i], s) for i, s in self._bm25_top(query, docs, k)]

    def fact_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                           ) -> list[tuple[FactVersion, float]]:
        facts = {f.id: f for f in self._visible_facts(group_id, tf)}
        rows = [(i, self.fact_vectors[i]) for i in facts if i in self.fact_vectors]
        return [(facts[i], s) for i, s in self._cosine_top(vector, rows, k)]

    def cosines(self, group_id: str, vector: np.ndarray, episode_ids: list[str], fact_ids: list[str]
                ) -> tuple[dict[str, float], dict[str, float]]:
        return ({i: float(np.dot(self.episode_vectors[i], vector)) for i in episode_ids if i in self.episode_vectors},
                {i: float(np.dot(self.fact_vectors[i], vector)) for i in fact_ids if i in self.fact_vectors})

    def counts(self, group_id: str | None = None) -> dict[str, int]:
        eps = self._group_episodes(group_id)
        facts = [f for f in self.facts.values() if group_id is None or f.group_id == group_id]
        return {"episodes": len(eps),
                "entities": sum(1 for n in self.entity_rows.values() if group_id is None or n.group_id == group_id),
                "facts": len(facts), "facts_current": sum(1 for f in facts if f.expired_at is None),
                "episodes_pending": sum(1 for e in eps if e.status == "pending"),
                "episodes_failed": sum(1 for e in eps if e.status == "failed")}

    def groups(self) -> list[tuple[str, dict[str, int]]]:
        out: dict[str, dict[str, int]] = {}
        for kind, rows in (("episodes", self.episodes.values()), ("entities", self.entity_rows.values()),
                           ("facts", self.facts.values())):
            for r in rows:
                out.setdefault(r.group_id, {"episodes": 0, "entities": 0, "facts": 0})[kind] += 1
        return sorted(out.items())

    def entity_degrees(self, group_id: str) -> list[tuple[str, str, str, int]]:
        counts: dict[tuple[str, str], int] = {}
        for f in self._group_facts(group_id):
            if f.expired_at is None:
                for end in (f.subject_id, f.object_id):
                    counts[(end, f.predicate)] = counts.get((end, f.predicate), 0) + 1
        return sorted((e, self.entity_rows[e].name, p, n) for (e, p), n in counts.items() if e in self.entity_rows)

    def entity_names(self, group_id: str, limit: int) -> list[str]:
        return sorted(n.name for n in self.entity_rows.values() if n.group_id == group_id)[:max(limit, 0)]

    # -- maintenance jobs ------------------------------------------------------
    def entities(self, group_id: str, ids: list[str] | None = None) -> list[Entity]:
        want = None if ids is None else set(ids)
        return sorted((n for n in self.entity_rows.values() if n.group_id == group_id
                       and (want is None or n.id in want)), key=lambda n: n.id)

    def entity_vectors(self, group_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        return {i: self.entity_vecs[i] for i in ids if i in self.entity_vecs
                and self.entity_rows[i].group_id == group_id}

    def list_episodes(self, group_id: str, limit: int, after: tuple[datetime, str] | None = None,
                      before: datetime | None = None, archived: bool | None = None) -> list[Episode]:
        found = [e for e in self._group_episodes(group_id)
                 if (after is None or episode_order(e) > after) and (before is None or e.occurred_at < before)
                 and (archived is None or e.archived == archived)]
        return sorted(found, key=episode_order)[:max(limit, 0)]

    def set_bodies(self, group_id: str, bodies: Sequence[tuple[str, str, str | None]]) -> int:
        with self._lock:
            n = 0
            for eid, content, ref in bodies:
                e = self.episodes.get(eid)
                if e is not None and e.group_id == group_id:
                    self.episodes[eid] = e.model_copy(update={"content": content, "archive_ref": ref})
                    n += 1
            return n

    def job_records(self, group_id: str, kind: str) -> list[JobRecord]:
        found = [r for (g, k, _), r in self.records.items() if g == group_id and k == kind]
        return sorted(found, key=lambda r: (r.at, r.id))

    def swap_groups(self, a: str, b: str) -> None:
        def other(g: str) -> str:
            return b if g == a else a if g == b else g

        with self._lock:
            tables: list[dict[str, Any]] = [self.episodes, self.entity_rows, self.facts]
            for table in tables:
                for i, row in list(table.items()):
                    if row.group_id in (a, b):
                        table[i] = row.model_copy(update={"group_id": other(row.group_id)})
            self.mention_pairs = {(other(g), ep, en) for g, ep, en in self.mention_pairs}
            self.links = {(other(g), x, y): s for (g, x, y), s in self.links.items()}
            self.graves = [replace(t, group_id=other(t.group_id)) for t in self.graves]
            self.records = {(other(g), k, i): replace(r, group_id=other(g)) for (g, k, i), r in self.records.items()}

    def try_lock(self, group_id: str, name: str, owner: str, now: datetime, until: datetime,
                 steal_from: Sequence[str] = ()) -> str:
        with self._lock:
            held = self.locks.get((group_id, name))
            if held is None or held[0] == owner or held[1] <= now or held[0] in steal_from:
                self.locks[(group_id, name)] = (owner, until)
                return owner
            return held[0]

    def unlock(self, group_id: str, name: str, owner: str) -> None:
        with self._lock:
            if self.locks.get((group_id, name), ("",))[0] == owner:
                del self.locks[(group_id, name)]
