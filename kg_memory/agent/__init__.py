"""Memory for agents: the memory tools, described once (``tools``), and the MCP server over
stdio (``mcp``). ``kg_memory.tools`` is the public name of the tools."""
