"""`kgmem serve http` (the REST API, MCP at /mcp and the /ui page, behind keys) and `kgmem serve mcp`."""

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
    from ..agent.mcp import MemoryTools, build_server

    if transport not in ("stdio", "http"):
        raise ConfigError(f"--transport {transport!r}: use stdio or http")
    if transport == "http" and _has_keys(store, host):
        typer.echo("the store has API keys: serving MCP at /mcp behind them (with the REST API)", err=True)
        _serve_http(store, host, port, extractor)
        return
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


def _has_keys(store: str | None, host: str) -> bool:
    """Whether the store has an active key; refuses a non-loopback ``host`` when it has none."""
    from ..service.app import is_loopback
    from .keys import key_ring

    with key_ring(store) as ring:
        active = ring.active()
    if not active and not is_loopback(host):
        raise ConfigError(f"--host {host}: the store has no API keys, so anyone who can reach that address could "
                          "read every group; make one with `kgmem keys create --group G`, or bind 127.0.0.1")
    return active


def _serve_http(store: str | None, host: str, port: int, extractor: str | None) -> None:
    import logging

    import uvicorn

    from ..service.app import build_app
    from ..service.keys import KeyRing

    mem = open_memory(store, None, extractor)
    try:
        app = build_app(mem, KeyRing(mem.store), host=host)
        logging.getLogger("kgmem.access").setLevel(logging.INFO)
        typer.echo(f"kgmem on http://{host}:{port} (REST /v1, MCP /mcp, page /ui, docs /docs; Ctrl-C stops it "
                   "after extracting what was accepted)", err=True)
        uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning", server_header=False)
    finally:
        mem.close()


@serve_app.command("http")
@handle_errors
def http(
    store: str | None = StoreOpt,
    host: str = typer.Option("127.0.0.1", "--host", help="The address to bind (anything but loopback needs a key "
                                                         "in the store)."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="The port."),
    extractor: str | None = typer.Option(None, "--extractor", help="rules | llm (default: rules)"),
) -> None:
    """Serve the REST API (/v1/groups/{group}/...), MCP at /mcp and a read-only page at /ui, every group route
    behind `Authorization: Bearer <key>` (`kgmem keys create`). SIGTERM or Ctrl-C drains extraction first."""
    _has_keys(store, host)
    _serve_http(store, host, port, extractor)
