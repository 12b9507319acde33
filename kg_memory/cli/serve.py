"""`kgmem serve mcp`: the memory tools as an MCP server."""

from __future__ import annotations

import typer

from ..errors import ConfigError
from .common import GroupOpt, StoreOpt, handle_errors, open_memory

serve_app = typer.Typer(help="Serve kgmem to agents.", no_args_is_help=True)


@serve_app.command("mcp")
@handle_errors
def mcp(
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    transport: str = typer.Option("stdio", "--transport", help="stdio | http (streamable HTTP at /mcp)"),
    host: str = typer.Option("127.0.0.1", "--host", help="HTTP: the address to bind (default: this machine only)."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="HTTP: the port."),
    read_only: bool = typer.Option(False, "--read-only", help="Expose only the read tools."),
    wait: bool = typer.Option(False, "--wait", help="save_memory returns after extraction, not only once stored."),
    extractor: str | None = typer.Option(None, "--extractor", help="rules | llm (default: rules)"),
    any_group: bool = typer.Option(False, "--any-group",
                                   help="Let clients pass a group argument (default: pinned to --group)."),
) -> None:
    """Run the MCP server (tools: save_memory, recall, search_memories, semantic_search_memories,
    as_of_semantic_search, get_memories, update_memory, delete_memory, get_memory_history,
    get_related_memories). The model and store stay loaded while it runs."""
    from ..mcp_server import MemoryTools, build_server

    if transport not in ("stdio", "http"):
        raise ConfigError(f"--transport {transport!r}: use stdio or http")
    mem = open_memory(store, group, extractor)
    try:
        tools = MemoryTools(mem, group or mem.settings.group, pinned=not any_group, wait=wait)
        server = build_server(tools, read_only=read_only)
        if transport == "stdio":
            server.run("stdio")
        else:
            typer.echo(f"kgmem MCP server on http://{host}:{port}/mcp (group {tools.group!r}"
                       f"{', read-only' if read_only else ''})", err=True)
            server.run("streamable-http", host=host, port=port)
    finally:
        mem.close()
