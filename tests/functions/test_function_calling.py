"""Function calling: the same tools, rules, results and error codes as MCP and REST."""

from __future__ import annotations

import dataclasses

import pytest
from mcp import Client

from rpa_mcp import functions
from rpa_mcp.entrypoints.app import create_app, local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.ops.ratelimit import RateLimiter
from rpa_mcp.ops.registry import Caller
from tests.conftest import token_for
from tests.foundation.helpers import EXECUTIONS, NOTES, asgi_client, test_registry

pytestmark = pytest.mark.anyio
OPERATOR = Caller("local", frozenset({"operator"}))


def ctx(services, registry, caller=OPERATOR) -> functions.FunctionContext:
    return functions.FunctionContext(caller=caller, services=services, registry=registry)


async def test_openai_and_anthropic_tools_have_the_names_descriptions_and_schemas_of_mcp(services):
    registry = test_registry()
    server = build_mcp_server(registry, services, local_caller=local_operator())
    async with Client(server) as client:
        mcp_tools = {t.name: t for t in (await client.list_tools()).tools}
    openai = {t["function"]["name"]: t for t in functions.openai_tools(registry)}
    anthropic = {t["name"]: t for t in functions.anthropic_tools(registry)}
    assert set(openai) == set(anthropic) == set(mcp_tools)
    for name, tool in mcp_tools.items():
        assert openai[name]["type"] == "function"
        assert openai[name]["function"]["description"] == anthropic[name]["description"] == tool.description
        assert openai[name]["function"]["parameters"] == anthropic[name]["input_schema"] == tool.input_schema
    assert "save_note" not in openai and {"propose_save_note", "apply_save_note"} <= set(openai)


async def test_the_default_registry_is_exported_and_every_tool_has_a_description():
    tools = functions.openai_tools()
    assert tools and all(t["function"]["description"] for t in tools)
    assert all(t["function"]["parameters"]["type"] == "object" for t in tools)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("draft_note", {"key": "p", "text": "same"}),
        ("read_note", {"key": "absent"}),
        ("draft_note", {"key": ""}),
        ("draft_note", {"key": "k", "text": "x", "evil": 1}),
        ("get_catalog", {"name": "nope"}),
        ("save_note", {"key": "k", "text": "x"}),
        ("no_such_tool", {}),
        ("apply_save_note", {"token": "x" * 40}),
    ],
)
async def test_mcp_rest_and_function_calling_give_the_same_result_and_error_code(services, name, args):
    registry = test_registry()
    app = create_app(services=services, registry=registry)
    server = app.state.mcp_server
    server.local_caller = local_operator()
    async with Client(server) as client:
        via_mcp = await client.call_tool(name, args)
    async with asgi_client(app, token_for(services, "local", "operator")) as http:
        via_rest = await http.post(f"/api/v1/tools/{name}", json=args)
    via_functions = await functions.call(name, args, ctx(services, registry))
    if via_mcp.is_error:
        code = via_mcp.meta["rpa/error"]["code"]
        assert functions.is_error(via_functions)
        assert via_functions["error"]["code"] == code
        if name in ("save_note", "no_such_tool"):  # no such route on REST: a plain 404
            assert code == "not-found" and via_rest.status_code == 404
        else:
            assert via_rest.json()["code"] == code
        assert set(via_functions["error"]) == {"code", "message", "retryable", "details"}
        assert via_functions["error"]["message"] == via_mcp.meta["rpa/error"]["message"]
    else:
        rest_body, fn_body = via_rest.json(), dict(via_functions)
        if "version" in rest_body:  # the note was written once per surface
            rest_body["version"] -= 1
            fn_body["version"] -= 2
        assert via_mcp.structured_content == rest_body == fn_body


async def test_arguments_may_be_json_text_and_bad_json_is_malformed_json(services):
    registry = test_registry()
    ok = await functions.call("draft_note", '{"key": "k", "text": "hi"}', ctx(services, registry))
    bad = await functions.call("draft_note", '{"key": ', ctx(services, registry))
    assert ok == {"key": "k", "text": "hi", "version": 1}
    assert bad["error"]["code"] == "malformed-json" and bad["error"]["details"]["field"] == "(arguments)"
    rows = services.audit.rows(operation="draft_note")
    assert [(r["via"], r["outcome"], r["code"]) for r in rows] == [
        ("functions", "ok", None),
        ("functions", "error", "malformed-json"),
    ]


async def test_roles_are_checked_like_on_the_other_surfaces(services):
    viewer = Caller("vic", frozenset({"viewer"}))
    result = await functions.call("draft_note", {"key": "k", "text": "x"}, ctx(services, test_registry(), viewer))
    assert result["error"]["code"] == "forbidden" and NOTES == {}


async def test_propose_then_apply_runs_once_and_is_audited_as_functions(services):
    registry = test_registry()
    c = ctx(services, registry)
    proposal = await functions.call("propose_save_note", {"key": "a", "text": "hello"}, c)
    assert proposal["approval_mode"] == "token" and NOTES == {}
    applied = await functions.call("apply_save_note", {"token": proposal["token"]}, c)
    again = await functions.call("apply_save_note", {"token": proposal["token"]}, c)
    assert applied == {"key": "a", "text": "hello", "version": 1} and EXECUTIONS == ["a"]
    assert again["error"]["code"] == "confirmation-already-used"
    vias = {r["via"] for r in services.audit.rows() if r["operation"] in ("propose_save_note", "apply_save_note")}
    assert vias == {"functions"}


async def test_act_needs_a_person_before_apply(services):
    registry = test_registry()
    c = ctx(services, registry)
    proposal = await functions.call("propose_act_note", {"key": "a", "text": "x"}, c)
    assert proposal["approval_mode"] == "human" and proposal["approval_status"] == "pending"
    waiting = await functions.call("apply_act_note", {"token": proposal["token"]}, c)
    assert waiting["error"]["code"] == "approval-pending" and waiting["error"]["retryable"] is True
    assert EXECUTIONS == []


async def test_secrets_are_redacted_in_results(services):
    registry = test_registry()
    secret = "Bearer hunter2abcdefghijklmnop"
    via_fn = await functions.call("draft_note", {"key": "s", "text": secret}, ctx(services, registry))
    server = build_mcp_server(registry, services, local_caller=local_operator())
    async with Client(server) as client:
        via_mcp = (await client.call_tool("draft_note", {"key": "s", "text": secret})).structured_content
    assert via_fn["text"] == via_mcp["text"]
    assert "hunter2" not in via_fn["text"]


async def test_rate_limits_apply_to_function_calls(services):
    registry = test_registry()
    services = dataclasses.replace(services, rate_limiter=RateLimiter(services.clock, per_minute=2, burst=2))
    results = [await functions.call("draft_note", {"key": "r", "text": "x"}, ctx(services, registry)) for _ in range(3)]
    assert [r.get("error", {}).get("code") for r in results] == [None, None, "rate-limited"]
    assert results[2]["error"]["retryable"] is True
