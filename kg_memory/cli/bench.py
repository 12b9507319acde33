"""`kgmem bench ...`."""

from __future__ import annotations

from pathlib import Path

import typer

from ..bench.contradictions import run_contradictions
from ..memory import Memory
from ..settings import default_store_url, load_settings
from ..store.url import open_store
from .common import JsonOpt, StoreOpt, emit_json, handle_errors

bench_app = typer.Typer(help="Benchmarks and evaluations.", no_args_is_help=True)


@bench_app.command("contradictions")
@handle_errors
def contradictions(
    path: Path = typer.Argument(..., help="A kgmem-contradictions/1 JSON file."),
    store: str | None = StoreOpt,
    extractor: str | None = typer.Option(None, "--extractor", help="rules | llm"),
    json_out: bool = JsonOpt,
) -> None:
    """Replay planted contradictions and check recall at each as_of / known_at."""
    from ..embed.base import make_embedder

    settings = load_settings(store=store, extractor=extractor)
    emb = make_embedder(settings)
    st = open_store(settings.store or default_store_url(), dim=emb.dim if emb else 384)

    class _Shared(Memory):
        def close(self) -> None:  # the store outlives each case
            pass

    try:
        res = run_contradictions(path, lambda clock: _Shared(st, settings=settings, embedder=emb, clock=clock,
                                                             use_embedder=emb is not None))
    finally:
        st.close()
    if json_out:
        emit_json(res)
    else:
        typer.echo(f"{res['passed']}/{res['checks']} checks passed over {res['cases']} cases "
                   f"({res['pass_rate']:.1%})")
        for kind, c in sorted(res["by_kind"].items()):
            typer.echo(f"  {kind}: {c['passed']}/{c['checks']}")
        for f in res["failures"]:
            typer.echo(f"  FAIL {f['case']}#{f['check']} {f['query']!r} as_of={f['as_of']}: "
                       f"missing={f['missing']} rejected={f['rejected_present']} got={f['got']}")
    if res["passed"] != res["checks"]:
        raise typer.Exit(1)
