"""A Memory limits the BLAS threads under numpy (``blas_threads``); a batch of many texts to embed uses every core
while it runs, and the limit holds again after it."""

from __future__ import annotations

import os

from threadpoolctl import threadpool_info

from kg_memory.embed.threads import WIDE_FROM, _started_with, limit_blas, wide
from kg_memory.memory import Memory
from kg_memory.settings import Settings
from kg_memory.store.url import open_store


def _blas_threads() -> set[int]:
    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_a_memory_limits_blas_to_its_setting(tmp_path):
    limit_blas(os.cpu_count() or 1)
    mem = Memory(open_store(f"sqlite:///{tmp_path}/m.db", dim=8), settings=Settings(blas_threads=1), use_embedder=False)
    try:
        assert _blas_threads() == {1}
    finally:
        mem.close()


def test_zero_leaves_blas_as_it_is(tmp_path):
    limit_blas(1)
    mem = Memory(open_store(f"sqlite:///{tmp_path}/m.db", dim=8), settings=Settings(blas_threads=0), use_embedder=False)
    try:
        assert _blas_threads() == {1}  # not raised, not lowered
    finally:
        mem.close()


def test_a_large_batch_uses_the_threads_the_process_started_with_while_it_runs():
    """(every core, or what the environment set: the suite runs with OPENBLAS_NUM_THREADS=1)"""
    limit_blas(1)
    with wide(WIDE_FROM - 1):
        assert _blas_threads() == {1}  # a turn's texts: the limit
    with wide(WIDE_FROM):
        assert _blas_threads() == {_started_with()}
    assert _blas_threads() == {1}


def test_the_threads_a_process_started_with_are_read_before_any_limit():
    assert 1 <= _started_with() <= (os.cpu_count() or 1)
    expected = int(os.environ.get("OPENBLAS_NUM_THREADS") or (os.cpu_count() or 1))
    assert _started_with() == expected
