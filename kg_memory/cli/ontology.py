"""`kgmem ontology`: check a file, give a group its ontology, show the one it has."""

from __future__ import annotations

from pathlib import Path

import typer

from ..core.ontology import Ontology, OntologyInUse, dump_toml, example_line, load_ontology_file
from ..extract.readback import ExampleRead
from ..settings import load_settings
from .common import GroupOpt, JsonOpt, StoreOpt, emit_json, handle_errors, open_memory

ontology_app = typer.Typer(help="The predicates a group's facts use: check, set, show.", no_args_is_help=True)

FileArg = typer.Argument(..., help="A TOML ontology file (README: Ontologies).", exists=False)


@ontology_app.command("check")
@handle_errors
def check(path: Path = FileArg, json_out: bool = JsonOpt,
          examples: bool = typer.Option(False, "--examples", help="Also read each example of the file's own "
                                                                  "predicates with the offline extractor and say "
                                                                  "which it does not read as their predicate.")
          ) -> None:
    """Check a file: every problem as `file:line: what is wrong; what to do`; nothing is written."""
    ont = load_ontology_file(path)
    reads = _read_examples(ont) if examples else []
    if json_out:
        emit_json({"ok": True, "version": ont.version, "predicates": len(ont.vocab.predicates),
                   "custom": sorted(ont.custom), **({"examples": [r.to_json() for r in reads]} if examples else {})})
        return
    typer.echo(f"{path}: ok, version {ont.version}: {len(ont.custom)} predicates of its own "
               f"({', '.join(sorted(ont.custom)) or 'none'}), {len(ont.vocab.predicates)} in all")
    if examples:
        _say_examples(path, reads)


def _read_examples(ont: Ontology) -> list[ExampleRead]:
    from ..embed.base import make_embedder
    from ..extract.readback import read_examples

    typer.echo("reading the examples with the offline extractor ...", err=True)
    return read_examples(ont, make_embedder(load_settings()))


def _say_examples(path: Path, reads: list[ExampleRead]) -> None:
    """One line per example the offline extractor does not read as its own predicate, then a count."""
    text = path.read_text("utf-8")
    for r in (r for r in reads if not r.read):
        typer.echo(f"{example_line(str(path), text, r.predicate, r.example)}: the example {r.example!r} of "
                   f"{r.predicate} reads as {r.said()}; the offline extractor will miss turns said so: rephrase it, "
                   f"or add an example it reads")
    typer.echo(f"{sum(r.read for r in reads)} of {len(reads)} examples read as their own predicate")


@ontology_app.command("set")
@handle_errors
def set_(path: Path = FileArg, group: str | None = GroupOpt, store: str | None = StoreOpt,
         force: bool = typer.Option(False, "--force", help="Set it even when it removes or retypes predicates "
                                                           "that current facts use (they stay as they are)."),
         json_out: bool = JsonOpt) -> None:
    """Give the group this ontology (checked first; the store keeps every version). Extraction
    uses it from the next episode on; `kgmem jobs reextract` replays older ones."""
    mem = open_memory(store, group)
    try:
        change = mem.set_ontology(path, group=group, force=force)
    except OntologyInUse as exc:
        raise OntologyInUse(exc.changes, "--force") from None
    finally:
        mem.close()
    if json_out:
        emit_json(change.to_json())
        return
    for line in change.changes:
        typer.echo(f"warning: {line}", err=True)
    typer.echo(f"group {change.group_id}: ontology {change.after}" if change.written
               else f"group {change.group_id}: ontology {change.after} already set; nothing written")


@ontology_app.command("show")
@handle_errors
def show(group: str | None = GroupOpt, store: str | None = StoreOpt, json_out: bool = JsonOpt) -> None:
    """The group's current ontology: its own file as TOML (the default when it has none)."""
    mem = open_memory(store, group)
    try:
        ont = mem.ontology(group)
        gid = group or mem.settings.group
    finally:
        mem.close()
    if json_out:
        emit_json({"group_id": gid, **ont.to_json()})
        return
    if ont.is_default:
        typer.echo(f"# group {gid}: the default ontology ({len(ont.vocab.predicates)} predicates, version "
                   f"{ont.version}); `kgmem ontology show --json` lists them")
        return
    typer.echo(f"# group {gid}: ontology {ont.version}")
    typer.echo(dump_toml(ont.source), nl=False)
