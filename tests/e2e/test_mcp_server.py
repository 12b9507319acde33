"""`kgmem serve mcp` end to end, driven by the MCP SDK's own client: over stdio (on
both stores) and over streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from ..conftest import neo4j_url

ALL_TOOLS = {"save_memory", "recall", "search_memories", "semantic_search_memories", "as_of_semantic_search",
             "get_memories", "update_memory", "delete_memory", "get_memory_history", "get_related_memories"}
READ_TOOLS = ALL_TOOLS - {"save_memory", "update_memory", "delete_memory"}


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "KGMEM_HOME": str(home)}
    env.pop("KGMEM_STORE", None)
    return env


def _stdio(home: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "kg_memory", "serve", "mcp", *args],
                                 env=_env(home))


async def _call(c: Client, tool: str, **args: Any) -> dict[str, Any]:
    r = await c.call_tool(tool, args)
    assert not r.is_error, (tool, [getattr(x, "text", x) for x in r.content])
    assert isinstance(r.structured_content, dict)
    return r.structured_content


async def _error(c: Client, tool: str, **args: Any) -> str:
    r = await c.call_tool(tool, args)
    assert r.is_error, (tool, r.structured_content)
    return " ".join(getattr(x, "text", "") for x in r.content)


async def _session(c: Client, group: str = "agent") -> None:
    """What an agent does: save, recall, correct, look at history, ask about the past."""
    names = {t.name for t in (await c.list_tools()).tools}
    assert names == ALL_TOOLS
    saved = await _call(c, "save_memory", content="I live in Manchester and I work at Northwind Labs.",
                        occurred_at="2024-11-18T19:00:00Z")
    assert saved["stored"] and saved["episode_id"].startswith("ep_")
    await _call(c, "save_memory", content="I play the violin.", occurred_at="2024-11-20T10:00:00Z")
    await _call(c, "save_memory", content="I also play the cello.", occurred_at="2024-11-21T10:00:00Z")
    got = await _call(c, "recall", query="Where do I live?", k=5)  # read after write: waits for extraction
    assert "Manchester" in got["context"] and "note" not in got
    home = next(f for f in got["facts"] if f["predicate"] == "lives_in")

    fixed = await _call(c, "update_memory", fact_id=home["id"], value="Salford")
    assert fixed["kind"] == "correct" and fixed["closed"] == [home["id"]]
    now = await _call(c, "recall", query="Where do I live?", k=5)
    assert "Salford" in now["context"] and "lives_in Manchester" not in now["context"]
    history = await _call(c, "get_memory_history", fact_id=home["id"])
    assert [v["object"] for v in history["versions"]] == ["Manchester", "Salford"]
    assert history["versions"][0]["closing"].startswith("corrected")

    job = next(f for f in (await _call(c, "get_memories", predicate="works_at"))["facts"])
    moved = await _call(c, "update_memory", fact_id=job["id"], value="Acme Robotics", changed_at="2025-06-01")
    assert moved["kind"] == "change"
    past = await _call(c, "as_of_semantic_search", query="Where do I work?", valid_at="2025-01-01", k=5)
    assert {f["object"] for f in past["facts"] if f["predicate"] == "works_at"} == {"Northwind Labs"}
    assert all(e["occurred_at"] <= "2025-01-01" for e in past["episodes"])
    today = await _call(c, "get_memories", predicate="works_at")
    assert [f["object"] for f in today["facts"]] == ["Acme Robotics"]

    violin = next(f for f in (await _call(c, "get_memories", entity="violin"))["facts"])
    related = await _call(c, "get_related_memories", fact_id=violin["id"], k=5)
    assert "cello" in {f["object"] for f in related["facts"]}
    gone = await _call(c, "delete_memory", fact_id=violin["id"])
    assert gone["kind"] == "retire"
    assert "violin" not in {f["object"] for f in (await _call(c, "get_memories"))["facts"]}
    assert (await _call(c, "search_memories", query="violin", k=3))["episodes"]  # retired, not erased
    assert (await _call(c, "semantic_search_memories", query="music instruments", k=3))["episodes"]

    # bad arguments: one tool error each, and the server keeps serving
    assert "no fact" in await _error(c, "update_memory", fact_id="fv_doesnotexist", value="x")
    assert "empty" in await _error(c, "save_memory", content="   ")
    assert "occurred_at" in await _error(c, "save_memory", content="hello", occurred_at="yesterday-ish")
    assert "as_of:" in await _error(c, "recall", query="x", as_of="not a date")  # the tool's own argument name
    assert await _error(c, "recall", query="x", k="lots")
    assert await _error(c, "recall", query="x", k=0)
    assert "pinned" in await _error(c, "recall", query="x", group="someone-else")
    assert "pinned" in await _error(c, "save_memory", content="sneaky", group="someone-else")
    assert (await _call(c, "recall", query="Where do I live?"))["group_id"] == group


@pytest.mark.parametrize("store_kind", ["sqlite", "neo4j"])
def test_stdio_session_on_both_stores(tmp_path: Path, store_kind: str):
    group = f"agent-{uuid.uuid4().hex[:8]}"  # fresh on the shared Neo4j server
    args = ["--group", group] + (["--store", neo4j_url()] if store_kind == "neo4j" else [])

    async def main() -> None:
        async with Client(_stdio(tmp_path / "home", *args)) as c:
            await _session(c, group)

    asyncio.run(main())


def test_read_only_server_exposes_and_serves_reads_only(tmp_path: Path):
    home = tmp_path / "home"

    async def main() -> None:
        async with Client(_stdio(home, "--group", "agent")) as c:
            await _call(c, "save_memory", content="I live in Leeds.", occurred_at="2024-01-08T09:00:00Z")
            await _call(c, "recall", query="Where do I live?")
        async with Client(_stdio(home, "--group", "agent", "--read-only")) as c:
            assert {t.name for t in (await c.list_tools()).tools} == READ_TOOLS
            assert await _error(c, "save_memory", content="I live in York.")
            fact = (await _call(c, "get_memories"))["facts"][0]
            assert await _error(c, "delete_memory", fact_id=fact["id"])
            assert "Leeds" in (await _call(c, "recall", query="Where do I live?"))["context"]
            assert [f["object"] for f in (await _call(c, "get_memories"))["facts"]] == ["Leeds"]

    asyncio.run(main())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_streamable_http_session(tmp_path: Path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kg_memory", "serve", "mcp", "--transport", "http", "--port",
                             str(port), "--group", "agent"], env=_env(tmp_path / "home"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.2)

        async def main() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as c:
                await _session(c)

        asyncio.run(main())
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    assert "Traceback" not in err, err
    assert f"127.0.0.1:{port}/mcp" in err


def test_tool_schemas_match_the_mcp_server(tmp_path: Path):
    from kg_memory.agent.tools import anthropic_tools, openai_tools

    async def listed() -> dict[str, dict[str, Any]]:
        async with Client(_stdio(tmp_path / "home", "--group", "agent")) as c:
            return {t.name: t.input_schema for t in (await c.list_tools()).tools}

    served = asyncio.run(listed())
    mine = {t["function"]["name"]: t["function"]["parameters"] for t in openai_tools()}
    assert set(mine) == set(served) == ALL_TOOLS
    for name, schema in mine.items():
        assert set(schema["properties"]) == set(served[name]["properties"]) - {"group"}, name
        assert set(schema.get("required", [])) == set(served[name].get("required", [])), name
    assert {t["name"]: t["input_schema"] for t in anthropic_tools()} == mine
    assert {t["function"]["name"] for t in openai_tools(read_only=True)} == READ_TOOLS


def test_the_example_agent_loop_runs(tmp_path: Path):
    out = subprocess.run([sys.executable, "examples/agent_loop.py"], capture_output=True, text=True, timeout=300,
                         env=_env(tmp_path / "home"), cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    assert "User lives_in Braga" in out.stdout and '"kind": "correct"' in out.stdout
