"""`kgmem jobs ...`: maintenance jobs."""

from __future__ import annotations

import typer

from .common import GroupOpt, JsonOpt, StoreOpt, emit_json, handle_errors, open_memory

jobs_app = typer.Typer(help="Maintenance jobs.", no_args_is_help=True)


@jobs_app.command("hubs")
@handle_errors
def hubs(
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    min_degree: int = typer.Option(50, "--min-degree", min=1, help="Facts believed now at which an entity is a hub."),
    top: int = typer.Option(5, "--top", min=1, help="Predicates shown per hub."),
    json_out: bool = JsonOpt,
) -> None:
    """Entities with many facts believed now (they make graph expansion expensive;
    recall caps what it reads through them), with their most frequent predicates."""
    from ..jobs import hubs as find_hubs

    mem = open_memory(store, group)
    try:
        gid = group or mem.settings.group
        found = find_hubs(mem.store, gid, min_degree, top)
    finally:
        mem.close()
    if json_out:
        emit_json({"group_id": gid, "min_degree": min_degree, "hubs": [h.to_json() for h in found]})
        return
    if not found:
        typer.echo(f"no entity in {gid!r} has {min_degree} or more facts believed now")
        return
    for h in found:
        preds = ", ".join(f"{p} {n}" for p, n in h.predicates.items())
        typer.echo(f"{h.name:<30} {h.degree:>6}  {preds}")
