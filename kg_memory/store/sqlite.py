"""The embedded store: one SQLite file in WAL mode, FTS5 for BM25, and exact
numpy vector search over float32 blobs (see docs/benchmarks.md for why not sqlite-vec)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..erasure import ErasePlan, Tombstone
from ..errors import SchemaError, StoreError
from ..models import Entity, Episode, FactVersion, from_trusted
from ..temporal import EPISODE_VISIBLE, FACT_ENDED, FACT_VISIBLE, Bound
from ..text import query_terms
from ..timeutil import from_iso, micros, to_iso
from .base import DEFAULT_DIM, JobRecord, SearchHits, Store, TimeFilter, WriteBatch, WriteConflict
from .cache import GroupCache
from .faults import guard
from .sqlite_migrations import MIGRATIONS
from .timefilter import numpy_mask, sql_filter
from .vecindex import NEG_INF_TIME, POS_INF_TIME, VectorIndex, bm25_at

_EP_COLS = ("id, group_id, role, speaker, content, occurred_at, created_at, session_id, source, "
            "content_sha256, metadata, status, status_reason, archive_ref")
_FACT_COLS = ("id, fact_id, group_id, subject_id, subject, predicate, object_id, object, statement, "
              "valid_from, valid_to, created_at, expired_at, expired_by, episode_ids, extractor, "
              "prompt_version, confidence, reinforcement_count")
_ENT_COLS = "id, group_id, name, key, kind, aliases, created_at, merged_into"


def _micros(value: str | None, default: int) -> int:
    if value is None:
        return default
    dt = from_iso(value)
    assert dt is not None
    return micros(dt)


def _micros_array(values: list[str]) -> np.ndarray:
    """Stored times (``YYYY-MM-DDTHH:MM:SS.ffffffZ``, never None here) as microseconds since 1970, at once."""
    return np.array([v[:-1] for v in values], dtype="datetime64[us]").astype(np.int64)


def _micros_dt(dt: datetime) -> int:
    return micros(dt)


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
class SQLiteStore(Store):
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
        added: list[Episode] = []
        with self._tx() as c:
            for e in episodes:
                cur = c.execute(
                    f"INSERT OR IGNORE INTO episodes ({_EP_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (e.id, e.group_id, e.role, e.speaker, e.content, to_iso(e.occurred_at), to_iso(e.created_at),
                     e.session_id, e.source, e.content_sha256, json.dumps(e.metadata, ensure_ascii=False),
                     e.status, e.status_reason, e.archive_ref),
                )
                if cur.rowcount:
                    c.execute("INSERT INTO episodes_fts (rowid, text) VALUES (?, ?)",
                              (cur.lastrowid, e.index_text()))
                    added.append(e)
        return added, len(episodes) - len(added)

    def pending_episodes(self, group_id: str | None, limit: int) -> list[Episode]:
        sql = (f"SELECT {_EP_COLS} FROM episodes WHERE status = 'pending'"
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
               f"ORDER BY occurred_at, id LIMIT ?) RETURNING {_EP_COLS}")
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
            for part in _chunks(list(episode_ids), 400):
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
            for chunk in _chunks(ids, 500):
                marks = ",".join("?" * len(chunk))
                # "+group_id" keeps the planner on the unique id index; the group still filters.
                for r in self.conn.execute(
                    f"SELECT {_EP_COLS} FROM episodes WHERE id IN ({marks}) AND +group_id = ?", (*chunk, group_id)
                ):
                    out[r["id"]] = self._episode(r)
        return [out[i] for i in ids if i in out]

    def previous_turns(self, group_id: str, session_id: str | None, before: datetime, n: int) -> list[Episode]:
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {_EP_COLS} FROM episodes WHERE group_id = ? AND session_id IS ? AND occurred_at < ? "
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
            for chunk in _chunks(ids, 400):
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
            for chunk in _chunks(list(dict.fromkeys(keys)), 500):
                marks = ",".join("?" * len(chunk))
                for r in self.conn.execute(
                    f"SELECT {_ENT_COLS} FROM entities WHERE group_id = ? AND key IN ({marks})", (group_id, *chunk)):
                    out[r["key"]] = self._entity(r)
        return out

    @staticmethod
    def _entity(r: sqlite3.Row) -> Entity:
        return Entity(id=r["id"], group_id=r["group_id"], name=r["name"], kind=r["kind"],
                      aliases=tuple(json.loads(r["aliases"])), created_at=_required_time(r["created_at"]),
                      merged_into=r["merged_into"])

    def mentions(self, group_id: str, episode_ids: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        with self._lock:
            for chunk in _chunks(episode_ids, 500):
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
                    f"SELECT {_FACT_COLS} FROM facts WHERE group_id = ? AND subject_id = ? AND predicate = ? "
                    "AND expired_at IS NULL", (group_id, subj, pred)):
                    out[r["id"]] = self._fact(r)
            for chunk in _chunks(object_ids or [], 500):
                marks = ",".join("?" * len(chunk))
                for r in self.conn.execute(
                    f"SELECT {_FACT_COLS} FROM facts WHERE group_id = ? AND object_id IN ({marks}) "
                    "AND expired_at IS NULL", (group_id, *chunk)):
                    out[r["id"]] = self._fact(r)
        return sorted(out.values(), key=lambda f: f.id)

    def write(self, batch: WriteBatch) -> None:
        if batch.is_empty():
            return
        with self._tx() as c:
            for e in batch.entities:
                vec = batch.entity_vectors.get(e.id)
                try:
                    c.execute(
                        "INSERT INTO entities (id, group_id, name, key, kind, aliases, created_at, embedding) "
                        "VALUES (?,?,?,?,?,?,?,?)",
                        (e.id, e.group_id, e.name, e.key, e.kind, json.dumps(list(e.aliases)),
                         to_iso(e.created_at), _blob(vec)))
                except sqlite3.IntegrityError:
                    raise WriteConflict(f"entity {e.name!r} was created by another writer") from None
            for (group_id, eid), vec in batch.episode_vectors.items():
                c.execute("UPDATE episodes SET embedding = ? WHERE id = ? AND group_id = ?",
                          (_blob(vec), eid, group_id))
            # a mention of an episode or entity the group does not hold is dropped, as on every store
            c.executemany("INSERT OR IGNORE INTO mentions (group_id, episode_id, entity_id) SELECT ?1, ?2, ?3 "
                          "WHERE EXISTS (SELECT 1 FROM episodes WHERE id = ?2 AND group_id = ?1) "
                          "AND EXISTS (SELECT 1 FROM entities WHERE id = ?3 AND group_id = ?1)", batch.mentions)
            for f in batch.inserts:
                cur = c.execute(
                    f"INSERT INTO facts ({_FACT_COLS}, embedding) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (f.id, f.fact_id, f.group_id, f.subject_id, f.subject, f.predicate, f.object_id, f.object,
                     f.statement, to_iso(f.valid_from), to_iso(f.valid_to), to_iso(f.created_at),
                     to_iso(f.expired_at), f.expired_by, json.dumps(list(f.episode_ids)), f.extractor,
                     f.prompt_version, f.confidence, f.reinforcement_count, _blob(batch.fact_vectors.get(f.id))))
                c.execute("INSERT INTO facts_fts (rowid, text) VALUES (?, ?)",
                          (cur.lastrowid, f"{f.statement} {f.subject} {f.predicate.replace('_', ' ')} {f.object}"))
            for group_id, x in batch.expiries:
                cur = c.execute(
                    "UPDATE facts SET expired_at = ?, expired_by = ? WHERE group_id = ? AND id = ? "
                    "AND expired_at IS NULL", (to_iso(x.expired_at), x.expired_by, group_id, x.version_id))
                if cur.rowcount != 1:
                    raise WriteConflict(f"fact version {x.version_id} is not current; refusing to expire it twice")
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
        sql = (f"SELECT {_FACT_COLS} FROM facts WHERE group_id = ? AND (subject_id = ? OR object_id = ?)"
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
            for part in _chunks(list(dict.fromkeys(ids)), 400):
                sql = f"SELECT {_FACT_COLS} FROM facts WHERE {term} AND " + condition.format(
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
            for part in _chunks(list(dict.fromkeys(episode_ids)), 400):
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
        sql = f"SELECT {_FACT_COLS} FROM facts WHERE {' AND '.join(where)} ORDER BY created_at, id LIMIT ?"
        with self._lock:
            return [self._fact(r) for r in self.conn.execute(sql, (*args, max(limit, 0)))]

    def related(self, group_id: str, fact_id: str, k: int) -> list[tuple[str, float]]:
        sql = ("SELECT other, MAX(score) AS score FROM ("
               "SELECT other_id AS other, score FROM fact_links WHERE group_id = ?1 AND fact_id = ?2 "
               "UNION ALL SELECT fact_id AS other, score FROM fact_links WHERE group_id = ?1 AND other_id = ?2) "
               "WHERE other != ?2 GROUP BY other ORDER BY score DESC, other LIMIT ?3")
        with self._lock:
            return [(r[0], float(r[1])) for r in self.conn.execute(sql, (group_id, fact_id, max(k, 0)))]

    # -- erasure -----------------------------------------------------------------
    def episodes_about(self, group_id: str, entity_ids: list[str], text: str | None) -> list[str]:
        found: set[str] = set()
        with self._lock:
            for part in _chunks(list(dict.fromkeys(entity_ids)), 400):
                marks = ",".join("?" * len(part))
                sql = f"SELECT episode_id FROM mentions WHERE group_id = ? AND entity_id IN ({marks})"
                found.update(r[0] for r in self.conn.execute(sql, (group_id, *part)))
            if text:  # Unicode-aware case folding, in Python (SQLite's lower() folds ASCII only)
                want = text.lower()
                found.update(r[0] for r in self.conn.execute(
                    "SELECT id, content FROM episodes WHERE group_id = ?", (group_id,)) if want in r[1].lower())
        return sorted(found)

    def episode_hashes(self, group_id: str) -> list[str]:
        with self._lock:
            return [r[0] for r in self.conn.execute(
                "SELECT DISTINCT content_sha256 FROM episodes WHERE group_id = ? ORDER BY 1", (group_id,))]

    def facts_citing(self, group_id: str, episode_ids: list[str], entity_ids: list[str]) -> list[FactVersion]:
        found = self._citing(group_id, episode_ids)
        found.update(self._facts_where(group_id, "(subject_id IN ({ids}) OR object_id IN ({ids}))", entity_ids, 2))
        return sorted(found.values(), key=lambda f: (f.created_at, f.id))

    def erase(self, plan: ErasePlan, tombstone: Tombstone) -> Tombstone:
        g = plan.group_id
        with self._lock:
            self.conn.execute("PRAGMA secure_delete = ON")  # freed pages are zeroed, not left readable
            try:
                with self._tx() as c:
                    counts = (self._erase_group(c, g) if plan.whole_group else self._erase_rows(c, plan))
                    done = replace(tombstone, episodes=counts[0], facts=counts[1], entities=counts[2])
                    c.execute("INSERT INTO tombstones (id, group_id, kind, erased_at, reason, episodes, facts, "
                              "entities) VALUES (?,?,?,?,?,?,?,?)",
                              (done.id, g, done.kind, to_iso(done.erased_at), done.reason, done.episodes,
                               done.facts, done.entities))
                # rewrite the full-text indexes without the erased terms, and empty the write-ahead log
                for fts in ("episodes_fts", "facts_fts"):
                    self.conn.execute(f"INSERT INTO {fts} ({fts}) VALUES ('optimize')")
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self.conn.execute("PRAGMA secure_delete = OFF")
        return done

    @staticmethod
    def _erase_group(c: sqlite3.Connection, g: str) -> tuple[int, int, int]:
        c.execute("DELETE FROM mentions WHERE group_id = ?", (g,))
        c.execute("DELETE FROM fact_links WHERE group_id = ?", (g,))
        c.execute("DELETE FROM facts_fts WHERE rowid IN (SELECT rowid FROM facts WHERE group_id = ?)", (g,))
        facts = c.execute("DELETE FROM facts WHERE group_id = ?", (g,)).rowcount
        c.execute("DELETE FROM episodes_fts WHERE rowid IN (SELECT rowid FROM episodes WHERE group_id = ?)", (g,))
        episodes = c.execute("DELETE FROM episodes WHERE group_id = ?", (g,)).rowcount
        entities = c.execute("DELETE FROM entities WHERE group_id = ?", (g,)).rowcount
        return episodes, facts, entities

    @staticmethod
    def _erase_rows(c: sqlite3.Connection, plan: ErasePlan) -> tuple[int, int, int]:
        g = plan.group_id
        episodes = facts = entities = 0
        for part in _chunks(plan.version_ids, 400):
            marks = ",".join("?" * len(part))
            c.execute(f"DELETE FROM facts_fts WHERE rowid IN (SELECT rowid FROM facts WHERE group_id = ? "
                      f"AND id IN ({marks}))", (g, *part))
            facts += c.execute(f"DELETE FROM facts WHERE group_id = ? AND id IN ({marks})", (g, *part)).rowcount
        for vid, (ids, evidence) in plan.provenance.items():
            c.execute("UPDATE facts SET episode_ids = ?, reinforcement_count = ? WHERE group_id = ? AND id = ?",
                      (json.dumps(list(ids)), evidence, g, vid))
        for fid in plan.fact_ids:
            left = c.execute("SELECT 1 FROM facts WHERE group_id = ? AND fact_id = ? LIMIT 1", (g, fid)).fetchone()
            if left is None:
                c.execute("DELETE FROM fact_links WHERE group_id = ?1 AND (fact_id = ?2 OR other_id = ?2)", (g, fid))
        for part in _chunks(plan.episode_ids, 400):
            marks = ",".join("?" * len(part))
            c.execute(f"DELETE FROM mentions WHERE group_id = ? AND episode_id IN ({marks})", (g, *part))
            c.execute(f"DELETE FROM episodes_fts WHERE rowid IN (SELECT rowid FROM episodes WHERE group_id = ? "
                      f"AND id IN ({marks}))", (g, *part))
            episodes += c.execute(f"DELETE FROM episodes WHERE group_id = ? AND id IN ({marks})",
                                  (g, *part)).rowcount
        for eid in plan.entity_ids:
            c.execute("DELETE FROM mentions WHERE group_id = ? AND entity_id = ?", (g, eid))
        for eid in dict.fromkeys([*plan.entity_ids, *plan.maybe_orphans]):
            entities += c.execute(
                "DELETE FROM entities WHERE group_id = ?1 AND id = ?2 "
                "AND NOT EXISTS (SELECT 1 FROM facts WHERE group_id = ?1 AND (subject_id = ?2 OR object_id = ?2)) "
                "AND NOT EXISTS (SELECT 1 FROM mentions WHERE entity_id = ?2)", (g, eid)).rowcount
        return episodes, facts, entities

    def tombstones(self, group_id: str) -> list[Tombstone]:
        with self._lock:
            rows = self.conn.execute("SELECT * FROM tombstones WHERE group_id = ? ORDER BY erased_at, id",
                                     (group_id,)).fetchall()
        return [Tombstone(id=r["id"], group_id=r["group_id"], kind=r["kind"],
                          erased_at=_required_time(r["erased_at"]), reason=r["reason"], episodes=r["episodes"],
                          facts=r["facts"], entities=r["entities"]) for r in rows]

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
        postings cache (``vecindex.PostingsCache``)."""
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
        """BM25 (FTS5's formula, see ``vecindex.bm25_at``) over the group's
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

    def _episodes_by_rowid(self, idx: VectorIndex | None, rowids: list[int]) -> dict[int, Episode]:
        return cast(dict[int, Episode], self._by_rowid(idx, "episodes", rowids))

    def _stamp(self) -> tuple[int, int]:
        """Changes whenever this connection or another one commits."""
        return (self._writes, self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _changed_rows(self, group_id: str, tbl: str, idx: VectorIndex) -> list[int] | None:
        """The rows of the group to (re)load into ``idx``: None the first time (all of
        them), else those the change log lists since the index last read it. Moves ``idx.seq``."""
        seq = self.conn.execute("SELECT MAX(seq) FROM changes WHERE group_id = ?", (group_id,)).fetchone()[0] or 0
        if idx.seq is not None and idx.seq < self._pruned_upto():  # the log no longer reaches back to it
            idx.clear()
        if idx.seq is None:
            idx.seq = seq
            return None
        rows = [r[0] for r in self.conn.execute(
            "SELECT DISTINCT row FROM changes WHERE group_id = ? AND tbl = ? AND seq > ? AND seq <= ?",
            (group_id, tbl, idx.seq, seq))]
        idx.seq = seq
        if any(r < 0 for r in rows):  # the group's rows were exchanged (swap_groups): every row, old and new
            table = "episodes" if tbl == "e" else "facts"
            now = [r[0] for r in self.conn.execute(f"SELECT rowid FROM {table} WHERE group_id = ?", (group_id,))]
            return sorted({*(k for k in idx.keys if isinstance(k, int)), *now})
        return rows

    def _held_index(self, group_id: str, tbl: str) -> VectorIndex | None:
        """The group's episode ("e") or fact ("f") index brought up to date when this
        process already holds it loaded (a recall made it), else None: a read that
        only wants its rows cached need not load the whole group."""
        held = self._indexes.peek(group_id)
        if held is None:
            return None
        idx = held[0] if tbl == "e" else held[1]
        if idx.seq is None:
            return None
        return self._refresh(group_id, tbl, idx, self._load_episodes if tbl == "e" else self._load_facts)

    def preload(self, group_id: str) -> None:
        with self._lock:
            self._episode_index(group_id)
            self._facts_index(group_id)

    def _episode_index(self, group_id: str) -> VectorIndex:
        """Every episode of the group in memory: times, whether it has a vector
        yet, and the vector. Vector and text search filter through it. After a
        write it reads only the rows the change log names for this group."""
        with self._lock:
            idx = self._indexes.get(group_id, self._new_indexes)[0]
            return self._refresh(group_id, "e", idx, self._load_episodes)

    def _refresh(self, group_id: str, tbl: str, idx: VectorIndex,
                 load: Callable[[VectorIndex, str, tuple[Any, ...], list[int]], None]) -> VectorIndex:
        """Bring a group's index up to date: nothing when no one committed, nothing
        when the commits were another group's, else ``load`` the rows the change log names."""
        stamp = self._stamp()
        if stamp == idx.stamp:
            return idx
        changed = self._changed_rows(group_id, tbl, idx)
        if changed is None:
            load(idx, "@group_id = ?", (group_id,), [])
        elif changed:
            for part in _chunks(changed, 500):  # a row that left the group is gone from its index
                load(idx, f"@group_id = ? AND @rowid IN ({','.join('?' * len(part))})", (group_id, *part), part)
            idx.postings.changed(changed)
            idx.rows.drop(changed)
        idx.stamp = stamp
        return idx

    def _load_episodes(self, idx: VectorIndex, where: str, args: tuple[Any, ...], asked: list[int]) -> None:
        if idx.n == 0 and not asked:
            self._first_load_episodes(idx, where, args)
            return
        rows = self.conn.execute(
            "SELECT e.rowid, e.occurred_at, e.created_at, e.embedding IS NOT NULL, d.sz FROM episodes e "
            f"LEFT JOIN episodes_fts_docsize d ON d.id = e.rowid WHERE {where.replace('@', 'e.')}", args).fetchall()
        hasvec = idx.times["hasvec"]
        blobs = self._embeddings("episodes", [r[0] for r in rows if r[3] and (
            r[0] not in idx.pos or not hasvec[idx.pos[r[0]]])])
        zero = bytes(4 * self.dim)
        idx.upsert((r[0], blobs[r[0]] if r[0] in blobs else (None if r[0] in idx.pos else zero),
                    (_micros(r[1], 0), _micros(r[2], 0), int(r[3]), _doc_len(r[4]))) for r in rows)
        gone = set(asked) - {r[0] for r in rows}  # deleted: never visible again
        idx.upsert((g, None, (POS_INF_TIME, POS_INF_TIME, 0, 0)) for g in gone)

    def _first_load_episodes(self, idx: VectorIndex, where: str, args: tuple[Any, ...]) -> None:
        """A group's first load, in bulk: one query with the vectors, times parsed as arrays, one append
        (the row-by-row path took 3.9 s for 100k episodes; docs/benchmarks.md, "A cold group")."""
        rows = self.conn.execute(
            "SELECT e.rowid, e.occurred_at, e.created_at, e.embedding, d.sz FROM episodes e "
            f"LEFT JOIN episodes_fts_docsize d ON d.id = e.rowid WHERE {where.replace('@', 'e.')}", args).fetchall()
        if not rows:
            return
        zero = bytes(4 * self.dim)
        vecs = np.frombuffer(b"".join(r[3] if r[3] is not None else zero for r in rows),
                             dtype=np.float32).reshape(len(rows), self.dim)
        times = [_micros_array([r[1] for r in rows]), _micros_array([r[2] for r in rows]),
                 np.fromiter((r[3] is not None for r in rows), dtype=np.int64, count=len(rows)),
                 np.fromiter((_doc_len(r[4]) for r in rows), dtype=np.int64, count=len(rows))]
        idx.append([r[0] for r in rows], vecs, times)

    def _code(self, table: dict[str, int], value: str) -> int:
        code = table.get(value)
        if code is None:
            code = table[value] = len(table) + 1
        return code

    def _facts_index(self, group_id: str) -> VectorIndex:
        """Every fact version of the group in memory: its times, its subject,
        object and predicate (as small integer codes) and its vector. Visibility
        and entity filters are then vectorised masks over a few arrays, so a
        subject with a long history costs a mask, not a scan of its rows. After a
        write it reads only the rows the change log names for this group."""
        with self._lock:
            idx = self._indexes.get(group_id, self._new_indexes)[1]
            return self._refresh(group_id, "f", idx, self._load_facts)

    def _load_facts(self, idx: VectorIndex, where: str, args: tuple[Any, ...], asked: list[int]) -> None:
        rows = self.conn.execute(
            "SELECT f.rowid, f.valid_from, f.valid_to, f.created_at, f.expired_at, f.subject_id, f.object_id, "
            "f.predicate, f.embedding IS NOT NULL, d.sz FROM facts f "
            f"LEFT JOIN facts_fts_docsize d ON d.id = f.rowid WHERE {where.replace('@', 'f.')}", args).fetchall()
        blobs = self._embeddings("facts", [r[0] for r in rows if r[0] not in idx.pos and r[8]])
        zero = bytes(4 * self.dim)
        idx.upsert((r[0], None if r[0] in idx.pos else blobs.get(r[0], zero),
                    (_micros(r[1], NEG_INF_TIME), _micros(r[2], POS_INF_TIME), _micros(r[3], 0),
                     _micros(r[4], POS_INF_TIME), self._code(self._entity_codes, r[5]),
                     self._code(self._entity_codes, r[6]), self._code(self._predicate_codes, r[7]),
                     int(r[8]), _doc_len(r[9]))) for r in rows)
        gone = set(asked) - {r[0] for r in rows}  # deleted: never believed again
        idx.upsert((g, None, (0, 0, POS_INF_TIME, 0, 0, 0, 0, 0, 0)) for g in gone)

    def _embeddings(self, table: str, rowids: list[int]) -> dict[int, bytes]:
        """The stored vectors of these rows, read in chunks."""
        assert table in ("episodes", "facts")  # never input
        out: dict[int, bytes] = {}
        for chunk in _chunks(rowids, 500):
            marks = ",".join("?" * len(chunk))
            out.update(self.conn.execute(f"SELECT rowid, embedding FROM {table} WHERE rowid IN ({marks})",
                                         chunk).fetchall())
        return out

    def _new_indexes(self) -> tuple[VectorIndex, VectorIndex]:
        return (VectorIndex(self.dim, ("occurred", "created", "hasvec", "dl")),
                VectorIndex(self.dim, ("vf", "vt", "created", "expired", "subj", "obj", "pred", "hasvec", "dl")))

    def _facts_by_rowid(self, idx: VectorIndex | None, rowids: list[int]) -> dict[int, FactVersion]:
        return cast(dict[int, FactVersion], self._by_rowid(idx, "facts", rowids))

    def _by_rowid(self, idx: VectorIndex | None, table: str, rowids: list[int]) -> dict[int, object]:
        """The group's rows of ``table`` at these rowids, built once and then kept beside
        its index (``RowCache``; none given: built and not kept)."""
        cols, build = {"episodes": (_EP_COLS, self._episode), "facts": (_FACT_COLS, self._fact)}[table]
        wanted = list(dict.fromkeys(rowids))
        with self._lock:
            found, missing = idx.rows.split(wanted) if idx is not None else ({}, wanted)
            fresh: dict[int, object] = {}
            for chunk in _chunks(missing, 500):
                marks = ",".join("?" * len(chunk))
                for r in self.conn.execute(f"SELECT rowid, {cols} FROM {table} WHERE rowid IN ({marks})", chunk):
                    fresh[r["rowid"]] = build(r)
            if idx is not None:
                idx.rows.put(fresh)
        return found | fresh

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
        subj, obj = _among(view["subj"], ents, known), _among(view["obj"], ents, known)
        mask = subj & obj if both_ends else subj | obj
        if predicates is not None:
            preds = [self._predicate_codes[p] for p in predicates if p in self._predicate_codes]
            mask &= _among(view["pred"], preds, len(self._predicate_codes))
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

    # -- maintenance jobs ------------------------------------------------------
    def entities(self, group_id: str, ids: list[str] | None = None) -> list[Entity]:
        with self._lock:
            if ids is None:
                rows = self.conn.execute(f"SELECT {_ENT_COLS} FROM entities WHERE group_id = ? ORDER BY id",
                                         (group_id,)).fetchall()
            else:
                rows = []
                for chunk in _chunks(list(dict.fromkeys(ids)), 500):
                    rows += self.conn.execute(
                        f"SELECT {_ENT_COLS} FROM entities WHERE group_id = ? AND id IN ({','.join('?' * len(chunk))})",
                        (group_id, *chunk)).fetchall()
        return sorted((self._entity(r) for r in rows), key=lambda n: n.id)

    def entity_vectors(self, group_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(ids)), 500):
                for r in self.conn.execute(
                        f"SELECT id, embedding FROM entities WHERE group_id = ? AND embedding IS NOT NULL "
                        f"AND id IN ({','.join('?' * len(chunk))})", (group_id, *chunk)):
                    out[r[0]] = np.frombuffer(r[1], dtype=np.float32)
        return out

    def list_episodes(self, group_id: str, limit: int, after: tuple[datetime, str] | None = None,
                      before: datetime | None = None, archived: bool | None = None) -> list[Episode]:
        where: list[str] = ["group_id = ?"]
        args: list[Any] = [group_id]
        if after is not None:
            where.append("(occurred_at > ? OR (occurred_at = ? AND id > ?))")
            args += [to_iso(after[0]), to_iso(after[0]), after[1]]
        if before is not None:
            where.append("occurred_at < ?")
            args.append(to_iso(before))
        if archived is not None:
            where.append("archive_ref IS NOT NULL" if archived else "archive_ref IS NULL")
        with self._lock:
            rows = self.conn.execute(f"SELECT {_EP_COLS} FROM episodes WHERE {' AND '.join(where)} "
                                     "ORDER BY occurred_at, id LIMIT ?", (*args, max(limit, 0))).fetchall()
        return [self._episode(r) for r in rows]

    def set_bodies(self, group_id: str, bodies: Sequence[tuple[str, str, str | None]]) -> int:
        n = 0
        with self._tx() as c:
            for eid, content, ref in bodies:
                row = c.execute(f"SELECT rowid, {_EP_COLS} FROM episodes WHERE id = ? AND group_id = ?",
                                (eid, group_id)).fetchone()
                if row is None:
                    continue
                e = self._episode(row).model_copy(update={"content": content, "archive_ref": ref})
                c.execute("UPDATE episodes SET content = ?, archive_ref = ? WHERE rowid = ?",
                          (content, ref, row["rowid"]))
                c.execute("DELETE FROM episodes_fts WHERE rowid = ?", (row["rowid"],))
                c.execute("INSERT INTO episodes_fts (rowid, text) VALUES (?, ?)", (row["rowid"], e.index_text()))
                n += 1
        return n

    def job_records(self, group_id: str, kind: str) -> list[JobRecord]:
        with self._lock:
            rows = self.conn.execute("SELECT group_id, kind, id, at, body FROM job_records WHERE group_id = ? "
                                     "AND kind = ? ORDER BY at, id", (group_id, kind)).fetchall()
        return [JobRecord(group_id=r[0], kind=r[1], id=r[2], at=_required_time(r[3]), body=json.loads(r[4]))
                for r in rows]

    _GROUP_TABLES = ("episodes", "entities", "mentions", "facts", "fact_links", "tombstones", "job_records")

    def swap_groups(self, a: str, b: str) -> None:
        if a == b:
            return
        parked = f"\x00swap\x00{a}"  # no group id holds a NUL
        with self._tx() as c:
            for table in self._GROUP_TABLES:
                for old, new in ((a, parked), (b, a), (parked, b)):
                    c.execute(f"UPDATE {table} SET group_id = ? WHERE group_id = ?", (new, old))
            for g in (a, b):  # every process's index of these groups starts again
                c.executemany("INSERT INTO changes (group_id, tbl, row) VALUES (?, ?, -1)", [(g, "e"), (g, "f")])

    def try_lock(self, group_id: str, name: str, owner: str, now: datetime, until: datetime,
                 steal_from: Sequence[str] = ()) -> str:
        with self._tx() as c:
            c.execute("INSERT INTO job_locks (group_id, name, owner, until) VALUES (?5, ?1, ?2, ?3) "
                      "ON CONFLICT (group_id, name) DO UPDATE SET owner = ?2, until = ?3 "
                      "WHERE job_locks.owner = ?2 OR job_locks.until <= ?4 "
                      "OR job_locks.owner IN (SELECT value FROM json_each(?6))",
                      (name, owner, to_iso(until), to_iso(now), group_id, json.dumps(list(steal_from))))
            row = c.execute("SELECT owner FROM job_locks WHERE group_id = ? AND name = ?",
                            (group_id, name)).fetchone()
        return str(row[0])

    def unlock(self, group_id: str, name: str, owner: str) -> None:
        with self._tx() as c:
            c.execute("DELETE FROM job_locks WHERE group_id = ? AND name = ? AND owner = ?", (group_id, name, owner))


def _required_time(value: str) -> datetime:
    dt = from_iso(value)
    assert dt is not None
    return dt


def _doc_len(size: bytes | None) -> int:
    """Token count of a one-column FTS5 document from its ``_docsize`` record
    (an SQLite varint), as ``bm25()`` reads it."""
    if not size:
        return 0
    value = 0
    for byte in size[:8]:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return (value << 8) | size[8]


def _among(codes: np.ndarray, wanted: list[int], size: int) -> np.ndarray:
    """``np.isin(codes, wanted)`` for small integer codes (1..size, 0 for none), as one
    table lookup: np.isin sorted the whole column on every call."""
    table = np.zeros(size + 1, dtype=bool)
    table[wanted] = True
    return table[codes]


def _blob(vec: np.ndarray | None) -> bytes | None:
    if vec is None:
        return None
    return np.asarray(vec, dtype=np.float32).tobytes()


def _chunks(items: list[Any], n: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]
