"""The REST API on both stores: every route, every error code, keys confined to their group,
read-only keys, revocation on the next request, limits, metrics, and MCP behind the same keys."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from kg_memory.service.app import build_app
from kg_memory.service.keys import KeyRing
from kg_memory.settings import ServeSettings

TURNS = [
    {"content": "I live in Lisbon and work at Acme.", "occurred_at": "2026-01-10T10:00:00Z"},
    {"content": "I moved to Porto.", "occurred_at": "2026-06-10T10:00:00Z"},
]
LOCAL = ("127.0.0.1", 50000)  # the client address a caller on this machine has
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def service(make_memory, group):
    """A client, the key ring (its own per test: the Neo4j store is shared) and tokens for two groups."""
    mem = make_memory()
    ring = KeyRing(mem.store, ring=f"__kgmem_keys__{group}")
    limits = ServeSettings(rate_per_second=1000, burst=1000, max_body_bytes=64 * 1024, max_batch=5)
    app = build_app(mem, ring, limits, drain_on_start=False)
    tokens = {"rw": ring.create(group)[1], "ro": ring.create(group, read_only=True)[1],
              "other": ring.create(f"{group}-b")[1], "admin": ring.create(None)[1]}
    with TestClient(app, raise_server_exceptions=False, client=LOCAL) as client:
        yield client, ring, tokens, group


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _fill(client, group, token):
    r = client.post(f"/v1/groups/{group}/episodes", json=TURNS, headers=auth(token))
    assert r.status_code == 201, r.text
    return r.json()


def _fact(client, group, token, predicate="lives_in", **params):
    facts = client.get(f"/v1/groups/{group}/facts", params={"predicate": predicate, **params},
                       headers=auth(token)).json()["facts"]
    return facts


def test_writes_then_reads_in_time(service):
    client, _, tok, g = service
    added = _fill(client, g, tok["rw"])
    assert added["stats"]["episodes_added"] == 2 and added["stats"]["facts_invalidated"] == 1
    assert len(added["episode_ids"]) == 2
    assert [f["object"] for f in _fact(client, g, tok["rw"])] == ["Porto"]
    assert [f["object"] for f in _fact(client, g, tok["rw"], as_of="2026-03-01")] == ["Lisbon"]
    known_before = _fact(client, g, tok["ro"], known_at="2000-01-01")
    assert known_before == []  # nothing was believed then
    recall = client.get(f"/v1/groups/{g}/recall", params={"q": "Where do I live?", "k": 3}, headers=auth(tok["ro"]))
    assert recall.status_code == 200
    body = recall.json()
    assert body["facts"][0]["statement"] == "User lives in Porto" and body["episodes"]
    then = client.get(f"/v1/groups/{g}/recall", params={"q": "Where do I live?", "as_of": "2026-03-01"},
                      headers=auth(tok["ro"])).json()
    assert "User lives in Lisbon" in [f["statement"] for f in then["facts"]]


def test_history_edits_and_erasure(service):
    client, _, tok, g = service
    added = _fill(client, g, tok["rw"])
    fid = _fact(client, g, tok["rw"])[0]["fact_id"]
    hist = client.get(f"/v1/groups/{g}/facts/{fid}/history", headers=auth(tok["ro"])).json()
    assert {v["object"] for v in hist["versions"]} == {"Lisbon", "Porto"}
    assert all("closing" in v for v in hist["versions"])
    svg = client.get(f"/v1/groups/{g}/facts/{fid}/timeline.svg", headers=auth(tok["ro"]))
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml") and "Porto" in svg.text
    corrected = client.post(f"/v1/groups/{g}/facts/{fid}/correct", json={"value": "Braga", "reason": "typo"},
                            headers=auth(tok["rw"]))
    assert corrected.status_code == 200 and corrected.json()["written"][0]["statement"] == "User lives in Braga"
    assert [f["object"] for f in _fact(client, g, tok["rw"])] == ["Braga"]
    stale = client.post(f"/v1/groups/{g}/facts/{fid}/retire", json={}, headers=auth(tok["rw"]))
    assert "replaced it" in _error(stale, 400, "bad_request")  # that belief was closed by the correction
    fid = corrected.json()["written"][0]["fact_id"]
    changed = client.post(f"/v1/groups/{g}/facts/{fid}/change", json={"value": "Faro", "at": "2026-09-01T00:00:00Z"},
                          headers=auth(tok["rw"]))
    assert changed.status_code == 200, changed.text
    assert [f["object"] for f in _fact(client, g, tok["rw"])] == ["Faro"]
    assert [f["object"] for f in _fact(client, g, tok["rw"], as_of="2026-07-01")] == ["Braga"]
    fid = next(v["fact_id"] for v in changed.json()["written"] if v["statement"] == "User lives in Faro")
    retired = client.post(f"/v1/groups/{g}/facts/{fid}/retire", json={}, headers=auth(tok["rw"]))
    assert retired.status_code == 200, (retired.text, changed.json())
    assert _fact(client, g, tok["rw"]) == []
    gone = client.delete(f"/v1/groups/{g}/episodes/{added['episode_ids'][0]}", headers=auth(tok["rw"]))
    assert gone.status_code == 200 and gone.json()["episodes"] == 1
    again = client.delete(f"/v1/groups/{g}/episodes/{added['episode_ids'][0]}", headers=auth(tok["rw"]))
    assert again.status_code == 404 and again.json()["error"]["code"] == "not_found"
    assert _fact(client, g, tok["rw"], predicate="works_at") == []  # only that turn supported it


def test_accepted_episodes_are_extracted(service):
    client, _, tok, g = service
    r = client.post(f"/v1/groups/{g}/episodes", params={"wait": "false"}, json=TURNS[0], headers=auth(tok["rw"]))
    assert r.status_code == 202 and r.json()["stats"]["episodes_extracted"] == 0
    client.app.state.service.m.flush(timeout=30)
    assert [f["object"] for f in _fact(client, g, tok["rw"])] == ["Lisbon"]


def _error(r, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code and "Traceback" not in r.text
    return body["error"]["message"]


def test_keys_confine_callers(service):
    client, ring, tok, g = service
    _fill(client, g, tok["rw"])
    url = f"/v1/groups/{g}/facts"
    _error(client.get(url), 401, "unauthorized")
    assert client.get(url).headers["www-authenticate"] == "Bearer"
    _error(client.get(url, headers=auth("kgm_000000000000_" + "x" * 40)), 401, "unauthorized")
    _error(client.get(url, headers=auth(tok["rw"][:-1] + ("A" if tok["rw"][-1] != "A" else "B"))), 401,
           "unauthorized")
    _error(client.get(url, headers=auth(tok["other"])), 403, "forbidden")  # another group's key
    assert "not" in _error(client.get(f"/v1/groups/{g}-b/facts", headers=auth(tok["rw"])), 403, "forbidden")
    _error(client.post(f"/v1/groups/{g}/episodes", json=TURNS[0], headers=auth(tok["ro"])), 403, "forbidden")
    fid = _fact(client, g, tok["rw"])[0]["fact_id"]
    for edit, body in (("correct", {"value": "x"}), ("change", {"value": "x", "at": "2026-09-01"}), ("retire", {})):
        _error(client.post(f"/v1/groups/{g}/facts/{fid}/{edit}", json=body, headers=auth(tok["ro"])), 403, "forbidden")
    _error(client.delete(f"/v1/groups/{g}/episodes/x", headers=auth(tok["ro"])), 403, "forbidden")
    # no key learns from a body check: the key is refused before the body is read
    _error(client.post(f"/v1/groups/{g}/episodes", json={"bad": 1}), 401, "unauthorized")
    # an admin key reaches every group; the reserved key ring is no group at all
    assert client.get(url, headers=auth(tok["admin"])).status_code == 200
    assert client.get(f"/v1/groups/{g}-b/facts", headers=auth(tok["admin"])).status_code == 200
    _error(client.get(f"/v1/groups/{ring.ring}/facts", headers=auth(tok["admin"])), 400, "bad_request")
    # revocation takes effect on the next request
    rw_id = tok["rw"].split("_")[1]
    ring.revoke(rw_id)
    _error(client.get(url, headers=auth(tok["rw"])), 401, "unauthorized")
    assert {k.id: k.revoked_at is not None for k in ring.list()}[rw_id]


def test_bad_input_and_limits(service):
    client, _, tok, g = service
    h = auth(tok["rw"])
    _fill(client, g, tok["rw"])
    eps = f"/v1/groups/{g}/episodes"
    _error(client.post(eps, json={"content": "x", "colour": "red"}, headers=h), 422, "invalid")
    _error(client.post(eps, json={"content": "   "}, headers=h), 400, "bad_request")
    _error(client.post(eps, json={"content": "x", "occurred_at": "yesterday-ish"}, headers=h), 400, "bad_request")
    _error(client.post(eps, json=[], headers=h), 400, "bad_request")
    _error(client.post(eps, json=[TURNS[0]] * 6, headers=h), 400, "bad_request")  # over max_batch
    _error(client.post(eps, content=b"{not json", headers=dict(h, **{"Content-Type": "application/json"})), 422,
           "invalid")
    _error(client.post(eps, json={"content": "x" * 70_000}, headers=h), 413, "too_large")
    recall = f"/v1/groups/{g}/recall"
    _error(client.get(recall, headers=h), 422, "invalid")  # q is required
    _error(client.get(recall, params={"q": "x", "k": 0}, headers=h), 422, "invalid")
    _error(client.get(recall, params={"q": "x" * 2001}, headers=h), 422, "invalid")
    _error(client.get(recall, params={"q": "x", "as_of": "not a date"}, headers=h), 400, "bad_request")
    _error(client.get(f"/v1/groups/{g}/facts/fact_nope/history", headers=h), 404, "not_found")
    _error(client.get("/v1/nothing-here", headers=h), 404, "not_found")
    _error(client.put(eps, headers=h), 405, "method_not_allowed")
    assert client.get(f"/v1/groups/{g}/facts", headers=h).json()["facts"]  # nothing above was half-written
    assert len(client.get(f"/v1/groups/{g}/facts", params={"all_versions": True}, headers=h).json()["facts"]) == 4


def test_rate_limit(make_memory, group):
    mem = make_memory()
    ring = KeyRing(mem.store, ring=f"__kgmem_keys__{group}")
    app = build_app(mem, ring, ServeSettings(rate_per_second=0.5, burst=3), drain_on_start=False)
    token, other = ring.create(group)[1], ring.create(group)[1]
    with TestClient(app, raise_server_exceptions=False, client=LOCAL) as client:
        url = f"/v1/groups/{group}/facts"
        assert [client.get(url, headers=auth(token)).status_code for _ in range(3)] == [200, 200, 200]
        r = client.get(url, headers=auth(token))
        _error(r, 429, "rate_limited")
        assert int(r.headers["retry-after"]) >= 1
        assert client.get(url, headers=auth(other)).status_code == 200  # the bucket is the key's own
        assert "kgmem_rate_limited_total 1" in client.get("/metrics").text


def test_ops_routes_and_metrics(service):
    client, _, tok, g = service
    assert client.get("/healthz").json() == {"ok": True} and client.get("/readyz").json() == {"ok": True}
    _fill(client, g, tok["rw"])
    client.get(f"/v1/groups/{g}/facts")
    text = client.get("/metrics").text
    assert 'kgmem_http_requests_total{route="/v1/groups/{group}/episodes",method="POST",status="201"} 1' in text
    assert 'kgmem_http_requests_total{route="/v1/groups/{group}/facts",method="GET",status="401"} 1' in text
    assert "kgmem_episodes_added_total 2" in text
    assert 'kgmem_http_request_duration_seconds_count{route="/v1/groups/{group}/episodes"} 1' in text
    assert all(line.startswith(("#", "kgmem_")) for line in text.strip().splitlines())
    spec = client.get("/openapi.json").json()
    assert {"/v1/groups/{group}/episodes", "/v1/groups/{group}/recall", "/v1/groups/{group}/facts",
            "/v1/groups/{group}/facts/{fact_id}/history"} <= set(spec["paths"])
    assert client.get("/docs").status_code == 200
    page = client.get("/ui")
    assert page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]


def _mcp(client, token, message, session=None):
    headers = dict(MCP_HEADERS, **auth(token), **({"mcp-session-id": session} if session else {}))
    return client.post("/mcp", json=message, headers=headers)


def _mcp_result(r) -> dict:
    data = [line[5:] for line in r.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1]) if data else r.json()


def test_mcp_behind_the_same_keys(service):
    client, _, tok, g = service
    _fill(client, g, tok["rw"])
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    _error(client.post("/mcp", json=init, headers=MCP_HEADERS), 401, "unauthorized")
    for token in ("ro", "rw"):
        r = _mcp(client, tok[token], init)
        assert r.status_code == 200, r.text
        session = r.headers.get("mcp-session-id")
        _mcp(client, tok[token], {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get_memories", "arguments": {"predicate": "lives_in"}}}
        got = _mcp_result(_mcp(client, tok[token], call, session))
        facts = json.loads(got["result"]["content"][0]["text"])["facts"]
        assert [f["object"] for f in facts] == ["Porto"]  # the key's group, though the call named none
        other = dict(call, params={"name": "get_memories", "arguments": {"group": f"{g}-b"}})
        _error(_mcp(client, tok[token], other, session), 403, "forbidden")
    save = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "save_memory", "arguments": {"content": "I moved to Faro."}}}
    _error(_mcp(client, tok["ro"], save), 403, "forbidden")


@pytest.mark.parametrize("kind", ["sqlite", "neo4j"])
def test_store_down_is_503_and_a_bug_is_a_bare_500(kind, embedder, tmp_path, monkeypatch):
    from kg_memory.memory import Memory
    from kg_memory.settings import Settings
    from kg_memory.store.url import open_store

    from ..conftest import neo4j_url

    st = open_store(f"sqlite:///{tmp_path / 'down.db'}" if kind == "sqlite" else neo4j_url(), dim=384)
    mem = Memory(st, settings=Settings(), embedder=embedder, owns_store=False)
    ring = KeyRing(st, ring=f"__kgmem_keys__down-{tmp_path.name}")
    token = ring.create("g")[1]
    with TestClient(build_app(mem, ring, drain_on_start=False), raise_server_exceptions=False,
                    client=LOCAL) as client:
        monkeypatch.setattr(mem, "recall", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom: s3cret")))
        r = client.get("/v1/groups/g/recall", params={"q": "x"}, headers=auth(token))
        assert "s3cret" not in _error(r, 500, "internal")  # the message of a bug stays in the server log
        st.close()
        _error(client.get("/readyz"), 503, "store_unavailable")
        _error(client.get("/v1/groups/g/facts", headers=auth(token)), 503, "store_unavailable")
        assert client.get("/healthz").status_code == 200  # the process lives; the store does not answer


def test_metrics_beyond_loopback_need_a_key(make_memory, group):
    mem = make_memory()
    ring = KeyRing(mem.store, ring=f"__kgmem_keys__{group}")
    token = ring.create(group, read_only=True)[1]
    app = build_app(mem, ring, drain_on_start=False)
    with TestClient(app, raise_server_exceptions=False, client=("10.1.2.3", 40000)) as remote:
        _error(remote.get("/metrics"), 401, "unauthorized")
        assert remote.get("/metrics", headers=auth(token)).text.startswith("# HELP kgmem_")
        assert remote.get("/healthz").status_code == 200  # health needs no key from anywhere
