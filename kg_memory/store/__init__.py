"""Store adapters behind one interface."""

from .base import Store, TimeFilter, WriteBatch
from .url import open_store, parse_store_url, redact_url

__all__ = ["Store", "TimeFilter", "WriteBatch", "open_store", "parse_store_url", "redact_url"]
