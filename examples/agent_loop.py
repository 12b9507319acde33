"""An agent loop with kgmem's memory tools, in-process (no MCP server needed).

    python examples/agent_loop.py                 # a scripted model: no endpoint needed
    KGMEM_LLM_BASE_URL=http://127.0.0.1:8080/v1 KGMEM_LLM_MODEL=... python examples/agent_loop.py --live

The model gets `kg_memory.tools.openai_tools()`; each tool call it makes goes through
`kg_memory.tools.call`, whose result (or `{"error": ...}`) goes back as the tool message.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from kg_memory import Memory
from kg_memory.tools import MemoryTools, call, openai_tools

SYSTEM = ("You are an assistant with long-term memory. Save what the user tells you about themselves with "
          "save_memory; before answering, recall. Fix wrong memories with update_memory.")

# What a model would do for these user turns (used when no endpoint is configured).
SCRIPT = [
    ("I moved to Porto last month and I work at Farfetch now.",
     [("save_memory", {"content": "I moved to Porto last month and I work at Farfetch now."})]),
    ("Where do I live?", [("recall", {"query": "Where do I live?", "k": 3})]),
    ("Sorry, I meant Braga, not Porto.",
     [("get_memories", {"predicate": "lives_in"}), ("update_memory", {"fact_id": "$lives_in", "value": "Braga"})]),
    ("Where do I live now, and what did you believe before?",
     [("recall", {"query": "Where do I live?", "k": 3}), ("get_memory_history", {"fact_id": "$lives_in"})]),
]


def scripted(tools: MemoryTools) -> None:
    remembered: dict[str, str] = {}
    for user, calls in SCRIPT:
        print(f"\nuser: {user}")
        for name, args in calls:
            args = {k: remembered.get(v[1:], v) if isinstance(v, str) and v.startswith("$") else v
                    for k, v in args.items()}
            result = call(tools, name, args)
            for f in result.get("facts", []):
                remembered.setdefault(f["predicate"], f["id"])
            shown = result.get("context") or json.dumps(result)[:300]
            print(f"  tool {name}({json.dumps(args)}) ->\n    " + shown.replace("\n", "\n    "))


def live(tools: MemoryTools) -> None:  # pragma: no cover - needs a model endpoint
    import openai

    client = openai.OpenAI(base_url=os.environ["KGMEM_LLM_BASE_URL"], api_key=os.environ.get("KGMEM_LLM_API_KEY", "x"))
    model = os.environ.get("KGMEM_LLM_MODEL", "gpt-4o-mini")
    messages: list[dict] = [{"role": "system", "content": SYSTEM}]
    for user, _ in SCRIPT:
        print(f"\nuser: {user}")
        messages.append({"role": "user", "content": user})
        for _ in range(5):  # at most five tool rounds per turn
            reply = client.chat.completions.create(model=model, messages=messages, tools=openai_tools()).choices[0]
            messages.append(reply.message.model_dump(exclude_none=True))
            if not reply.message.tool_calls:
                print(f"assistant: {reply.message.content}")
                break
            for tc in reply.message.tool_calls:
                result = call(tools, tc.function.name, tc.function.arguments)
                messages.append({"role": "tool", "tool_call_id": tc.id, "content": json.dumps(result)})


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, Memory.open(f"sqlite:///{tmp}/agent.db") as mem:
        tools = MemoryTools(mem, group="agent-demo", wait=True)
        (live if "--live" in sys.argv else scripted)(tools)


if __name__ == "__main__":
    main()
