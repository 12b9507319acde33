"""`kgmem bench agent-loop`: what an agent does, on each store. One group holds a
long history (100k episodes by default) and a neighbour group, another user's,
a shorter one (20k). The history's vectors are the model's (embedded once, then
cached) unless ``random_vectors`` asks for seeded random ones. The loop then
repeats: recall, add a turn to the group, recall, add a turn to the neighbour,
recall. Every timed call is the public API an agent makes: ``Memory.add`` (which
stores the turn, claims it, extracts it with the offline extractor, parser included,
and indexes it) and ``Memory.recall`` (query embedding included, from a cache of the
questions' vectors). It reports recall latency in the steady state, right after a
write to the same group and right after a write to another group, the first recall of
the group (nothing held yet), and the latency of an add. The time an add spends in the
embedding model (the turn's text as it indexes it, a new fact's statement) is
subtracted and reported beside it, so the add figure is the memory's own cost. The
history is filled through ``Memory.add_episodes`` (without the parser, for time), and
no internal is timed.

Timed tests are not part of the test suite; this is where speed is measured."""

from __future__ import annotations

import random
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.models import Episode
from ..embed.base import Embedder
from ..extract.rules import RulesExtractor
from ..memory import Memory
from ..settings import Settings
from .scale import QUESTIONS, PrecomputedEmbedder, _open, embed_cached, percentiles
from .synthetic import CITIES, NAMES, generate

WARMUP = 100


def _prepare(n: int, neighbour: int, turns: int, seed: int, embedder: Embedder, cache_dir: Path,
             log: Callable[[str], None], random_vectors: bool
             ) -> tuple[list[Episode], list[Episode], list[Episode], PrecomputedEmbedder]:
    main = list(generate(n, seed=seed))
    side = list(generate(neighbour, seed=seed + 1))  # another user: their own turns, not copies of this one's
    extra = list(generate(turns, seed=seed + 99))
    texts = [e.index_text() for e in main] + [e.index_text() for e in extra]
    side_texts = [e.index_text() for e in side]
    if random_vectors:  # a stress case: no neighbourhoods, so an HNSW search visits far more of its graph
        log(f"seeded random unit vectors for {len(texts) + len(side_texts)} texts")
        vecs = np.random.default_rng(seed).normal(size=(len(texts) + len(side_texts), embedder.dim))
        vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    else:
        log(f"embedding {len(texts) + len(side_texts)} texts (cached in {cache_dir})")
        vecs = np.concatenate([embed_cached(embedder, texts, cache_dir), embed_cached(embedder, side_texts, cache_dir)])
    known = dict(zip(texts + side_texts, vecs, strict=True))
    return main, side, extra, PrecomputedEmbedder(embedder, known)


def _fill(mem: Memory, episodes: list[Episode], group: str) -> None:
    eps = [e.model_copy(update={"group_id": group, "id": f"ep_{uuid.uuid4().hex}"}) for e in episodes]
    for i in range(0, len(eps), 1000):
        mem.add_episodes(eps[i: i + 1000])


def timed_add(mem: Memory, turn: Episode, group: str, pre: PrecomputedEmbedder) -> tuple[float, float]:
    """One agent write: ``Memory.add``. Returns (seconds without the time spent in the embedding
    model, seconds with it)."""
    embedding = pre.inner_seconds
    t0 = time.perf_counter()
    mem.add(turn.content, group=group, role=turn.role, speaker=turn.speaker, session_id=turn.session_id)
    total = time.perf_counter() - t0
    return total - (pre.inner_seconds - embedding), total


def timed_recall(mem: Memory, group: str, q: str) -> float:
    t0 = time.perf_counter()
    mem.recall(q, group=group, k=10)
    return time.perf_counter() - t0


def run_agent_loop(stores: Sequence[str], embedder: Embedder, episodes: int = 100_000, neighbour: int = 20_000,
                   rounds: int = 200, seed: int = 42, cache_dir: Path | None = None,
                   log: Callable[[str], None] = print, random_vectors: bool = False) -> dict[str, Any]:
    cache_dir = cache_dir or Path(".bench-cache")
    main, side, extra, pre = _prepare(episodes, neighbour, 2 * rounds + WARMUP, seed, embedder, cache_dir, log,
                                      random_vectors)
    rng = random.Random(seed)
    qs = [rng.choice(QUESTIONS).format(name=rng.choice(NAMES), city=rng.choice(CITIES)) for _ in range(3 * rounds)]
    pre.known.update({q: embedder.embed([q])[0] for q in set(qs)})  # a recall's query vector: a lookup
    out: dict[str, Any] = {"episodes": episodes, "neighbour": neighbour, "rounds": rounds, "seed": seed,
                           "history_vectors": "seeded random" if random_vectors else embedder.name, "stores": {}}
    with tempfile.TemporaryDirectory() as tmpdir:
        for url in stores:
            store, _ = _open(url, Path(tmpdir), embedder.dim)
            name = "sqlite" if url == "sqlite" else f"neo4j {store.info().get('server_version') or ''}".strip()
            group, other = f"loop-{uuid.uuid4().hex[:8]}", f"loop-n-{uuid.uuid4().hex[:8]}"
            log(f"{name}: {episodes} episodes in the group, {neighbour} in its neighbour")
            filler = Memory(store, settings=Settings(), embedder=pre, extractor=RulesExtractor(use_parser=False))
            _fill(filler, main, group)
            _fill(filler, side, other)
            mem = Memory(store, settings=Settings(), embedder=pre, extractor=RulesExtractor(pre))
            turns = iter(extra)

            def recall(q: str, mem: Memory = mem, group: str = group) -> float:
                return timed_recall(mem, group, q)

            first = recall(qs[0])  # the group's first recall in this process: nothing held yet
            log(f"{name}: first recall {first * 1000:.1f} ms; warm-up")
            for i in range(WARMUP):  # plans compiled, caches filled, as in a server that has been up a while
                recall(qs[i % len(qs)])
                if i % 10 == 0:
                    timed_add(mem, next(turns), group, pre)
            steady, after_same, after_other = [], [], []
            add_same: list[tuple[float, float]] = []
            add_other: list[tuple[float, float]] = []
            log(f"{name}: {rounds} rounds of recall, add, recall, add to the neighbour, recall")
            for r in range(rounds):
                steady.append(recall(qs[3 * r]))
                add_same.append(timed_add(mem, next(turns), group, pre))
                after_same.append(recall(qs[3 * r + 1]))
                add_other.append(timed_add(mem, next(turns), other, pre))
                after_other.append(recall(qs[3 * r + 2]))
            row = {"recall_steady": percentiles(steady), "recall_after_same_group_write": percentiles(after_same),
                   "recall_after_other_group_write": percentiles(after_other),
                   "add_same_group": percentiles([a for a, _ in add_same]),
                   "add_other_group": percentiles([a for a, _ in add_other]),
                   "add_same_group_with_embedding": percentiles([t for _, t in add_same]),
                   "recall_first": round(first * 1000, 2)}
            out["stores"][name] = row
            log(f"{name}: {row}")
            mem.close()  # closes the store
    return out
