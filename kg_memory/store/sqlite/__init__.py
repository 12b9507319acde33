"""The SQLite store: the store (``store``) and its schema migrations (``migrations``)."""

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
