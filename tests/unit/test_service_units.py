"""The service's pure parts: the token bucket, MCP call confinement, metric text, loopback."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg_memory.errors import ConfigError
from kg_memory.service.app import is_loopback
from kg_memory.service.keys import ApiKey, Forbidden
from kg_memory.service.limits import TokenBuckets, retry_after
from kg_memory.service.mcp_guard import confine
from kg_memory.service.metrics import Metrics

pytestmark = pytest.mark.unit
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_token_bucket_bursts_then_refills_per_key():
    now = [100.0]
    b = TokenBuckets(rate=2.0, burst=3, clock=lambda: now[0])
    assert [b.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert b.take("a") == pytest.approx(0.5)  # one token comes back in half a second
    assert b.take("b") == 0.0  # another key has its own bucket
    now[0] += 0.5
    assert b.take("a") == 0.0 and b.take("a") > 0
    now[0] += 100
    assert [b.take("a") for _ in range(4)][-1] > 0  # refills only up to the burst
    assert retry_after(0.01) == "1" and retry_after(2.2) == "3"


def _call(name: str, **args: object) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}}


def test_confine_puts_the_keys_group_in_and_refuses_others():
    key = ApiKey("k", "", "alice", False, T0)
    assert confine(_call("recall", query="x"), key)["params"]["arguments"] == {"query": "x", "group": "alice"}
    assert confine(_call("recall", query="x", group="alice"), key)["params"]["arguments"]["group"] == "alice"
    with pytest.raises(Forbidden):
        confine(_call("recall", query="x", group="bob"), key)
    with pytest.raises(Forbidden):
        confine([_call("recall", query="x"), _call("get_memories", group="bob")], key)  # a batch, each message
    with pytest.raises(ConfigError):
        confine(_call("recall", query="x", group="__kgmem_keys__"), ApiKey("k", "", None, False, T0))
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    assert confine(listing, key) is listing


def test_confine_read_only_keys_call_read_tools_only():
    ro = ApiKey("k", "", "alice", True, T0)
    for tool in ("save_memory", "update_memory", "delete_memory"):
        with pytest.raises(Forbidden):
            confine(_call(tool, content="x"), ro)
    assert confine(_call("get_memories"), ro)["params"]["arguments"] == {"group": "alice"}
    admin = ApiKey("k", "", None, False, T0)
    assert confine(_call("get_memories"), admin)["params"]["arguments"] == {}  # the server's default group


def test_metrics_text_is_prometheus():
    m = Metrics()
    m.observe('/v1/groups/{group}/recall', "GET", 200, 0.02)
    m.observe('/v1/groups/{group}/recall', "GET", 200, 3.0)
    m.observe('we"ird\\', "GET", 404, 0.001)
    m.added(3)
    text = m.text(pending=2)
    assert 'kgmem_http_requests_total{route="/v1/groups/{group}/recall",method="GET",status="200"} 2' in text
    assert 'kgmem_http_request_duration_seconds_bucket{route="/v1/groups/{group}/recall",le="0.025"} 1' in text
    assert 'kgmem_http_request_duration_seconds_bucket{route="/v1/groups/{group}/recall",le="+Inf"} 2' in text
    assert 'route="we\\"ird\\\\"' in text
    assert "kgmem_episodes_added_total 3" in text and "kgmem_extraction_waiting 2" in text


def test_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.8.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.5") and not is_loopback("example.com")
