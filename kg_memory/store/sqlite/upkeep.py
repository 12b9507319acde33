"""The SQLite store's erasure and maintenance-job methods (``Store``'s erasure and maintenance
parts), beside the store's core in ``store.py``. Mixed into :class:`SQLiteStore`."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from ...core.erasure import ErasePlan, Tombstone
from ...core.models import Entity, Episode, FactVersion, JobRecord
from ...core.timeutil import to_iso
from .rows import ENT_COLS, EP_COLS, chunks, required_time


class SQLiteUpkeep:
    """Erasure and maintenance of :class:`SQLiteStore`, which gives the plumbing declared here."""

    conn: sqlite3.Connection
    _lock: threading.RLock
    _tx: Callable[[], Any]
    _episode: Callable[[sqlite3.Row], Episode]
    _entity: Callable[[sqlite3.Row], Entity]
    _facts_where: Callable[..., dict[str, FactVersion]]
    _citing: Callable[[str, list[str]], dict[str, FactVersion]]

    # -- erasure -----------------------------------------------------------------
    def episodes_about(self, group_id: str, entity_ids: list[str], text: str | None) -> list[str]:
        found: set[str] = set()
        with self._lock:
            for part in chunks(list(dict.fromkeys(entity_ids)), 400):
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
        for part in chunks(plan.version_ids, 400):
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
        for part in chunks(plan.episode_ids, 400):
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
                          erased_at=required_time(r["erased_at"]), reason=r["reason"], episodes=r["episodes"],
                          facts=r["facts"], entities=r["entities"]) for r in rows]

    # -- maintenance jobs ------------------------------------------------------
    def entities(self, group_id: str, ids: list[str] | None = None) -> list[Entity]:
        with self._lock:
            if ids is None:
                rows = self.conn.execute(f"SELECT {ENT_COLS} FROM entities WHERE group_id = ? ORDER BY id",
                                         (group_id,)).fetchall()
            else:
                rows = []
                for chunk in chunks(list(dict.fromkeys(ids)), 500):
                    rows += self.conn.execute(
                        f"SELECT {ENT_COLS} FROM entities WHERE group_id = ? AND id IN ({','.join('?' * len(chunk))})",
                        (group_id, *chunk)).fetchall()
        return sorted((self._entity(r) for r in rows), key=lambda n: n.id)

    def entity_vectors(self, group_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for chunk in chunks(list(dict.fromkeys(ids)), 500):
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
            rows = self.conn.execute(f"SELECT {EP_COLS} FROM episodes WHERE {' AND '.join(where)} "
                                     "ORDER BY occurred_at, id LIMIT ?", (*args, max(limit, 0))).fetchall()
        return [self._episode(r) for r in rows]

    def set_bodies(self, group_id: str, bodies: Sequence[tuple[str, str, str | None]]) -> int:
        n = 0
        with self._tx() as c:
            for eid, content, ref in bodies:
                row = c.execute(f"SELECT rowid, {EP_COLS} FROM episodes WHERE id = ? AND group_id = ?",
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
        return [JobRecord(group_id=r[0], kind=r[1], id=r[2], at=required_time(r[3]), body=json.loads(r[4]))
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

