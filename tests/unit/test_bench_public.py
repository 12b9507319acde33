"""The benches that report a user-facing latency time the public calls an agent makes: inside every
``time.perf_counter()`` window of ``bench agent-loop`` and ``bench background`` (and so of ``bench
growth``, which times through the agent loop's helpers) the only calls are ``Memory`` methods (add,
recall, flush, add_episodes), and none imports the internals (the pipeline, the recaller) or preloads a
store's index behind the public path's back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "kg_memory" / "bench"
PUBLIC = {"add", "recall", "flush", "add_episodes"}
USER_FACING = ["agent_loop.py", "background.py"]


def _is_clock(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "perf_counter" for n in ast.walk(node))


def timed_calls(tree: ast.AST) -> list[str]:
    """The names of the calls made between a ``t0 = perf_counter()`` and the next clock reading, in
    each function."""
    found: list[str] = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        timing = False
        for stmt in _flat(fn.body):
            if _is_clock(stmt):  # a start (t0 = perf_counter()) or an end (perf_counter() - t0)
                timing = isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                    and getattr(stmt.value.func, "attr", "") == "perf_counter"
            elif timing:
                found += [getattr(c.func, "attr", getattr(c.func, "id", "?")) for c in ast.walk(stmt)
                          if isinstance(c, ast.Call)]
    return found


def _flat(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.For | ast.While | ast.With | ast.AsyncWith | ast.If | ast.Try):
            out += _flat(stmt.body)  # a loop's body is timed by the clock calls inside it
            out += _flat(getattr(stmt, "orelse", []))  # and an if's other branch
        else:
            out.append(stmt)
    return out


@pytest.mark.parametrize("name", USER_FACING)
def test_user_facing_benches_time_only_public_calls(name):
    tree = ast.parse((BENCH / name).read_text())
    calls = timed_calls(tree)
    assert calls and set(calls) <= PUBLIC, f"{name} times {sorted(set(calls) - PUBLIC)}"
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert not imported & {"Pipeline", "Recaller"}
    assert not any(getattr(n, "attr", "") == "preload" for n in ast.walk(tree))


def test_the_growth_bench_times_through_the_agent_loops_public_calls():
    """``bench growth`` times nothing itself: every timed call goes through ``timed_add`` and
    ``timed_recall`` (``Memory.add`` and ``Memory.recall``, checked above), and it imports no internal."""
    tree = ast.parse((BENCH / "growth.py").read_text())
    assert timed_calls(tree) == [] and not any(_is_clock(n) for n in ast.walk(tree))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert {"timed_add", "timed_recall"} <= imported and not imported & {"Pipeline", "Recaller"}
    called = {getattr(c.func, "id", "") for c in ast.walk(tree) if isinstance(c, ast.Call)}
    assert {"timed_add", "timed_recall"} <= called
    assert not any(getattr(n, "attr", "") == "preload" for n in ast.walk(tree))


def test_the_scale_bench_recalls_through_memory():
    """``bench scale`` times its recalls and its indexing through ``Memory`` (its store-only ingest is an
    internal figure, labelled so): it imports neither the pipeline nor the recaller."""
    tree = ast.parse((BENCH / "scale.py").read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert "Memory" in imported and not imported & {"Pipeline", "Recaller"}
    assert "recall" in timed_calls(tree) and "process_pending" in timed_calls(tree)


def test_the_check_fails_on_a_timed_internal():
    """The check above can fail: an internal call in a timed window is caught."""
    tree = ast.parse("import time\ndef f(pipe, ep):\n    t0 = time.perf_counter()\n    pipe.process([ep])\n"
                     "    return time.perf_counter() - t0\n")
    assert timed_calls(tree) == ["process"]


def test_the_serve_bench_times_http_calls_only():
    """``bench serve`` times requests to the running server (HTTP GET and POST), nothing in process."""
    tree = ast.parse((BENCH / "serve.py").read_text())
    one = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "one")
    timed = set(timed_calls(one))
    assert {"get", "post"} <= timed <= {"get", "post", "str", "lower", "choice", "_turn"}, timed
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert "Memory" not in imported and not imported & {"Pipeline", "Recaller"}
