"""AsyncMemory offers what Memory offers, and gives the same answers."""

from __future__ import annotations

import asyncio
import inspect

from kg_memory.memory import AsyncMemory, Memory

# Memory methods that are not part of the async surface, and why.
SYNC_ONLY = {"open": "AsyncMemory.open is its own constructor", "close": "async close",
             "episode": "pure: builds an Episode", "add_episode": "use add", "add_episodes": "bulk loading",
             "worker": "the worker is internal", "process_pending": "a batch job", "hint": "CLI help text",
             "doctor": "CLI"}


def test_async_memory_covers_the_public_api():
    public = {n for n, f in inspect.getmembers(Memory, inspect.isfunction) if not n.startswith("_")}
    mine = {n for n, f in inspect.getmembers(AsyncMemory, inspect.iscoroutinefunction) if not n.startswith("_")}
    missing = public - mine - set(SYNC_ONLY)
    assert not missing, f"AsyncMemory lacks {sorted(missing)}"


def test_async_answers_equal_sync_answers(store, group, make_memory):
    mem = make_memory()
    amem = AsyncMemory(mem)

    async def run() -> None:
        await amem.add("I live in Leeds and I play the violin.", group=group, occurred_at="2025-01-01", wait=False)
        await amem.flush(timeout=60)
        facts = await amem.facts(group=group)
        assert [f.id for f in facts] == [f.id for f in mem.facts(group=group)]
        home = next(f for f in facts if f.predicate == "lives_in")
        done = await amem.correct(home.id, "York", group=group)
        assert [v.id for v in await amem.fact_history(home.id, group=group)] == [
            v.id for v in mem.fact_history(home.id, group=group)] and done.written
        got = await amem.recall("Where do I live?", group=group)
        assert got.to_json()["facts"] == mem.recall("Where do I live?", group=group).to_json()["facts"]
        assert [e.episode.id for e in await amem.search_text("violin", group=group)] == [
            e.episode.id for e in mem.search_text("violin", group=group)]
        tomb = await amem.forget(whole_group=True, group=group)
        assert [t.id for t in await amem.tombstones(group=group)] == [tomb.id]

    asyncio.run(run())
