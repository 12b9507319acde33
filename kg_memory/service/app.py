"""The REST API: FastAPI over one open :class:`Memory`, every group route behind a key.

Routes (JSON in and out, ``Authorization: Bearer <token>``) are in README "Run as a service";
``/openapi.json`` and ``/docs`` describe them. Errors are ``{"error": {"code", "message"}}`` with
401 (no or unknown key), 403 (another group, or a write with a read-only key), 400/422 (bad
input), 404, 413 (body too large), 429 (over the key's rate, with Retry-After) and 503 (the
store); an unexpected error is a 500 that carries no traceback.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..core.models import Episode
from ..errors import ConfigError, FlushTimeout, InputError, KgMemError, NotFoundError, StoreError
from ..ingest.pipeline import IngestStats
from ..memory import MAX_QUERY_CHARS, Memory
from ..recall.history import closing, version_json
from ..recall.timeline import render_svg
from ..settings import ServeSettings
from .keys import ApiKey, AuthError, Forbidden, KeyRing, check_group_name
from .limits import TokenBuckets, retry_after
from .metrics import Metrics

log = logging.getLogger("kgmem.access")
errlog = logging.getLogger("kgmem.service")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RateLimited(KgMemError):
    def __init__(self, wait: float):
        super().__init__(f"over this key's rate; retry in {retry_after(wait)} s")
        self.wait = wait


class TooLarge(KgMemError):
    pass


# -- request bodies ------------------------------------------------------------
class EpisodeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str
    role: str = "user"
    speaker: str | None = None
    occurred_at: str | None = None
    session_id: str | None = None


class CorrectIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: str = Field(min_length=1)
    reason: str | None = None


class ChangeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: str = Field(min_length=1)
    at: str


class RetireIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    at: str | None = None


# -- errors ----------------------------------------------------------------------
_STATUS: list[tuple[type[BaseException], int, str]] = [
    (AuthError, 401, "unauthorized"),
    (Forbidden, 403, "forbidden"),
    (RateLimited, 429, "rate_limited"),
    (TooLarge, 413, "too_large"),
    (NotFoundError, 404, "not_found"),
    (InputError, 400, "bad_input"),
    (ConfigError, 400, "bad_request"),
    (FlushTimeout, 504, "extraction_timeout"),
    (StoreError, 503, "store_unavailable"),
]


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def _kgmem_error(_: Request, exc: Exception) -> Response:
    for kind, status, code in _STATUS:
        if isinstance(exc, kind):
            headers = {"Retry-After": retry_after(exc.wait)} if isinstance(exc, RateLimited) else None
            if isinstance(exc, AuthError):
                headers = {"WWW-Authenticate": "Bearer"}
            message = "; ".join(exc.problems[:20]) if isinstance(exc, InputError) else str(exc)
            return error_response(status, code, message, headers)
    errlog.error("kgmem error answered as 500: %s: %s", type(exc).__name__, exc)
    return error_response(500, "internal", str(exc))


def _validation_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return error_response(422, "invalid", f"{where}: {first.get('msg')}" if where else str(first.get("msg")))


def _http_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    codes = {404: "not_found", 405: "method_not_allowed"}
    return error_response(exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail))


def _unexpected(_: Request, exc: Exception) -> Response:
    errlog.exception("unexpected error answered as 500")
    return error_response(500, "internal", "internal error; the server log has the details")


# -- middleware --------------------------------------------------------------------
class BodyLimit:
    """413 for a body over ``limit`` bytes: by its Content-Length, or while it streams in."""

    def __init__(self, app: ASGIApp, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _send_json(send, 413, "too_large", f"the body is over {self.limit:,} bytes; send less at once")
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise TooLarge(f"the body is over {self.limit:,} bytes; send less at once")
            return message

        await self.app(scope, limited, send)


async def _send_json(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class AccessLog:
    """One structured line per request (route template, group, status, latency; never a body or a
    query's text), and the same into the metrics."""

    def __init__(self, app: ASGIApp, metrics: Metrics):
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start, status = time.perf_counter(), 500

        async def record(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, record)
        finally:
            seconds = time.perf_counter() - start
            route = getattr(scope.get("route"), "path", None) or _coarse(scope["path"])
            group = (scope.get("path_params") or {}).get("group")
            self.metrics.observe(route, scope["method"], status, seconds)
            log.info(json.dumps({"route": route, "method": scope["method"], "group": group, "status": status,
                                 "ms": round(seconds * 1000, 2), "key": scope.get("kgmem_key")}))


def _coarse(path: str) -> str:
    """A path no route matched, reduced so that metrics labels stay few."""
    return "/mcp" if path.startswith("/mcp") else "unmatched"


def is_loopback(host: str | None) -> bool:
    if host in (None, "localhost"):
        return True
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return False


# -- the app ---------------------------------------------------------------------
class Service:
    """What the routes share: the memory, the keys, the limits, the metrics, one write lock."""

    def __init__(self, memory: Memory, keys: KeyRing, limits: ServeSettings):
        self.m, self.keys, self.limits = memory, keys, limits
        self.buckets = TokenBuckets(limits.rate_per_second, limits.burst)
        self.metrics = Metrics()
        self.writes = threading.Lock()  # edits and erasure one at a time (as AsyncMemory does)

    def authorize(self, request: Request, group: str, *, write: bool = False) -> ApiKey:
        key = self.key(request)
        check_group_name(group)
        key.allows(group, write)
        return key

    def key(self, request: Request) -> ApiKey:
        header = request.headers.get("authorization", "")
        token = header[7:].strip() if header[:7].lower() == "bearer " else None
        key = self.keys.verify(token)
        request.scope["kgmem_key"] = key.id
        wait = self.buckets.take(key.id)
        if wait:
            raise RateLimited(wait)
        return key

    def add(self, group: str, body: EpisodeIn | list[EpisodeIn], wait: bool) -> tuple[list[Episode], IngestStats]:
        items = body if isinstance(body, list) else [body]
        if not items:
            raise ConfigError("the body is an empty list; send at least one episode")
        if len(items) > self.limits.max_batch:
            raise ConfigError(f"{len(items)} episodes in one request; at most {self.limits.max_batch} "
                              "(setting serve.max_batch)")
        eps = [self.m.episode(i.content, group=group, role=i.role, speaker=i.speaker, occurred_at=i.occurred_at,
                              session_id=i.session_id) for i in items]
        stats = self.m.add_episodes(eps, extract=wait)
        if not wait and stats.episodes_added:
            self.m.worker().submit(group, stats.episodes_added)
        self.metrics.added(stats.episodes_added)
        return eps, stats

    def drain(self) -> None:
        """Extract what earlier runs left pending (a crash after a 202), every group's."""
        try:
            self.m.process_pending(None)
        except KgMemError as exc:
            errlog.error("extracting episodes left pending failed: %s", exc)

    def shutdown(self) -> None:
        try:
            self.m.flush(timeout=self.limits.drain_seconds)
        except KgMemError as exc:  # what is left stays pending; the next start extracts it
            errlog.error("shutdown: %s", exc)


# the page runs only its own inline script, talks only to this server, and shows the timeline as an image
UI_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src blob:; "
             "connect-src 'self'; base-uri 'none'; form-action 'none'")


