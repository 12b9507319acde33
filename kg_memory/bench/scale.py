"""`kgmem bench scale`: ingest throughput and recall latency at 10k and 100k
episodes on each store, measured in one run on the same synthetic data.

* store-only ingest: episodes committed in batches (no embedding, no extraction; an
  internal figure: ``Store.add_episodes``);
* indexing: ``Memory.process_pending`` with the rules extractor (no parser), episode
  vectors computed beforehand (so this is store + extraction work);
* end-to-end: ``Memory.add_episodes`` on a fresh store, real MiniLM embeddings and the
  rules extractor;
* recall p50/p95/p99 through ``Memory.recall``, now and as-of, the query's vector looked
  up (computed beforehand).
Timed tests are not part of the test suite; this is where speed is measured."""

from __future__ import annotations

import hashlib
import os
import random
import resource
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from ..core.timeutil import utcnow
from ..embed.base import Embedder
from ..extract.rules import RulesExtractor
from ..memory import Memory
from ..settings import Settings
from ..store.base import Store
from ..store.url import open_store
from .synthetic import CITIES, NAMES, generate

QUESTIONS = ["Where do I live?", "Where do I work?", "What instruments do I play?", "What pets do I have?",
             "What is my diet?", "What is my job title?", "Where does {name} live?",
             "Did I ever live in {city}?", "Tell me about the documentary I watched",
             "What did we talk about regarding sleep?"]


WARMUP = 200  # recalls of each kind (now, as-of) before the timed ones: the JVM settles after a few hundred


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(samples) * 1000.0
    return {"p50_ms": round(float(np.percentile(arr, 50)), 2), "p95_ms": round(float(np.percentile(arr, 95)), 2),
            "p99_ms": round(float(np.percentile(arr, 99)), 2), "n": len(samples)}


class PrecomputedEmbedder:
    """Serves vectors computed beforehand for known texts, and embeds the rest."""

    def __init__(self, inner: Embedder, known: dict[str, np.ndarray]):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.known = known
        self.inner_seconds = 0.0  # time spent embedding texts not known beforehand (a new fact's statement)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        missing = [i for i, t in enumerate(texts) if t not in self.known]
        for i, t in enumerate(texts):
            if t in self.known:
                out[i] = self.known[t]
        if missing:
            t0 = time.perf_counter()
            out[missing] = self.inner.embed([texts[i] for i in missing])
            self.inner_seconds += time.perf_counter() - t0
        return out


def embed_cached(embedder: Embedder, texts: list[str], cache_dir: Path) -> np.ndarray:
    """Embed ``texts``; the matrix is cached on disk by a hash of the texts."""
    h = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]
    path = cache_dir / f"vectors-{embedder.name}-{len(texts)}-{h}.npy"
    if path.exists():
        return np.load(path)
    cache_dir.mkdir(parents=True, exist_ok=True)
    vecs = embedder.embed(texts)
    np.save(path, vecs)
    return vecs


def _rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _open(url: str, tmp: Path, dim: int) -> tuple[Store, Callable[[], int]]:
    if url == "sqlite":
        db = tmp / f"bench-{uuid.uuid4().hex[:8]}.db"
        st = open_store(f"sqlite:///{db}", dim=dim)

        def size() -> int:
            return sum(p.stat().st_size for p in tmp.glob(db.name + "*"))

        return st, size
    st = open_store(url, dim=dim)
    data_dir = os.environ.get("KGMEM_BENCH_NEO4J_DATA")
    return st, (lambda: _dir_size(Path(data_dir)) if data_dir else -1)


def embedder_throughput(embedder: Embedder, n: int = 1000, seed: int = 11) -> dict[str, Any]:
    """Sentences per second for short conversational turns (uncached)."""
    inner = getattr(embedder, "inner", embedder)
    texts = [f"{e.content}" for e in generate(n, seed=seed)]
    inner.embed(texts[:32])  # warm up
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        inner.embed(texts)
        runs.append(n / (time.perf_counter() - t0))
    return {"sentences": n, "sentences_per_s": round(float(np.median(runs)), 1)}


