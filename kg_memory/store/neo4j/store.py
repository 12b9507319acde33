"""The Neo4j store. Queries live in ``cypher/`` (see :mod:`kg_memory.store.neo4j.queries`);
this module only binds parameters and converts results. The bitemporal
decisions come from the same pure functions as on SQLite."""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np

from ...core.models import Entity, Episode, FactVersion, from_trusted
from ...core.timeutil import micros
from ...errors import SchemaError, StoreError
from ..base import DEFAULT_DIM, EpisodeStored, SearchHits, Store, TimeFilter, WriteBatch, WriteConflict, expired_already
from ..faults import guard
from ..url import StoreURL
from .held import HOLD_VECTORS_AFTER, GroupVectors, HeldGroups, HeldVectors, VectorLog
from .keys import (
    EPOCH,
    TIME_KEY_MAX,
    bump_logs,
    cosine,
    describe,
    f32_bytes,
    group_key,
    hits_of,
    interval_keys,
    lucene_query,
    row_cosine,
    time_key,
    to_dt,
    to_dt_required,
    to_list,
    transient,
)
from .planning import VECTOR_FETCH_FLOOR, LargeFrontier, SurvivalMemory, bounded, widen
from .queries import migration_names, query, script
from .upkeep import Neo4jUpkeep

log = logging.getLogger(__name__)

MIGRATE_ATTEMPTS = 8  # a concurrent migrator's schema changes commit within a few of these pauses
EXACT_SCAN_LIMIT = 2000  # up to this many visible rows: exact cosine after the pre-filter, else the index


