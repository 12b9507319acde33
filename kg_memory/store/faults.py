"""Driver and database faults become ``StoreError`` (exit 4) at the store's edge, so no
caller ever sees a raw ``neo4j`` or ``sqlite3`` exception. Only the reads named in
``READS`` are retried on a transient fault (a restarting server, a lock), with backoff.
Every other method is a write, or may write, and is never replayed here: a commit whose
outcome is unknown (Neo4j's ``IncompleteCommit``) could have landed, and a replay of a
swap, a lock or a body rewrite would undo or repeat it. Neo4j's managed transactions retry
their own transient faults before the commit; a failed write is a ``StoreError`` with the
cause, and a run is resumable because episodes stay pending until their extraction commits."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import KgMemError, StoreError
from .base import Store

log = logging.getLogger(__name__)

T = TypeVar("T", bound=type)

# The methods of the Store interface that only read. Anything not named here is never retried,
# so a new method is a non-retried write until someone adds it here on purpose.
READS = frozenset({
    "applied_migrations", "info", "pending_episodes", "claim_owners", "get_episodes", "previous_turns", "neighbours",
    "find_entities", "mentions", "current_facts", "history", "fact_versions", "list_facts", "related",
    "facts_for_entities", "ended_facts", "episodes_about", "episode_hashes", "facts_citing", "tombstones",
    "episode_text_search", "episode_vector_search", "fact_text_search", "fact_vector_search", "search", "cosines",
    "counts",
    "groups", "entity_degrees", "entity_names", "entities", "entity_vectors", "list_episodes", "job_records",
})
ATTEMPTS = 4  # a read is tried this many times on a transient fault
BACKOFF_S = 0.25  # first pause; it doubles


def guard(kind: str, transient: Callable[[BaseException], bool], describe: Callable[[BaseException], str],
          attempts: int = ATTEMPTS) -> Callable[[T], T]:
    """A class decorator for a store: every method of the ``Store`` interface translates
    driver faults (anything not a ``KgMemError``) into ``StoreError``, retrying the ``READS``
    up to ``attempts`` times (fewer where the driver already retries on its own)."""

    def decorate(cls: T) -> T:
        names = {n for n in dir(Store) if not n.startswith("_") and callable(getattr(Store, n))}
        for name in sorted(names):
            method = _implementation(cls, name)
            if method is None or not callable(method):
                continue
            setattr(cls, name, _guarded(method, name, kind, name in READS, transient, describe, attempts))
        return cls

    return decorate


def _implementation(cls: type, name: str) -> Any:
    """The store's own definition of an interface method: on the class or on a part mixed into
    it (``sqlite/upkeep.py``), never the port's default."""
    for klass in cls.__mro__:
        if klass is Store:
            return None
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _guarded(method: Callable[..., Any], name: str, kind: str, retry: bool,
             transient: Callable[[BaseException], bool], describe: Callable[[BaseException], str],
             attempts: int) -> Callable[..., Any]:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        pause = BACKOFF_S
        for attempt in range(1, attempts + 1):
            try:
                return method(*args, **kwargs)
            except KgMemError:
                raise
            except Exception as exc:
                if retry and transient(exc) and attempt < attempts:
                    log.warning("%s %s: transient fault (%s); retry %d in %.2f s", kind, name, describe(exc),
                                attempt, pause)
                    time.sleep(pause)
                    pause *= 2
                    continue
                again = " (transient: run the command again; nothing half-written stays)" if transient(exc) else ""
                raise StoreError(f"{kind} failed in {name}: {describe(exc)}{again}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    return wrapper
