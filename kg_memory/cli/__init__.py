"""The kgmem command line: a thin layer over the library, one module per command group."""

from __future__ import annotations

import sys

import typer

from .admin import doctor, groups, model_app
from .bench import bench_app
from .facts import change, correct, facts, retire
from .forget import forget
from .ingest import ingest
from .jobs import jobs_app
from .keys import keys_app
from .ontology import ontology_app
from .recall import history, recall, timeline
from .serve import serve_app

app = typer.Typer(
    name="kgmem", help="Bitemporal knowledge-graph memory for AI agents.", no_args_is_help=True,
    pretty_exceptions_enable=False, add_completion=True, rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"kgmem {version('kgmem')}")
        raise typer.Exit()


_LEVELS = ("debug", "info", "warning", "error")


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Show the version and exit."),
          log_level: str = typer.Option("warning", "--log-level", envvar="KGMEM_LOG_LEVEL",
                                        help="debug | info | warning | error (on stderr). Episode text "
                                             "appears only at debug.")) -> None:
    """Bitemporal knowledge-graph memory for AI agents."""
    import logging

    level = log_level.lower()
    if level not in _LEVELS:
        raise typer.BadParameter(f"{log_level!r} is not one of {', '.join(_LEVELS)}", param_hint="--log-level")
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    for noisy in ("neo4j", "httpx", "httpcore", "urllib3"):  # their INFO lines repeat ours or carry URLs
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLogger().level))
app.command()(ingest)
app.command()(recall)
app.command()(history)
app.command()(timeline)
app.command()(facts)
app.command()(correct)
app.command()(change)
app.command()(retire)
app.command()(forget)
app.command()(doctor)
app.command()(groups)
app.add_typer(bench_app, name="bench")
app.add_typer(serve_app, name="serve")
app.add_typer(jobs_app, name="jobs")
app.add_typer(model_app, name="model")
app.add_typer(ontology_app, name="ontology")
app.add_typer(keys_app, name="keys")


def main() -> None:
    app(prog_name="kgmem")
