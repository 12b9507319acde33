"""`kgmem jobs ...`: maintenance jobs. Each runs under the group's lock, records its run
(`kgmem jobs status`), draws progress on stderr, and prints `--json` for machines.
`--dry-run` says what a job would do and changes nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import typer

from ..errors import EXIT_ARCHIVE, EXIT_CHECK_FAILED
from ..maintenance.runner import HUB_MIN_DEGREE
from ..memory import Memory, time_option
from .common import GroupOpt, JsonOpt, StoreOpt, emit_json, handle_errors, open_memory
from .progress import CliProgress

jobs_app = typer.Typer(help="Maintenance jobs: entity resolution, archiving, shadow re-extraction, hubs.",
                       no_args_is_help=True)
DryRunOpt = typer.Option(False, "--dry-run", help="Say what would change; change nothing.")
QuietOpt = typer.Option(False, "--quiet", "-q", help="No progress on stderr.")


@contextmanager
def _maintenance(store: str | None, group: str | None, extractor: str | None = None
                 ) -> Iterator[tuple[Any, str]]:
    from ..maintenance.nightly import Maintenance

    mem: Memory = open_memory(store, group, extractor)
    try:
        yield Maintenance(mem), group or mem.settings.group
    finally:
        mem.close()


def _show(json_out: bool, payload: dict[str, Any], lines: Callable[[], list[str]]) -> None:
    if json_out:
        emit_json(payload)
        return
    for line in lines():
        typer.echo(line)


# -- entity resolution --------------------------------------------------------------------
@jobs_app.command("resolve-entities")
@handle_errors
def resolve_entities(group: str | None = GroupOpt, store: str | None = StoreOpt, dry_run: bool = DryRunOpt,
                     quiet: bool = QuietOpt, json_out: bool = JsonOpt) -> None:
    """Find entities that name the same thing. Pairs scoring at or above resolve_merge_at are
    merged (reversibly: `kgmem jobs unmerge`); those at or above resolve_review_at wait in
    `kgmem jobs review`."""
    with _maintenance(store, group) as (m, gid), CliProgress(enabled=not quiet and not json_out,
                                                              unit="entities") as progress:
        report = m.resolve_entities(gid, dry_run, progress)

    def lines() -> list[str]:
        verb = "would merge" if dry_run else "merged"
        out = [f"{report.entities} entities, {report.candidates} candidate pairs: {verb} {len(report.merged)}, "
               f"{len(report.queued)} {'would wait' if dry_run else 'waiting'} for review"]
        out += [f"  {verb} {x['absorbed']!r} into {x['survivor']!r} (score {x['score']:.2f})"
                + (f"  [{x['id']}]" if "id" in x else "") for x in report.merged]
        out += [f"  review {x['a_name']!r} ~ {x['b_name']!r} (score {x['score']:.2f})" for x in report.queued]
        return out

    _show(json_out, report.to_json(), lines)


@jobs_app.command("review")
@handle_errors
def review(group: str | None = GroupOpt, store: str | None = StoreOpt,
           accept: str | None = typer.Option(None, "--accept", help="Merge this queued pair (its id or a prefix)."),
           reject: str | None = typer.Option(None, "--reject", help="Never propose this pair again."),
           show_all: bool = typer.Option(False, "--all", help="Also list pairs already decided."),
           json_out: bool = JsonOpt) -> None:
    """The pairs waiting for a person, best first; --accept or --reject one."""
    if accept and reject:
        raise typer.BadParameter("give --accept or --reject, not both")
    with _maintenance(store, group) as (m, gid):
        if accept or reject:
            done = m.review_decide(gid, accept or reject or "", accept is not None)
            _show(json_out, done, lambda: [f"{done['status']} {done['a_name']!r} ~ {done['b_name']!r}"
                                           + (f" (merge {done['merge_id']})" if done.get("merge_id") else "")])
            return
        queued = m.resolver().queue(gid, include_decided=show_all)
    items = sorted(({"id": r.id, **r.body} for r in queued), key=lambda x: (-x["score"], x["id"]))

    def lines() -> list[str]:
        if not items:
            return [f"no pair waits for review in {gid!r}"]
        return [f"{x['id']}  {x['score']:.2f}  {x['a_name']!r} ~ {x['b_name']!r}  {x['status']}"
                f"  (name {x['evidence']['name']:.2f}, cosine {x['evidence']['cosine']:.2f}, "
                f"shared {x['evidence']['shared_neighbours']}"
                + (f", conflicts {', '.join(x['evidence']['conflicts'])}" if x['evidence']['conflicts'] else "")
                + ")" for x in items]

    _show(json_out, {"group_id": gid, "pairs": items}, lines)


@jobs_app.command("merges")
@handle_errors
def merges(group: str | None = GroupOpt, store: str | None = StoreOpt, json_out: bool = JsonOpt) -> None:
    """Every merge of the group, oldest first: who, when, score, and whether it was undone."""
    with _maintenance(store, group) as (m, gid):
        records = m.store.job_records(gid, "merge")
    items = [{"id": r.id, "at": r.at.isoformat(), **r.body} for r in records]
    _show(json_out, {"group_id": gid, "merges": items}, lambda: [
        f"{x['id']}  {x['at'][:19]}  {x['absorbed']!r} -> {x['survivor']!r}  by {x['by']}  {x['status']}"
        for x in items] or [f"no merges in {gid!r}"])


@jobs_app.command("unmerge")
@handle_errors
def unmerge(merge_id: str = typer.Argument(..., help="The merge to undo (`kgmem jobs merges` lists them)."),
            group: str | None = GroupOpt, store: str | None = StoreOpt, dry_run: bool = DryRunOpt,
            json_out: bool = JsonOpt) -> None:
    """Undo a merge: the facts, mentions and names are as they were before it."""
    with _maintenance(store, group) as (m, gid):
        done = m.unmerge(gid, merge_id, dry_run=dry_run)
    verb = "would unmerge" if dry_run else "unmerged"
    _show(json_out, done, lambda: [f"{verb} {done['absorbed']!r} from {done['survivor']!r}: "
                                   f"{len(done['restored'])} facts believed again, "
                                   f"{len(done.get('would_close', done['written']))} merged versions closed"])


# -- archiving ------------------------------------------------------------------------------
@jobs_app.command("archive")
@handle_errors
def archive(group: str | None = GroupOpt, store: str | None = StoreOpt,
            older_than: float | None = typer.Option(None, "--older-than", min=0.0,
                                                    help="Days (default: archive_after_days of the group)."),
            dry_run: bool = DryRunOpt, quiet: bool = QuietOpt, json_out: bool = JsonOpt) -> None:
    """Move the bodies of old, extracted episodes to the archive (archive_url: a directory or
    an fsspec URL). Ids, vectors, facts and a hash stay; `kgmem jobs restore` brings them back."""
    with _maintenance(store, group) as (m, gid), CliProgress(enabled=not quiet and not json_out) as progress:
        window = timedelta(days=older_than) if older_than is not None else None
        report = m.archive(gid, window, dry_run, progress)
    verb = "would archive" if dry_run else "archived"
    _show(json_out, report.to_json(), lambda: [
        f"{verb} {report.episodes} episode bodies ({report.bytes} bytes) older than {report.cutoff}"])


@jobs_app.command("restore")
@handle_errors
def restore(group: str | None = GroupOpt, store: str | None = StoreOpt,
            episode: list[str] = typer.Option([], "--episode", help="Restore only this episode (repeatable)."),
            dry_run: bool = DryRunOpt, quiet: bool = QuietOpt, json_out: bool = JsonOpt) -> None:
    """Bring archived bodies back into the store, each checked against its sha256."""
    with _maintenance(store, group) as (m, gid), CliProgress(enabled=not quiet and not json_out) as progress:
        report = m.restore(gid, list(episode) or None, dry_run, progress)
    verb = "would restore" if dry_run else "restored"
    _show(json_out, report.to_json(), lambda: [f"{verb} {report.episodes} episode bodies ({report.bytes} bytes)",
                                               *(f"  error: {e}" for e in report.errors)])
    if report.errors:
        raise typer.Exit(EXIT_ARCHIVE)


# -- shadow re-extraction -------------------------------------------------------------------
@jobs_app.command("reextract")
@handle_errors
def reextract(group: str | None = GroupOpt, store: str | None = StoreOpt,
              extractor: str | None = typer.Option(None, "--extractor", help="rules or llm (default: configured)."),
              since: str | None = typer.Option(None, "--since", help="Replay episodes from this time."),
              until: str | None = typer.Option(None, "--until", help="Replay episodes before this time."),
              rebuild: bool = typer.Option(False, "--rebuild", help="Build the shadow again even if it is current."),
              promote: bool = typer.Option(False, "--promote", help="Swap the shadow in (the old group is kept)."),
              rollback: bool = typer.Option(False, "--rollback", help="Swap the previous group back."),
              dry_run: bool = DryRunOpt, quiet: bool = QuietOpt, json_out: bool = JsonOpt) -> None:
    """Replay the group's episodes with another extractor into `<group>~shadow` and report
    the facts it would add, remove and change. The live group is untouched until --promote."""
    if promote and rollback:
        raise typer.BadParameter("give --promote or --rollback, not both")
    start = time_option("since", since) if since else None
    end = time_option("until", until) if until else None
    with _maintenance(store, group, extractor) as (m, gid), CliProgress(enabled=not quiet and not json_out) as p:
        if promote:
            report = m.promote(gid)
        elif rollback:
            report = m.rollback(gid)
        else:
            report = m.reextract(gid, extractor, start, end, rebuild, dry_run, p)
    _show(json_out, report.to_json(), lambda: _shadow_lines(report))


def _shadow_lines(report: Any) -> list[str]:
    if report.action == "dry-run":
        return [f"would replay {report.episodes} episodes of {report.group_id!r} with {report.extractor} "
                f"into {report.shadow!r}"]
    head = {"build": f"shadow {report.shadow!r} ({report.extractor})" + (" is current; nothing to do"
                                                                         if report.noop else " built"),
            "promote": f"promoted {report.shadow!r}: it is now {report.group_id!r} (the old group is the shadow)",
            "rollback": f"rolled back: {report.group_id!r} is the group it was before the promotion"}[report.action]
    out = [head, f"facts believed now: live {report.facts_live}, shadow {report.facts_shadow}"]
    if report.diff is not None:
        t = report.diff.totals()
        out.append(f"shadow vs live: +{t['added']} added, -{t['removed']} removed, ~{t['changed']} changed")
        for pred, c in report.diff.counts().items():
            out.append(f"  {pred:<24} +{c['added']:<4} -{c['removed']:<4} ~{c['changed']}")
        for kind, sign in (("added", "+"), ("removed", "-"), ("changed", "~")):
            for _pred, examples in sorted(getattr(report.diff, kind).items()):
                out += [f"    {sign} {x}" for x in examples[:3]]
    return out


# -- hubs, the schedule, status ------------------------------------------------------------
@jobs_app.command("hubs")
@handle_errors
def hubs(
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    min_degree: int = typer.Option(HUB_MIN_DEGREE, "--min-degree", min=1,
                                   help="Facts believed now at which an entity is a hub."),
    top: int = typer.Option(5, "--top", min=1, help="Predicates shown per hub."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Accepted for symmetry: this report changes nothing."),
    json_out: bool = JsonOpt,
) -> None:
    """Entities with many facts believed now (they make graph expansion expensive;
    recall caps what it reads through them), with their most frequent predicates."""
    del dry_run
    with _maintenance(store, group) as (m, gid):
        found = m.hubs(gid, min_degree, top)
    if json_out:
        emit_json({"group_id": gid, "min_degree": min_degree, "hubs": [h.to_json() for h in found]})
        return
    if not found:
        typer.echo(f"no entity in {gid!r} has {min_degree} or more facts believed now")
        return
    for h in found:
        preds = ", ".join(f"{p} {n}" for p, n in h.predicates.items())
        typer.echo(f"{h.name:<30} {h.degree:>6}  {preds}")


@jobs_app.command("run-nightly")
@handle_errors
def run_nightly(group: str | None = GroupOpt, store: str | None = StoreOpt,
                all_groups: bool = typer.Option(False, "--all-groups", help="Every group in the store."),
                dry_run: bool = DryRunOpt, quiet: bool = QuietOpt, json_out: bool = JsonOpt) -> None:
    """Entity resolution, archiving and the hub report, in order, each under the group's lock
    (an overlapping run is refused) and recorded for `kgmem jobs status`. Exits 1 if any failed."""
    with _maintenance(store, group) as (m, gid), CliProgress(enabled=not quiet and not json_out) as progress:
        groups = m.nightly_groups() if all_groups else [gid]
        report = m.nightly(groups, dry_run, progress)
    _show(json_out, report.to_json(), lambda: [
        f"{r['group_id']:<20} {r['job']:<18} {r['outcome']:<7} "
        + (", ".join(f"{k} {v}" for k, v in r.get("counts", {}).items()) if r["outcome"] == "ok" else r["error"])
        for r in report.runs] or ["no groups"])
    if report.failed:
        raise typer.Exit(EXIT_CHECK_FAILED)


@jobs_app.command("status")
@handle_errors
def status(group: str | None = GroupOpt, store: str | None = StoreOpt, json_out: bool = JsonOpt) -> None:
    """Each job's last run on the group: when, how long, what it did, and whether it failed."""
    with _maintenance(store, group) as (m, gid):
        runs = m.status(gid)
    _show(json_out, {"group_id": gid, "jobs": [r.to_json() for r in runs]}, lambda: [
        f"{r.job:<18} {r.started_at[:19]}  {r.seconds:>8.2f} s  {r.outcome:<7} "
        + (", ".join(f"{k} {v}" for k, v in r.counts.items()) if r.outcome == "ok" else (r.error or ""))
        for r in runs] or [f"no job has run on {gid!r}"])
