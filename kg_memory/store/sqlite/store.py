"""The embedded store: one SQLite file in WAL mode, FTS5 for BM25, and exact
numpy vector search over float32 blobs (see docs/benchmarks.md for why not sqlite-vec)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import numpy as np

from ...core.models import Entity, Episode, FactVersion, from_trusted
from ...core.temporal import EPISODE_VISIBLE, FACT_ENDED, FACT_VISIBLE, Bound
from ...core.text import query_terms
from ...core.timeutil import from_iso, micros, to_iso
from ...errors import SchemaError, StoreError
from ..base import (
    DEFAULT_DIM,
    EpisodeStored,
    SearchHits,
    Store,
    TimeFilter,
    WriteBatch,
    WriteConflict,
    expired_already,
)
from ..faults import guard
from ..index.cache import GroupCache
from ..index.vectors import POS_INF_TIME, VectorIndex, bm25_at
from ..timefilter import numpy_mask, sql_filter
from .held import SQLiteHeld
from .migrations import MIGRATIONS
from .rows import ENT_COLS, EP_COLS, FACT_COLS, among, blob, chunks, required_time
from .upkeep import SQLiteUpkeep

FIRST_INSTANT = micros(datetime.min.replace(tzinfo=UTC))  # an open start orders as 0001-01-01 (the reference's rule)


def _transient(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and any(
        w in str(exc).lower() for w in ("locked", "busy", "disk i/o"))


# Change-log rows kept (tens of MB): far more than any index falls behind between two of its reads;
# one that does reloads its group.
CHANGES_KEPT = 1_000_000


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@guard("SQLite", _transient, _describe)
class SQLiteStore(SQLiteUpkeep, SQLiteHeld, Store):
    kind = "sqlite"

    def __init__(self, path: Path, dim: int = DEFAULT_DIM, max_groups: int = 64, changes_kept: int = CHANGES_KEPT):
        self.path = Path(path)
        self.dim = dim
        self.changes_kept = changes_kept
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                        timeout=30.0)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open SQLite store at {self.path}: {exc}") from None
        self.conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.execute("PRAGMA busy_timeout=30000")
        self.conn.execute("PRAGMA temp_store=MEMORY")
        self._writes = 0
        self._entity_codes: dict[str, int] = {}
        self._predicate_codes: dict[str, int] = {}
        # each group's episode and fact index, for the groups used most recently
        self._indexes: GroupCache[tuple[VectorIndex, VectorIndex]] = GroupCache(max_groups)
        self._fillers: list[threading.Thread] = []  # the held indexes' work on threads (held.py)
        self._unfilled: list[VectorIndex] = []
        self._unsnapped: list[tuple[str, VectorIndex]] = []
        self._closing = False  # close() has begun: threads reading vectors stop

    # -- lifecycle ---------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")
                self._writes += 1

    def _prune_changes(self) -> None:
        """Keep the change log to its last ``changes_kept`` rows, in steps of a tenth of that,
        and record how far it was cut: an index that last read the log before the cut
        reloads its group (``_changed_rows``)."""
        top = self.conn.execute("SELECT MAX(seq) FROM changes").fetchone()[0] or 0
        cut = top - self.changes_kept
        if cut <= 0 or cut < self._pruned_upto() + max(1, self.changes_kept // 10):
            return
        self.conn.execute("DELETE FROM changes WHERE seq <= ?", (cut,))
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('changes_pruned_upto', ?)", (str(cut),))

    def _pruned_upto(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'changes_pruned_upto'").fetchone()
        return int(row[0]) if row else 0

    def migrate(self) -> list[str]:
        with self._lock:
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS _kgmem_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            done = set(self.applied_migrations())
            known = {name for name, _ in MIGRATIONS}
            unknown = done - known
            if unknown:
                raise SchemaError(
                    f"{self.path}: applied migrations {sorted(unknown)} are newer than this kgmem; upgrade kgmem"
                )
            applied = []
            for name, statements in MIGRATIONS:
                if name in done:
                    continue
                with self._tx() as c:
                    for sql in statements:
                        c.execute(sql)
                    c.execute("INSERT INTO _kgmem_migrations (name, applied_at) VALUES (?, datetime('now'))",
                              (name,))
                applied.append(name)
            with self._tx() as c:
                row = c.execute("SELECT value FROM meta WHERE key='embedding_dim'").fetchone()
                if row is None:
                    c.execute("INSERT INTO meta (key, value) VALUES ('embedding_dim', ?)", (str(self.dim),))
                elif int(row[0]) != self.dim:
                    raise SchemaError(
                        f"{self.path}: store holds {row[0]}-dimensional vectors but the embedder gives {self.dim}; "
                        "use the same embedder or a new store"
                    )
            return applied

    def applied_migrations(self) -> list[str]:
        try:
            rows = self.conn.execute("SELECT name FROM _kgmem_migrations ORDER BY name").fetchall()
        except sqlite3.OperationalError:
            return []
        return [r[0] for r in rows]

    def info(self) -> dict[str, Any]:
        tables = [r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table','index') AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        return {
            "kind": self.kind, "path": str(self.path), "sqlite_version": sqlite3.sqlite_version,
            "journal_mode": self.conn.execute("PRAGMA journal_mode").fetchone()[0],
            "schema_version": len(self.applied_migrations()), "migrations": self.applied_migrations(),
            "objects": tables, "counts": self.counts(),
        }

    def close(self) -> None:
        """Close the connection once the threads' work is over: a snapshot being written is
        finished (the next process restores it), vectors being read are given up."""
        self._closing = True
        self.settle()
        with self._lock:
            self.conn.close()

    # -- rows ----------------------------------------------------------------
    @staticmethod
    def _episode(r: sqlite3.Row) -> Episode:
        return from_trusted(  # a row we wrote: skip re-validation
            Episode,
            id=r["id"], group_id=r["group_id"], role=r["role"], speaker=r["speaker"], content=r["content"],
            occurred_at=from_iso(r["occurred_at"]), created_at=from_iso(r["created_at"]),
            session_id=r["session_id"], source=r["source"], content_sha256=r["content_sha256"],
            metadata=json.loads(r["metadata"]), status=r["status"], status_reason=r["status_reason"],
            archive_ref=r["archive_ref"],
        )

    @staticmethod
    def _fact(r: sqlite3.Row) -> FactVersion:
        return from_trusted(  # a row we wrote: skip re-validation
            FactVersion,
            id=r["id"], fact_id=r["fact_id"], group_id=r["group_id"], subject_id=r["subject_id"],
            subject=r["subject"], predicate=r["predicate"], object_id=r["object_id"], object=r["object"],
            statement=r["statement"], valid_from=from_iso(r["valid_from"]), valid_to=from_iso(r["valid_to"]),
            created_at=from_iso(r["created_at"]), expired_at=from_iso(r["expired_at"]),
            expired_by=r["expired_by"], episode_ids=tuple(json.loads(r["episode_ids"])),
            extractor=r["extractor"], prompt_version=r["prompt_version"], confidence=r["confidence"],
            reinforcement_count=r["reinforcement_count"],
        )

    # -- episodes ----------------------------------------------------------
    def add_episodes(self, episodes: list[Episode]) -> tuple[list[Episode], int]:
        with self._tx() as c:
            added = self._insert_episodes(c, episodes)
        return added, len(episodes) - len(added)

    @staticmethod
    def _insert_episodes(c: sqlite3.Connection, episodes: list[Episode]) -> list[Episode]:
        """Insert the episodes not stored yet (by id, or the same turn), with their text indexed."""
        added: list[Episode] = []
        for e in episodes:
            cur = c.execute(
                f"INSERT OR IGNORE INTO episodes ({EP_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (e.id, e.group_id, e.role, e.speaker, e.content, to_iso(e.occurred_at), to_iso(e.created_at),
                 e.session_id, e.source, e.content_sha256, json.dumps(e.metadata, ensure_ascii=False),
                 e.status, e.status_reason, e.archive_ref),
            )
            if cur.rowcount:
                c.execute("INSERT INTO episodes_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, e.index_text()))
                added.append(e)
        return added

    def pending_episodes(self, group_id: str | None, limit: int) -> list[Episode]:
        sql = (f"SELECT {EP_COLS} FROM episodes WHERE status = 'pending'"
               + (" AND group_id = ?" if group_id is not None else "")
               + " ORDER BY occurred_at, id LIMIT ?")
        args: tuple[Any, ...] = ((group_id,) if group_id is not None else ()) + (limit,)
        with self._lock:
            return [self._episode(r) for r in self.conn.execute(sql, args)]

    def claim_pending(self, group_id: str | None, limit: int, owner: str, now: datetime, lease_until: datetime,
                      steal_from: list[str] | None = None) -> list[Episode]:
        steal = list(dict.fromkeys(steal_from or []))
        marks = ",".join("?" * len(steal)) or "NULL"
        scope = " AND group_id = ?" if group_id is not None else ""
        sql = (f"UPDATE episodes SET claimed_by = ?, claimed_until = ? WHERE rowid IN ("
               f"SELECT rowid FROM episodes WHERE status = 'pending'{scope} AND (claimed_by IS NULL "
               f"OR claimed_until <= ? OR claimed_by = ? OR claimed_by IN ({marks})) "
               f"ORDER BY occurred_at, id LIMIT ?) RETURNING {EP_COLS}")
        args = (owner, to_iso(lease_until), *((group_id,) if group_id is not None else ()), to_iso(now), owner,
                *steal, max(limit, 0))
        with self._tx() as c:  # BEGIN IMMEDIATE: one claimer at a time
            rows = c.execute(sql, args).fetchall()
        return sorted((self._episode(r) for r in rows), key=lambda e: (e.occurred_at, e.id))

    def claim_owners(self, group_id: str | None) -> list[str]:
        scope = " AND group_id = ?" if group_id is not None else ""
        with self._lock:
            return [r[0] for r in self.conn.execute(
                f"SELECT DISTINCT claimed_by FROM episodes WHERE status = 'pending' AND claimed_by IS NOT NULL{scope} "
                "ORDER BY 1", (group_id,) if group_id is not None else ())]

    def release_claims(self, group_id: str | None, owner: str, episode_ids: list[str]) -> None:
        with self._tx() as c:
            for part in chunks(list(episode_ids), 400):
                marks = ",".join("?" * len(part))
                scope = " AND group_id = ?" if group_id is not None else ""
                c.execute(f"UPDATE episodes SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ? "
                          f"AND id IN ({marks}){scope}", (owner, *part, *((group_id,) if group_id else ())))

    def requeue_failed(self, group_id: str | None) -> int:
        with self._tx() as c:
            if group_id is None:
                cur = c.execute("UPDATE episodes SET status = 'pending', status_reason = NULL WHERE status = 'failed'")
            else:
                cur = c.execute("UPDATE episodes SET status = 'pending', status_reason = NULL "
                                "WHERE status = 'failed' AND group_id = ?", (group_id,))
            return cur.rowcount

    def get_episodes(self, group_id: str, ids: list[str]) -> list[Episode]:
        if not ids:
            return []
        out: dict[str, Episode] = {}
        with self._lock:
            for chunk in chunks(ids, 500):
                marks = ",".join("?" * len(chunk))
                # "+group_id" keeps the planner on the unique id index; the group still filters.
                for r in self.conn.execute(
                    f"SELECT {EP_COLS} FROM episodes WHERE id IN ({marks}) AND +group_id = ?", (*chunk, group_id)
                ):
                    out[r["id"]] = self._episode(r)
        return [out[i] for i in ids if i in out]

    def previous_turns(self, group_id: str, session_id: str | None, before: datetime, n: int) -> list[Episode]:
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {EP_COLS} FROM episodes WHERE group_id = ? AND session_id IS ? AND occurred_at < ? "
                "ORDER BY occurred_at DESC, id DESC LIMIT ?", (group_id, session_id, to_iso(before), n),
            ).fetchall()
        return [self._episode(r) for r in reversed(rows)]

    def neighbours(self, group_id: str, episode_ids: list[str], tf: TimeFilter) -> dict[str, list[Episode]]:
        """One query for all the episodes: the rowids of each one's turn before and
        after in its session (turns at the same instant ordered by id, as on Neo4j,
        which has no rowid), then the rows, through the group's row cache when this
        process holds its index (recall), else read directly."""
        if not episode_ids:
            return {}
        seen, points = sql_filter(EPISODE_VISIBLE, "n")
        at = [to_iso(tf.as_of if p == "as_of" else tf.known_at) for p in points]
        side = ("(SELECT n.rowid FROM episodes n WHERE n.group_id = s.group_id AND n.session_id = s.session_id "
                "AND (n.occurred_at {op} s.occurred_at OR (n.occurred_at = s.occurred_at AND n.id {op} s.id)) "
                "AND {seen} ORDER BY n.occurred_at {order}, n.id {order} LIMIT 1)")
        before, after = (side.format(op=op, order=order, seen=seen) for op, order in (("<", "DESC"), (">", "ASC")))
        ids = list(dict.fromkeys(episode_ids))
        with self._lock:
            idx = self._held_index(group_id, "e")
            pairs: list[tuple[str, list[int]]] = []
            for chunk in chunks(ids, 400):
                sql = (f"SELECT s.id, {before} AS before, {after} AS after FROM episodes s "
                       f"WHERE s.id IN ({','.join('?' * len(chunk))}) AND +s.group_id = ? "
                       "AND s.session_id IS NOT NULL")
                pairs.extend((r[0], [x for x in (r[1], r[2]) if x is not None])
                             for r in self.conn.execute(sql, (*at, *at, *chunk, group_id)))
            rows = self._episodes_by_rowid(idx, [x for _, xs in pairs for x in xs])
        order = {eid: i for i, eid in enumerate(ids)}
        return {eid: [rows[x] for x in xs] for eid, xs in sorted(pairs, key=lambda p: order[p[0]]) if xs}

    # -- entities ----------------------------------------------------------
    def find_entities(self, group_id: str, keys: list[str]) -> dict[str, Entity]:
        out: dict[str, Entity] = {}
        with self._lock:
            for chunk in chunks(list(dict.fromkeys(keys)), 500):
                marks = ",".join("?" * len(chunk))
                for r in self.conn.execute(
                    f"SELECT {ENT_COLS} FROM entities WHERE group_id = ? AND key IN ({marks})", (group_id, *chunk)):
                    out[r["key"]] = self._entity(r)
        return out

    @staticmethod
    def _entity(r: sqlite3.Row) -> Entity:
        return Entity(id=r["id"], group_id=r["group_id"], name=r["name"], kind=r["kind"],
                      aliases=tuple(json.loads(r["aliases"])), created_at=required_time(r["created_at"]),
                      merged_into=r["merged_into"])

    def mentions(self, group_id: str, episode_ids: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        with self._lock:
            for chunk in chunks(episode_ids, 500):
                marks = ",".join("?" * len(chunk))
                for r in self.conn.execute(
                    f"SELECT episode_id, entity_id FROM mentions WHERE group_id = ? AND episode_id IN ({marks})",
                    (group_id, *chunk)):
                    out.setdefault(r[0], []).append(r[1])
        return out

    # -- facts -------------------------------------------------------------
    def current_facts(self, group_id: str, pairs: list[tuple[str, str]] | None = None,
                      object_ids: list[str] | None = None) -> list[FactVersion]:
        out: dict[str, FactVersion] = {}
        with self._lock:
            for subj, pred in pairs or []:
                for r in self.conn.execute(
                    f"SELECT {FACT_COLS} FROM facts WHERE group_id = ? AND subject_id = ? AND predicate = ? "
                    "AND expired_at IS NULL", (group_id, subj, pred)):
                    out[r["id"]] = self._fact(r)
            for chunk in chunks(object_ids or [], 500):
                marks = ",".join("?" * len(chunk))
                for r in self.conn.execute(
                    f"SELECT {FACT_COLS} FROM facts WHERE group_id = ? AND object_id IN ({marks}) "
                    "AND expired_at IS NULL", (group_id, *chunk)):
                    out[r["id"]] = self._fact(r)
        return sorted(out.values(), key=lambda f: f.id)

    def write(self, batch: WriteBatch) -> None:
        if batch.is_empty():
            return
        with self._tx() as c:
            if len(self._insert_episodes(c, batch.episodes)) < len(batch.episodes):
                raise EpisodeStored("an episode of this write is stored already")
            for e in batch.entities:
                vec = batch.entity_vectors.get(e.id)
                try:
                    c.execute(
                        "INSERT INTO entities (id, group_id, name, key, kind, aliases, created_at, embedding) "
                        "VALUES (?,?,?,?,?,?,?,?)",
                        (e.id, e.group_id, e.name, e.key, e.kind, json.dumps(list(e.aliases)),
                         to_iso(e.created_at), blob(vec)))
                except sqlite3.IntegrityError:
                    raise WriteConflict(f"entity {e.name!r} was created by another writer") from None
            for (group_id, eid), vec in batch.episode_vectors.items():
                c.execute("UPDATE episodes SET embedding = ? WHERE id = ? AND group_id = ?",
                          (blob(vec), eid, group_id))
            # a mention of an episode or entity the group does not hold is dropped, as on every store
            c.executemany("INSERT OR IGNORE INTO mentions (group_id, episode_id, entity_id) SELECT ?1, ?2, ?3 "
                          "WHERE EXISTS (SELECT 1 FROM episodes WHERE id = ?2 AND group_id = ?1) "
                          "AND EXISTS (SELECT 1 FROM entities WHERE id = ?3 AND group_id = ?1)", batch.mentions)
            for f in batch.inserts:
                cur = c.execute(
                    f"INSERT INTO facts ({FACT_COLS}, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (f.id, f.fact_id, f.group_id, f.subject_id, f.subject, f.predicate, f.object_id, f.object,
                     f.statement, to_iso(f.valid_from), to_iso(f.valid_to), to_iso(f.created_at),
                     to_iso(f.expired_at), f.expired_by, json.dumps(list(f.episode_ids)), f.extractor,
                     f.prompt_version, f.confidence, f.reinforcement_count, blob(batch.fact_vectors.get(f.id))))
                c.execute("INSERT INTO facts_fts (rowid, text) VALUES (?, ?)",
                          (cur.lastrowid, f"{f.statement} {f.subject} {f.predicate.replace('_', ' ')} {f.object}"))
            for group_id, x in batch.expiries:
                cur = c.execute(
                    "UPDATE facts SET expired_at = ?, expired_by = ? WHERE group_id = ? AND id = ? "
                    "AND expired_at IS NULL", (to_iso(x.expired_at), x.expired_by, group_id, x.version_id))
                if cur.rowcount != 1:
                    raise expired_already(x.version_id)
            c.executemany("INSERT OR IGNORE INTO fact_links (group_id, fact_id, other_id, score) VALUES (?,?,?,?)",
                          batch.links)
            for group_id, eid, status, why in batch.statuses:
                c.execute("UPDATE episodes SET status = ?, status_reason = ?, claimed_by = NULL, claimed_until = NULL "
                          "WHERE group_id = ? AND id = ?", (status, why, group_id, eid))
            c.executemany("UPDATE entities SET aliases = ?, merged_into = ? WHERE group_id = ? AND id = ?",
                          [(json.dumps(list(n.aliases)), n.merged_into, n.group_id, n.id)
                           for n in batch.entity_updates])
            c.executemany("DELETE FROM mentions WHERE group_id = ? AND episode_id = ? AND entity_id = ?",
                          batch.unmentions)
            c.executemany("INSERT OR REPLACE INTO job_records (group_id, kind, id, at, body) VALUES (?,?,?,?,?)",
                          [(r.group_id, r.kind, r.id, to_iso(r.at), json.dumps(r.body, ensure_ascii=False))
                           for r in batch.records])
            self._prune_changes()  # every extraction writes a batch: the log is kept short as it grows

    def history(self, group_id: str, entity_id: str, predicate: str | None = None) -> list[FactVersion]:
        sql = (f"SELECT {FACT_COLS} FROM facts WHERE group_id = ? AND (subject_id = ? OR object_id = ?)"
               + (" AND predicate = ?" if predicate else "") + " ORDER BY created_at, id")
        args: tuple[Any, ...] = (group_id, entity_id, entity_id) + ((predicate,) if predicate else ())
        with self._lock:
            return [self._fact(r) for r in self.conn.execute(sql, args)]

    def _facts_where(self, group_id: str, condition: str, ids: list[str], uses: int,
                     group_index: bool = True) -> dict[str, FactVersion]:
        """Versions of the group matching ``condition``, whose ``{ids}`` placeholder (used
        ``uses`` times) takes the ids, read in chunks of 400; by version id. ``group_index=False``
        keeps SQLite off the group's indexes, for a condition on ids that has indexes of its own
        (with the group's index it walked every version of the group)."""
        term = "group_id = ?" if group_index else "+group_id = ?"
        found: dict[str, FactVersion] = {}
        with self._lock:
            for part in chunks(list(dict.fromkeys(ids)), 400):
                sql = f"SELECT {FACT_COLS} FROM facts WHERE {term} AND " + condition.format(
                    ids=",".join("?" * len(part)))
                found.update((r["id"], self._fact(r)) for r in self.conn.execute(sql, (group_id, *part * uses)))
        return found

    def _citing(self, group_id: str, episode_ids: list[str]) -> dict[str, FactVersion]:
        """Versions whose provenance names any of the episodes: their rowids from the
        evidence index; the rows through the group's index when this process holds one
        (recall), else read directly (erasure in a fresh process need not load the group)."""
        with self._lock:
            idx = self._held_index(group_id, "f")
            rows: list[int] = []
            for part in chunks(list(dict.fromkeys(episode_ids)), 400):
                rows.extend(r[0] for r in self.conn.execute(
                    f"SELECT fact_row FROM fact_evidence WHERE group_id = ? "
                    f"AND episode_id IN ({','.join('?' * len(part))})", (group_id, *part)))
            return {f.id: f for f in self._facts_by_rowid(idx, rows).values()}

    def fact_versions(self, group_id: str, ids: list[str]) -> list[FactVersion]:
        found = self._facts_where(group_id, "(id IN ({ids}) OR fact_id IN ({ids}))", ids, 2, group_index=False)
        return sorted(found.values(), key=lambda f: (f.created_at, f.id))

    def list_facts(self, group_id: str, tf: TimeFilter | None, entity_id: str | None = None,
                   predicate: str | None = None, limit: int = 10_000) -> list[FactVersion]:
        where: list[str] = ["group_id = ?"]
        args: list[Any] = [group_id]
        if tf is not None:
            cond, points = sql_filter(FACT_VISIBLE)
            where.append(cond)
            at = {"as_of": to_iso(tf.as_of), "known_at": to_iso(tf.known_at)}
            args.extend(at[p] for p in points)
        if entity_id is not None:
            where.append("(subject_id = ? OR object_id = ?)")
            args.extend((entity_id, entity_id))
        if predicate is not None:
            where.append("predicate = ?")
            args.append(predicate)
        sql = f"SELECT {FACT_COLS} FROM facts WHERE {' AND '.join(where)} ORDER BY created_at, id LIMIT ?"
        with self._lock:
            return [self._fact(r) for r in self.conn.execute(sql, (*args, max(limit, 0)))]

    def related(self, group_id: str, fact_id: str, k: int) -> list[tuple[str, float]]:
        sql = ("SELECT other, MAX(score) AS score FROM ("
               "SELECT other_id AS other, score FROM fact_links WHERE group_id = ?1 AND fact_id = ?2 "
               "UNION ALL SELECT fact_id AS other, score FROM fact_links WHERE group_id = ?1 AND other_id = ?2) "
               "WHERE other != ?2 GROUP BY other ORDER BY score DESC, other LIMIT ?3")
        with self._lock:
            return [(r[0], float(r[1])) for r in self.conn.execute(sql, (group_id, fact_id, max(k, 0)))]

    @contextmanager
    def read_scope(self) -> Iterator[None]:
        with self._lock:
            if self.conn.in_transaction:
                yield
                return
            self.conn.execute("BEGIN")
            try:
                yield
            finally:
                self.conn.execute("COMMIT")

    # -- search --------------------------------------------------------------
    def _postings(self, fts: str, query: str, idx: VectorIndex) -> list[np.ndarray]:
        """Row positions in ``idx`` of the documents each query term matches in
        the FTS5 table (porter-stemmed by FTS5 itself), through the index's
        postings cache (``index.vectors.PostingsCache``)."""
        assert fts in ("episodes_fts", "facts_fts")  # never user input
        out = []
        for term in query_terms(query):
            match = '"' + term.replace('"', '""') + '"'
            cached = idx.postings.get(term)
            if cached is not None and (cached[1] is None or len(cached[1]) <= idx.postings.RECHECK_MAX):
                pos, changed = cached
                if changed is not None:
                    pos = idx.postings.patched(pos, idx.positions(changed),
                                               idx.positions(self._matching(fts, match, changed)))
            else:
                try:
                    pos = self._term_positions(fts, match, idx)
                except sqlite3.OperationalError:  # a term FTS5 cannot parse matches nothing
                    continue
            idx.postings.put(term, pos)
            if len(pos):
                out.append(pos)
        return out

    def _term_positions(self, fts: str, match: str, idx: VectorIndex) -> np.ndarray:
        """Every document the term matches. Rowids come back as one comma-joined
        string: building a Python row per match cost more than the match."""
        row = self.conn.execute(f"SELECT group_concat(rowid) FROM {fts} WHERE {fts} MATCH ?", (match,)).fetchone()
        return idx.positions(np.fromstring(row[0], dtype=np.int64, sep=",")) if row[0] else np.zeros(0, np.int64)

    def _matching(self, fts: str, match: str, rowids: np.ndarray) -> np.ndarray:
        """Those of ``rowids`` whose document the term matches, one lookup each."""
        sql = f"SELECT 1 FROM {fts} WHERE {fts} MATCH ? AND rowid = ?"
        return np.array([r for r in rowids.tolist() if self.conn.execute(sql, (match, r)).fetchone()],
                        dtype=np.int64)

    def _bm25(self, fts: str, query: str, idx: VectorIndex, k: int,
              mask_fn: Callable[[dict[str, np.ndarray]], np.ndarray]) -> list[tuple[int, float]]:
        """BM25 (FTS5's formula, see ``index.vectors.bm25_at``) over the group's
        documents, pre-filtered by ``mask_fn`` before the top k are chosen."""
        with self._lock:
            postings = self._postings(fts, query, idx)
        view = idx.view()
        live = int(np.count_nonzero(view["created"] < POS_INF_TIME))  # erased rows stay in the index, unseen
        rows, scores = bm25_at(view["dl"], postings, n_docs=live)
        if not len(rows):
            return []
        keep = mask_fn({c: a[rows] for c, a in view.items()}) & (scores > 0)
        return idx.top_rows(rows[keep], scores[keep], k)

    def episode_text_search(self, group_id: str, query: str, k: int, tf: TimeFilter) -> list[tuple[str, float]]:
        return self._search(group_id, query, None, k, tf, facts=False).episode_text

    def fact_text_search(self, group_id: str, query: str, k: int, tf: TimeFilter
                         ) -> list[tuple[FactVersion, float]]:
        return self._search(group_id, query, None, k, tf, episodes=False).fact_text

    def episode_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                              ) -> list[tuple[str, float]]:
        return self._search(group_id, "", vector, k, tf, facts=False).episode_vector

    def fact_vector_search(self, group_id: str, vector: np.ndarray, k: int, tf: TimeFilter
                           ) -> list[tuple[FactVersion, float]]:
        return self._search(group_id, "", vector, k, tf, episodes=False).fact_vector

    def search(self, group_id: str, query: str, vector: np.ndarray | None, k: int, tf: TimeFilter) -> SearchHits:
        """The four searches of a recall, one after another on this thread. The
        episode vector scan is memory-bound and runs inline: run beside the rest on
        a worker (as it once was), it slowed both and the recall p50 rose by a fifth
        (docs/benchmarks.md, issue #11)."""
        return self._search(group_id, query, vector, k, tf)

    def _search(self, group_id: str, query: str, vector: np.ndarray | None, k: int, tf: TimeFilter,
                episodes: bool = True, facts: bool = True) -> SearchHits:
        """``search`` over the episodes, the facts or both: a single search (a new
        fact's RELATED_TO candidates) does not pay for the other half's scan."""
        ep_vec: list[tuple[int, float]] = []
        ep_text: list[tuple[int, float]] = []
        fact_vec: list[tuple[int, float]] = []
        fact_text: list[tuple[int, float]] = []
        ep_sim: dict[int, float] = {}
        fact_sim: dict[int, float] = {}
        eps: dict[int, Episode] = {}
        found: dict[int, FactVersion] = {}
        with self._lock:
            if episodes:
                eidx = self._episode_index(group_id)
                ep_vec, ep_text, ep_sim = self._half(eidx, "episodes_fts", EPISODE_VISIBLE, query, vector, k, tf)
                eps = self._episodes_by_rowid(eidx, [r for r, _ in (*ep_vec, *ep_text)])
            if facts:
                fidx = self._facts_index(group_id)
                fact_vec, fact_text, fact_sim = self._half(fidx, "facts_fts", FACT_VISIBLE, query, vector, k, tf)
                found = self._facts_by_rowid(fidx, [r for r, _ in (*fact_vec, *fact_text)])
        if self._unfilled or self._unsnapped:
            self._after_search()
        return SearchHits(
            episode_vector=[(eps[r].id, s) for r, s in ep_vec if r in eps],
            episode_text=[(eps[r].id, s) for r, s in ep_text if r in eps],
            fact_vector=[(found[r], s) for r, s in fact_vec if r in found],
            fact_text=[(found[r], s) for r, s in fact_text if r in found],
            episode_similarity={eps[r].id: s for r, s in ep_sim.items() if r in eps},
            fact_similarity={found[r].id: s for r, s in fact_sim.items() if r in found},
            episodes={e.id: e for e in eps.values()},
        )

    def _half(self, idx: VectorIndex, fts: str, rule: tuple[Bound, ...], query: str, vector: np.ndarray | None,
              k: int, tf: TimeFilter) -> tuple[list[tuple[int, float]], list[tuple[int, float]], dict[int, float]]:
        """One index's vector and text hits (rowids), and the cosine of the text hits
        the vector search left out."""
        seen = numpy_mask(rule, tf.as_of, tf.known_at)
        vec = idx.search(vector, k, lambda t: seen(t) & (t["hasvec"] == 1)) if vector is not None else []
        text = self._bm25(fts, query, idx, k, seen) if query else []
        sim: dict[int, float] = {}
        if vector is not None:
            held = {r for r, _ in vec}
            sim = idx.similarity(vector, [r for r, _ in text if r not in held])
        return vec, text, sim

    def _touching(self, group_id: str, entity_ids: list[str], predicates: list[str] | None, both_ends: bool
                  ) -> tuple[VectorIndex, dict[str, np.ndarray], np.ndarray] | None:
        """The group's fact index, its columns, and the mask of versions with one of
        the entities at either end (and one of the predicates, when given)."""
        if not entity_ids:
            return None
        idx = self._facts_index(group_id)
        ents = [self._entity_codes[e] for e in entity_ids if e in self._entity_codes]
        if not ents or idx.n == 0:
            return None
        view = idx.view()
        known = len(self._entity_codes)
        subj, obj = among(view["subj"], ents, known), among(view["obj"], ents, known)
        mask = subj & obj if both_ends else subj | obj
        if predicates is not None:
            preds = [self._predicate_codes[p] for p in predicates if p in self._predicate_codes]
            mask &= among(view["pred"], preds, len(self._predicate_codes))
        return idx, view, mask

    def _latest_first(self, idx: VectorIndex, when: np.ndarray, rows: np.ndarray, limit: int) -> list[FactVersion]:
        """The ``limit`` rows latest by ``when`` (micros), ties by version id (the
        reference store's order). Only rows that can make the cut are read."""
        if limit <= 0 or not len(rows):
            return []
        if len(rows) > limit:  # keep every row tied with the limit-th, then order exactly
            cut = np.sort(when[rows])[::-1][limit - 1]
            rows = rows[when[rows] >= cut]
        keyed = {cast(int, idx.keys[i]): int(when[i]) for i in rows}
        found = self._facts_by_rowid(idx, list(keyed))
        ordered = sorted(found.items(), key=lambda kv: (-keyed[kv[0]], kv[1].id))
        return [f for _, f in ordered[:limit]]

    def facts_for_entities(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                           predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        touched = self._touching(group_id, entity_ids, predicates, both_ends)
        if touched is None:
            return []
        idx, view, mask = touched
        rows = np.flatnonzero(mask & numpy_mask(FACT_VISIBLE, tf.as_of, tf.known_at)(view))
        return self._latest_first(idx, np.maximum(view["vf"], FIRST_INSTANT), rows, limit)

    def ended_facts(self, group_id: str, entity_ids: list[str], tf: TimeFilter, limit: int,
                    predicates: list[str] | None = None, both_ends: bool = False) -> list[FactVersion]:
        touched = self._touching(group_id, entity_ids, predicates, both_ends)
        if touched is None:
            return []
        idx, view, mask = touched
        ended = numpy_mask(FACT_ENDED, tf.as_of, tf.known_at)(view)
        return self._latest_first(idx, view["vt"], np.flatnonzero(mask & ended), limit)

    def counts(self, group_id: str | None = None) -> dict[str, int]:
        where, args = (" WHERE group_id = ?", (group_id,)) if group_id else ("", ())
        with self._lock:
            c = {t: self.conn.execute(f"SELECT COUNT(*) FROM {t}{where}", args).fetchone()[0]
                 for t in ("episodes", "entities", "facts")}
            c["facts_current"] = self.conn.execute(
                f"SELECT COUNT(*) FROM facts{where}{' AND' if where else ' WHERE'} expired_at IS NULL", args
            ).fetchone()[0]
            c["episodes_pending"] = self.conn.execute(
                f"SELECT COUNT(*) FROM episodes{where}{' AND' if where else ' WHERE'} status = 'pending'", args
            ).fetchone()[0]
            c["episodes_failed"] = self.conn.execute(
                f"SELECT COUNT(*) FROM episodes{where}{' AND' if where else ' WHERE'} status = 'failed'", args
            ).fetchone()[0]
        return c

    def groups(self) -> list[tuple[str, dict[str, int]]]:
        out: dict[str, dict[str, int]] = {}
        with self._lock:
            for table in ("episodes", "entities", "facts"):  # fixed names, never input
                for gid, n in self.conn.execute(f"SELECT group_id, COUNT(*) FROM {table} GROUP BY group_id"):
                    out.setdefault(gid, {"episodes": 0, "entities": 0, "facts": 0})[table] = n
        return sorted(out.items())

    def entity_degrees(self, group_id: str) -> list[tuple[str, str, str, int]]:
        sql = ("SELECT e.id, e.name, d.predicate, SUM(d.n) FROM ("
               "SELECT subject_id AS id, predicate, COUNT(*) AS n FROM facts WHERE group_id = ?1 "
               "AND expired_at IS NULL GROUP BY subject_id, predicate UNION ALL "
               "SELECT object_id AS id, predicate, COUNT(*) AS n FROM facts WHERE group_id = ?1 "
               "AND expired_at IS NULL GROUP BY object_id, predicate) d "
               "JOIN entities e ON e.id = d.id AND e.group_id = ?1 GROUP BY e.id, d.predicate ORDER BY 1, 2, 3")
        with self._lock:
            return [(r[0], r[1], r[2], int(r[3])) for r in self.conn.execute(sql, (group_id,))]

    def entity_names(self, group_id: str, limit: int) -> list[str]:
        with self._lock:
            return [r[0] for r in self.conn.execute(
                "SELECT name FROM entities WHERE group_id = ? ORDER BY name LIMIT ?", (group_id, limit))]
