"""`kgmem bench growth`: how the public calls behave as a group grows, and with many tenants.

**One group growing.** One group is filled to each size in turn (10k, 100k, 1M episodes by
default) beside a neighbour of 20k, through the store (extracted episodes with seeded random
vectors: history may be filled so; the timed calls never are). At each size:

- the first ``Memory.recall`` of the group in a process that does not hold it (a new ``Memory``
  over a new store handle): the first such finds no snapshot of the group's index as it now is (SQLite
  writes one after a whole load) and is reported apart, then the median of three more; and what the
  process holds after the first (RSS growth);
- then ``rounds`` of ``Memory.recall``, ``Memory.add`` (waiting for extraction, the offline
  extractor with its parser) and ``Memory.recall`` again, after a short warm-up and a wait for a quiet machine
  (Neo4j reads a large group's vectors in the background after its first recalls): add p50/p95
  without the time spent in the embedding model (that time is reported beside it) and recall
  p50/p95 steady and right after the write;
- the process RSS and the store's size on disk.

Each fill is followed by a wait until the machine is quiet (``settle``): Neo4j merges a bulk fill's index
segments in the background for minutes, which a group that grows turn by turn never waits for.

**Many tenants.** ``groups`` groups of ``group_size`` episodes each in one store: the first recall
of each of ``cold`` groups (none held before), the steady recall of one, and the process RSS
after more groups were read than the held LRU keeps (``max_groups``), so eviction shows.

Timed tests are not part of the test suite; this is where speed is measured."""

from __future__ import annotations

import random
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from ..core.models import Episode
from ..embed.base import Embedder
from ..extract.rules import RulesExtractor
from ..memory import Memory
from ..settings import Settings
from ..store.base import Store, WriteBatch
from .agent_loop import timed_add, timed_recall
from .scale import QUESTIONS, PrecomputedEmbedder, _open, percentiles
from .synthetic import CITIES, NAMES, generate

# First recalls of a group at each size, each by a new handle: the first of them finds no snapshot of the
# group's index as it now is (a SQLite group snapshots once loaded whole) and is reported apart; the
# median of the others is the cold first recall a process meets.
COLD_TRIES = 4
WARMUP = 20  # recalls before the timed rounds at each size: plans compiled, the group's index held
FILL_BATCH = 1000  # episodes per store transaction while filling
# After a fill the machine must be quiet before anything is timed: Neo4j merges a bulk fill's index segments in the
# background for minutes, which a group that grows turn by turn never has to wait for (docs/benchmarks.md, "The
# public path, round three"). Quiet: under this share of the CPUs busy over SETTLE_WINDOW seconds, waited at most
# SETTLE_MAX seconds.
SETTLE_BUSY = 0.15
SETTLE_WINDOW = 5.0
SETTLE_MAX = 300.0
T0 = datetime(2020, 1, 1, tzinfo=UTC)


def current_rss_mb() -> float:
    """The process's resident memory now (not its peak)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024.0, 1)
    return -1.0


def fill(store: Store, group: str, start: int, n: int, dim: int, seed: int) -> None:
    """``n`` more extracted episodes in ``group`` (numbered from ``start``), with seeded random
    unit vectors, written through the store in batches."""
    rng = np.random.default_rng(seed + start)
    for s in range(start, start + n, FILL_BATCH):
        size = min(FILL_BATCH, start + n - s)
        eps = [Episode(group_id=group, role="user" if i % 2 == 0 else "assistant",
                       content=f"turn {i}: lunch with {NAMES[i % len(NAMES)]} in {CITIES[i % len(CITIES)]}",
                       occurred_at=T0 + timedelta(minutes=i), created_at=T0 + timedelta(minutes=i),
                       session_id=f"s{i // 40}")
               for i in range(s, s + size)]
        store.add_episodes(eps)
        vecs = rng.standard_normal((size, dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.write(WriteBatch(episode_vectors={(group, e.id): v for e, v in zip(eps, vecs, strict=True)},
                               statuses=[(group, e.id, "done", None) for e in eps]))


def _cpu_times() -> tuple[int, int]:
    """(idle, total) jiffies of all CPUs so far (Linux); (0, 0) elsewhere."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return fields[3] + (fields[4] if len(fields) > 4 else 0), sum(fields)


