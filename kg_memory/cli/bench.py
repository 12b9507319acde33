"""`kgmem bench ...`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ..bench.contradictions import run_contradictions
from ..errors import EXIT_CHECK_FAILED
from ..memory import Memory
from ..settings import load_settings
from ..store.base import DEFAULT_DIM
from ..store.url import open_store
from .common import JsonOpt, emit_json, handle_errors

bench_app = typer.Typer(help="Benchmarks and evaluations.", no_args_is_help=True)


@bench_app.command("contradictions")
@handle_errors
def contradictions(
    path: Path = typer.Argument(..., help="A kgmem-contradictions/1 JSON file."),
    store: str | None = typer.Option(None, "--store", help="Store URL (default: a temporary SQLite file, so "
                                     "your own store is never written)."),
    extractor: str | None = typer.Option(None, "--extractor", help="rules | llm"),
    report_only: bool = typer.Option(False, "--report-only", help="Exit 0 even when checks fail: the figures are "
                                     "the point (make bench, on case sets not expected to pass in full)."),
    json_out: bool = JsonOpt,
) -> None:
    """Replay planted contradictions and check recall at each as_of / known_at. Exits 1 when a check fails."""
    import tempfile

    from ..embed.base import make_embedder

    settings = load_settings(store=store, extractor=extractor)
    emb = make_embedder(settings)
    tmp = tempfile.TemporaryDirectory(prefix="kgmem-contradictions-")
    st = open_store(store or f"sqlite:///{Path(tmp.name) / 'contradictions.db'}", dim=emb.dim if emb else DEFAULT_DIM)

    try:
        res = run_contradictions(path, lambda clock: Memory(st, settings=settings, embedder=emb, clock=clock,
                                                            use_embedder=emb is not None, owns_store=False))
    finally:
        st.close()
        tmp.cleanup()
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
    if res["passed"] != res["checks"] and not report_only:
        raise typer.Exit(EXIT_CHECK_FAILED)


@bench_app.command("scale")
@handle_errors
def scale(
    episodes: str = typer.Option("10000,100000", "--episodes", help="Comma-separated sizes."),
    store: list[str] = typer.Option(["sqlite"], "--store", help="'sqlite' (a temp file) or a neo4j:// URL; repeat."),
    queries: int = typer.Option(200, "--queries", help="Recall queries per size and store."),
    e2e_episodes: int = typer.Option(2000, "--e2e-episodes", help="Episodes for the end-to-end run."),
    vector_backends: bool = typer.Option(False, "--vector-backends", help="Also compare numpy and sqlite-vec."),
    json_out: bool = JsonOpt,
) -> None:
    """Ingest throughput and recall latency at scale on each store, in one run."""
    from ..bench.scale import run_scale
    from ..bench.scale import vector_backends as vb
    from ..errors import ConfigError

    try:
        sizes = [int(x) for x in episodes.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--episodes {episodes!r}: give whole numbers such as 10000,100000") from None
    emb = _embedder_for("scale")
    res = run_scale(sizes, store, emb, queries=queries, e2e_episodes=e2e_episodes, log=_log)
    if vector_backends:
        res["vector_backends"] = vb(sizes)
    if json_out:
        emit_json(res)
    else:
        for name, rows in res["stores"].items():
            for r in rows:
                typer.echo(f"{name} {r['episodes']:>7}: store-only {r['store_only_eps_per_s']:>8} ep/s, "
                           f"index+extract {r['index_extract_eps_per_s']:>7} ep/s, recall p50 "
                           f"{r['recall_now']['p50_ms']} ms p95 {r['recall_now']['p95_ms']} ms, as-of p50 "
                           f"{r['recall_as_of']['p50_ms']} ms p95 {r['recall_as_of']['p95_ms']} ms")
        for name, r in res["e2e"].items():
            typer.echo(f"{name} end-to-end: {r['eps_per_s']} ep/s over {r['episodes']} episodes")


@bench_app.command("agent-loop")
@handle_errors
def agent_loop(
    episodes: int = typer.Option(100_000, "--episodes", min=100, help="Episodes in the agent's group."),
    neighbour: int = typer.Option(20_000, "--neighbour", min=0, help="Episodes in a neighbouring group."),
    rounds: int = typer.Option(200, "--rounds", min=1, help="Rounds of recall, add, recall, add elsewhere, recall."),
    store: list[str] = typer.Option(["sqlite"], "--store", help="'sqlite' (a temp file) or a neo4j:// URL; repeat."),
    random_vectors: bool = typer.Option(False, "--random-vectors",
                                        help="Seeded random vectors for the history instead of the model: no "
                                             "embedding (~10 min for 120k here, once: it is cached), but a worst "
                                             "case for an HNSW index (Neo4j), whose searches visit far more of it."),
    json_out: bool = JsonOpt,
) -> None:
    """Recall right after writes, as an agent runs: steady, after a write to the same
    group and after a write to another group; and the latency of an add."""
    from ..bench.agent_loop import run_agent_loop

    res = run_agent_loop(store, _embedder_for("agent-loop"), episodes=episodes, neighbour=min(neighbour, episodes),
                         rounds=rounds, log=_log, random_vectors=random_vectors)
    if json_out:
        emit_json(res)
        return
    for name, r in res["stores"].items():
        typer.echo(f"{name}: recall p50/p95 steady {r['recall_steady']['p50_ms']}/{r['recall_steady']['p95_ms']} ms, "
                   f"after a same-group write {r['recall_after_same_group_write']['p50_ms']}/"
                   f"{r['recall_after_same_group_write']['p95_ms']} ms, after another group's write "
                   f"{r['recall_after_other_group_write']['p50_ms']}/{r['recall_after_other_group_write']['p95_ms']}"
                   f" ms; add p50 {r['add_same_group']['p50_ms']} ms"
                   f" ({r['add_same_group_with_embedding']['p50_ms']} ms with new facts' embeddings)")


@bench_app.command("growth")
@handle_errors
def growth(
    sizes: str = typer.Option("10000,100000,1000000", "--sizes", help="Sizes the group grows through, comma-separated."
                              ),
    neighbour: int = typer.Option(20_000, "--neighbour", min=0, help="Episodes in a neighbouring group."),
    rounds: int = typer.Option(100, "--rounds", min=1, help="Rounds of recall, add, recall at each size."),
    groups: int = typer.Option(1000, "--groups", min=1, help="Groups in the many-tenant shape."),
    group_size: int = typer.Option(1000, "--group-size", min=1, help="Episodes in each of those groups."),
    store: list[str] = typer.Option(["sqlite"], "--store", help="'sqlite' (a temp file) or a neo4j:// URL; repeat."),
    json_out: bool = JsonOpt,
) -> None:
    """Add and recall through the public API as one group grows (10k, 100k, 1M), the first recall
    of a cold group, memory held, and a many-tenant shape (1,000 groups of 1,000)."""
    from ..bench.growth import run_growth

    try:
        steps = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        raise typer.BadParameter(f"{sizes!r} is not a list of numbers; give e.g. 10000,100000",
                                 param_hint="--sizes") from None
    res = run_growth(store, _embedder_for("growth"), sizes=steps, neighbour=neighbour, rounds=rounds,
                     groups=groups, group_size=group_size, log=_log)
    if json_out:
        emit_json(res)
        return
    for name, r in res["stores"].items():
        for row in r["growth"]:
            typer.echo(f"{name} {row['episodes']:>9,}: add p50 {row['add']['p50_ms']} ms, recall p50 "
                       f"{row['recall_steady']['p50_ms']} ms ({row['recall_after_write']['p50_ms']} after a write), "
                       f"first recall cold {row['first_recall_cold_ms']} ms, RSS {row['rss_mb']} MB")
        t = r["tenants"]
        typer.echo(f"{name} {t['groups']} groups of {t['group_size']}: first recall p50 "
                   f"{t['first_recall_cold']['p50_ms']} ms, steady {t['recall_steady']['p50_ms']} ms")


@bench_app.command("background")
@handle_errors
def background(
    turns: int = typer.Option(300, "--turns", min=10, help="Turns added each way."),
    store: list[str] = typer.Option(["sqlite"], "--store", help="'sqlite' (a temp file) or a neo4j:// URL; repeat."),
    json_out: bool = JsonOpt,
) -> None:
    """What a chat loop pays per turn: add that waits for extraction, add(wait=False)
    plus flush, and the throughput of each."""
    from ..bench.background import run_background

    res = run_background(store, _embedder_for("background"), turns=turns, log=_log)
    if json_out:
        emit_json(res)
        return
    for name, r in res["stores"].items():
        typer.echo(f"{name}: add waiting p50 {r['add_wait']['p50_ms']} ms ({r['turns_per_s_waiting']} turns/s); "
                   f"add(wait=False) p50 {r['add_no_wait']['p50_ms']} ms p95 {r['add_no_wait']['p95_ms']} ms; "
                   f"flush {r['flush_s']} s; {r['turns_per_s_background']} turns/s in the background")


@bench_app.command("serve")
@handle_errors
def serve(
    clients: int = typer.Option(20, "--clients", min=1, max=500, help="Concurrent clients."),
    seconds: float = typer.Option(60.0, "--seconds", min=1.0, help="How long the load runs."),
    groups: int = typer.Option(50, "--groups", min=1, help="Groups the clients spread over (one key each)."),
    store: str | None = typer.Option(None, "--store", help="A neo4j:// URL (default: a temp SQLite file)."),
    json_out: bool = JsonOpt,
) -> None:
    """`kgmem serve http` under load on loopback: recalls and adds (waiting and not) over many groups,
    timed as a client sees them; 5xx answers and cross-group reads counted."""
    from ..bench.serve import run_serve

    r = run_serve(store, clients=clients, seconds=seconds, groups=groups, log=_log)
    if json_out:
        emit_json(r)
        return
    routes = "; ".join(f"{op} p50/p95/p99 {v['p50_ms']}/{v['p95_ms']}/{v['p99_ms']} ms (n={v['n']})"
                       for op, v in r["routes"].items())
    typer.echo(f"{r['store']}: {r['requests_per_s']} requests/s from {r['clients']} clients over {r['seconds']} s; "
               f"{routes}; 5xx {r['server_errors_5xx']}; cross-group reads {r['cross_group_reads']}; "
               f"server RSS {r['server_rss_mb']['after_load']} MB")


@bench_app.command("precision")
@handle_errors
def precision(
    files: list[Path] = typer.Argument(..., help="Conversations (any format `kgmem ingest` reads)."),
    extractor: str = typer.Option("rules", "--extractor", help="rules | llm"),
    sample: int = typer.Option(40, "--sample", min=1, help="Current facts drawn per conversation (seeded)."),
    labels: Path = typer.Option(Path("tests/fixtures/precision-labels.jsonl"), "--labels",
                                help="The labels file (JSON lines: source, statement, label, note)."),
    todo: Path = typer.Option(Path(".bench/precision-todo.jsonl"), "--todo",
                              help="Where the drawn facts that have no label yet are written."),
    json_out: bool = JsonOpt,
) -> None:
    """Useful / weak / junk among a seeded sample of the facts believed now (docs/labelling.md); a label
    is reused while its fact's statement is unchanged, and unlabelled facts go to --todo."""
    from ..bench.precision import run_precision
    from ..errors import InputError

    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise InputError([f"{m}: no such file" for m in missing], hint="Name conversations that exist.")
    try:
        r = run_precision(files, extractor, labels, todo, n=sample, log=_log)
    except ValueError as exc:
        raise InputError([str(exc)], hint="Fix the labels file.") from None
    if json_out:
        emit_json(r)
        return
    for source, c in {**r["sources"], "all": r["all"]}.items():
        typer.echo(f"{source}: useful {c['useful']} ({c['useful_pct']}%), weak {c['weak']} ({c['weak_pct']}%), "
                   f"junk {c['junk']} ({c['junk_pct']}%); unlabelled {c['unlabelled']}")
    if r["todo"]:
        typer.echo(f"label the facts in {r['todo']} and add them to {labels}", err=True)


