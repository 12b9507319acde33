"""Reusable memory checks for any backend (see :mod:`kg_memory.testing.plugin`)."""

from .adapter import KgMemAdapter, MemoryAdapter

__all__ = ["KgMemAdapter", "MemoryAdapter"]
