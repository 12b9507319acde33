"""`kgmem ingest`."""

from __future__ import annotations

import typer

from ..errors import EXIT_EPISODES_FAILED
from ..ingest.pipeline import IngestStats
from .common import GroupOpt, JsonOpt, StoreOpt, emit_json, handle_errors, open_memory
from .progress import CliProgress


@handle_errors
def ingest(
    paths: list[str] = typer.Argument(None, help="Files to ingest (jsonl, chat, locomo or longmemeval JSON); "
                                      "'-' reads standard input."),
    fmt: str = typer.Option("auto", "--format", "-f", help="auto | jsonl | chat | locomo | longmemeval"),
    group: str | None = GroupOpt,
    store: str | None = StoreOpt,
    extractor: str | None = typer.Option(None, "--extractor", help="rules | llm (default: rules)"),
    on_error: str = typer.Option("fail", "--on-error", help="fail: stop before writing; skip: report and go on"),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Extract episodes marked failed again."),
    all_groups: bool = typer.Option(False, "--all-groups",
                                    help="Resume (and with --retry-failed retry) every group's episodes, "
                                         "not only the group given."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
    json_out: bool = JsonOpt,
) -> None:
    """Store episodes (committed first), then extract entities and facts.

    Re-running is safe: stored episodes are skipped and pending ones resumed.
    Extraction touches only the group given (and the groups the files name);
    --all-groups resumes every group."""
    mem = open_memory(store, group, extractor)
    scope = None if all_groups else (group or mem.settings.group)
    try:
        with CliProgress(enabled=not quiet) as progress:
            stats = mem.ingest_files(paths, fmt=fmt, group=group, on_error=on_error, progress=progress) \
                if paths else IngestStats()
            stats.merge(mem.process_pending(scope, retry_failed=retry_failed, progress=progress))
    finally:
        mem.close()
    if json_out:
        emit_json(stats.to_json())
    else:
        typer.echo(
            f"episodes: {stats.episodes_added} added, {stats.episodes_skipped} already stored, "
            f"{stats.episodes_extracted} extracted, {stats.episodes_failed} failed\n"
            f"facts: {stats.facts_added} added, {stats.facts_invalidated} invalidated, "
            f"{stats.facts_reinforced} reinforced; entities: {stats.entities_added} added"
            + (f"\nllm: {stats.llm_calls} calls, {stats.prompt_tokens} prompt + {stats.completion_tokens} "
               "completion tokens" if stats.llm_calls else "")
        )
        for e in stats.errors[:20]:
            typer.echo(f"warning: {e}", err=True)
    if stats.episodes_failed:
        typer.echo(f"Error: {stats.episodes_failed} episodes failed extraction; they are stored and marked "
                   "failed. Fix the cause and run `kgmem ingest --retry-failed`.", err=True)
        raise typer.Exit(EXIT_EPISODES_FAILED)
