"""A local OpenAI-compatible HTTP server (real HTTP on 127.0.0.1) that replays
recorded model responses through the real ``openai`` client. The only stand-in
the test suite uses, and only for paid LLM APIs.

Normal requests are answered from recordings (matched on the turn's text for
extraction, on the new statement for the judge). ``script`` queues special
answers for the failure tests: HTTP errors with headers, delays (timeouts),
malformed or wrong-schema content."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RECORDINGS = Path(__file__).parent / "fixtures" / "llm-recordings.json"


def load_recordings() -> list[dict[str, Any]]:
    return json.loads(RECORDINGS.read_text())["responses"]


class ReplayServer:
    def __init__(self, recordings: list[dict[str, Any]] | None = None, refuse_json_schema: bool = False):
        self.recordings = recordings if recordings is not None else load_recordings()
        self.script: deque[dict[str, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        self.refuse_json_schema = refuse_json_schema
        self.fail_after: int | None = None  # answer this many chat calls, then refuse connections
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server._handle(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ReplayServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def chat_calls(self) -> int:
        return sum(1 for r in self.requests if "messages" in r)

    # -- answers -------------------------------------------------------------
    def _send(self, h: BaseHTTPRequestHandler, status: int, payload: dict[str, Any],
              headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self._leave(h)
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _handle(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        h.in_flight = True  # type: ignore[attr-defined]
        try:
            self._answer(h, body)
        finally:
            self._leave(h)

    def _leave(self, h: BaseHTTPRequestHandler) -> None:
        """A request stops being in flight when its answer starts: from then on the client may
        send the next one, before this thread gets to count it out."""
        with self._lock:
            if getattr(h, "in_flight", False):
                h.in_flight = False  # type: ignore[attr-defined]
                self.in_flight -= 1

    def _answer(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)
            action = self.script.popleft() if self.script else None
            calls = self.chat_calls
        if h.path.endswith("/embeddings"):
            return self._embeddings(h, body)
        if self.fail_after is not None and calls > self.fail_after:
            h.close_connection = True
            h.connection.close()  # as if the server died mid-ingest
            return None
        fmt = (body.get("response_format") or {}).get("type")
        if self.refuse_json_schema and fmt == "json_schema":
            return self._send(h, 400, {"error": {"message": "response_format json_schema is not supported",
                                                 "type": "invalid_request_error"}})
        if action:
            if action.get("delay"):
                time.sleep(action["delay"])
            if action.get("status"):
                return self._send(h, action["status"], {"error": {"message": action.get("message", "error")}},
                                  action.get("headers"))
            if "content" in action:
                return self._send(h, 200, self._completion(body, action["content"]))
        return self._send(h, 200, self._completion(body, self._recorded(body)))

    def _recorded(self, body: dict[str, Any]) -> str:
        prompt = body["messages"][0]["content"]
        if "Decide what the new statement does" in prompt:
            new = prompt.split("A new statement arrived", 1)[1]
            for r in self.recordings:
                if r["prompt"] == "judge" and r["match"] in new:
                    return r["content"]
            return json.dumps({"decision": "ADD", "reason": "an additional value"})
        turn = prompt.split('"""', 2)[1] if '"""' in prompt else prompt
        for r in self.recordings:
            if r["prompt"] == "extract" and r["match"] in turn:
                return r["content"]
        return json.dumps({"entities": [], "facts": []})

    @staticmethod
    def _completion(body: dict[str, Any], content: str) -> dict[str, Any]:
        prompt_chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
        return {
            "id": "chatcmpl-replay", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "replay"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4,
                      "total_tokens": prompt_chars // 4 + len(content) // 4},
        }

    def _embeddings(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        import hashlib

        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dim = int(body.get("dimensions") or 8)
        data = []
        for i, text in enumerate(inputs):
            digest = hashlib.sha256(text.encode()).digest()
            data.append({"object": "embedding", "index": i,
                         "embedding": [(digest[j % 32] - 128) / 128.0 for j in range(dim)]})
        self._send(h, 200, {"object": "list", "data": data, "model": body.get("model"),
                            "usage": {"prompt_tokens": 1, "total_tokens": 1}})
