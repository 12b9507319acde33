"""MCP at /mcp behind the same keys as the REST routes.

One MCP server serves every group (its tools take a ``group`` argument). Before a request
reaches it, the guard checks the bearer key and rewrites each ``tools/call``: a key confined
to one group gets that group put in (another group is refused, 403), and a read-only key may
call only the read tools. So a client's arguments can never reach a group its key does not own.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from ..agent.tools import WRITE_TOOLS, MemoryTools
from ..errors import KgMemError
from .app import ASGIApp, Message, Receive, Scope, Send, Service, _send_json
from .keys import ApiKey, AuthError, Forbidden, check_group_name


def mcp_app(svc: Service, host: str) -> tuple[ASGIApp, Any]:
    """The guarded MCP app and its lifespan (the session manager must run for the app's life)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from ..agent.mcp import build_server

    tools = MemoryTools(svc.m, svc.m.settings.group, pinned=False)
    server = build_server(tools)
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)  # the keys guard every call
    inner = server.streamable_http_app(streamable_http_path="/mcp", transport_security=security, host=host)
    return McpGuard(inner, svc), server.session_manager.run


def confine(message: Any, key: ApiKey) -> Any:
    """One JSON-RPC message (or a batch) with every tool call held to what ``key`` allows."""
    if isinstance(message, list):
        return [confine(m, key) for m in message]
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return message
    params = message.get("params")
    if not isinstance(params, dict):
        return message
    if key.read_only and params.get("name") in WRITE_TOOLS:
        raise Forbidden(f"this key is read-only; the tool {params.get('name')!r} writes")
    args = params.get("arguments")
    args = dict(args) if isinstance(args, dict) else {}
    asked = args.get("group")
    if asked is not None:
        if not isinstance(asked, str):
            raise Forbidden("the group argument must be a string")
        check_group_name(asked)
        key.allows(asked, write=False)
    elif key.group is not None:
        args["group"] = key.group
    return {**message, "params": {**params, "arguments": args}}


class McpGuard:
    def __init__(self, app: ASGIApp, svc: Service):
        self.app, self.svc = app, svc

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            key = self.svc.key(Request(scope))
        except AuthError as exc:
            await _send_json(send, 401, "unauthorized", str(exc))
            return
        except KgMemError as exc:  # over the rate
            await _send_json(send, 429, "rate_limited", str(exc))
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        try:
            rewritten = json.dumps(confine(json.loads(body), key)).encode() if body else body
        except ValueError:
            rewritten = body  # not JSON: the MCP app answers its own parse error
        except Forbidden as exc:
            await _send_json(send, 403, "forbidden", str(exc))
            return
        except KgMemError as exc:
            await _send_json(send, 400, "bad_request", str(exc))
            return
        await self.app(_with_length(scope, len(rewritten)), _replay(rewritten, receive), send)


async def _read_body(receive: Receive) -> bytes:
    chunks, more = [], True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return b"".join(chunks)


def _with_length(scope: Scope, n: int) -> Scope:
    headers = [(k, v) for k, v in scope.get("headers", []) if k != b"content-length"]
    return {**scope, "headers": headers + [(b"content-length", str(n).encode())]}


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # a disconnect, later

    return replay

