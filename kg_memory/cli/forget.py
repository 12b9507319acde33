"""`kgmem forget`: erasure (the right to be forgotten)."""

from __future__ import annotations

import typer

from .common import JsonOpt, StoreOpt, emit_json, handle_errors, open_memory


@handle_errors
def forget(
    episode: str | None = typer.Option(None, "--episode", help="Erase this episode (by id)."),
    entity: str | None = typer.Option(None, "--entity", help="Erase this entity, its facts, and every turn "
                                                              "that mentions or names it."),
    group: str | None = typer.Option(None, "--group", "-g", help="The group; alone (with --yes), erase all of it."),
    yes: bool = typer.Option(False, "--yes", help="Confirm erasing a whole group."),
    reason: str | None = typer.Option(None, "--reason", help="Why (kept in the tombstone; write no content here)."),
    store: str | None = StoreOpt,
    json_out: bool = JsonOpt,
) -> None:
    """Erase for good: the episode bodies and their text index, embeddings, the facts only
    they supported, the entities nothing names any more, and cached model answers. A
    tombstone (kind, when, why, counts; no content) stays. To say a fact stopped being
    true, use `kgmem retire`: that keeps it in history."""
    from ..errors import ConfigError

    whole = episode is None and entity is None
    if whole and group is None:
        raise ConfigError("say what to forget: --episode ID, --entity NAME, or a whole --group G --yes")
    if whole and not yes:
        raise ConfigError(f"erasing the whole group {group!r} cannot be undone; add --yes to confirm")
    mem = open_memory(store, group)
    try:
        done = mem.forget(episode=episode, entity=entity, whole_group=whole, group=group, reason=reason)
    finally:
        mem.close()
    if json_out:
        emit_json(done.to_json())
        return
    typer.echo(f"erased from group {done.group_id!r}: {done.episodes} episodes, {done.facts} fact versions, "
               f"{done.entities} entities (tombstone {done.id})")
