"""kgmem as a service: API keys scoped to a group, the REST app (with MCP mounted under the same
keys), rate limits and metrics. ``kgmem serve http`` runs it (kg_memory/cli/serve.py)."""
