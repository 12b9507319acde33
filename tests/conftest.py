"""Shared fixtures. Real SQLite, a real Neo4j (started by scripts/run-tests.sh) and
the real MiniLM model; nothing is mocked.

The Neo4j URL comes from KGMEM_TEST_NEO4J_URL (set by `make test`) or from the
.neo4j/url file that `make neo4j-up` writes. If neither leads to a live server,
every Neo4j test fails with the reason: it is never skipped."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from kg_memory.core.timeutil import Clock
from kg_memory.embed.base import CachedEmbedder
from kg_memory.embed.minilm import MiniLMEmbedder
from kg_memory.memory import Memory
from kg_memory.settings import Settings
from kg_memory.store.base import Store
from kg_memory.store.url import open_store

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
# The project's planted-contradiction cases (the LLM replay recordings match their turns), and a second set
# written in phrasings the first does not use.
CONTRADICTIONS = FIXTURES / "contradictions-dev.json"
PHRASINGS = FIXTURES / "contradictions-phrasings.json"
SAMPLE = ROOT / "examples" / "sample_conversation.jsonl"
# `make test-fast` sets KGMEM_TEST_STORES=memory: the contract suite on the reference store alone, no Neo4j
STORES = os.environ.get("KGMEM_TEST_STORES", "sqlite,neo4j").split(",")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        for marker in ("unit", "contract", "e2e", "llm"):
            if marker in parts:
                item.add_marker(getattr(pytest.mark, marker))
    # Rebuilding Neo4j's schema re-indexes every row on the shared server: run it while the server is
    # still nearly empty (at the end of the suite it took a minute).
    items.sort(key=lambda item: 0 if item.name.startswith("test_migrating_a_blank_store") else 1)


def neo4j_url() -> str:
    url = os.environ.get("KGMEM_TEST_NEO4J_URL")
    if not url:
        f = ROOT / ".neo4j" / "url"
        url = f.read_text().strip() if f.exists() else ""
    if not url:
        pytest.fail("no Neo4j for the contract tests: run `make test` (it starts one) or `make neo4j-up` first",
                    pytrace=False)
    return url


@pytest.fixture(autouse=True)
def _kgmem_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "kgmem-home"
    monkeypatch.setenv("KGMEM_HOME", str(home))
    for var in ("KGMEM_STORE", "KGMEM_GROUP", "KGMEM_EXTRACTOR", "KGMEM_EMBEDDER", "KGMEM_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(scope="session")
def embedder() -> CachedEmbedder:
    return CachedEmbedder(MiniLMEmbedder.load())


@pytest.fixture(scope="session")
def neo4j_store_session() -> Iterator[Store]:
    from kg_memory.errors import StoreError

    try:
        st = open_store(neo4j_url(), dim=384)
    except StoreError as exc:
        pytest.fail(f"Neo4j is not usable: {exc}", pytrace=False)
    yield st
    st.close()


@pytest.fixture(scope="session")
def neo4j_held_store(neo4j_store_session: Store) -> Iterator[Store]:
    """A second Neo4j store whose every search runs on the vectors it holds: the
    first search of a group loads them, on the spot. (The session store answers a group's
    first search on the server and loads in the background from the second.)"""
    st = open_store(neo4j_url(), dim=384)
    st.held.hold_after, st.held.background = 1, False  # type: ignore[attr-defined]
    yield st
    st.close()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    st = open_store(f"sqlite:///{tmp_path / 'kg.db'}", dim=384)
    yield st
    st.close()


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        st = open_store(f"sqlite:///{tmp_path / 'kg.db'}", dim=384)
        yield st
        st.close()
    elif request.param == "memory":
        st = open_store("memory://", dim=384)
        yield st
        st.close()
    else:
        yield request.getfixturevalue("neo4j_store_session")


@pytest.fixture
def group() -> str:
    """A fresh group per test keeps tests on the shared Neo4j independent."""
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def make_memory(store: Store, embedder: CachedEmbedder):
    def make(clock: Clock | None = None, **settings: object) -> Memory:
        return Memory(store, settings=Settings(**settings), embedder=embedder, clock=clock, owns_store=False)

    return make