def settle(at_most: float = SETTLE_MAX) -> float:
    """Wait until the machine is quiet (``SETTLE_BUSY``), at most ``at_most`` seconds; the seconds waited."""
    start = time.monotonic()
    while time.monotonic() - start < at_most:
        idle0, total0 = _cpu_times()
        time.sleep(SETTLE_WINDOW)
        idle1, total1 = _cpu_times()
        if total1 <= total0 or 1 - (idle1 - idle0) / (total1 - total0) < SETTLE_BUSY:
            break
    return round(time.monotonic() - start, 1)


def _questions(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(QUESTIONS).format(name=rng.choice(NAMES), city=rng.choice(CITIES)) for _ in range(n)]


def _memory(url: str, path: str, embedder: PrecomputedEmbedder, parser: bool) -> Memory:
    """A new ``Memory`` over a new handle on the same store: a process that holds nothing of it."""
    from ..store.url import open_store

    store = open_store(path, dim=embedder.dim)
    return Memory(store, settings=Settings(), embedder=embedder, extractor=RulesExtractor(embedder) if parser
                  else RulesExtractor(use_parser=False))


def measure_size(url: str, path: str, group: str, pre: PrecomputedEmbedder, qs: list[str], turns: list[Episode],
                 rounds: int, settle_at_most: float = SETTLE_MAX) -> dict[str, Any]:
    """The public calls on one group of the current size (see the module docstring)."""
    colds = []
    for i in range(COLD_TRIES):  # a new process's first recall of the group, each on a new handle
        mem = _memory(url, path, pre, parser=True)
        before = current_rss_mb()
        colds.append(timed_recall(mem, group, qs[i]))
        if i == 0:  # later handles reuse the memory the closed ones gave back
            held = current_rss_mb() - before
        if i < COLD_TRIES - 1:
            mem.close()
    for q in qs[1:WARMUP + 1]:
        mem.recall(q, group=group, k=10)
    # a process that serves the group comes to hold its index: the steady rounds start once the machine is quiet
    # again (Neo4j reads a large group's vectors in the background after its first recalls, for a minute at 1M)
    settle(settle_at_most)
    timed_add(mem, turns[-1], group, pre)  # the parser loads on a process's first add
    steady, after, adds, adds_all = [], [], [], []
    for r in range(rounds):
        steady.append(timed_recall(mem, group, qs[(2 * r) % len(qs)]))
        own, total = timed_add(mem, turns[r % len(turns)], group, pre)
        adds.append(own)
        adds_all.append(total)
        after.append(timed_recall(mem, group, qs[(2 * r + 1) % len(qs)]))
    row = {"first_recall_cold_ms": round(float(np.median(colds[1:])) * 1000, 1),
           "first_recall_unsnapshotted_ms": round(colds[0] * 1000, 1),
           "first_recall_cold_each_ms": [round(c * 1000, 1) for c in colds], "held_by_the_group_mb": round(held, 1),
           "add": percentiles(adds), "add_with_embedding": percentiles(adds_all),
           "recall_steady": percentiles(steady), "recall_after_write": percentiles(after),
           "rss_mb": current_rss_mb()}
    mem.close()
    return row


