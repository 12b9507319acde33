"""A store whose server goes away mid-run: the real driver's faults come out as one
StoreError (exit 4), reads after retries with backoff, writes at once; never a raw
driver exception. The server is made unreachable by pointing the open store's driver
at a port where nothing listens (the shared server itself keeps running)."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

import pytest

from kg_memory.core.models import Episode
from kg_memory.errors import StoreError
from kg_memory.store import faults
from kg_memory.store.base import TimeFilter
from kg_memory.store.url import open_store

from ..conftest import neo4j_url


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_neo4j_going_away_is_a_store_error(monkeypatch: pytest.MonkeyPatch):
    import neo4j

    monkeypatch.setattr(faults, "BACKOFF_S", 0.01)
    store = open_store(neo4j_url(), dim=384)
    live = store.driver  # type: ignore[attr-defined]
    store.driver = neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{_dead_port()}",  # type: ignore[attr-defined]
                                              auth=("neo4j", "x"), connection_timeout=0.5,
                                              max_transaction_retry_time=0.5)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    try:
        with pytest.raises(StoreError, match="transient") as read:
            store.counts("g")
        assert read.value.exit_code == 4 and not isinstance(read.value.__cause__, StoreError)
        with pytest.raises(StoreError, match="add_episodes"):
            store.add_episodes([Episode(group_id="g", content="hello", occurred_at=now, created_at=now)])
        with pytest.raises(StoreError):
            store.facts_for_entities("g", ["en_x"], TimeFilter(as_of=now, known_at=now), 5)
    finally:
        store.driver.close()  # type: ignore[attr-defined]
        store.driver = live  # type: ignore[attr-defined]
        store.close()
