"""Reusable memory checks for any backend (see :mod:`kg_memory.testing.plugin`)."""

from .adapter import MemoryAdapter, KgMemAdapter

__all__ = ["KgMemAdapter", "MemoryAdapter"]
