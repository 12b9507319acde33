"""The Neo4j store: the store (``store``), its queries (the repo's ``cypher/*.cypher``, loaded by
``queries``), its encodings (``keys``), the vectors it holds in this process (``held``) and its
fetch planning (``planning``)."""

from .store import Neo4jStore

__all__ = ["Neo4jStore"]
