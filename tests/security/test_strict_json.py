"""Whatever JSON-looking bytes a client sends, every route answers 400/413/422 naming the problem."""

from __future__ import annotations

import math

import pytest

from rpa_mcp.errors import MalformedJson
from rpa_mcp.functions import FunctionContext, call
from rpa_mcp.ops.json_input import JsonLimits, check, loads
from rpa_mcp.ops.registry import Caller
from tests.security.conftest import MCP_ACCEPT, client_for, make_services, operator

pytestmark = pytest.mark.anyio

JSON = {"content-type": "application/json"}
HOSTILE_BODIES = {
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "invalid UTF-8": b'{"name": "\xff\xfe"}',
    "a 5,000-digit integer": b'{"name": ' + b"7" * 5000 + b"}",
    "NaN": b'{"name": NaN}',
    "Infinity": b'{"ts": Infinity}',
    "a float out of range": b'{"ts": 1e999}',
    "a lone surrogate": b'{"name": "\\ud800"}',
    "a duplicate key": b'{"name": "dialogs", "name": "thresholds"}',
    "an extra field nested 900 deep": b'{"name": "dialogs", "x": ' + b'{"a": ' * 900 + b"1" + b"}" * 900 + b"}",
    "not JSON at all": b"{name: dialogs",
}


def _rpc_call(arguments_json: bytes) -> bytes:
    return b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_catalog", "arguments": ' + (
        arguments_json + b"}}"
    )


def _post_routes(app) -> list[str]:
    """Every POST route of the app that takes a JSON body (REST operations and the agent's paths)."""
    paths = []
    for route in app.routes:
        path = getattr(route, "path", "")
        if "POST" in (getattr(route, "methods", None) or ()) and path.startswith("/api/"):
            paths.append(path.replace("{replay_id}", "r1").replace("{name}", "n1"))
    return sorted(set(paths))


@pytest.mark.parametrize("case", list(HOSTILE_BODIES))
async def test_a_hostile_body_is_400_naming_the_problem_on_rest_and_mcp(services, case):
    body = HOSTILE_BODIES[case]
    async with client_for(services, operator(services)) as client:
        rest = await client.post("/api/v1/tools/get_catalog", content=body, headers=JSON)
        mcp = await client.post("/mcp", content=body, headers={"content-type": "application/json", **MCP_ACCEPT})
    assert rest.status_code == 400, rest.text
    assert rest.json()["code"] == "malformed-json" and rest.json()["detail"]
    assert mcp.status_code == 400, mcp.text
    error = mcp.json()["error"]
    assert error["code"] == -32700 and error["data"]["code"] == "malformed-json"


@pytest.mark.parametrize("case", ["NaN", "a 5,000-digit integer", "a lone surrogate", "nested 100,000 deep"])
async def test_hostile_tool_arguments_inside_a_valid_envelope_are_refused_before_the_sdk(services, case):
    inner = HOSTILE_BODIES[case]
    async with client_for(services, operator(services)) as client:
        r = await client.post(
            "/mcp",
            content=_rpc_call(inner),
            headers={"content-type": "application/json", "mcp-protocol-version": "2025-11-25", **MCP_ACCEPT},
        )
    assert r.status_code == 400 and r.json()["error"]["data"]["code"] == "malformed-json"


async def test_every_post_route_refuses_every_hostile_body_with_a_4xx(services):
    async with client_for(services, operator(services)) as client:
        app_routes = _post_routes(client._transport.app)  # type: ignore[attr-defined]
        assert len(app_routes) > 10
        for path in app_routes:
            for case, body in HOSTILE_BODIES.items():
                r = await client.post(path, content=body, headers=JSON)
                assert 400 <= r.status_code < 500, (path, case, r.status_code, r.text[:200])
                assert r.json()["code"], (path, case)