def run_growth(stores: Sequence[str], embedder: Embedder, sizes: Sequence[int] = (10_000, 100_000, 1_000_000),
               neighbour: int = 20_000, rounds: int = 100, groups: int = 1000, group_size: int = 1000,
               cold: int = 20, seed: int = 42, log: Callable[[str], None] = print,
               settle_at_most: float = SETTLE_MAX) -> dict[str, Any]:
    """``settle_at_most``: the longest wait for a quiet machine after each fill (0: none; a test's tiny fills)."""
    qs = _questions(seed, 2 * rounds + WARMUP + 101)
    turns = list(generate((rounds + 1) * len(sizes), seed=seed + 99))  # new turns at every size: a repeat
    # of a stored turn is a duplicate, which an add answers without extracting
    pre = PrecomputedEmbedder(embedder, {q: embedder.embed([q])[0] for q in set(qs)})
    out: dict[str, Any] = {"sizes": list(sizes), "neighbour": neighbour, "rounds": rounds, "groups": groups,
                           "group_size": group_size, "seed": seed, "stores": {}}
    with tempfile.TemporaryDirectory() as tmpdir:
        for url in stores:
            store, size = _open(url, Path(tmpdir), embedder.dim)
            path = f"sqlite:///{store.path}" if url == "sqlite" else url  # type: ignore[attr-defined]
            name = "sqlite" if url == "sqlite" else f"neo4j {store.info().get('server_version') or ''}".strip()
            group, other = f"grow-{uuid.uuid4().hex[:8]}", f"grow-n-{uuid.uuid4().hex[:8]}"
            fill(store, other, 0, neighbour, embedder.dim, seed + 1)
            rows, have = [], 0
            for step, n in enumerate(sorted(sizes)):
                fill(store, group, have, n - have, embedder.dim, seed)
                quiet = settle(settle_at_most)
                log(f"{name}: {n} episodes in the group (quiet after {quiet} s)")
                have = n
                fresh = turns[step * (rounds + 1):(step + 1) * (rounds + 1)]
                row = {"episodes": n, "settled_s": quiet, **measure_size(url, path, group, pre, qs, fresh, rounds,
                                                                             settle_at_most),
                       "store_bytes": size()}
                log(f"{name}: {row}")
                rows.append(row)
            store.close()
            out["stores"][name] = {"growth": rows, "tenants": tenants(url, Path(tmpdir), pre, qs, groups,
                                                                       group_size, cold, seed, log, name,
                                                                       settle_at_most)}
    return out


def tenants(url: str, tmp: Path, pre: PrecomputedEmbedder, qs: list[str], groups: int, group_size: int,
            cold: int, seed: int, log: Callable[[str], None], name: str, settle_at_most: float = SETTLE_MAX
            ) -> dict[str, Any]:
    """The many-tenant shape (see the module docstring)."""
    store, size = _open(url, tmp, pre.dim)
    path = f"sqlite:///{store.path}" if url == "sqlite" else url  # type: ignore[attr-defined]
    prefix = f"tenant-{uuid.uuid4().hex[:6]}"
    names = [f"{prefix}-{i:04d}" for i in range(groups)]
    for i, g in enumerate(names):
        fill(store, g, 0, group_size, pre.dim, seed + i)
    store.close()
    quiet = settle(settle_at_most)
    log(f"{name}: {groups} groups of {group_size} filled (quiet after {quiet} s)")
    mem = _memory(url, path, pre, parser=False)
    max_groups = Settings().cache_groups
    order = random.Random(seed).sample(names, min(groups, max(cold, 2 * max_groups)))
    firsts, rss = [], []
    for i, g in enumerate(order):
        t = timed_recall(mem, g, qs[i % len(qs)])
        if i < cold:
            firsts.append(t)
        rss.append(current_rss_mb())
    for q in qs[:WARMUP]:  # warm-up
        mem.recall(q, group=order[0], k=10)
    steady = [timed_recall(mem, order[0], q) for q in qs[WARMUP:WARMUP + 100]]
    row = {"groups": groups, "group_size": group_size, "settled_s": quiet, "first_recall_cold": percentiles(firsts),
           "recall_steady": percentiles(steady), "groups_read": len(order), "held_groups_max": max_groups,
           "rss_mb_after_64_groups": rss[min(len(rss), max_groups) - 1], "rss_mb_after_all_read": rss[-1],
           "store_bytes": size()}
    mem.close()
    log(f"{name}: tenants {row}")
    return row
