"""`kgmem recall` and `kgmem history`."""

from __future__ import annotations

import typer

from ..core.models import FactVersion
from ..errors import NotFoundError
from ..recall.history import by_fact, closing, day, instant, short_id, version_json
from .common import GroupOpt, JsonOpt, StoreOpt, emit_json, handle_errors, open_memory


@handle_errors
def recall(
    query: str = typer.Argument(..., help="What to recall."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    as_of: str | None = typer.Option(None, "--as-of", help="Valid time: what was true then (ISO 8601)."),
    known_at: str | None = typer.Option(None, "--known-at", help="Transaction time: what we believed then."),
    k: int = typer.Option(10, "--k", "-k", min=1, max=200, help="How many facts and episodes."),
    half_life: float | None = typer.Option(
        None, "--half-life", min=0.0,
        help="Days for superseded evidence to lose half its weight (default: weights.half_life_days; 0: off)."),
    explain: bool = typer.Option(False, "--explain", help="Show every score component."),
    json_out: bool = JsonOpt,
) -> None:
    """Facts true at --as-of as believed at --known-at, and the episodes behind them."""
    mem = open_memory(store, group)
    try:
        res = mem.recall(query, group=group, as_of=as_of, known_at=known_at, k=k, half_life=half_life)
        hint = mem.hint(res.group_id) if not (res.facts or res.episodes) else None
    finally:
        mem.close()
    if hint:
        typer.echo(f"Nothing recalled: {hint}.", err=True)
    if json_out:
        emit_json(res.to_json(explain=explain))
        return
    typer.echo(f"# as of {res.as_of:%Y-%m-%d %H:%M:%S}Z, known at {res.known_at:%Y-%m-%d %H:%M:%S}Z")
    typer.echo(res.context_block())
    if explain:
        typer.echo("# Score components")
        for sf in res.facts:
            comp = " ".join(f"{k}={v:.3f}" for k, v in sf.components.items())
            typer.echo(f"- fact {sf.fact.statement!r}: {sf.score:.4f} ({comp})")
        for se in res.episodes:
            e = se.episode
            comp = " ".join(f"{k}={v:.3f}" for k, v in se.components.items())
            text = e.display_text() if len(e.display_text()) <= 90 else e.display_text()[:89] + "…"
            typer.echo(f"- episode {short_id(e.id)} [{e.occurred_at:%Y-%m-%d}] {e.speaker or e.role}: {text!r}: "
                       f"{se.score:.4f} ({comp})")


def _believed(v: FactVersion) -> str:
    if v.expired_at is None:
        return f"since {instant(v.created_at)}"
    return f"{instant(v.created_at)} → {instant(v.expired_at)}"


def _versions(store: str | None, group: str | None, entity: str, predicate: str | None) -> list[FactVersion]:
    """Every version about ENTITY (``history`` and ``timeline`` read the same)."""
    mem = open_memory(store, group)
    try:
        return mem.history(entity, group=group, predicate=predicate)
    finally:
        mem.close()


@handle_errors
def history(
    entity: str = typer.Argument(..., help="Entity name, e.g. 'User' or 'Maya'."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    predicate: str | None = typer.Option(None, "--predicate", "-p", help="Only this predicate."),
    json_out: bool = JsonOpt,
) -> None:
    """Every version of every fact about ENTITY, retired ones too: when each was
    true (valid), when we believed it, how much evidence it has, and why its
    belief closed. Sorted by valid time; --json gives full ids."""
    versions = _versions(store, group, entity, predicate)
    index = {v.id: v for v in versions}
    if json_out:
        emit_json({"entity": entity, "versions": [version_json(v, closing(v, index))
                                                  for _, vs in by_fact(versions) for v in vs]})
        return
    if not versions:
        typer.echo(f"{entity}: no facts" + (f" with predicate {predicate!r}" if predicate else ""))
        return
    for _, vs in by_fact(versions):
        head = vs[-1]
        typer.echo(f"{head.subject} {head.predicate} {head.object}")
        for v in vs:
            valid = f"{day(v.valid_from, 'always')} → {day(v.valid_to)}"
            why = closing(v, index)
            by = f" ({short_id(why.by)})" if why.by and why.kind != "current" else ""
            typer.echo(f"  valid {valid:<25} believed {_believed(v):<44} evidence {v.reinforcement_count:<3} "
                       f"{short_id(v.id)}  {why.text}{by}")


@handle_errors
def timeline(
    entity: str = typer.Argument(..., help="Entity name, e.g. 'User' or 'Maya'."),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    predicate: str | None = typer.Option(None, "--predicate", "-p", help="Only this predicate."),
    output: str | None = typer.Option(None, "--output", "-o",
                                      help="File to write (.html or .svg); '-' for stdout. "
                                           "Default: timeline-ENTITY.html"),
) -> None:
    """Draw ENTITY's fact history: valid time across, belief time down, one band
    per version, arrows from each closed version to the one that closed it."""
    from pathlib import Path

    from ..core.timeutil import utcnow
    from ..errors import ConfigError
    from ..recall.timeline import render_html, render_svg

    target = output or f"timeline-{''.join(c if c.isalnum() else '-' for c in entity)}.html"
    if target != "-" and not target.endswith((".html", ".svg")):
        raise ConfigError(f"--output {target}: the file name must end in .html or .svg")
    versions = _versions(store, group, entity, predicate)
    if not versions:
        raise NotFoundError(f"{entity!r} has no facts" + (f" with predicate {predicate!r}" if predicate else ""))
    render = render_svg if target.endswith(".svg") else render_html
    doc = render(entity, versions, utcnow())
    if target == "-":
        typer.echo(doc)
        return
    Path(target).write_text(doc, encoding="utf-8")
    typer.echo(f"wrote {target} ({len(versions)} versions)", err=True)
