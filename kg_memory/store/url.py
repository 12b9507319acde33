"""Store URLs: ``sqlite:///path.db``, ``neo4j://user:pass@host:7687[/db]`` and
``memory://`` (the reference store: in this process only, gone at exit). This
module is the one place that knows every store class."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..core.redact import redact_url
from ..errors import ConfigError
from .base import DEFAULT_DIM, Store

__all__ = ["StoreURL", "open_store", "parse_store_url", "redact_url"]

_DB_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9.\-]{0,62}$")


@dataclass(frozen=True)
class StoreURL:
    scheme: str
    path: Path | None = None
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: str | None = None
    database: str | None = None


def parse_store_url(url: str) -> StoreURL:
    if url == "memory://":
        return StoreURL("memory")
    if url.startswith("sqlite://"):
        rest = url[len("sqlite://"):]
        if not rest.startswith("/") or rest == "/":
            raise ConfigError(f"store URL {url!r}: use sqlite:///relative.db or sqlite:////absolute/path.db")
        return StoreURL("sqlite", path=Path(rest[1:]).expanduser())
    parts = urlsplit(url)
    if parts.scheme in ("neo4j", "bolt", "neo4j+s", "neo4j+ssc", "bolt+s", "bolt+ssc"):
        if not parts.hostname:
            raise ConfigError(f"store URL {redact_url(url)!r}: missing host (neo4j://user:pass@host:7687)")
        db = parts.path.strip("/") or None
        if db is not None and not _DB_NAME.match(db):
            raise ConfigError(f"store URL: database name {db!r} is not a valid Neo4j database name")
        try:
            port = parts.port or 7687
        except ValueError:
            raise ConfigError(f"store URL {redact_url(url)!r}: bad port") from None
        return StoreURL(parts.scheme, host=parts.hostname, port=port,
                        user=unquote(parts.username) if parts.username else "neo4j",
                        password=unquote(parts.password) if parts.password else None, database=db)
    raise ConfigError(
        f"store URL {redact_url(url)!r} not understood: use sqlite:///path.db, neo4j://user:pass@host:7687 "
        "or memory://"
    )


def open_store(url: str, *, migrate: bool = True, dim: int = DEFAULT_DIM, cache_groups: int = 64,
               password: str | None = None) -> Store:
    """Open (and by default migrate) the store a URL names. ``cache_groups``: how many
    groups' in-memory indexes a store keeps (SQLite: vectors, times and text postings; Neo4j:
    episode vectors); the least recently used go first.
    ``password`` (from a password file) replaces any password in the URL."""
    u = parse_store_url(url)
    if password is not None and u.scheme not in ("sqlite", "memory"):
        u = replace(u, password=password)
    store: Store
    if u.scheme == "sqlite":
        from .sqlite import SQLiteStore

        store = SQLiteStore(u.path, dim=dim, max_groups=cache_groups)  # type: ignore[arg-type]
    elif u.scheme == "memory":
        from .reference import ReferenceStore

        store = ReferenceStore(dim=dim)
    else:
        from .neo4j import Neo4jStore

        store = Neo4jStore(u, dim=dim, max_groups=cache_groups)
    if migrate:
        store.migrate()
    return store
