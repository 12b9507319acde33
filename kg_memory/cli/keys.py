"""`kgmem keys`: API keys for `kgmem serve http`, each confined to one group (or --any-group)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from ..errors import ConfigError
from ..service.keys import KeyRing
from ..settings import default_store_url, load_settings
from ..store.url import open_store
from .common import JsonOpt, StoreOpt, emit_json, handle_errors

keys_app = typer.Typer(help="API keys for `kgmem serve http` (stored hashed; a token is shown once).",
                       no_args_is_help=True)


@contextmanager
def key_ring(store: str | None) -> Iterator[KeyRing]:
    """The store's keys (the store alone: no model is loaded)."""
    settings = load_settings(store=store)
    st = open_store(settings.store or default_store_url(), password=settings.store_password())
    try:
        yield KeyRing(st)
    finally:
        st.close()


@keys_app.command("create")
@handle_errors
def create(
    group: str | None = typer.Option(None, "--group", "-g", help="The one group this key may reach."),
    any_group: bool = typer.Option(False, "--any-group", help="An admin key: every group (instead of --group)."),
    read_only: bool = typer.Option(False, "--read-only", help="Reads only: recall, facts, history."),
    name: str | None = typer.Option(None, "--name", help="A label to tell keys apart in `keys list`."),
    store: str | None = StoreOpt,
) -> None:
    """Make a key. The token is printed once, as the last line of stdout: keep it; only its hash is stored."""
    if (group is None) == (not any_group):
        raise ConfigError("say which group the key reaches: --group G, or --any-group for an admin key")
    with key_ring(store) as ring:
        key, token = ring.create(None if any_group else group, read_only=read_only, name=name)
    scope = "every group" if key.group is None else f"group {key.group!r}"
    typer.echo(f"key {key.id} for {scope}{', read-only' if key.read_only else ''}; the token below is shown once",
               err=True)
    typer.echo(token)


@keys_app.command("list")
@handle_errors
def list_keys(store: str | None = StoreOpt, json_out: bool = JsonOpt) -> None:
    """Every key: id, name, group, read-only, when made and revoked (never a token)."""
    with key_ring(store) as ring:
        keys = ring.list()
    if json_out:
        emit_json({"keys": [k.to_json() for k in keys]})
        return
    if not keys:
        typer.echo("No keys: `kgmem keys create --group G` makes one.", err=True)
        return
    for k in keys:
        j = k.to_json()
        state = f"revoked {j['revoked_at']}" if k.revoked_at else "active"
        typer.echo(f"{k.id}  {k.group or '(any group)':<20} {'read-only' if k.read_only else 'read-write':<10} "
                   f"{state:<30} {k.name}")


@keys_app.command("revoke")
@handle_errors
def revoke(key_id: str = typer.Argument(..., help="The key's id (see `kgmem keys list`)."),
           store: str | None = StoreOpt) -> None:
    """Revoke a key: every server on this store refuses it from its next request."""
    with key_ring(store) as ring:
        key = ring.revoke(key_id)
    typer.echo(f"revoked {key.id}")
