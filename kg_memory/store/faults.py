"""Driver and database faults become ``StoreError`` (exit 4) at the store's edge, so no
caller ever sees a raw ``neo4j`` or ``sqlite3`` exception. Reads that fail with a
transient fault (a restarting server, a lock) are retried with backoff; writes are
not retried here (Neo4j's managed transactions already retry their own transient
faults, and a half-known commit must not be replayed): they fail as ``StoreError``
with the cause, and the run is resumable because episodes stay pending until their
extraction commits."""

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

WRITES = frozenset({"migrate", "add_episodes", "requeue_failed", "write", "erase", "close", "claim_pending",
                    "release_claims"})
ATTEMPTS = 4  # a read is tried this many times on a transient fault
BACKOFF_S = 0.25  # first pause; it doubles


def guard(kind: str, transient: Callable[[BaseException], bool], describe: Callable[[BaseException], str],
          attempts: int = ATTEMPTS) -> Callable[[T], T]:
    """A class decorator for a store: every method of the ``Store`` interface translates
    driver faults (anything not a ``KgMemError``) into ``StoreError``, retrying reads up to
    ``attempts`` times (fewer where the driver already retries on its own)."""

    def decorate(cls: T) -> T:
        names = {n for n in dir(Store) if not n.startswith("_") and callable(getattr(Store, n))}
        for name in sorted(names):
            method = cls.__dict__.get(name)
            if method is None or not callable(method):
                continue
            setattr(cls, name, _guarded(method, name, kind, name not in WRITES, transient, describe, attempts))
        return cls

    return decorate


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
