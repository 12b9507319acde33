"""The kgmem command line: a thin layer over the library, one module per command group."""

from __future__ import annotations

import typer

from .admin import doctor, model_app
from .bench import bench_app
from .ingest import ingest
from .recall import history, recall

app = typer.Typer(
    name="kgmem", help="Bitemporal knowledge-graph memory for AI agents.", no_args_is_help=True,
    pretty_exceptions_enable=False, add_completion=True,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"kgmem {version('kgmem')}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Show the version and exit.")) -> None:
    """Bitemporal knowledge-graph memory for AI agents."""
app.command()(ingest)
app.command()(recall)
app.command()(history)
app.command()(doctor)
app.add_typer(bench_app, name="bench")
app.add_typer(model_app, name="model")


def main() -> None:
    app()
