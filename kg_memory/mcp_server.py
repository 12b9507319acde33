"""kgmem as an MCP server (the official ``mcp`` SDK): the memory tools over stdio
or streamable HTTP. One :class:`Memory` stays open for the server's life, so the
embedding model and the store are warm and a recall costs milliseconds.

The tool names and argument names are a contract (README, "MCP server"). Every
library error comes back as a tool error with kgmem's message; nothing a client
sends can crash the server or reach another group than the pinned one."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from .edits import EditResult
from .errors import ConfigError, ExtractionError, KgMemError
from .history import closing
from .memory import Memory
from .models import FactVersion, ScoredEpisode
from .worker import FlushTimeout

F = TypeVar("F", bound=Callable[..., Any])

READ_TOOLS = ("recall", "search_memories", "semantic_search_memories", "as_of_semantic_search", "get_memories",
              "get_memory_history", "get_related_memories")
WRITE_TOOLS = ("save_memory", "update_memory", "delete_memory")

INSTRUCTIONS = (
    "Long-term memory with time. save_memory stores what the user says; recall answers with the facts true "
    "now (or at as_of, as believed at known_at) and the turns behind them. Facts have ids: update_memory "
    "corrects one (or, with changed_at, records that the world changed), delete_memory retires one (it stays "
    "in history), get_memory_history shows every version.")


def _ts(v: Any) -> str | None:
    return v.isoformat().replace("+00:00", "Z") if v is not None else None


def fact_json(v: FactVersion) -> dict[str, Any]:
    return {"id": v.id, "fact_id": v.fact_id, "subject": v.subject, "predicate": v.predicate, "object": v.object,
            "statement": v.statement, "valid_from": _ts(v.valid_from), "valid_to": _ts(v.valid_to),
            "created_at": _ts(v.created_at), "expired_at": _ts(v.expired_at), "expired_by": v.expired_by,
            "episode_ids": list(v.episode_ids), "evidence": v.reinforcement_count}


def episode_json(se: ScoredEpisode) -> dict[str, Any]:
    e = se.episode
    return {"id": e.id, "content": e.content, "role": e.role, "speaker": e.speaker,
            "occurred_at": _ts(e.occurred_at), "score": round(se.score, 6)}


def edit_json(done: EditResult) -> dict[str, Any]:
    return {"kind": done.kind, "episode_id": done.episode_id, "closed": done.closed,
            "written": [fact_json(v) for v in done.written]}


class MemoryTools:
    """The tools as plain methods over one Memory and one group (what the server
    registers; ``kg_memory.tools`` describes the same tools for other agent loops)."""

    def __init__(self, memory: Memory, group: str, pinned: bool = True, wait: bool = False, read_wait: float = 10.0):
        self.m = memory
        self.group = group
        self.pinned = pinned
        self.wait = wait
        self.read_wait = read_wait  # seconds a read waits for saved turns still being extracted

    def _settled(self, out: dict[str, Any]) -> dict[str, Any]:
        """Read after write: before answering, wait (up to ``read_wait`` s) for the turns that
        save_memory stored to be extracted; say so when some still wait or failed."""
        try:
            self.m.flush(timeout=self.read_wait)
        except FlushTimeout as exc:
            out["note"] = str(exc)
        except ExtractionError as exc:
            out["note"] = str(exc)
        return out

    def _group(self, group: str | None) -> str:
        if group is None or group == self.group:
            return self.group
        if self.pinned:
            raise ConfigError(f"this server is pinned to one group; group {group!r} is not reachable from it")
        return group

    # -- writes ----------------------------------------------------------------
    def save_memory(self, content: str, occurred_at: str | None = None, role: str = "user",
                    group: str | None = None) -> dict[str, Any]:
        ep = self.m.episode(content, group=self._group(group), role=role, occurred_at=occurred_at, source="mcp")
        stats = self.m.add_episode(ep, wait=self.wait)
        if self.wait and stats.errors:
            raise KgMemError(f"stored episode {ep.id}, but extraction failed: {stats.errors[0]}")
        return {"episode_id": ep.id, "stored": True, "duplicate": stats.episodes_skipped > 0,
                "extracted": self.wait, "facts_added": stats.facts_added}

    def update_memory(self, fact_id: str, value: str, changed_at: str | None = None,
                      group: str | None = None) -> dict[str, Any]:
        g = self._group(group)
        done = self.m.correct(fact_id, value, group=g) if changed_at is None else \
            self.m.change(fact_id, value, changed_at, group=g)
        return edit_json(done)

    def delete_memory(self, fact_id: str, group: str | None = None) -> dict[str, Any]:
        return edit_json(self.m.retire(fact_id, group=self._group(group)))

    # -- reads -----------------------------------------------------------------
    def recall(self, query: str, as_of: str | None = None, known_at: str | None = None, k: int = 10,
               group: str | None = None) -> dict[str, Any]:
        if not 1 <= k <= 200:
            raise ConfigError(f"k must be between 1 and 200, got {k}")
        g = self._group(group)
        notes = self._settled({})
        out = self.m.recall(query, group=g, as_of=as_of, known_at=known_at, k=k).to_json()
        return {"context": out.pop("context_block"), **out, **notes}

    def search_memories(self, query: str, k: int = 10, group: str | None = None) -> dict[str, Any]:
        g = self._group(group)
        notes = self._settled({})
        return {"episodes": [episode_json(h) for h in self.m.search_text(query, group=g, k=k)], **notes}

    def semantic_search_memories(self, query: str, k: int = 10, group: str | None = None) -> dict[str, Any]:
        g = self._group(group)
        notes = self._settled({})
        return {"episodes": [episode_json(h) for h in self.m.search_semantic(query, group=g, k=k)], **notes}

    def as_of_semantic_search(self, query: str, valid_at: str | None = None, known_at: str | None = None,
                              k: int = 10, group: str | None = None) -> dict[str, Any]:
        g = self._group(group)
        notes = self._settled({})
        hits = self.m.search_semantic(query, group=g, k=k, as_of=valid_at, known_at=known_at)
        res = self.m.recall(query, group=g, as_of=valid_at, known_at=known_at, k=k)
        return {"valid_at": _ts(res.as_of), "known_at": _ts(res.known_at), "episodes": [episode_json(h) for h in hits],
                "facts": [fact_json(sf.fact) for sf in res.facts], **notes}

    def get_memories(self, entity: str | None = None, predicate: str | None = None,
                     group: str | None = None) -> dict[str, Any]:
        g = self._group(group)
        notes = self._settled({})
        found = self.m.facts(group=g, entity=entity, predicate=predicate, limit=1000)
        return {"facts": [fact_json(f) for f in found], **notes}

    def get_memory_history(self, fact_id: str, group: str | None = None) -> dict[str, Any]:
        g = self._group(group)
        self._settled({})
        versions = self.m.fact_history(fact_id, group=g)
        index = {v.id: v for v in versions}
        return {"versions": [{**fact_json(v), "closing": closing(v, index).text} for v in versions]}

    def get_related_memories(self, fact_id: str, k: int = 5, group: str | None = None) -> dict[str, Any]:
        g = self._group(group)
        self._settled({})
        related = self.m.related(fact_id, k=k, group=g)
        return {"facts": [{**fact_json(f), "similarity": round(s, 4)} for f, s in related]}


def _as_tool_error(fn: F) -> F:
    """A kgmem error becomes a tool error carrying its message (never a crash)."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KgMemError as exc:
            raise ToolError(str(exc)) from None

    return wrapper  # type: ignore[return-value]