@functools.lru_cache(maxsize=1)
def _ui_page() -> str:
    return resources.files("kg_memory.service").joinpath("ui.html").read_text(encoding="utf-8")


def _stats_json(stats: IngestStats) -> dict[str, int]:
    return {k: v for k, v in stats.__dict__.items() if isinstance(v, int)}


def build_app(memory: Memory, keys: KeyRing, limits: ServeSettings | None = None, *, mcp: bool = True,
              host: str = "127.0.0.1", drain_on_start: bool | None = None) -> FastAPI:
    """The ASGI app: the REST routes, and (``mcp``) MCP at /mcp behind the same keys."""
    from starlette.routing import Route

    from .mcp_guard import mcp_app

    svc = Service(memory, keys, limits or memory.settings.serve)
    if drain_on_start is None:
        drain_on_start = svc.limits.drain_on_start
    guarded, mcp_lifespan = mcp_app(svc, host) if mcp else (None, None)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        import asyncio

        starting = asyncio.create_task(asyncio.to_thread(svc.drain)) if drain_on_start else None
        if mcp_lifespan is not None:
            async with mcp_lifespan():
                yield
        else:
            yield
        if starting is not None:
            await starting
        await asyncio.to_thread(svc.shutdown)

    app = FastAPI(title="kgmem", version="1", lifespan=lifespan,
                  description="A bitemporal knowledge-graph memory: what is true now, what was true then, "
                              "and what we believed then. Every group route needs `Authorization: Bearer <key>`.")
    app.state.service = svc
    app.add_exception_handler(KgMemError, _kgmem_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
    _routes(app, svc)
    if guarded is not None:
        app.router.routes.append(Route("/mcp", endpoint=guarded, methods=["GET", "POST", "DELETE"]))
    app.add_middleware(BodyLimit, limit=svc.limits.max_body_bytes)  # type: ignore[arg-type]
    app.add_middleware(AccessLog, metrics=svc.metrics)  # type: ignore[arg-type]
    return app


def _routes(app: FastAPI, svc: Service) -> None:
    m = svc.m

    # Keys are checked as dependencies: before the body is read and validated, so that a caller
    # without a key learns nothing from a 422.
    def reader(group: str, request: Request) -> ApiKey:
        return svc.authorize(request, group)

    def writer(group: str, request: Request) -> ApiKey:
        return svc.authorize(request, group, write=True)

    Read, Write = Depends(reader), Depends(writer)

    @app.get("/healthz", tags=["ops"])
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/readyz", tags=["ops"])
    def readyz() -> dict[str, bool]:
        svc.keys.active()  # reads the store: a StoreError answers 503
        return {"ok": True}

    @app.get("/metrics", tags=["ops"], response_class=PlainTextResponse)
    def metrics(request: Request) -> PlainTextResponse:
        if not is_loopback(request.client.host if request.client else None):
            svc.key(request)
        waiting = m.worker().snapshot()["waiting"]
        return PlainTextResponse(svc.metrics.text(pending=int(waiting)),  # type: ignore[call-overload]
                                 media_type="text/plain; version=0.0.4")

    @app.post("/v1/groups/{group}/episodes", tags=["episodes"], status_code=201)
    def add_episodes(group: str, body: EpisodeIn | list[EpisodeIn],
                     wait: bool = Query(True, description="true: answer after extraction (201); "
                                                          "false: once stored (202)"),
                     _: ApiKey = Write) -> JSONResponse:
        eps, stats = svc.add(group, body, wait)
        out = {"group_id": group, "episode_ids": [e.id for e in eps], "stats": _stats_json(stats)}
        return JSONResponse(out, status_code=201 if wait else 202)

    @app.get("/v1/groups/{group}/recall", tags=["read"])
    def recall(group: str, q: str = Query(..., min_length=1, max_length=MAX_QUERY_CHARS),
               as_of: str | None = None, known_at: str | None = None,
               k: int = Query(10, ge=1, le=200), _: ApiKey = Read) -> dict[str, Any]:
        return m.recall(q, group=group, as_of=as_of, known_at=known_at, k=k).to_json()

    @app.get("/v1/groups/{group}/facts", tags=["read"])
    def facts(group: str, as_of: str | None = None, known_at: str | None = None,
              entity: str | None = None, predicate: str | None = None, all_versions: bool = False,
              limit: int = Query(1000, ge=1, le=10_000), _: ApiKey = Read) -> dict[str, Any]:
        found = m.facts(group=group, entity=entity, predicate=predicate, as_of=as_of, known_at=known_at,
                        all_versions=all_versions, limit=limit)
        return {"group_id": group, "facts": [v.model_dump(mode="json") for v in found]}

    @app.get("/v1/groups/{group}/facts/{fact_id}/history", tags=["read"])
    def fact_history(group: str, fact_id: str, _: ApiKey = Read) -> dict[str, Any]:
        versions = m.fact_history(fact_id, group=group)
        index = {v.id: v for v in versions}
        return {"group_id": group, "fact_id": fact_id, "versions": [version_json(v, closing(v, index))
                                                                     for v in versions]}

    @app.post("/v1/groups/{group}/facts/{fact_id}/correct", tags=["edits"])
    def correct(group: str, fact_id: str, body: CorrectIn, _: ApiKey = Write) -> dict[str, Any]:
        with svc.writes:
            return m.correct(fact_id, body.value, reason=body.reason, group=group).to_json()

    @app.post("/v1/groups/{group}/facts/{fact_id}/change", tags=["edits"])
    def change(group: str, fact_id: str, body: ChangeIn, _: ApiKey = Write) -> dict[str, Any]:
        with svc.writes:
            return m.change(fact_id, body.value, body.at, group=group).to_json()

    @app.post("/v1/groups/{group}/facts/{fact_id}/retire", tags=["edits"])
    def retire(group: str, fact_id: str, body: RetireIn | None = None, _: ApiKey = Write) -> dict[str, Any]:
        with svc.writes:
            return m.retire(fact_id, at=body.at if body else None, group=group).to_json()

    @app.get("/v1/groups/{group}/facts/{fact_id}/timeline.svg", tags=["read"], response_class=Response)
    def fact_timeline(group: str, fact_id: str, _: ApiKey = Read) -> Response:
        versions = m.fact_history(fact_id, group=group)
        doc = render_svg(versions[0].subject, versions, m.clock.now())
        return Response(doc, media_type="image/svg+xml")

    @app.get("/ui", include_in_schema=False)
    def ui() -> HTMLResponse:
        return HTMLResponse(_ui_page(), headers={"Content-Security-Policy": UI_POLICY, "Cache-Control": "no-store"})

    @app.delete("/v1/groups/{group}/episodes/{episode_id}", tags=["episodes"])
    def forget_episode(group: str, episode_id: str, _: ApiKey = Write) -> dict[str, Any]:
        with svc.writes:
            return m.forget(episode=episode_id, group=group).to_json()
