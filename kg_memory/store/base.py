"""The store interface. The pipeline and recall speak only this; the SQLite and
Neo4j adapters implement it. Every method takes the group it works on, and every
search is pre-filtered on group and time before it ranks.

What each method returns, in what order, with which tie-breaks and limits, is
stated once, by the reference store (``kg_memory/store/reference.py``), which is
written directly on the temporal core's rules. ``tests/contract/test_store_spec.py``
holds SQLite and Neo4j to it on generated histories."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self

import numpy as np

from ..core.erasure import ErasePlan, Tombstone
from ..core.models import Entity, Episode, FactVersion, JobRecord
from ..core.temporal import Expiry
from ..errors import StoreError

DEFAULT_DIM = 384  # the vector width when no embedder says otherwise: MiniLM's, the default embedder's

@dataclass
class WriteBatch:
    """Everything one extraction batch persists, written in one transaction."""

    # new episodes this write stores first (an add that extracts in the same transaction); one that
    # is stored already (by id, or the same turn) makes the write raise ``EpisodeStored`` and write nothing
    episodes: list[Episode] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    entity_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    episode_vectors: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)  # (group, episode_id)
    mentions: list[tuple[str, str, str]] = field(default_factory=list)  # (group, episode_id, entity_id)
    inserts: list[FactVersion] = field(default_factory=list)
    fact_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    expiries: list[tuple[str, Expiry]] = field(default_factory=list)  # (group, expiry)
    statuses: list[tuple[str, str, str, str | None]] = field(default_factory=list)  # (group, ep, status, why)
    links: list[tuple[str, str, str, float]] = field(default_factory=list)  # (group, fact_id, other fact_id, cos)
    # maintenance jobs: an entity's aliases and merged_into replaced (by id), mentions removed,
    # and job records written (an existing (group, kind, id) is replaced)
    entity_updates: list[Entity] = field(default_factory=list)
    unmentions: list[tuple[str, str, str]] = field(default_factory=list)  # (group, episode_id, entity_id)
    records: list[JobRecord] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.episodes or self.entities or self.inserts or self.expiries or self.statuses
                    or self.episode_vectors or self.mentions or self.links or self.entity_updates or self.unmentions
                    or self.records)


class WriteConflict(StoreError):
    """A write lost a race: a version it closes was closed by another writer, or an entity
    it creates was created by another writer. The caller re-reads and decides again."""



class EpisodeStored(StoreError):
    """A write's new episode was stored already (``WriteBatch.episodes``): nothing was written."""


def expired_already(version_id: str | None = None) -> WriteConflict:
    """What every store raises when a version a write would expire is no longer current (another
    writer expired it first): versions are expired once."""
    which = f"fact version {version_id}" if version_id else "a fact version to expire"
    return WriteConflict(f"{which} is not current; refusing to expire it twice")

@dataclass
class SearchHits:
    """The four candidate lists of one recall, each best first."""

    episode_vector: list[tuple[str, float]] = field(default_factory=list)
    episode_text: list[tuple[str, float]] = field(default_factory=list)
    fact_vector: list[tuple[FactVersion, float]] = field(default_factory=list)
    fact_text: list[tuple[FactVersion, float]] = field(default_factory=list)
    # Cosine of the query for text hits the vector search did not return, so
    # that every candidate is scored by both retrievers (id -> similarity).
    episode_similarity: dict[str, float] = field(default_factory=dict)
    fact_similarity: dict[str, float] = field(default_factory=dict)
    # The episodes hit, when the store read them along the way (id -> episode).
    episodes: dict[str, Episode] = field(default_factory=dict)


@dataclass(frozen=True)
class TimeFilter:
    """Recall's point in both times: valid at ``as_of``, believed at ``known_at``."""

    as_of: datetime
    known_at: datetime


