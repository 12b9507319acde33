"""The public name of the memory tools (``from kg_memory.tools import MemoryTools``); they
live in :mod:`kg_memory.agent.tools`."""

from .agent.tools import MemoryTools, anthropic_tools, call, openai_tools, tool_names

__all__ = ["MemoryTools", "anthropic_tools", "call", "openai_tools", "tool_names"]