@guard("Neo4j", transient, describe, attempts=2)  # the driver's managed transactions retry for 30 s first
class Neo4jStore(Neo4jUpkeep, Store):
    kind = "neo4j"
    concurrent_reads = True

    def __init__(self, url: StoreURL, dim: int = DEFAULT_DIM, max_groups: int = 64,
                 hold_vectors_after: int = HOLD_VECTORS_AFTER, background_loads: bool = True):
        """``hold_vectors_after``: the search of a group at which its episode and fact vectors
        start loading into this process (0: never; the server answers every search).
        ``background_loads``: load them on a thread while the server answers (else the
        search that starts the load waits for it)."""
        import neo4j

        self._local = threading.local()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._survival: dict[tuple[str, str], SurvivalMemory] = {}  # index hits that pass the filter
        # Each group's episode and fact vectors, held here and kept current through the group's vector
        # log (migrations 0015, 0016): the two vector searches were a third of a recall's server CPU
        # (docs/benchmarks.md, #11, rounds eleven and thirteen).
        self.held = HeldGroups(dim, max_groups, self._read_rows, self._vector_log, hold_vectors_after,
                               background_loads)
        self._large: dict[tuple[str, int], LargeFrontier] = {}  # (group, cap): where the exact scan is too big
        self.dim = dim
        self.exact_scan_limit = EXACT_SCAN_LIMIT
        self.database = url.database
        uri = f"{url.scheme}://{url.host}:{url.port}"
        self._display = f"{url.scheme}://{url.user}@{url.host}:{url.port}"
        if url.database:
            self._display += f"/{url.database}"
        try:
            self.driver = neo4j.GraphDatabase.driver(
                uri, auth=(url.user or "neo4j", url.password or ""), notifications_min_severity="OFF")
            self.driver.verify_connectivity()
        except neo4j.exceptions.AuthError:
            raise StoreError(f"Neo4j at {self._display} refused the credentials; check user and password") from None
        except (neo4j.exceptions.ServiceUnavailable, OSError) as exc:
            raise StoreError(f"Neo4j at {self._display} is not reachable ({exc}); is the server running? "
                             "(`make neo4j-up` starts one)") from None
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
            raise StoreError(f"Neo4j at {self._display} refused the connection: {describe(exc)}") from None

    # -- plumbing ----------------------------------------------------------
    def _session(self, read: bool = False):  # noqa: ANN202
        import neo4j

        kwargs: dict[str, Any] = {"database": self.database} if self.database else {}
        if read:
            kwargs["default_access_mode"] = neo4j.READ_ACCESS
        return self.driver.session(**kwargs)

    def _read(self, name: str, **params: Any) -> list[Any]:
        tx = self._local.__dict__.get("tx")
        if tx is not None:
            return list(tx.run(query(name), params))

        # One auto-commit query: a managed transaction costs a second round trip (its commit), 1.3 ms of
        # server and 0.7 ms of client CPU more (docs/benchmarks.md, #11, round nine). The guard retries reads.
        with self._session(read=True) as s:
            return list(s.run(query(name), params))

    def _collected(self, name: str, **params: Any) -> list[Any]:
        """The rows of a query that returns them as one list (``RETURN collect(...) AS rows``):
        one record instead of one per row halves the client's work on a long answer."""
        rows = self._read(name, **params)
        return list(rows[0]["rows"]) if rows else []

    @contextmanager
    def read_scope(self) -> Iterator[None]:
        """The reads of this thread share one read transaction (one round of set-up). Neo4j
        transactions are read-committed, not snapshots, and the searches that run on worker
        threads use their own sessions: see Store.read_scope for what that means."""
        if self._local.__dict__.get("tx") is not None:
            yield
            return
        with self._session(read=True) as s:
            tx = s.begin_transaction()
            self._local.tx = tx
            self._local.mentions = {}  # (group, episode id) -> entity ids, learnt by other reads in the scope
            try:
                yield
            finally:
                self._local.tx = None
                self._local.mentions = None
                tx.close()

    def close(self) -> None:
        self.held.close()  # (a load running in the background stops before the driver it reads through)
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
        self.driver.close()

    # -- lifecycle ---------------------------------------------------------
    def applied_migrations(self) -> list[str]:
        rows = self._read("schema_get")
        return list(rows[0]["migrations"] or []) if rows else []

    def migrate(self) -> list[str]:
        """Apply the migrations this server lacks. Two processes that start on a new server
        at once both migrate: the one whose schema change collides with the other's (an
        equivalent index, a deadlock) waits and starts again from what the other recorded
        (every migration is idempotent)."""
        import neo4j.exceptions

        applied: list[str] = []  # across attempts: what this process applied before a collision counts
        for attempt in range(1, MIGRATE_ATTEMPTS + 1):
            try:
                self._migrate_once(applied)
                return applied
            except (neo4j.exceptions.ClientError, neo4j.exceptions.TransientError) as exc:
                collided = "AlreadyExists" in (exc.code or "") or "DeadlockDetected" in (exc.code or "")
                if not collided or attempt == MIGRATE_ATTEMPTS:
                    raise
                time.sleep(0.2 * attempt)
        return applied  # not reached

    def _migrate_once(self, applied: list[str]) -> None:
        rows = self._read("schema_get")
        done = list(rows[0]["migrations"] or []) if rows else []
        if rows and rows[0]["embedding_dim"] is not None and int(rows[0]["embedding_dim"]) != self.dim:
            raise SchemaError(
                f"Neo4j store holds {rows[0]['embedding_dim']}-dimensional vectors but the embedder gives "
                f"{self.dim}; use the same embedder or another database"
            )
        unknown = set(done) - set(migration_names())
        if unknown:
            raise SchemaError(f"Neo4j schema has migrations {sorted(unknown)} unknown to this kgmem; upgrade kgmem")
        if set(migration_names()) - set(done):
            with self._session() as s:
                s.run(query("schema_bootstrap")).consume()
        for name in migration_names():
            if name in done:
                continue
            statements = script(name)

            def ddl(tx: Any, statements: list[str] = statements) -> None:
                for st in statements:
                    tx.run(st, {"dim": self.dim})

            with self._session() as s:
                # Schema commands cannot share a transaction with data writes: the
                # migration's DDL commits in one transaction, its record in the next.
                # A data migration over the whole store runs in batches (CALL ... IN
                # TRANSACTIONS), which only an auto-commit transaction may do.
                if any("IN TRANSACTIONS" in st for st in statements):
                    # The indexes the batches look up must be online first: one still
                    # populating turns every MERGE of the batch into a label scan.
                    s.run("CALL db.awaitIndexes(300)").consume()
                    for st in statements:
                        s.run(st, {"dim": self.dim}).consume()
                else:
                    s.execute_write(ddl)
                s.execute_write(
                    lambda tx, n=name: tx.run(query("schema_record"), {"name": n, "dim": self.dim}).consume())
            applied.append(name)
        if applied:
            with self._session() as s:
                s.run("CALL db.awaitIndexes(300)").consume()

    def info(self) -> dict[str, Any]:
        comp = self._read("server_components")
        idx = self._read("show_indexes")
        return {
            "kind": self.kind, "url": self._display,
            "server_version": comp[0]["version"] if comp else None,
            "edition": comp[0]["edition"] if comp else None,
            "schema_version": len(self.applied_migrations()), "migrations": self.applied_migrations(),
            "indexes": [f"{r['name']} ({r['type']}, {r['state']})" for r in idx],
            "counts": self.counts(),
        }

    # -- conversions ---------------------------------------------------------
    @staticmethod
    def _episode(n: Any) -> Episode:
        d = dict(n)
        return from_trusted(  # a row we wrote: skip re-validation
            Episode,
            id=d["id"], group_id=d["group_id"], role=d["role"], speaker=d.get("speaker"), content=d["content"],
            occurred_at=to_dt(d["occurred_at"]), created_at=to_dt(d["created_at"]), session_id=d.get("session_id"),
            source=d.get("source"), content_sha256=d["content_sha256"], metadata=json.loads(d.get("metadata") or "{}"),
            status=d.get("status", "pending"), status_reason=d.get("status_reason"),
            archive_ref=d.get("archive_ref"),
        )

    @staticmethod
    def _fact(rel: Any, subject_id: str, object_id: str) -> FactVersion:
        d = dict(rel)
        return from_trusted(  # a row we wrote: skip re-validation
            FactVersion,
            id=d["id"], fact_id=d["fact_id"], group_id=d["group_id"], subject_id=subject_id,
            subject=d["subject"], predicate=d["predicate"], object_id=object_id, object=d["object"],
            statement=d["statement"], valid_from=to_dt(d.get("valid_from")), valid_to=to_dt(d.get("valid_to")),
            created_at=to_dt(d["created_at"]), expired_at=to_dt(d.get("expired_at")), expired_by=d.get("expired_by"),
            episode_ids=tuple(d.get("episode_ids") or ()), extractor=d["extractor"],
            prompt_version=d.get("prompt_version"), confidence=d.get("confidence", 1.0),
            reinforcement_count=d.get("reinforcement_count", 1),
        )

    def _facts(self, rows: list[Any]) -> list[FactVersion]:
        return [self._fact(r["f"], r["subject_id"], r["object_id"]) for r in rows]

    # -- episodes ----------------------------------------------------------
    def add_episodes(self, episodes: list[Episode]) -> tuple[list[Episode], int]:
        rows = self._episode_rows(episodes)
        token = uuid.uuid4().hex
        created: set[str] = set()

        def work(tx: Any) -> None:
            created.clear()
            created.update(self._insert_episodes(tx, rows, token))

        with self._session() as s:
            s.execute_write(work)
        added = [e for e in episodes if e.id in created]
        return added, len(episodes) - len(added)

    @staticmethod
    def _episode_rows(episodes: list[Episode]) -> list[dict[str, Any]]:
        rows = []
        seen: set[str] = set()
        for e in episodes:
            if e.id in seen:
                continue
            seen.add(e.id)
            props = {
                "id": e.id, "group_id": e.group_id, "role": e.role, "speaker": e.speaker, "content": e.content,
                "index_text": e.index_text(), "group_key": group_key(e.group_id),
                "occurred_at": e.occurred_at, "created_at": e.created_at,
                "session_id": e.session_id, "source": e.source, "content_sha256": e.content_sha256,
                "metadata": json.dumps(e.metadata, ensure_ascii=False), "status": e.status,
                "status_reason": e.status_reason,
            }
            key = f"{e.group_id}\x1f{e.role}\x1f{e.content_sha256}\x1f{e.occurred_at.isoformat()}"
            rows.append({"dedupe_key": key, "props": {k: v for k, v in props.items() if v is not None}})
        return rows

    @staticmethod
    def _insert_episodes(tx: Any, rows: list[dict[str, Any]], token: str) -> set[str]:
        """Create the episodes not stored yet (by id, or the same turn); the ids created."""
        created: set[str] = set()
        for i in range(0, len(rows), 1000):
            for r in tx.run(query("episodes_add"), {"rows": rows[i : i + 1000], "token": token}):
                if r["created"]:
                    created.add(r["id"])
        return created

    def pending_episodes(self, group_id: str | None, limit: int) -> list[Episode]:
        return [self._episode(r["e"]) for r in self._read("episodes_pending", group_id=group_id, limit=limit)]

    def claim_pending(self, group_id: str | None, limit: int, owner: str, now: datetime, lease_until: datetime,
                      steal_from: list[str] | None = None) -> list[Episode]:
        params = {"group_id": group_id, "limit": max(limit, 0), "owner": owner, "now": now, "until": lease_until,
                  "steal": list(dict.fromkeys(steal_from or []))}
        with self._session() as s:
            rows = s.execute_write(lambda tx: list(tx.run(query("episodes_claim"), params)))
        return [self._episode(r["e"]) for r in rows]

    def claim_owners(self, group_id: str | None) -> list[str]:
        return [r["owner"] for r in self._read("episodes_claim_owners", group_id=group_id)]

    def release_claims(self, group_id: str | None, owner: str, episode_ids: list[str]) -> None:
        if not episode_ids:
            return
        with self._session() as s:
            s.execute_write(lambda tx: tx.run(query("episodes_release"), {"group_id": group_id, "owner": owner,
                                                                          "ids": list(episode_ids)}).consume())

    def requeue_failed(self, group_id: str | None) -> int:
        with self._session() as s:
            return int(s.execute_write(lambda tx: tx.run(query("episodes_requeue_failed"),
                                                         {"group_id": group_id}).single()["requeued"]))

    def get_episodes(self, group_id: str, ids: list[str]) -> list[Episode]:
        if not ids:
            return []
        rows = self._collected("episodes_get", group_id=group_id, ids=ids)
        found = {r["e"]["id"]: self._episode(r["e"]) for r in rows}
        return [found[i] for i in ids if i in found]

    def previous_turns(self, group_id: str, session_id: str | None, before: datetime, n: int) -> list[Episode]:
        if n <= 0:
            return []
        rows = self._read("episodes_previous", group_id=group_id, session_id=session_id, before=before, n=n)
        return [self._episode(r["e"]) for r in reversed(rows)]

    def neighbours(self, group_id: str, episode_ids: list[str], tf: TimeFilter) -> dict[str, list[Episode]]:
        out: dict[str, list[Episode]] = {}
        if not episode_ids:
            return out
        known = self._local.__dict__.get("mentions")
        for r in self._collected("episodes_neighbours", ids=episode_ids, group_id=group_id, as_of=tf.as_of,
                                 known_at=tf.known_at):
            out.setdefault(r["id"], []).append(self._episode(r["n"]))
            if known is not None:  # the next step of a recall asks what these episodes mention
                known[(group_id, r["id"])] = list(r["id_mentions"])
                known[(group_id, r["n"]["id"])] = list(r["n_mentions"])
        for v in out.values():
            v.sort(key=lambda e: (e.occurred_at, e.id))
        return out

    # -- entities ----------------------------------------------------------
    def find_entities(self, group_id: str, keys: list[str]) -> dict[str, Entity]:
        if not keys:
            return {}
        found = (self._entity(r["n"]) for r in self._read("entities_find", group_id=group_id,
                                                          keys=list(dict.fromkeys(keys))))
        return {n.key: n for n in found}

    @staticmethod
    def _entity(n: Any) -> Entity:
        d = dict(n)
        return Entity(id=d["id"], group_id=d["group_id"], name=d["name"], kind=d.get("kind", "entity"),
                      aliases=tuple(d.get("aliases") or ()), created_at=to_dt_required(d["created_at"]),
                      merged_into=d.get("merged_into"))

    def mentions(self, group_id: str, episode_ids: list[str]) -> dict[str, list[str]]:
        if not episode_ids:
            return {}
        known = self._local.__dict__.get("mentions") or {}
        out = {i: known[(group_id, i)] for i in episode_ids if known.get((group_id, i))}
        missing = [i for i in episode_ids if (group_id, i) not in known]
        if missing:
            out.update((r["episode_id"], list(r["entity_ids"]))
                       for r in self._collected("mentions_get", group_id=group_id, ids=missing))
        return {ep: sorted(ents) for ep, ents in out.items() if ents}

    # -- facts -------------------------------------------------------------
    def current_facts(self, group_id: str, pairs: list[tuple[str, str]] | None = None,
                      object_ids: list[str] | None = None) -> list[FactVersion]:
        out: dict[str, FactVersion] = {}
        if pairs:
            rows = self._collected("facts_current_pairs", group_id=group_id,
                                   pairs=[{"subject_id": s, "predicate": p} for s, p in pairs])
            out.update({f.id: f for f in self._facts(rows)})
        if object_ids:
            rows = self._collected("facts_current_objects", group_id=group_id, ids=object_ids)
            out.update({f.id: f for f in self._facts(rows)})
        return sorted(out.values(), key=lambda f: f.id)

    def write(self, batch: WriteBatch) -> None:
        import neo4j

        if batch.is_empty():
            return
        ents = [{"id": e.id, "group_id": e.group_id, "name": e.name, "key": e.key, "kind": e.kind,
                 "aliases": list(e.aliases), "created_at": e.created_at,
                 **({"embedding": to_list(batch.entity_vectors[e.id])} if e.id in batch.entity_vectors else {})}
                for e in batch.entities]
        ep_vecs: list[dict[str, Any]] = [{"id": eid, "group_id": g, "embedding": to_list(v), "blob": f32_bytes(v)}
                                         for (g, eid), v in batch.episode_vectors.items()]
        mentions = [{"group_id": g, "episode_id": ep, "entity_id": en} for g, ep, en in batch.mentions]
        facts: list[dict[str, Any]] = []
        for f in batch.inserts:
            props = {
                "id": f.id, "fact_id": f.fact_id, "group_id": f.group_id, "subject": f.subject,
                "predicate": f.predicate, "object": f.object, "statement": f.statement,
                "search_text": f"{f.statement} {f.subject} {f.predicate.replace('_', ' ')} {f.object}",
                "group_key": group_key(f.group_id),
                "vend": time_key(f.valid_to, TIME_KEY_MAX), "tend": time_key(f.expired_at, TIME_KEY_MAX),
                "valid_from": f.valid_from, "valid_to": f.valid_to, "created_at": f.created_at,
                "expired_at": f.expired_at, "expired_by": f.expired_by, "episode_ids": list(f.episode_ids),
                **interval_keys(f),
                "extractor": f.extractor, "prompt_version": f.prompt_version, "confidence": f.confidence,
                "reinforcement_count": f.reinforcement_count, "embedding": to_list(batch.fact_vectors.get(f.id)),
                "embedding_f32": f32_bytes(batch.fact_vectors[f.id]) if f.id in batch.fact_vectors else None,
            }
            facts.append({"subject_id": f.subject_id, "object_id": f.object_id,
                          "props": {k: v for k, v in props.items() if v is not None}})
        expiries: list[dict[str, Any]] = [
            {"group_id": g, "id": x.version_id, "expired_at": x.expired_at, "expired_by": x.expired_by,
             "tend": time_key(x.expired_at, TIME_KEY_MAX)} for g, x in batch.expiries]
        statuses = [{"group_id": g, "id": e, "status": s, "reason": why} for g, e, s, why in batch.statuses]
        links = [{"group_id": g, "fact_id": a, "other_id": b, "score": float(sc)} for g, a, b, sc in batch.links]
        updates = [{"group_id": n.group_id, "id": n.id, "aliases": list(n.aliases), "merged_into": n.merged_into}
                   for n in batch.entity_updates]
        unmentions = [{"group_id": g, "episode_id": ep, "entity_id": en} for g, ep, en in batch.unmentions]
        records = [{"group_id": r.group_id, "kind": r.kind, "id": r.id, "at": r.at,
                    "body": json.dumps(r.body, ensure_ascii=False)} for r in batch.records]
        # the groups whose held vectors this batch changes (the writing transaction moves their logs)
        vector_groups = [r["group_id"] for r in ep_vecs]
        fact_groups = [*(f.group_id for f in batch.inserts), *(g for g, _ in batch.expiries)]
        committed: dict[str, Any] = {}  # what the transaction wrote, for the vectors held here

        new_episodes = self._episode_rows(batch.episodes)

        def work(tx: Any) -> None:
            if new_episodes and len(self._insert_episodes(tx, new_episodes, uuid.uuid4().hex)) < len(new_episodes):
                raise EpisodeStored("an episode of this write is stored already")
            if ents:
                try:
                    tx.run(query("write_entities"), {"rows": ents}).consume()
                except neo4j.exceptions.ConstraintError:
                    raise WriteConflict("an entity of this batch was created by another writer") from None
            seqs = bump_logs(tx, [*vector_groups, *fact_groups], False, vector_groups, fact_groups) \
                if vector_groups or fact_groups else {}
            committed["seqs"], committed["episodes"] = seqs, []
            if ep_vecs:
                committed["episodes"] = list(tx.run(query("write_episode_vectors"), {"rows": [
                    {**r, "vseq": seqs[r["group_id"]]} for r in ep_vecs]}))
            if mentions:
                tx.run(query("write_mentions"), {"rows": mentions}).consume()
            if facts:
                written = tx.run(query("write_facts"), {"rows": [
                    {**r, "props": {**r["props"], "vseq": seqs[r["props"]["group_id"]]}} for r in facts]}
                                 ).single()["written"]
                if written != len(facts):
                    raise StoreError(f"wrote {written} of {len(facts)} fact versions; entities missing")
            if expiries:
                n = tx.run(query("write_expiries"), {"rows": [
                    {**r, "vseq": seqs[r["group_id"]]} for r in expiries]}).single()["expired"]
                if n != len(expiries):
                    raise expired_already()
            if links:
                tx.run(query("write_links"), {"rows": links}).consume()
            if statuses:
                tx.run(query("write_statuses"), {"rows": statuses}).consume()
            if updates:
                tx.run(query("write_entity_updates"), {"rows": updates}).consume()
            if unmentions:
                tx.run(query("write_unmentions"), {"rows": unmentions}).consume()
            if records:
                tx.run(query("write_records"), {"rows": records}).consume()

        with self._session() as s:
            s.execute_write(work)  # retried by the driver on transient errors
        self._write_through(batch, committed["seqs"], committed["episodes"], {r["id"]: r["blob"] for r in ep_vecs})

    def _write_through(self, batch: WriteBatch, seqs: dict[str, int], episodes: list[Any],
                       blobs: dict[str, bytes]) -> None:
        """Bring the vectors this process holds for the written groups up to the write just
        committed, from what it wrote (and the episode times the write returned), so the next
        search reads nothing more. ``GroupVectors.write_through`` declines when another writer
        came between; the log then says what to read."""
        for g, seq in seqs.items():
            ep_rows = [(r["id"], r["occurred"], r["created"], blobs[r["id"]]) for r in episodes if r["group_id"] == g]
            fact_rows = [(f.id, *(None if t is None else micros(t) for t in (f.valid_from, f.valid_to)),
                          micros(f.created_at), None if f.expired_at is None else micros(f.expired_at),
                          f32_bytes(batch.fact_vectors[f.id]))
                         for f in batch.inserts if f.group_id == g and f.id in batch.fact_vectors]
            ends = [(x.version_id, micros(x.expired_at)) for gx, x in batch.expiries if gx == g]
            self.held.write_through(g, seq, ep_rows, fact_rows, ends)

    def history(self, group_id: str, entity_id: str, predicate: str | None = None) -> list[FactVersion]:
        return self._facts(self._read("facts_history", group_id=group_id, entity_id=entity_id,
                                      predicate=predicate))

    def related(self, group_id: str, fact_id: str, k: int) -> list[tuple[str, float]]:
        rows = self._read("facts_related", group_id=group_id, fact_id=fact_id, k=max(k, 0))
        return [(r["other"], float(r["score"])) for r in rows]

    def fact_versions(self, group_id: str, ids: list[str]) -> list[FactVersion]:
        if not ids:
            return []
        return self._facts(self._collected("facts_get", group_id=group_id, ids=list(dict.fromkeys(ids))))

    def list_facts(self, group_id: str, tf: TimeFilter | None, entity_id: str | None = None,
                   predicate: str | None = None, limit: int = 10_000) -> list[FactVersion]:
        at = tf or TimeFilter(as_of=EPOCH, known_at=EPOCH)
        return self._facts(self._read("facts_list", group_id=group_id, all_versions=tf is None,
                                      as_of=at.as_of, known_at=at.known_at, entity_id=entity_id,
                                      predicate=predicate, limit=max(limit, 0)))

    def facts_for_entities(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                           predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        if not entity_ids:
            return []
        return self._facts(self._collected("facts_for_entities", group_id=group_id, ids=list(dict.fromkeys(entity_ids)),
                                           as_of=tf.as_of, known_at=tf.known_at, limit=limit,
                                           predicates=predicates, both=both_ends))

    def ended_facts(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                    predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        if not entity_ids or limit <= 0:
            return []
        return self._facts(self._collected("facts_ended", group_id=group_id, ids=list(dict.fromkeys(entity_ids)),
                                           as_of=tf.as_of, known_at=tf.known_at, limit=limit,
                                           predicates=predicates, both=both_ends))

    # -- search --------------------------------------------------------------
    def _widening(self, name: str, k: int, base: dict[str, Any], floor: int = 0) -> list[dict[str, Any]]:
        """Run an index query whose filter applies to its ``fetch`` best hits,
        widening ``fetch`` until k rows survive or the index has no more hits.
        The first ``fetch`` comes from the share of hits that survived for this
        group at the nearest as-of time seen before (2k when there is none), so a
        group that owns most of the index is not over-fetched, one that owns
        little does not widen step by step, and a question about an early date
        does not make the next question about now fetch thousands of hits."""
        memory = bounded(self._survival, (name, base["group_id"]), SurvivalMemory)

        def run(fetch: int) -> tuple[list[dict[str, Any]], int, int]:
            row = self._read(name, k=k, fetch=fetch, **base)[0]
            return list(row["rows"]), row["raw"], row["kept"]

        return widen(run, k, memory, base["as_of"].timestamp() / 86400.0, floor)

    def _vector_widening(self, name: str, k: int, base: dict[str, Any]) -> list[dict[str, Any]]:
        """``_widening`` for a vector index, which cannot filter by group: the first
        request asks for at least ``VECTOR_FETCH_FLOOR`` x k hits (planning)."""
        return self._widening(name, k, base, VECTOR_FETCH_FLOOR * k)

    def _exact(self, name: str, **params: Any) -> dict[str, Any]:
        """An exact scan's answer: ``n`` visible rows counted (up to cap + 1) and the k best,
        which it returns only when n is at most the cap. (k = 0 returns no record at all.)"""
        rows = self._read(name, **params)
        return {"n": rows[0]["n"], "rows": rows[0]["rows"]} if rows else {"n": 0, "rows": []}

    def episode_text_search(self, group_id: str, query_text: str, k: int, tf: TimeFilter) -> list[tuple[str, float]]:
        return [(e.id, s) for e, s, _ in self._episode_text(group_id, query_text, k, tf, None)]

    def _episode_text(self, group_id: str, query_text: str, k: int, tf: TimeFilter, vector: np.ndarray | None
                      ) -> list[tuple[Episode, float, float | None]]:
        """BM25 hits as (episode, score, cosine with ``vector``, when given)."""
        q = lucene_query(group_id, "index_text", query_text)
        if q is None:
            return []
        rows = self._widening("episode_fulltext", k, {"query": q, "group_id": group_id, "as_of": tf.as_of,
                                                      "known_at": tf.known_at, "vector": to_list(vector)})
        return [(self._episode(r["e"]), float(r["score"]), row_cosine(r)) for r in rows]

    def fact_text_search(self, group_id: str, query_text: str, k: int, tf: TimeFilter
                         ) -> list[tuple[FactVersion, float]]:
        return [(f, s) for f, s, _ in self._fact_text(group_id, query_text, k, tf, None)]

    def _fact_text(self, group_id: str, query_text: str, k: int, tf: TimeFilter, vector: np.ndarray | None
                   ) -> list[tuple[FactVersion, float, float | None]]:
        # Time keys drop the versions that cannot be visible at tf inside Lucene, so
        # history does not crowd the hits and widening is rare.
        q = lucene_query(group_id, "search_text", query_text, tf)
        if q is None:
            return []
        rows = self._widening("fact_fulltext", k, {"query": q, "group_id": group_id, "as_of": tf.as_of,
                                                   "known_at": tf.known_at, "vector": to_list(vector)})
        return [(self._fact(r["f"], r["subject_id"], r["object_id"]), float(r["score"]), row_cosine(r))
                for r in rows]

    def episode_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                              ) -> list[tuple[str, float]]:
        held = self.held.current(group_id)
        if held is not None:
            return self._search_held(held.episodes, vector, k, tf)
        return [(e.id, s) for e, s in self._episode_vector(group_id, vector, k, tf)]

    def _episode_vector(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                        ) -> list[tuple[Episode, float]]:
        """The server's answer: an exact scan after the group and time filter when few
        episodes pass it, else the vector index, widened until k pass."""
        params = {"group_id": group_id, "as_of": tf.as_of, "known_at": tf.known_at, "vector": to_list(vector)}
        cap = self.exact_scan_limit
        large = bounded(self._large, (group_id, cap), LargeFrontier)
        if large.covers(tf.as_of, tf.known_at):
            # known to be too many: skip the count
            rows = self._vector_widening("episode_vector_index", k, params)
        else:
            exact = self._exact("episode_vector_exact", cap=cap, k=k, **params)
            if exact["n"] > cap:
                large.add(tf.as_of, tf.known_at)
                rows = self._vector_widening("episode_vector_index", k, params)
            else:
                rows = exact["rows"]
        return [(self._episode(r["e"]), cosine(r["score"])) for r in rows]

    # -- the vectors held in this process -----------------------------------------------------
    def preload(self, group_id: str) -> None:
        """Read the group's episode and fact vectors into this process now, so its searches run
        here from the next one on (a server that knows its tenants, a benchmark's warm-up)."""
        self.held.preload(group_id)

    def _vector_log(self, group_id: str) -> VectorLog:
        r = self._read("vector_log_get", group_id=group_id)[0]
        return VectorLog(int(r["seq"]), int(r["reset"]), int(r["episodes"]), int(r["facts"]))

    def _read_rows(self, name: str, **params: Any) -> list[tuple[Any, ...]]:
        """A vector query's records as plain tuples (id, its time columns, the vector)."""
        return [tuple(r.values()) for r in self._read(name, **params)]

    def _search_held(self, held: HeldVectors, vector: np.ndarray, k: int, tf: TimeFilter
                     ) -> list[tuple[str, float]]:
        return self.held.search(held, vector, k, tf.as_of, tf.known_at)

    def fact_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                           ) -> list[tuple[FactVersion, float]]:
        held = self.held.current(group_id)
        if held is not None:
            return self._held_facts(group_id, self._search_held(held.facts, vector, k, tf))
        return self._fact_vector(group_id, vector, k, tf)

    def _fact_vector(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                     ) -> list[tuple[FactVersion, float]]:
        """The server's answer, as ``_episode_vector``."""
        params = {"group_id": group_id, "as_of": tf.as_of, "known_at": tf.known_at, "vector": to_list(vector)}
        exact = self._exact("fact_vector_exact", cap=self.exact_scan_limit, k=k, **params)
        rows = (self._vector_widening("fact_vector_index", k, params) if exact["n"] > self.exact_scan_limit
                else exact["rows"])
        return [(self._fact(r["f"], r["subject_id"], r["object_id"]), cosine(r["score"])) for r in rows]

    def _held_facts(self, group_id: str, found: list[tuple[str, float]]) -> list[tuple[FactVersion, float]]:
        """Held fact hits with their versions read from the server (one erased since the
        index caught up is left out)."""
        if not found:
            return []
        rows = self._collected("fact_versions_by_id", group_id=group_id, ids=[i for i, _ in found])
        versions = {f.id: f for f in self._facts(rows)}
        return [(versions[i], s) for i, s in found if i in versions]

    def _held_episodes(self, group_id: str, found: list[tuple[str, float]]) -> list[tuple[Episode, float]]:
        """Held episode hits with their episodes read from the server (as ``_held_facts``)."""
        eps = {e.id: e for e in self.get_episodes(group_id, [i for i, _ in found])} if found else {}
        return [(eps[i], s) for i, s in found if i in eps]

    def search(self, group_id: str, query_text: str, vector: np.ndarray | None, k: int, tf: TimeFilter
               ) -> SearchHits:
        """The four searches of a recall. Those the server answers run at once on
        separate sessions (each is a round trip, and the server works on them in
        parallel; Neo4j reads are read-committed, so one transaction would not give a
        snapshot either). The vector searches run here when this process holds the
        group's vectors (``HeldGroups.current``), which then also give the text hits their
        cosines; else the server scores them."""
        if vector is None or not self.held.enabled:
            return self._server_search(group_id, query_text, vector, k, tf)
        # most likely current when held: the text searches start while the log is read
        text = self._text_searches(group_id, query_text, k, tf, None) if self.held.peek(group_id) is not None else None
        held = self.held.current(group_id)
        if held is None:  # not held, or stale (an erasure or a swap): the server answers, with cosines
            return self._server_search(group_id, query_text, vector, k, tf)
        text = text or self._text_searches(group_id, query_text, k, tf, None)  # just loaded (no background)
        return self._held_search(held, group_id, vector, k, tf, text)

    def _text_searches(self, group_id: str, query_text: str, k: int, tf: TimeFilter, vector: np.ndarray | None
                       ) -> tuple[Future[Any], Future[Any]]:
        """The episode and fact BM25 searches, started on the workers (the server scores the
        hits' cosines with ``vector`` when given)."""
        pool = self._workers()
        return (pool.submit(self._episode_text, group_id, query_text, k, tf, vector),
                pool.submit(self._fact_text, group_id, query_text, k, tf, vector))

    def _held_search(self, held: GroupVectors, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter,
                     text: tuple[Future[Any], Future[Any]]) -> SearchHits:
        """``search`` with the vector hits from the held vectors (their episodes and versions
        read from the server meanwhile), and the text hits' cosines from them too."""
        fv = self._workers().submit(self._held_facts, group_id, self._search_held(held.facts, vector, k, tf))
        vec_rows = self._held_episodes(group_id, self._search_held(held.episodes, vector, k, tf))
        text_rows, fact_rows = text[0].result(), text[1].result()
        hits = hits_of(vec_rows, text_rows, fact_rows, fv.result())
        seen = {i for i, _ in hits.episode_vector}
        seen_facts = {f.id for f, _ in hits.fact_vector}
        hits.episode_similarity = self.held.similarity(
            held.episodes, vector, [e.id for e, _, _ in text_rows if e.id not in seen])
        hits.fact_similarity = self.held.similarity(
            held.facts, vector, [f.id for f, _, _ in fact_rows if f.id not in seen_facts])
        return hits

    def _server_search(self, group_id: str, query_text: str, vector: np.ndarray | None, k: int, tf: TimeFilter
                       ) -> SearchHits:
        """``search`` as the server answers it, text hits with their cosines."""
        et, ft = self._text_searches(group_id, query_text, k, tf, vector)
        fv = self._workers().submit(self._fact_vector, group_id, vector, k, tf) if vector is not None else None
        vec_rows = self._episode_vector(group_id, vector, k, tf) if vector is not None else []
        text_rows, fact_rows = et.result(), ft.result()
        hits = hits_of(vec_rows, text_rows, fact_rows, fv.result() if fv else [])
        seen = {i for i, _ in hits.episode_vector}
        hits.episode_similarity = {e.id: c for e, _, c in text_rows if c is not None and e.id not in seen}
        seen = {f.id for f, _ in hits.fact_vector}
        hits.fact_similarity = {f.id: c for f, _, c in fact_rows if c is not None and f.id not in seen}
        return hits

    def _workers(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="kgmem-neo4j")
            return self._pool

    def counts(self, group_id: str | None = None) -> dict[str, int]:
        r = self._read("counts_all")[0] if group_id is None else self._read("counts", group_id=group_id)[0]
        return {"episodes": r["episodes"], "entities": r["entities"], "facts": r["facts"],
                "facts_current": r["current"], "episodes_pending": r["pending"], "episodes_failed": r["failed"]}

    def groups(self) -> list[tuple[str, dict[str, int]]]:
        return [(r["group_id"], {"episodes": r["episodes"], "entities": r["entities"], "facts": r["facts"]})
                for r in self._read("groups_list")]

    def entity_degrees(self, group_id: str) -> list[tuple[str, str, str, int]]:
        rows = self._read("entities_degrees", group_id=group_id)
        return [(r["id"], r["name"], r["predicate"], int(r["n"])) for r in rows]

    def entity_names(self, group_id: str, limit: int) -> list[str]:
        return [r["name"] for r in self._read("entities_names", group_id=group_id, limit=limit)]