def run_scale(sizes: Sequence[int], stores: Sequence[str], embedder: Embedder, seed: int = 42,
              queries: int = 200, e2e_episodes: int = 2000, cache_dir: Path | None = None,
              log: Callable[[str], None] = print, warmup: int = WARMUP,
              embed_sentences: int = 1000) -> dict[str, Any]:
    cache_dir = cache_dir or Path(".bench-cache")
    results: dict[str, Any] = {"sizes": list(sizes), "seed": seed, "warmup": warmup, "stores": {}, "e2e": {},
                               "embedder": embedder_throughput(embedder, embed_sentences)}
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        prepared = []
        for n in sizes:
            episodes = list(generate(n, seed=seed))
            log(f"[{n}] embedding {n} episodes (cached in {cache_dir})")
            texts = [e.index_text() for e in episodes]
            vecs = embed_cached(embedder, texts, cache_dir)
            pre = PrecomputedEmbedder(embedder, dict(zip(texts, vecs, strict=True)))
            qs = [rng.choice(QUESTIONS).format(name=rng.choice(NAMES), city=rng.choice(CITIES)) for _ in range(queries)]
            pre.known.update({q: embedder.embed([q])[0] for q in set(qs)})  # a recall's vector: a lookup
            prepared.append((n, episodes, pre, qs))
        # One store at a time, every size: a store is never timed while the other one is
        # still settling (Neo4j merges index segments in the background after a bulk load).
        for url in stores:
            name = "sqlite" if url == "sqlite" else "neo4j"
            for n, episodes, pre, qs in prepared:
                t_first, t_last = episodes[0].occurred_at, episodes[-1].occurred_at
                log(f"[{n}] {name}: store-only ingest")
                st, size = _open(url, tmp, embedder.dim)
                gid = f"bench-{uuid.uuid4().hex[:8]}"
                eps = [e.model_copy(update={"group_id": gid, "id": f"ep_{uuid.uuid4().hex}"}) for e in episodes]
                t0 = time.perf_counter()
                for i in range(0, len(eps), 1000):
                    st.add_episodes(eps[i : i + 1000])
                store_only = time.perf_counter() - t0
                log(f"[{n}] {name}: indexing + rules extraction")
                mem = Memory(st, settings=Settings(batch_size=1000), embedder=pre,
                             extractor=RulesExtractor(use_parser=False), owns_store=False)
                t0 = time.perf_counter()
                stats = mem.process_pending(gid)
                index_time = time.perf_counter() - t0
                log(f"[{n}] {name}: recall x{queries} now and as-of")
                now, known_at = utcnow(), utcnow()
                span = (t_last - t_first).total_seconds()
                # Warm up as a server that has been answering for a while would be: query plans
                # compiled, the JVM's hot paths compiled (Neo4j), caches filled. Same for both stores.
                warm = random.Random(seed + 1)
                for q in qs[:warmup]:
                    mem.recall(q, group=gid, as_of=now, known_at=known_at, k=10)
                    as_of = t_first + timedelta(seconds=warm.random() * span)
                    mem.recall(q, group=gid, as_of=as_of, known_at=known_at, k=10)
                lat_now, lat_asof = [], []
                dates = random.Random(seed * 7919 + n)  # the same as-of dates on every store
                for q in qs:
                    t0 = time.perf_counter()
                    mem.recall(q, group=gid, as_of=now, known_at=known_at, k=10)
                    lat_now.append(time.perf_counter() - t0)
                    as_of = t_first + timedelta(seconds=dates.random() * span)
                    t0 = time.perf_counter()
                    mem.recall(q, group=gid, as_of=as_of, known_at=known_at, k=10)
                    lat_asof.append(time.perf_counter() - t0)
                counts = st.counts(gid)
                row = {
                    "episodes": n, "store_only_eps_per_s": round(n / store_only, 1),
                    "index_extract_eps_per_s": round(n / index_time, 1),
                    "facts": counts["facts"], "facts_current": counts["facts_current"],
                    "facts_added": stats.facts_added, "facts_invalidated": stats.facts_invalidated,
                    "recall_now": percentiles(lat_now), "recall_as_of": percentiles(lat_asof),
                    "store_bytes": size(), "peak_rss_mb": _rss_mb(),
                }
                results["stores"].setdefault(name, []).append(row)
                log(f"[{n}] {name}: {row}")
                mem.close()
                st.close()
        # End to end: real embeddings of every text, rules extractor, fresh store.
        e2e = list(generate(e2e_episodes, seed=seed + 1))
        for url in stores:
            name = "sqlite" if url == "sqlite" else "neo4j"
            log(f"[e2e] {name}: {e2e_episodes} episodes with embeddings and extraction")
            st, _ = _open(url, tmp, embedder.dim)
            gid = f"bench-e2e-{uuid.uuid4().hex[:8]}"
            eps = [e.model_copy(update={"group_id": gid, "id": f"ep_{uuid.uuid4().hex}"}) for e in e2e]
            from ..embed.base import CachedEmbedder

            fresh = CachedEmbedder(getattr(embedder, "inner", embedder))  # no warm cache
            mem = Memory(st, settings=Settings(batch_size=256), embedder=fresh,
                         extractor=RulesExtractor(use_parser=False), owns_store=False)
            t0 = time.perf_counter()
            mem.add_episodes(eps)
            dt = time.perf_counter() - t0
            mem.close()
            results["e2e"][name] = {"episodes": e2e_episodes, "eps_per_s": round(e2e_episodes / dt, 1)}
            st.close()
    results["peak_rss_mb"] = _rss_mb()
    return results


