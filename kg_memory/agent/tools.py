"""The memory tools, once: what they do (:class:`MemoryTools`, over one Memory and
one group), and their JSON schemas in the OpenAI and Anthropic tool formats, for an
agent loop that calls kgmem in-process. ``kgmem serve mcp`` serves the same tools
(kg_memory/agent/mcp.py); the tool and argument names are a contract.

>>> from kg_memory import Memory
>>> tools = MemoryTools(Memory.open(f"sqlite:///{tmp}/tools.db"), group="alice")
>>> openai_tools()[0]["function"]["name"]      # the tools= of a chat completion
'recall'
>>> call(tools, "save_memory", {"content": "I live in Lisbon."})["stored"]
True
>>> call(tools, "recall", {"query": "Where do I live?"})["episodes"][0]["content"]
'I live in Lisbon.'
>>> call(tools, "recall", {})["error"]           # a bad call answers with the error, to show the model
"bad arguments for recall: ('query',): Field required"
>>> tools.m.close()
"""

from __future__ import annotations

import functools
import inspect
import json
from typing import Any, get_type_hints

from pydantic import BaseModel, ValidationError, create_model

from ..core.models import FactVersion, ScoredEpisode
from ..errors import ConfigError, ExtractionError, FlushTimeout, KgMemError
from ..ingest.edits import EditResult
from ..memory import Memory
from ..recall.history import closing

READ_TOOLS = ("recall", "search_memories", "semantic_search_memories", "as_of_semantic_search", "get_memories",
              "get_memory_history", "get_related_memories")
WRITE_TOOLS = ("save_memory", "update_memory", "delete_memory")


def _ts(v: Any) -> str | None:
    return v.isoformat().replace("+00:00", "Z") if v is not None else None


def fact_json(v: FactVersion) -> dict[str, Any]:
    return {"id": v.id, "fact_id": v.fact_id, "subject": v.subject, "predicate": v.predicate, "object": v.object,
            "statement": v.statement, "valid_from": _ts(v.valid_from), "valid_to": _ts(v.valid_to),
            "created_at": _ts(v.created_at), "expired_at": _ts(v.expired_at), "expired_by": v.expired_by,
            "episode_ids": list(v.episode_ids), "evidence": v.reinforcement_count}


def episode_json(se: ScoredEpisode) -> dict[str, Any]:
    e = se.episode
    return {"id": e.id, "content": e.display_text(), "archived": e.archived, "role": e.role, "speaker": e.speaker,
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




@functools.cache
def _arguments(name: str) -> type[BaseModel]:
    """A tool's arguments as a model, from the method's signature (``group`` is the
    application's to pin, so it is left out)."""
    fn = getattr(MemoryTools, name)
    hints = get_type_hints(fn)
    fields: dict[str, Any] = {}
    for pname, p in inspect.signature(fn).parameters.items():
        if pname in ("self", "group"):
            continue
        fields[pname] = (hints[pname], ... if p.default is p.empty else p.default)
    model: type[BaseModel] = create_model(f"{name}_arguments", **fields)
    return model


def _parameters(name: str) -> dict[str, Any]:
    """The JSON schema of a tool's arguments."""
    schema = _arguments(name).model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


def tool_names(read_only: bool = False) -> tuple[str, ...]:
    return READ_TOOLS if read_only else READ_TOOLS + WRITE_TOOLS


def openai_tools(read_only: bool = False) -> list[dict[str, Any]]:
    """The tools for OpenAI-style chat completions (``tools=``)."""
    return [{"type": "function", "function": {"name": n, "description": DESCRIPTIONS[n],
                                              "parameters": _parameters(n)}} for n in tool_names(read_only)]


def anthropic_tools(read_only: bool = False) -> list[dict[str, Any]]:
    """The tools for Anthropic's Messages API (``tools=``)."""
    return [{"name": n, "description": DESCRIPTIONS[n], "input_schema": _parameters(n)}
            for n in tool_names(read_only)]


def call(tools: MemoryTools, name: str, arguments: dict[str, Any] | str | None, read_only: bool = False
         ) -> dict[str, Any]:
    """Run one tool call from a model: the result, or ``{"error": message}`` for a bad
    call (unknown tool, arguments that do not match the schema, a kgmem error). The
    message is for the model to read and correct; nothing raises."""
    if name not in tool_names(read_only):
        return {"error": f"unknown tool {name!r}; the tools are {', '.join(tool_names(read_only))}"}
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
    except (ValueError, TypeError) as exc:
        return {"error": f"arguments are not a JSON object: {exc}"}
    if not isinstance(args, dict):
        return {"error": "arguments must be a JSON object"}
    unknown = set(args) - set(_parameters(name).get("properties", {}))
    if unknown:
        return {"error": f"{name} takes no argument {sorted(unknown)[0]!r}"}
    try:
        checked = _validate(name, args)
        return dict(getattr(tools, name)(**checked))
    except KgMemError as exc:
        return {"error": str(exc)}
    except ValidationError as exc:
        return {"error": f"bad arguments for {name}: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}"}


def _validate(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return _arguments(name)(**args).model_dump(exclude_unset=True)


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
