"""The Neo4j store's erasure and maintenance-job methods (``Store``'s erasure and maintenance
parts), beside the store's core in ``store.py``: the same session, queries and conversions."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from ...core.erasure import ErasePlan, Tombstone
from ...core.models import Entity, Episode, FactVersion, JobRecord
from .keys import bump_logs, group_key, to_dt_required
from .queries import query


class Neo4jUpkeep:
    """Mixed into :class:`Neo4jStore`, which gives the plumbing declared here."""

    _read: Callable[..., list[Any]]
    _collected: Callable[..., list[Any]]
    _session: Callable[..., Any]
    _facts: Callable[[list[Any]], list[FactVersion]]
    _episode: Callable[[Any], Episode]
    _entity: Callable[[Any], Entity]
    get_episodes: Callable[[str, list[str]], list[Episode]]
    _large: dict[Any, Any]
    _survival: dict[Any, Any]

    # -- erasure -----------------------------------------------------------------
    def episodes_about(self, group_id: str, entity_ids: list[str], text: str | None) -> list[str]:
        rows = self._read("episodes_about", group_id=group_id, entity_ids=list(dict.fromkeys(entity_ids)),
                          text=text or None)
        return [r["id"] for r in rows]

    def episode_hashes(self, group_id: str) -> list[str]:
        return [r["h"] for r in self._read("episodes_hashes", group_id=group_id)]

    def facts_citing(self, group_id: str, episode_ids: list[str], entity_ids: list[str]) -> list[FactVersion]:
        return self._facts(self._collected("facts_citing", group_id=group_id, episode_ids=list(episode_ids),
                                           entity_ids=list(entity_ids)))

    def erase(self, plan: ErasePlan, tombstone: Tombstone) -> Tombstone:
        g = plan.group_id
        out: list[Tombstone] = []

        def work(tx: Any) -> None:
            out.clear()
            bump_logs(tx, [g], reset=True)  # clients read the group's vectors again
            if plan.whole_group:
                row = tx.run(query("erase_group"), {"group_id": g}).single()
                counts = (row["episodes"], row["facts"], row["entities"])
            else:
                facts = tx.run(query("erase_versions"), {"group_id": g, "ids": plan.version_ids}).single()["removed"]
                rows = [{"id": vid, "episode_ids": list(ids), "evidence": n}
                        for vid, (ids, n) in plan.provenance.items()]
                tx.run(query("erase_provenance"), {"group_id": g, "rows": rows}).consume()
                tx.run(query("erase_links"), {"group_id": g, "fact_ids": plan.fact_ids}).consume()
                episodes = tx.run(query("erase_episodes"), {"group_id": g,
                                                            "ids": plan.episode_ids}).single()["removed"]
                entities = tx.run(query("erase_entities"), {
                    "group_id": g, "erased": plan.entity_ids,
                    "candidates": list(dict.fromkeys([*plan.entity_ids, *plan.maybe_orphans]))}).single()["removed"]
                counts = (episodes, facts, entities)
            done = replace(tombstone, episodes=counts[0], facts=counts[1], entities=counts[2])
            tx.run(query("tombstone_write"), {"id": done.id, "group_id": g, "kind": done.kind,
                                              "erased_at": done.erased_at, "reason": done.reason,
                                              "episodes": done.episodes, "facts": done.facts,
                                              "entities": done.entities}).consume()
            out.append(done)

        with self._session() as s:
            s.execute_write(work)
        return out[0]

    def tombstones(self, group_id: str) -> list[Tombstone]:
        rows = self._read("tombstones_list", group_id=group_id)
        return [Tombstone(id=t["id"], group_id=t["group_id"], kind=t["kind"], erased_at=to_dt_required(t["erased_at"]),
                          reason=t.get("reason"), episodes=t["episodes"], facts=t["facts"], entities=t["entities"])
                for t in (r["t"] for r in rows)]

    # -- maintenance jobs ------------------------------------------------------
    def entities(self, group_id: str, ids: list[str] | None = None) -> list[Entity]:
        if ids is None:
            return [self._entity(r["n"]) for r in self._read("entities_list", group_id=group_id)]
        rows = self._read("entities_get", group_id=group_id, ids=list(dict.fromkeys(ids)))
        return [self._entity(r["n"]) for r in rows]

    def entity_vectors(self, group_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        rows = self._read("entities_vectors", group_id=group_id, ids=list(dict.fromkeys(ids)))
        return {r["id"]: np.asarray(r["embedding"], dtype=np.float32) for r in rows}

    def list_episodes(self, group_id: str, limit: int, after: tuple[datetime, str] | None = None,
                      before: datetime | None = None, archived: bool | None = None) -> list[Episode]:
        rows = self._read("episodes_list", group_id=group_id, limit=max(limit, 0),
                          after_at=after[0] if after else None, after_id=after[1] if after else None,
                          before=before, archived=archived)
        return [self._episode(r["e"]) for r in rows]

    def set_bodies(self, group_id: str, bodies: Sequence[tuple[str, str, str | None]]) -> int:
        if not bodies:
            return 0
        current = {e.id: e for e in self.get_episodes(group_id, [b[0] for b in bodies])}
        rows = [{"id": eid, "content": content, "archive_ref": ref,
                 "index_text": current[eid].model_copy(update={"content": content}).index_text()}
                for eid, content, ref in bodies if eid in current]

        def work(tx: Any) -> int:
            return int(tx.run(query("episodes_set_bodies"), {"group_id": group_id, "rows": rows}).single()["changed"])

        with self._session() as s:
            return s.execute_write(work)

    def job_records(self, group_id: str, kind: str) -> list[JobRecord]:
        rows = self._read("job_records_list", group_id=group_id, kind=kind)
        return [JobRecord(group_id=group_id, kind=kind, id=r["id"], at=to_dt_required(r["at"]),
                          body=json.loads(r["body"])) for r in rows]

    def swap_groups(self, a: str, b: str) -> None:
        if a == b:
            return
        parked = f"\x00swap\x00{a}"  # no group id holds a NUL

        def work(tx: Any) -> None:
            bump_logs(tx, [a, b], reset=True)  # each group's log stays with its name; its rows do not
            for old, new in ((a, parked), (b, a), (parked, b)):
                tx.run(query("groups_move"), {"from": old, "to": new, "to_key": group_key(new)}).consume()

        with self._session() as s:
            s.execute_write(work)
        self._survival = {k: v for k, v in self._survival.items() if k[1] not in (a, b)}
        self._large = {k: v for k, v in self._large.items() if k[0] not in (a, b)}

    def try_lock(self, group_id: str, name: str, owner: str, now: datetime, until: datetime,
                 steal_from: Sequence[str] = ()) -> str:
        def work(tx: Any) -> str:
            row = tx.run(query("lock_take"), {"group_id": group_id, "name": name, "owner": owner, "now": now,
                                              "until": until, "steal": list(steal_from)}).single()
            return str(row["owner"])

        with self._session() as s:
            return str(s.execute_write(work))

    def unlock(self, group_id: str, name: str, owner: str) -> None:
        with self._session() as s:
            s.execute_write(lambda tx: tx.run(query("lock_release"), {"group_id": group_id, "name": name,
                                                                      "owner": owner}).consume())
