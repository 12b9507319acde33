"""Shared CLI plumbing: options, error handling and output."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from ..errors import ConfigError, InputError, KgMemError
from ..memory import Memory
from ..settings import load_settings

F = TypeVar("F", bound=Callable[..., Any])

StoreOpt = typer.Option(None, "--store", help="Store URL (sqlite:///path.db or neo4j://user:pass@host:7687). "
                        "Default: $KGMEM_STORE or a file in the kgmem data directory.")
GroupOpt = typer.Option(None, "--group", "-g", help="Group (tenant) id. Default: $KGMEM_GROUP or 'default'.")
JsonOpt = typer.Option(False, "--json", help="Print machine-readable JSON.")


def handle_errors(fn: F) -> F:
    """Turn library errors into `Error: ...` on stderr and a non-zero exit."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            for p in exc.problems[:50]:
                typer.echo(f"Error: {p}", err=True)
            if len(exc.problems) > 50:
                typer.echo(f"Error: ... and {len(exc.problems) - 50} more problems", err=True)
            typer.echo(f"Nothing was written. {exc.hint}", err=True)
            raise typer.Exit(exc.exit_code) from None
        except ConfigError as exc:  # the library names its arguments; the CLI shows them as options
            typer.echo(f"Error: {exc.as_flags()}", err=True)
            raise typer.Exit(exc.exit_code) from None
        except KgMemError as exc:
            typer.echo(f"Error: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def open_memory(store: str | None, group: str | None, extractor: str | None = None, **kw: Any) -> Memory:
    settings = load_settings(store=store, group=group, extractor=extractor)
    return Memory.open(settings.store, settings=settings, **kw)


def missing_store(store: str | None) -> str | None:
    """"no store at …" when the SQLite file the command would read does not exist,
    so that a read-only command never creates an empty store."""
    from ..settings import default_store_url
    from ..store.url import parse_store_url

    settings = load_settings(store=store)
    target = parse_store_url(settings.store or default_store_url())
    if target.scheme == "sqlite" and target.path is not None and not target.path.exists():
        return f"no store at {target.path} (the first `kgmem ingest` creates it)"
    return None


def emit_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, indent=2, default=str, ensure_ascii=False))

