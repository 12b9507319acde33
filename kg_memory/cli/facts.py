"""`kgmem facts` (list fact versions) and the edits by fact id: `correct`, `change`, `retire`."""

from __future__ import annotations

from collections.abc import Callable

import typer

from ..ingest.edits import EditResult
from ..memory import Memory
from ..recall.history import day, short_id
from .common import GroupOpt, JsonOpt, StoreOpt, emit_json, handle_errors, open_memory


@handle_errors
def facts(
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    entity: str | None = typer.Option(None, "--entity", "-e", help="Only facts with this entity at either end."),
    predicate: str | None = typer.Option(None, "--predicate", "-p", help="Only this predicate."),
    as_of: str | None = typer.Option(None, "--as-of", help="Valid time: facts true then (ISO 8601; default now)."),
    known_at: str | None = typer.Option(None, "--known-at", help="Transaction time: as believed then."),
    all_versions: bool = typer.Option(False, "--all-versions", help="Every version, closed beliefs too."),
    limit: int = typer.Option(10_000, "--limit", min=1, help="At most this many versions."),
    json_out: bool = JsonOpt,
) -> None:
    """The group's facts: the versions true at --as-of as believed at --known-at
    (both default to now), oldest belief first, with the ids the edits take."""
    mem = open_memory(store, group)
    try:
        found = mem.facts(group=group, entity=entity, predicate=predicate, as_of=as_of, known_at=known_at,
                          all_versions=all_versions, limit=limit)
        gid = group or mem.settings.group
        hint = mem.hint(gid) if not found else None
    finally:
        mem.close()
    if json_out:
        emit_json({"group_id": gid, "facts": [v.model_dump(mode="json") for v in found]})
        return
    if not found:
        typer.echo(f"No facts: {hint}.", err=True)
        return
    for v in found:
        valid = f"{day(v.valid_from, 'always')} → {day(v.valid_to)}"
        closed = f"  closed {v.expired_at:%Y-%m-%d %H:%M:%S}" if v.expired_at else ""
        typer.echo(f"{short_id(v.id):<12} {v.subject} {v.predicate} {v.object}  (valid {valid}, evidence "
                   f"{v.reinforcement_count}){closed}")
    typer.echo(f"{len(found)} versions; --json gives full ids and each fact's episode_ids", err=True)


def _edit(store: str | None, group: str | None, json_out: bool, run: Callable[[Memory], EditResult]) -> None:
    """Open the memory, make one edit, close it, and report what the edit did."""
    mem = open_memory(store, group)
    try:
        done = run(mem)
    finally:
        mem.close()
    _report(done, json_out)


def _report(done: EditResult, json_out: bool) -> None:
    if json_out:
        emit_json(done.to_json())
        return
    for vid in done.closed:
        typer.echo(f"closed the belief in {short_id(vid)}")
    for v in done.written:
        typer.echo(f"wrote {short_id(v.id)}: {v.statement} (valid {day(v.valid_from, 'always')} → {day(v.valid_to)})")
    typer.echo(f"recorded as episode {done.episode_id}", err=True)


@handle_errors
def correct(
    fact_id: str = typer.Argument(..., help="A fact id or version id (see `kgmem facts --json`)."),
    value: str = typer.Argument(..., help="The right value."),
    reason: str | None = typer.Option(None, "--reason", help="Why (kept in the audit episode)."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    json_out: bool = JsonOpt,
) -> None:
    """We were wrong: close the fact's current belief and put VALUE in its place
    over the same valid time."""
    _edit(store, group, json_out, lambda mem: mem.correct(fact_id, value, reason=reason, group=group))


@handle_errors
def change(
    fact_id: str = typer.Argument(..., help="A fact id or version id."),
    value: str = typer.Argument(..., help="The new value."),
    at: str = typer.Option(..., "--at", help="When the world changed (ISO 8601)."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    json_out: bool = JsonOpt,
) -> None:
    """The world changed: the fact ends at --at and VALUE holds from then on."""
    _edit(store, group, json_out, lambda mem: mem.change(fact_id, value, at, group=group))


@handle_errors
def retire(
    fact_id: str = typer.Argument(..., help="A fact id or version id."),
    at: str | None = typer.Option(None, "--at", help="When it stopped being true (default now)."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    json_out: bool = JsonOpt,
) -> None:
    """The fact stopped being true. It stays in history (this is not erasure: see `kgmem forget`)."""
    _edit(store, group, json_out, lambda mem: mem.retire(fact_id, at=at, group=group))
