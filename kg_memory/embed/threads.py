"""How many threads the BLAS library under numpy uses for kgmem's matrix work.

A turn's products (a query's scores against a group's held vectors, the meaning reader's slot scores, one turn's
embedding) are small: a second BLAS thread gains them little, and when a product ends its idle BLAS threads spin
for a while before they sleep. On a machine of few cores those spinning threads take the core that a local Neo4j
needs to commit the next write, or a recall's worker thread needs: on this two-core machine a Neo4j add spent
half its commit waiting on them (docs/benchmarks.md, "The public path, round three"). So a Memory limits BLAS to
``Settings.blas_threads`` (1 unless configured; 0 leaves it alone), process-wide, when it opens; a batch of many
texts to embed uses the threads the process started with while it runs (``wide``)."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

WIDE_FROM = 16  # texts in one embedding call from which every core helps (a bulk ingest, not a turn)


@functools.cache
def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@functools.cache
def _started_with() -> int:
    """The BLAS threads the process had before any limit: every core, or what its environment set
    (``OPENBLAS_NUM_THREADS=1`` under the test suite's two workers)."""
    counts = [int(i.get("num_threads") or 1) for i in _controller().info() if i.get("user_api") == "blas"]
    return max(counts, default=os.cpu_count() or 1)


def limit_blas(threads: int) -> None:
    """Limit the BLAS libraries loaded in this process to ``threads`` threads (0: leave them as they are)."""
    if threads > 0:
        _started_with()  # (read before the first limit)
        _controller().limit(limits=threads, user_api="blas")


@contextmanager
def wide(texts: int) -> Iterator[None]:
    """The threads the process started with, while a batch of at least ``WIDE_FROM`` texts is embedded (never
    more than its environment allowed); the limit before, after."""
    if texts < WIDE_FROM:
        yield
        return
    with _controller().limit(limits=_started_with(), user_api="blas"):
        yield
