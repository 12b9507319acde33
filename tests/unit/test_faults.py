"""Driver faults become StoreError at the store's edge; transient read faults are retried."""

from __future__ import annotations

import sqlite3

import pytest

from kg_memory.errors import StoreError
from kg_memory.store import faults
from kg_memory.store.reference import ReferenceStore


class Flaky(ReferenceStore):
    """A reference store whose reads fail the first ``n`` times with a given exception."""

    def __init__(self, exc: BaseException, n: int):
        super().__init__(dim=4)
        self.exc, self.left, self.calls = exc, n, 0

    def counts(self, group_id=None):  # a read
        self.calls += 1
        if self.left:
            self.left -= 1
            raise self.exc
        return super().counts(group_id)

    def requeue_failed(self, group_id):  # a write
        self.calls += 1
        raise self.exc


def _guarded(exc: BaseException, n: int) -> Flaky:
    cls = faults.guard("Test", lambda e: isinstance(e, sqlite3.OperationalError) and "locked" in str(e),
                       lambda e: f"{type(e).__name__}: {e}")(
        type("G", (Flaky,), {"counts": Flaky.counts, "requeue_failed": Flaky.requeue_failed}))
    return cls(exc, n)


def test_transient_read_faults_are_retried(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(faults, "BACKOFF_S", 0.0)
    store = _guarded(sqlite3.OperationalError("database is locked"), 2)
    assert store.counts("g")["episodes"] == 0 and store.calls == 3


def test_persistent_faults_and_writes_become_store_errors(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(faults, "BACKOFF_S", 0.0)
    store = _guarded(sqlite3.OperationalError("database is locked"), 10)
    with pytest.raises(StoreError, match="transient"):
        store.counts("g")
    assert store.calls == faults.ATTEMPTS
    broken = _guarded(sqlite3.IntegrityError("UNIQUE constraint failed"), 1)
    with pytest.raises(StoreError, match="IntegrityError") as info:
        broken.requeue_failed("g")
    assert broken.calls == 1 and info.value.exit_code == 4  # writes are never replayed


# -- no write is ever replayed -----------------------------------------------------------------
def _write_methods() -> list[str]:
    from kg_memory.store.base import Store

    names = {n for n in dir(Store) if not n.startswith("_") and callable(getattr(Store, n))}
    return sorted(names - faults.READS - {"read_scope"})


def _store_faults() -> list[tuple[str, type, list[BaseException]]]:
    """Each real store class, with the faults its own classifier calls transient (plus Neo4j's
    IncompleteCommit, which it must not)."""
    import neo4j.exceptions as nx

    from kg_memory.store.neo4j import Neo4jStore
    from kg_memory.store.sqlite import SQLiteStore

    return [("sqlite", SQLiteStore, [sqlite3.OperationalError("database is locked")]),
            ("neo4j", Neo4jStore, [nx.ServiceUnavailable("gone"), nx.TransientError("deadlock"),
                                   nx.SessionExpired("expired"), nx.IncompleteCommit("commit lost")])]


def _classifier(kind: str) -> tuple:
    """The store's own (transient, describe) pair, as its class decorator gets it."""
    if kind == "sqlite":
        from kg_memory.store.sqlite import store as sqlite_store

        return sqlite_store._transient, sqlite_store._describe
    from kg_memory.store.neo4j import keys

    return keys.transient, keys.describe


def test_every_write_is_named_and_every_read_exists():
    from kg_memory.store.base import Store

    writes = _write_methods()
    for must in ("swap_groups", "set_bodies", "try_lock", "unlock", "write", "erase", "claim_pending"):
        assert must in writes
    assert all(callable(getattr(Store, n, None)) for n in faults.READS)


@pytest.mark.parametrize("kind", ["sqlite", "neo4j"])
def test_a_transient_fault_in_any_write_is_never_replayed(kind: str, monkeypatch: pytest.MonkeyPatch):
    """A write method that fails with a fault its store calls transient runs once and fails as a
    StoreError: a lost commit (a swap, a lock, a body rewrite) is never run a second time."""
    monkeypatch.setattr(faults, "BACKOFF_S", 0.0)
    _, cls, excs = next(s for s in _store_faults() if s[0] == kind)
    transient, describe = _classifier(kind)
    for exc in excs:
        calls: dict[str, int] = {}

        def failing(name: str, exc: BaseException = exc, calls: dict[str, int] = calls):
            def method(self, *args, **kwargs):
                calls[name] = calls.get(name, 0) + 1
                raise exc
            return method

        body = {name: failing(name) for name in _write_methods()}
        guarded = faults.guard(kind, transient, describe)(type(f"Faulty{kind}", (cls,), body))
        store = object.__new__(guarded)
        for name in _write_methods():
            with pytest.raises(StoreError):
                getattr(store, name)()
        assert calls == {name: 1 for name in _write_methods()}, f"{type(exc).__name__} replayed a write"


@pytest.mark.parametrize("kind", ["sqlite", "neo4j"])
def test_the_same_fault_in_a_read_is_retried(kind: str, monkeypatch: pytest.MonkeyPatch):
    """The check above could pass with a guard that retries nothing: reads do retry the same faults."""
    monkeypatch.setattr(faults, "BACKOFF_S", 0.0)
    _, cls, excs = next(s for s in _store_faults() if s[0] == kind)
    transient, describe = _classifier(kind)
    exc = excs[0]
    calls = []

    def counts(self, group_id=None):
        calls.append(1)
        raise exc

    guarded = faults.guard(kind, transient, describe, attempts=3)(
        type(f"Flaky{kind}", (cls,), {"counts": counts}))
    with pytest.raises(StoreError, match="transient"):
        object.__new__(guarded).counts("g")
    assert len(calls) == 3


def test_an_incomplete_commit_is_not_transient():
    import neo4j.exceptions as nx

    from kg_memory.store.neo4j.keys import transient

    assert transient(nx.ServiceUnavailable("gone")) and not transient(nx.IncompleteCommit("lost"))


@pytest.mark.parametrize("kind", ["sqlite", "neo4j"])
def test_every_method_a_store_implements_is_guarded_wherever_it_is_written(kind: str):
    """A store written in parts (``sqlite/upkeep.py``, ``neo4j/held.py`` beside ``store.py``) has
    every interface method it implements behind the guard, the mixed-in ones too: a driver
    fault in an erasure or a job is a StoreError like any other."""
    from kg_memory.store.base import Store

    _, cls, _ = next(s for s in _store_faults() if s[0] == kind)
    names = {n for n in dir(Store) if not n.startswith("_") and callable(getattr(Store, n))}
    implemented = {n for n in names if getattr(cls, n) is not getattr(Store, n)}
    assert {"erase", "swap_groups", "entities", "try_lock", "search", "write"} <= implemented
    unguarded = sorted(n for n in implemented if not hasattr(getattr(cls, n), "__wrapped__"))
    assert not unguarded, unguarded