class StoreCore(ABC):
    """The narrow port: writes, and reads at a time. Ingest and recall need no more; the
    capabilities below (erasure, maintenance, a held index) are ports of their own."""

    kind: str = "abstract"
    # Whether reads from several threads run in parallel (one connection that serialises
    # them, like SQLite's here, says no, so recall does not queue work behind itself).
    concurrent_reads: bool = False

    # -- lifecycle ---------------------------------------------------------
    @abstractmethod
    def migrate(self) -> list[str]:
        """Apply pending named migrations; return the names applied."""

    @abstractmethod
    def applied_migrations(self) -> list[str]: ...

    @abstractmethod
    def info(self) -> dict[str, Any]:
        """For ``kgmem doctor``: server/library version, schema version, indexes, counts."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- episodes ----------------------------------------------------------
    @abstractmethod
    def add_episodes(self, episodes: list[Episode]) -> tuple[list[Episode], int]:
        """Insert episodes, skipping ones already stored (same group, role, content
        hash and occurred_at). Commits. Returns (added, skipped)."""

    @abstractmethod
    def pending_episodes(self, group_id: str | None, limit: int) -> list[Episode]:
        """Episodes not yet extracted, by (occurred_at, id) (``group_id`` None: every group)."""

    @abstractmethod
    def claim_pending(self, group_id: str | None, limit: int, owner: str, now: datetime, lease_until: datetime,
                      steal_from: list[str] | None = None) -> list[Episode]:
        """Atomically claim up to ``limit`` pending episodes, by (occurred_at, id), that no
        live claim holds: unclaimed, or whose lease ended by ``now``, or claimed by
        ``owner`` itself or by an owner in ``steal_from`` (one known to be dead). While a
        lease holds, no other owner can claim the episode. A status write clears the claim."""

    @abstractmethod
    def claim_owners(self, group_id: str | None) -> list[str]:
        """The owners of claims on pending episodes, sorted."""

    @abstractmethod
    def release_claims(self, group_id: str | None, owner: str, episode_ids: list[str]) -> None:
        """Give up ``owner``'s claims on these episodes (they stay pending)."""

    @abstractmethod
    def requeue_failed(self, group_id: str | None) -> int:
        """Mark failed episodes pending again (``--retry-failed``); return how many."""

    @abstractmethod
    def get_episodes(self, group_id: str, ids: list[str]) -> list[Episode]: ...

    @abstractmethod
    def previous_turns(self, group_id: str, session_id: str | None, before: datetime, n: int) -> list[Episode]:
        """The ``n`` latest turns of the session before ``before``, returned oldest first,
        by (occurred_at, id). ``session_id`` None reads the group's session-less turns."""

    @abstractmethod
    def neighbours(self, group_id: str, episode_ids: list[str], tf: TimeFilter) -> dict[str, list[Episode]]:
        """The nearest visible turn before and after each episode in its session, by
        (occurred_at, id); episodes with no session, or no such turn, are left out."""

    # -- entities ----------------------------------------------------------
    @abstractmethod
    def find_entities(self, group_id: str, keys: list[str]) -> dict[str, Entity]:
        """Entities by normalised name key."""

    @abstractmethod
    def entities(self, group_id: str, ids: list[str] | None = None) -> list[Entity]:
        """The group's entities with these ids (every entity when None), by id."""

    @abstractmethod
    def mentions(self, group_id: str, episode_ids: list[str]) -> dict[str, list[str]]:
        """Entity ids each episode mentions, sorted (episodes with none are left out)."""

    # -- facts -------------------------------------------------------------
    @abstractmethod
    def current_facts(
        self, group_id: str, pairs: list[tuple[str, str]] | None = None, object_ids: list[str] | None = None
    ) -> list[FactVersion]:
        """Versions believed now (``expired_at`` NULL) for (subject_id, predicate)
        pairs, or whose object is one of ``object_ids``, by version id."""

    @abstractmethod
    def write(self, batch: WriteBatch) -> None:
        """Persist a batch in one transaction."""

    @abstractmethod
    def history(self, group_id: str, entity_id: str, predicate: str | None = None) -> list[FactVersion]:
        """Every version (expired too) with the entity as subject or object, by (created_at, id)."""

    @abstractmethod
    def fact_versions(self, group_id: str, ids: list[str]) -> list[FactVersion]:
        """Versions whose version id or fact id is one of ``ids``, by (created_at, id)."""

    @abstractmethod
    def list_facts(self, group_id: str, tf: TimeFilter | None, entity_id: str | None = None,
                   predicate: str | None = None, limit: int = 10_000) -> list[FactVersion]:
        """Versions ``temporal.visible`` at tf (every version, expired too, when tf is
        None), with the entity as subject or object and the predicate when given: the
        first ``limit`` by (created_at, id)."""

    @abstractmethod
    def related(self, group_id: str, fact_id: str, k: int) -> list[tuple[str, float]]:
        """The facts linked to ``fact_id`` (RELATED_TO, either direction): (other fact id,
        score), best score first, ties by id, at most ``k``."""

    @abstractmethod
    def facts_for_entities(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                           predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        """Versions ``temporal.visible`` at tf with any of the entities as subject or
        object (with ``both_ends``, as subject and object), only the given predicates
        when given: the ``limit`` with the latest valid_from (an open start orders as
        year 1), ties by version id."""

    @abstractmethod
    def ended_facts(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                    predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        """Versions with any of the entities as subject or object (with ``both_ends``,
        as both) that are ``temporal.ended`` at tf (believed at known_at, valid time
        closed by as_of), the latest end first, ties by version id; at most ``limit``."""

    @contextmanager
    def read_scope(self) -> Iterator[None]:
        """Group the reads of one recall. SQLite serves them from one snapshot (one
        read transaction). Neo4j does not promise that: its reads are each read-committed,
        so a write that commits between two searches of one recall can show in the
        later one only. Recall re-checks visibility, so such a row is still correct
        for (as_of, known_at); it can only be missing from an earlier list."""
        yield

    @abstractmethod
    def facts_citing(self, group_id: str, episode_ids: list[str], entity_ids: list[str]) -> list[FactVersion]:
        """Versions whose provenance names any of the episodes, or with any of the
        entities at either end, by (created_at, id)."""

    # -- search (pre-filtered on group and time, then ranked exactly) -------
    @abstractmethod
    def episode_text_search(self, group_id: str, query: str, k: int, tf: TimeFilter) -> list[tuple[str, float]]:
        """BM25 over episode text; (episode_id, score) best first."""

    @abstractmethod
    def episode_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                              ) -> list[tuple[str, float]]:
        """Cosine over episode vectors; (episode_id, similarity) best first."""

    @abstractmethod
    def fact_text_search(self, group_id: str, query: str, k: int, tf: TimeFilter
                         ) -> list[tuple[FactVersion, float]]: ...

    @abstractmethod
    def fact_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                           ) -> list[tuple[FactVersion, float]]: ...

    def search(self, group_id: str, query: str, vector: np.ndarray | None, k: int, tf: TimeFilter) -> SearchHits:
        """All four searches of a recall (episode and fact, vector and text), plus the cosine of
        every text hit the vector search did not return, and the episodes hit. The steps are
        here, once: the four single searches, the cosines (``cosines``), the episodes
        (``get_episodes``). A store may override the whole to run them together or at once;
        each list must then equal what the matching single search returns (the contract and
        spec tests hold it to that)."""
        hits = SearchHits()
        if query:
            hits.episode_text = self.episode_text_search(group_id, query, k, tf)
            hits.fact_text = self.fact_text_search(group_id, query, k, tf)
        if vector is not None:
            hits.episode_vector = self.episode_vector_search(group_id, vector, k, tf)
            hits.fact_vector = self.fact_vector_search(group_id, vector, k, tf)
            seen = {i for i, _ in hits.episode_vector}
            seen_facts = {f.id for f, _ in hits.fact_vector}
            hits.episode_similarity, hits.fact_similarity = self.cosines(
                group_id, vector, [i for i, _ in hits.episode_text if i not in seen],
                [f.id for f, _ in hits.fact_text if f.id not in seen_facts])
        hit_ids = list(dict.fromkeys(i for i, _ in (*hits.episode_vector, *hits.episode_text)))
        hits.episodes = {e.id: e for e in self.get_episodes(group_id, hit_ids)} if hit_ids else {}
        return hits

    def cosines(self, group_id: str, vector: np.ndarray, episode_ids: list[str], fact_ids: list[str]
                ) -> tuple[dict[str, float], dict[str, float]]:
        """The cosine with ``vector`` of each of these episodes and fact versions that has a
        vector: the step of ``search`` a store gives when it keeps the port's ``search``."""
        raise NotImplementedError(f"{type(self).__name__} overrides search(), so it gives no cosines on their own")

    @abstractmethod
    def counts(self, group_id: str | None = None) -> dict[str, int]: ...

    @abstractmethod
    def groups(self) -> list[tuple[str, dict[str, int]]]:
        """Every group holding anything, by group id, with its ``episodes``,
        ``entities`` and ``facts`` (versions) counts."""