def vector_backends(sizes: Sequence[int], dim: int = 384, queries: int = 200, seed: int = 3) -> dict[str, Any]:
    """Exact numpy scan (what the SQLite store uses) against sqlite-vec's vec0
    table (through apsw, since many Pythons cannot load SQLite extensions), both
    with a time pre-filter. Vectors are random unit vectors: latency does not
    depend on what they mean."""
    from ..store.index.vectors import VectorIndex

    out: dict[str, Any] = {"sizes": list(sizes)}
    rng = np.random.default_rng(seed)
    try:
        import apsw  # type: ignore[import-not-found]
        import sqlite_vec  # type: ignore[import-not-found]
    except ImportError as exc:
        out["sqlite_vec_error"] = f"not installed: {exc}"
        apsw = sqlite_vec = None  # type: ignore[assignment]
    for n in sizes:
        m = rng.normal(size=(n, dim)).astype(np.float32)
        m /= np.linalg.norm(m, axis=1, keepdims=True)
        times = rng.integers(0, 1_000_000, size=n)
        qs = rng.normal(size=(queries, dim)).astype(np.float32)
        qs /= np.linalg.norm(qs, axis=1, keepdims=True)
        cut = 500_000
        idx = VectorIndex(dim, ("t",))
        idx.upsert((i, m[i].tobytes(), (int(times[i]),)) for i in range(n))
        lat = []
        def before_cut(t: dict[str, np.ndarray], cut: int = cut) -> np.ndarray:
            return t["t"] <= cut

        for q in qs:
            t0 = time.perf_counter()
            idx.search(q, 50, before_cut)
            lat.append(time.perf_counter() - t0)
        out.setdefault("numpy", []).append({"n": n, **percentiles(lat)})
        if apsw is None:
            continue
        conn = apsw.Connection(":memory:")
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{dim}] distance_metric=cosine, t integer)")
        with conn:
            conn.executemany("INSERT INTO v(rowid, embedding, t) VALUES (?, ?, ?)",
                             ((i, m[i].tobytes(), int(times[i])) for i in range(n)))
        lat = []
        for q in qs:
            t0 = time.perf_counter()
            list(conn.execute("SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = 50 AND t <= ?",
                              (q.tobytes(), cut)))
            lat.append(time.perf_counter() - t0)
        out.setdefault("sqlite_vec", []).append({"n": n, **percentiles(lat)})
    return out