@bench_app.command("resolve")
@handle_errors
def resolve(
    entities: int = typer.Option(20_000, "--entities", min=100, help="Entities in the synthetic group."),
    store: list[str] = typer.Option(["sqlite"], "--store", help="'sqlite' (a temp file) or a neo4j:// URL; repeat."),
    pairs: Path = typer.Option(Path("tests/fixtures/alias-pairs.json"), "--pairs", help="Labelled name pairs."),
    json_out: bool = JsonOpt,
) -> None:
    """Entity resolution: precision of each score band on labelled name pairs, and the job's
    time, precision and recall on a synthetic group with planted aliases."""
    from ..bench.resolution import at_scale, labelled
    from ..errors import ConfigError

    if not pairs.is_file():
        raise ConfigError(f"--pairs {pairs}: no such file; run from the kgmem checkout or give the labelled pairs")
    settings = load_settings()
    emb = _embedder_for("resolve")
    merge_at, review_at = settings.resolve_merge_at, settings.resolve_review_at
    res: dict[str, Any] = {"labelled": labelled(emb, pairs, merge_at, review_at),
           "scale": [at_scale(None if s == "sqlite" else s, emb, entities, 7, merge_at, review_at, _log)
                     for s in store]}
    if json_out:
        emit_json(res)
        return
    lab = res["labelled"]
    typer.echo(f"labelled pairs: merge band precision {lab['bands']['merge']['precision']} "
               f"({lab['bands']['merge']['pairs']} pairs), recall {lab['merge_recall']}")
    for r in res["scale"]:
        typer.echo(f"{r['store']}: {r['entities']} entities in {r['seconds']} s; merged {r['merged']} "
                   f"(precision {r['merge_precision']}, recall {r['merge_recall']}), queued {r['queued']}")