class ErasureStore(ABC):
    """Erasure for good: what to remove is planned in ``core/erasure.py``; the store finds, removes
    and keeps the tombstones."""

    # -- erasure (kg_memory/core/erasure.py plans it) -------------------------------
    @abstractmethod
    def episodes_about(self, group_id: str, entity_ids: list[str], text: str | None) -> list[str]:
        """Ids (sorted) of the episodes that mention any of the entities, or whose content
        contains ``text`` ignoring case."""

    @abstractmethod
    def episode_hashes(self, group_id: str) -> list[str]:
        """The content sha256 of every episode of the group, sorted, without repeats."""

    @abstractmethod
    def erase(self, plan: ErasePlan, tombstone: Tombstone) -> Tombstone:
        """Carry out the plan in one transaction, physically (no copy of the content
        left in the store's files once it returns), and record the tombstone with the
        counts of what was removed; return it."""

    @abstractmethod
    def tombstones(self, group_id: str) -> list[Tombstone]:
        """The group's tombstones, by (erased_at, id)."""


class MaintenanceStore(ABC):
    """What the maintenance jobs read and write (``kg_memory/maintenance/``): entities and their
    degrees, pages of episodes, bodies, job records, the group swap and the jobs' locks."""

    @abstractmethod
    def entity_degrees(self, group_id: str) -> list[tuple[str, str, str, int]]:
        """(entity id, entity name, predicate, count) of the versions believed now
        (``expired_at`` open) with the entity at an end (a version with the entity at
        both ends counts twice), sorted."""

    @abstractmethod
    def entity_names(self, group_id: str, limit: int) -> list[str]:
        """Up to ``limit`` entity names of the group, in name order."""

    # -- maintenance jobs (kg_memory/maintenance/runner.py, resolve.py, archive.py and shadow.py plan them) ----
    @abstractmethod
    def entity_vectors(self, group_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        """The stored name vectors of these entities (entities without one are left out)."""

    @abstractmethod
    def list_episodes(self, group_id: str, limit: int, after: tuple[datetime, str] | None = None,
                      before: datetime | None = None, archived: bool | None = None) -> list[Episode]:
        """The first ``limit`` episodes of the group by (occurred_at, id) that come after
        ``after`` in that order, occurred before ``before`` when given, and are archived
        (or not) when ``archived`` is given."""

    @abstractmethod
    def set_bodies(self, group_id: str, bodies: Sequence[tuple[str, str, str | None]]) -> int:
        """Replace episodes' bodies in one transaction: (episode id, content, archive_ref).
        An archived body is empty and leaves the text index; a restored one comes back
        into it. The content hash, vector and everything else stay. Returns how many changed."""

    @abstractmethod
    def job_records(self, group_id: str, kind: str) -> list[JobRecord]:
        """The group's job records of this kind, by (at, id)."""

    @abstractmethod
    def swap_groups(self, a: str, b: str) -> None:
        """Exchange everything groups ``a`` and ``b`` hold (episodes, entities, versions,
        links, tombstones, job records) in one transaction: a reader sees one or the other."""

    @abstractmethod
    def try_lock(self, group_id: str, name: str, owner: str, now: datetime, until: datetime,
                 steal_from: Sequence[str] = ()) -> str:
        """Take the group's named lock until ``until`` if it is free, expired by ``now``, held by
        ``owner`` or by one of ``steal_from`` (owners known to be dead); atomically. Returns the
        holder after the attempt: ``owner`` when it was taken."""

    @abstractmethod
    def unlock(self, group_id: str, name: str, owner: str) -> None:
        """Free the group's named lock if ``owner`` holds it."""


class HeldIndex:
    """A store that keeps a group's search index in this process (SQLite's indexes, Neo4j's
    vectors) loads it on demand; ``preload`` loads it now."""

    def preload(self, group_id: str) -> None:
        """Bring the group's search index into this process now, where a store keeps one
        (SQLite: the group's vectors, times and text statistics; Neo4j: its episode
        and fact vectors), so the next search does not pay for the load. Answers never change."""
        return None  # a store without such an index has nothing to load


class Store(StoreCore, ErasureStore, MaintenanceStore, HeldIndex):
    """The whole port a store implements: the core, and every capability."""


def episode_pages(store: Store, group_id: str, size: int, after: tuple[datetime, str] | None = None,
                  before: datetime | None = None, archived: bool | None = None) -> Iterator[list[Episode]]:
    """The group's episodes through ``Store.list_episodes``, ``size`` at a time, in (occurred_at, id)
    order. The cursor is the last episode of a page, so a page may be changed (archived, say)
    before the next one is read."""
    while True:
        page = store.list_episodes(group_id, size, after=after, before=before, archived=archived)
        if not page:
            return
        after = (page[-1].occurred_at, page[-1].id)
        yield page
