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
