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

from ..errors import KgMemError
from .tools import DESCRIPTIONS, MemoryTools, tool_names

F = TypeVar("F", bound=Callable[..., Any])

INSTRUCTIONS = (
    "Long-term memory with time. save_memory stores what the user says; recall answers with the facts true "
    "now (or at as_of, as believed at known_at) and the turns behind them. Facts have ids: update_memory "
    "corrects one (or, with changed_at, records that the world changed), delete_memory retires one (it stays "
    "in history), get_memory_history shows every version.")


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
    for name in tool_names(read_only):
        method = getattr(tools, name)
        server.add_tool(_as_tool_error(method), name=name, description=DESCRIPTIONS[name])
    return server


