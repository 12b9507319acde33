"""Maintenance jobs over a store (``kgmem jobs ...``): the hub report here, and the
runner every job goes through (the group's lock, and a record of each run for
``kgmem jobs status``). Entity resolution is in ``merges.py``, archiving in
``archive.py``, shadow re-extraction in ``shadow.py``.

A hub is an entity with many facts believed now ("the user" in a long chat). Graph
expansion through a hub costs the most, so recall caps it: every expansion read
takes a limit (``Store.facts_for_entities``), which a hub's facts reach first."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..errors import EXIT_BUSY, KgMemError
from ..ingest.leases import claim_owner, dead_owners
from ..store.base import JobRecord, Store, WriteBatch

HUB_MIN_DEGREE = 50  # facts believed now at which `kgmem jobs hubs` reports an entity


@dataclass
class Hub:
    entity_id: str
    name: str
    degree: int
    predicates: dict[str, int] = field(default_factory=dict)  # the most frequent first

    def to_json(self) -> dict[str, object]:
        return {"entity_id": self.entity_id, "name": self.name, "degree": self.degree,
                "predicates": dict(self.predicates)}


def hubs(store: Store, group_id: str, min_degree: int, top: int = 5) -> list[Hub]:
    """Entities with at least ``min_degree`` versions believed now at an end, the
    largest first (ties by name), each with its ``top`` predicates by count."""
    found: dict[str, Hub] = {}
    for entity_id, name, predicate, n in store.entity_degrees(group_id):
        hub = found.setdefault(entity_id, Hub(entity_id, name, 0))
        hub.degree += n
        hub.predicates[predicate] = n
    out = [h for h in found.values() if h.degree >= min_degree]
    for h in out:
        h.predicates = dict(sorted(h.predicates.items(), key=lambda kv: (-kv[1], kv[0]))[:top])
    return sorted(out, key=lambda h: (-h.degree, h.name, h.entity_id))


# -- the runner: locks, records, the nightly sequence ------------------------------------------

LOCK = "jobs"
LOCK_SECONDS = 6 * 3600  # a run that dies leaves the lock to expire after this long


class JobBusy(KgMemError):
    """Another run holds the group's jobs lock."""

    exit_code = EXIT_BUSY


@dataclass
class RunRecord:
    """A job's last run on a group: what ``kgmem jobs status`` shows."""

    job: str
    group_id: str
    started_at: str
    seconds: float
    outcome: str  # ok | failed
    counts: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"job": self.job, "group_id": self.group_id, "started_at": self.started_at,
                "seconds": round(self.seconds, 3), "outcome": self.outcome, "counts": self.counts,
                "error": self.error}


class Jobs:
    """Runs maintenance jobs on one store under the group's lock, and records each run."""

    def __init__(self, store: Store, now: Callable[[], datetime], owner: str | None = None):
        self.store = store
        self.now = now
        self.owner = owner or claim_owner()

    def _take(self, group: str) -> str:
        """Take the group's lock; a holder that is a dead process of this machine is taken over at
        once, as extraction claims are. Returns the holder."""
        now = self.now()
        until = now + timedelta(seconds=LOCK_SECONDS)
        holder = self.store.try_lock(group, LOCK, self.owner, now, until)
        if holder != self.owner and dead_owners([holder]):
            holder = self.store.try_lock(group, LOCK, self.owner, now, until, steal_from=[holder])
        return holder

    @contextmanager
    def locked(self, group: str) -> Iterator[None]:
        holder = self._take(group)
        if holder != self.owner:
            raise JobBusy(f"another maintenance run ({holder}) holds group {group!r}'s lock; wait for it to end "
                          f"(a run of another machine that died frees it after {LOCK_SECONDS // 3600} hours)")
        try:
            yield
        finally:
            self.store.unlock(group, LOCK, self.owner)

    def run(self, job: str, group: str, work: Callable[[], Any], counts: Callable[[Any], dict[str, Any]],
            record: bool = True) -> Any:
        """Run one job under the group's lock; record its run (also when it fails, then re-raise)."""
        started = self.now()
        t0 = time.perf_counter()
        with self.locked(group):
            try:
                result = work()
            except KgMemError as exc:
                if record:
                    self._record(RunRecord(job, group, started.isoformat(), time.perf_counter() - t0, "failed",
                                           error=str(exc)))
                raise
            if record:
                self._record(RunRecord(job, group, started.isoformat(), time.perf_counter() - t0, "ok",
                                       counts(result)))
            return result

    def _record(self, r: RunRecord) -> None:
        self.store.write(WriteBatch(records=[JobRecord(r.group_id, "run", r.job, self.now(), r.to_json())]))

    def status(self, group: str) -> list[RunRecord]:
        out = []
        for rec in self.store.job_records(group, "run"):
            b = rec.body
            out.append(RunRecord(b["job"], b["group_id"], b["started_at"], float(b["seconds"]), b["outcome"],
                                 dict(b.get("counts") or {}), b.get("error")))
        return sorted(out, key=lambda r: r.job)
