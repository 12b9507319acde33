"""`kgmem recall` and `kgmem history`."""

from __future__ import annotations

import typer

from ..models import FactVersion
from .common import GroupOpt, JsonOpt, StoreOpt, emit_json, handle_errors, open_memory


@handle_errors
def recall(
    query: str = typer.Argument(..., help="What to recall."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    as_of: str | None = typer.Option(None, "--as-of", help="Valid time: what was true then (ISO 8601)."),
    known_at: str | None = typer.Option(None, "--known-at", help="Transaction time: what we believed then."),
    k: int = typer.Option(10, "--k", "-k", min=1, max=200, help="How many facts and episodes."),
    explain: bool = typer.Option(False, "--explain", help="Show every score component."),
    json_out: bool = JsonOpt,
) -> None:
    """Facts true at --as-of as believed at --known-at, and the episodes behind them."""
    mem = open_memory(store, group)
    try:
        res = mem.recall(query, group=group, as_of=as_of, known_at=known_at, k=k)
    finally:
        mem.close()
    if json_out:
        emit_json(res.to_json(explain=explain))
        return
    typer.echo(f"# as of {res.as_of:%Y-%m-%d %H:%M}Z, known at {res.known_at:%Y-%m-%d %H:%M}Z")
    typer.echo(res.context_block())
    if explain:
        typer.echo("# Score components")
        for sf in res.facts:
            comp = " ".join(f"{k}={v:.3f}" for k, v in sf.components.items())
            typer.echo(f"- fact {sf.fact.statement!r}: {sf.score:.4f} ({comp})")
        for se in res.episodes:
            comp = " ".join(f"{k}={v:.3f}" for k, v in se.components.items())
            typer.echo(f"- episode {se.episode.id}: {se.score:.4f} ({comp})")


def _ts(v: object) -> str:
    return v.strftime("%Y-%m-%d %H:%M") if v else "∞"  # type: ignore[attr-defined]


def version_json(v: FactVersion) -> dict[str, object]:
    d = v.model_dump(mode="json")
    return d


@handle_errors
def history(
    entity: str = typer.Argument(..., help="Entity name, e.g. 'User' or 'Maya'."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    predicate: str | None = typer.Option(None, "--predicate", "-p", help="Only this predicate."),
    json_out: bool = JsonOpt,
) -> None:
    """Every version of every fact about ENTITY, retired ones too, with both
    intervals and the expired_by chain."""
    mem = open_memory(store, group)
    try:
        versions = mem.history(entity, group=group, predicate=predicate)
    finally:
        mem.close()
    if json_out:
        emit_json({"entity": entity, "versions": [version_json(v) for v in versions]})
        return
    by_fact: dict[str, list[FactVersion]] = {}
    for v in versions:
        by_fact.setdefault(v.fact_id, []).append(v)
    for fact_id, vs in by_fact.items():
        head = vs[-1]
        typer.echo(f"{head.subject} {head.predicate} {head.object}   [{fact_id}]")
        for v in vs:
            state = "current" if v.expired_at is None else f"retired {_ts(v.expired_at)} by {v.expired_by}"
            typer.echo(f"  {v.id}  valid [{_ts(v.valid_from)}, {_ts(v.valid_to)})  "
                       f"believed [{_ts(v.created_at)}, {_ts(v.expired_at)})  x{v.reinforcement_count}  {state}")