def _log(message: str) -> None:
    """A bench's progress lines, on stderr (stdout carries the result)."""
    typer.echo(message, err=True)


def _embedder_for(command: str):  # noqa: ANN202
    """The configured embedder; the retrieval benches cannot run without one."""
    from ..embed.base import make_embedder
    from ..errors import ConfigError

    emb = make_embedder(load_settings())
    if emb is None:
        raise ConfigError(f"bench {command} needs an embedder (KGMEM_EMBEDDER=minilm)")
    return emb


def _ks(text: str) -> list[int]:
    from ..errors import ConfigError

    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise ConfigError(f"--k {text!r}: give whole numbers such as 1,5,10,20") from None
    if not ks or ks[0] < 1:
        raise ConfigError("--k needs positive numbers")
    return ks


@bench_app.command("locomo")
@handle_errors
def locomo(
    paths: list[Path] = typer.Argument(..., help="LoCoMo JSON files (one or more conversations each)."),
    store: str | None = typer.Option(None, "--store", help="Store URL (default: a temporary SQLite file)."),
    k: str = typer.Option("1,5,10,20", "--k", help="Cut-offs for recall@k and hit@k."),
    extractor: str | None = typer.Option(None, "--extractor", help="rules | llm (default: rules)"),
    json_out: bool = JsonOpt,
) -> None:
    """Evidence recall@k and hit@k on LoCoMo for kgmem and the baselines, in one run."""
    from ..bench.locomo import run_locomo
    settings = load_settings(extractor=extractor)
    emb = _embedder_for("locomo")

    def log(m: str) -> None:
        if not json_out:
            typer.echo(m, err=True)

    res = run_locomo(paths, emb, _ks(k), store_url=store, settings=settings, log=log)
    if json_out:
        emit_json(res)
        return
    typer.echo(f"{res['questions']} questions (categories 1-4); {res['adversarial_excluded']} adversarial excluded; "
               f"{len(res['dropped_evidence'])} malformed evidence ids dropped")
    cols = [f"recall@{x}" for x in res["ks"]] + [f"hit@{x}" for x in res["ks"]]
    x = res["extraction"]
    typer.echo(f"extraction ({x['extractor']}): {x['facts_current']} current facts from {x['episodes']} turns; "
               f"{x['calls_per_episode']} model calls, {x['seconds_per_episode']} s per turn")
    typer.echo(f"{'method':<12} " + " ".join(f"{c:>10}" for c in cols))
    for name, m in res["methods"].items():
        typer.echo(f"{name:<12} " + " ".join(f"{m['overall'].get(c, 0):>10.1f}" for c in cols))


@bench_app.command("longmemeval")
@handle_errors
def longmemeval(
    path: Path = typer.Argument(..., help="A LongMemEval JSON file."),
    store: str | None = typer.Option(None, "--store", help="Store URL (default: a temporary SQLite file)."),
    k: str = typer.Option("1,5,10", "--k", help="Cut-offs."),
    json_out: bool = JsonOpt,
) -> None:
    """Evidence turn and session recall@k per question type, with the time-travel baseline."""
    from ..bench.longmemeval import run_longmemeval
    settings = load_settings()
    emb = _embedder_for("longmemeval")
    res = run_longmemeval(path, emb, _ks(k), store_url=store, settings=settings)
    if json_out:
        emit_json(res)
        return
    typer.echo(f"{res['questions']} questions")
    for name, m in res["methods"].items():
        typer.echo(f"{name:<12} " + "  ".join(f"{key}={val:.1f}" for key, val in m["overall"].items()))
