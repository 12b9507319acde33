"""`kgmem bench background`: what an agent's chat loop pays per turn. ``add`` waits
for extraction; ``add(wait=False)`` returns once the turn is committed and a
background worker extracts it; ``flush`` waits for the worker. Reported per store:
add latency both ways, flush time, throughput of the whole write (first add to
end of flush) and a recall right after the flush, with the real embedding model
and the rules extractor, as ``Memory`` runs them.

Timed tests are not part of the test suite; this is where speed is measured."""

from __future__ import annotations

import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..embed.base import Embedder
from ..memory import Memory
from ..settings import Settings
from ..store.url import open_store
from .scale import percentiles
from .synthetic import generate


def _one_store(url: str, embedder: Embedder, turns: int, seed: int, log: Callable[[str], None]) -> dict[str, Any]:
    store = open_store(url, dim=embedder.dim)
    mem = Memory(store, settings=Settings(), embedder=embedder)
    try:
        texts = [e.content for e in generate(2 * turns, seed=seed)]
        embedder.embed(texts[:8])  # load the model before timing
        waited_group, bg_group = f"bench-wait-{uuid.uuid4().hex[:8]}", f"bench-bg-{uuid.uuid4().hex[:8]}"
        log(f"{store.kind}: {turns} adds that wait for extraction")
        waited = []
        for text in texts[:turns]:
            t0 = time.perf_counter()
            mem.add(text, group=waited_group)
            waited.append(time.perf_counter() - t0)
        log(f"{store.kind}: {turns} adds with wait=False, then flush")
        quick = []
        start = time.perf_counter()
        for text in texts[turns:]:
            t0 = time.perf_counter()
            mem.add(text, group=bg_group, wait=False)
            quick.append(time.perf_counter() - t0)
        t_flush = time.perf_counter()
        stats = mem.flush()
        end = time.perf_counter()
        recalls = []
        for text in texts[turns: turns + 20]:  # questions about what was just written
            t0 = time.perf_counter()
            mem.recall(text, group=bg_group)
            recalls.append(time.perf_counter() - t0)
        return {"add_wait": percentiles(waited), "add_no_wait": percentiles(quick),
                "flush_s": round(end - t_flush, 3), "extracted": stats.episodes_extracted,
                "turns_per_s_waiting": round(turns / sum(waited), 1),
                "turns_per_s_background": round(turns / (end - start), 1), "recall_after_flush": percentiles(recalls)}
    finally:
        mem.close()


def run_background(stores: Sequence[str], embedder: Embedder, turns: int = 300, seed: int = 7,
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    out: dict[str, Any] = {"turns": turns, "stores": {}}
    with tempfile.TemporaryDirectory(prefix="kgmem-bench-bg-") as tmp:
        for spec in stores:
            url = f"sqlite:///{Path(tmp) / 'bg.db'}" if spec == "sqlite" else spec
            name = "sqlite" if spec == "sqlite" else "neo4j"
            out["stores"][name] = _one_store(url, embedder, turns, seed, log)
    return out