async def test_an_over_limit_chunked_body_on_mcp_is_413(tmp_path):
    services = make_services(tmp_path, max_body_bytes=4096)

    async def chunks():
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "'
        for _ in range(10):
            yield b"x" * 1000
        yield b'"}}'

    async with client_for(services, operator(services)) as client:
        r = await client.post("/mcp", content=chunks(), headers={"content-type": "application/json", **MCP_ACCEPT})
        rest = await client.post("/api/v1/tools/get_catalog", content=chunks())
    assert r.status_code == 413 and "payload-too-large" in r.text
    assert rest.status_code == 413 and rest.json()["code"] == "payload-too-large"


async def test_a_refused_body_changes_nothing_and_is_audited_without_its_content(services):
    async with client_for(services, operator(services)) as client:
        r = await client.post("/api/v1/traces/stream/event", content=b'{"events": [{"ts": Infinity}]}', headers=JSON)
    assert r.status_code == 400
    assert services.db.query_one("SELECT COUNT(*) AS n FROM trace_events")["n"] == 0


async def test_function_calling_refuses_non_json_values_before_the_operation(services):
    ctx = FunctionContext(caller=Caller("app", frozenset({"operator"}), via="functions"), services=services)
    nan = await call("get_catalog", {"name": math.nan}, ctx)
    text = await call("get_catalog", '{"name": "dialogs", "x": Infinity}', ctx)
    deep = await call("get_catalog", {"name": "dialogs", "x": [[[[[[[[[[[[1]]]]]]]]]]]] * 1}, ctx)
    assert nan["error"]["code"] == "malformed-json"
    assert text["error"]["code"] == "malformed-json"
    assert deep["error"]["code"] == "invalid-input"  # twelve levels pass the JSON checks; `x` is then unknown
    rows = services.db.query("SELECT args_summary FROM audit WHERE operation = 'get_catalog' ORDER BY id")
    assert any("unreadable_arguments" in row["args_summary"] for row in rows)


def test_the_decoder_accepts_ordinary_json_and_names_each_problem():
    limits = JsonLimits(max_depth=8, max_int_digits=20)
    assert loads(b'{"a": [1, 2.5, "\\u00e9", null, true], "b": -12345678901234567890}', limits) == {
        "a": [1, 2.5, "é", None, True],
        "b": -12345678901234567890,
    }
    with pytest.raises(MalformedJson, match="8 levels"):
        loads(b"[" * 9 + b"]" * 9, limits)
    with pytest.raises(MalformedJson, match="21 digits"):
        loads(b"123456789012345678901", limits)
    with pytest.raises(MalformedJson, match="twice"):
        loads(b'{"a": 1, "a": 2}', limits)
    with pytest.raises(MalformedJson, match="lone surrogate"):
        check({"k": "\udc80"}, limits)
    with pytest.raises(MalformedJson, match="NaN"):
        check([1.0, float("-inf")], limits)
    check([[[[[[[1]]]]]]], limits)  # 7 levels + the value


def test_decoding_in_one_pass_still_refuses_depth_and_lone_surrogates_past_the_quick_check():
    limits = JsonLimits(max_depth=4, max_int_digits=20)
    assert loads(b'{"a": [1, {"b": "\\u00e9"}]}', limits) == {"a": [1, {"b": "é"}]}  # an escape: checked in full
    assert loads(b'{"a": [1, 2], "b": {"c": "x"}}', limits) == {"a": [1, 2], "b": {"c": "x"}}  # 3 containers
    with pytest.raises(MalformedJson, match="deeper than 4"):
        loads(b'{"a": {"b": {"c": {"d": {"e": 1}}}}}', limits)  # 5 containers: depth is measured
    with pytest.raises(MalformedJson, match="lone surrogate"):
        loads(b'{"a": "\\udfff"}', limits)
    with pytest.raises(MalformedJson, match="lone surrogate"):
        loads('{"a": "\udfff"}', limits)  # text handed over already decoded is always checked in full