def build_server(tools: MemoryTools, read_only: bool = False) -> Any:
    """The MCP server with the memory tools (only the read tools when ``read_only``)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="kgmem", instructions=INSTRUCTIONS)
    names = READ_TOOLS if read_only else READ_TOOLS + WRITE_TOOLS
    for name in names:
        method = getattr(tools, name)
        server.add_tool(_as_tool_error(method), name=name, description=DESCRIPTIONS[name])
    return server


DESCRIPTIONS = {
    "save_memory": "Store something said or observed (content), optionally when it happened (occurred_at, "
                   "ISO 8601) and who said it (role: user or assistant). Returns once it is durably stored.",
    "recall": "What is true now (or at as_of, as believed at known_at): a context block for the prompt, the "
              "facts with their ids, and the turns behind them.",
    "search_memories": "Full-text (BM25) search over stored turns.",
    "semantic_search_memories": "Meaning-based (embedding) search over stored turns.",
    "as_of_semantic_search": "Semantic search as of a past time: turns that had happened by valid_at, and "
                             "facts true at valid_at, as believed at known_at.",
    "get_memories": "List the facts true now, optionally about one entity and/or one predicate, with their ids.",
    "update_memory": "Fix a fact by id: without changed_at it is a correction (we were wrong; the old belief "
                     "closes); with changed_at (ISO 8601) the world changed then and the new value holds after.",
    "delete_memory": "Retire a fact by id: it stops being true now and stays in history (this is not erasure).",
    "get_memory_history": "Every version of a fact by id: when each was true, when it was believed, and why "
                          "its belief closed.",
    "get_related_memories": "Facts related to a fact by id (RELATED_TO links written when facts are stored).",
}
