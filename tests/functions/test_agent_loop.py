"""The agent loop: iteration cap, quota, truncation, and the deferred-batch confirmation rule."""

from __future__ import annotations

import json

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rpa_mcp.agent_loop import AgentLoop, Confirmation, LlmTurn, OpenAICompatibleLlm, ToolCall, truncate_result
from rpa_mcp.functions import FunctionContext
from rpa_mcp.ops.registry import Caller
from tests.foundation.helpers import EXECUTIONS, NOTES, asgi_client, test_registry
from tests.functions.scripted import ScriptedLlm, assert_protocol_valid, calls, last_result

pytestmark = pytest.mark.anyio
OPERATOR = Caller("nurse-app", frozenset({"operator"}))
APPROVER = Caller("dr-house", frozenset({"approver"}), via="web")  # a person, in the console


@pytest.fixture
def context(services) -> FunctionContext:
    return FunctionContext(caller=OPERATOR, services=services, registry=test_registry())


def tool_results(result) -> dict[str, dict]:
    return {m["tool_call_id"]: json.loads(m["content"]) for m in result.messages if m["role"] == "tool"}


async def test_a_final_answer_ends_the_run(context):
    llm = ScriptedLlm(LlmTurn(final_text="Bonjour"))
    result = await AgentLoop(llm, context).run("hello")
    assert result.stopped == "final" and result.final_text == "Bonjour" and result.tool_calls == 0
    assert llm.tools and all(t["type"] == "function" for t in llm.tools)


async def test_tool_results_are_fed_back_to_the_model(context):
    llm = ScriptedLlm(
        calls(("draft_note", {"key": "a", "text": "hi"})),
        calls(("read_note", {"key": "a"})),
        LlmTurn(final_text="done"),
    )
    result = await AgentLoop(llm, context).run("write then read")
    assert result.stopped == "final" and result.tool_calls == 2
    assert last_result(llm.seen[-1], "read_note") == {"key": "a", "text": "hi", "version": 1}
    assert_protocol_valid(result.messages)


async def test_errors_reach_the_model_with_their_code(context):
    llm = ScriptedLlm(calls(("read_note", {"key": "nope"})), LlmTurn(final_text="sorry"))
    result = await AgentLoop(llm, context).run("read")
    assert tool_results(result)["c1"]["error"]["code"] == "not-found"


async def test_the_iteration_cap_stops_a_model_that_never_answers(context):
    llm = ScriptedLlm(*[calls(("read_note", {"key": "x"}), prefix=f"t{i}-") for i in range(10)])
    result = await AgentLoop(llm, context, max_iterations=3).run("loop")
    assert result.stopped == "max_iterations" and result.iterations == 3 and result.tool_calls == 3


async def test_the_tool_call_quota_refuses_calls_beyond_it(context):
    llm = ScriptedLlm(calls(*[("draft_note", {"key": f"k{i}", "text": "x"}) for i in range(4)]))
    result = await AgentLoop(llm, context, max_tool_calls=2).run("many")
    assert result.stopped == "quota_exceeded" and result.tool_calls == 2 and EXECUTIONS == ["k0", "k1"]
    results = tool_results(result)
    assert results["c3"]["error"]["code"] == results["c4"]["error"]["code"] == "tool-quota-exceeded"
    assert_protocol_valid(result.messages)


async def test_a_proposal_defers_the_rest_of_the_turn_until_the_person_confirms(context):
    asked = []

    async def confirm(request):
        asked.append(request)
        assert NOTES == {"d": "draft"} and EXECUTIONS == ["d"]  # nothing after the proposal ran yet
        return Confirmation(True, "oui")

    llm = ScriptedLlm(
        calls(
            ("draft_note", {"key": "d", "text": "draft"}),
            ("propose_save_note", {"key": "s", "text": "final"}),
            ("read_note", {"key": "s"}),
            ("draft_note", {"key": "after", "text": "x"}),
        ),
        LlmTurn(final_text="saved"),
    )
    result = await AgentLoop(llm, context, confirm=confirm).run("save it")
    assert result.stopped == "final"
    (request,) = asked
    assert request.operation == "save_note" and request.summary == "Write note s" and request.approval_mode == "token"
    assert [c.name for c in request.deferred] == ["read_note", "draft_note"]
    results = tool_results(result)
    assert results["c1"]["version"] == 1 and results["c2"]["token"]
    assert results["c3"]["status"] == results["c4"]["status"] == "deferred"
    # re-issued after the confirmation, in order: the mutation first, then the deferred calls
    assert EXECUTIONS == ["d", "s", "after"]
    reissued = [r for r in result.records if r.reissued]
    assert [r.call.name for r in reissued] == ["apply_save_note", "read_note", "draft_note"]
    assert reissued[1].result == {"key": "s", "text": "final", "version": 1}
    assert any(m["role"] == "user" and "approved" in m["content"] and "oui" in m["content"] for m in result.messages)
    assert_protocol_valid(result.messages)
    rows = [(r["operation"], r["via"]) for r in context.services.audit.rows() if r["operation"].endswith("save_note")]
    assert rows == [  # each operation's row commits with its first write, before what it records itself
        ("propose_save_note", "functions"),
        ("propose:save_note", ""),
        ("apply_save_note", "functions"),
        ("apply:save_note", ""),
    ]


async def test_declined_confirmation_runs_nothing_deferred(context):
    llm = ScriptedLlm(
        calls(("propose_save_note", {"key": "s", "text": "final"}), ("draft_note", {"key": "after", "text": "x"})),
        LlmTurn(final_text="ok, not saved"),
    )

    async def confirm(request):
        return False

    result = await AgentLoop(llm, context, confirm=confirm).run("save it")
    assert result.stopped == "final" and EXECUTIONS == [] and NOTES == {}
    assert any(m["role"] == "user" and "declined" in m["content"] for m in result.messages)
    assert_protocol_valid(result.messages)


async def test_without_a_hook_the_run_stops_and_resumes_once_a_person_approved(context, services):
    llm = ScriptedLlm(
        calls(("propose_act_note", {"key": "a", "text": "go"}), ("draft_note", {"key": "b", "text": "x"}))
    )
    first = await AgentLoop(llm, context).run("act")
    assert first.stopped == "needs_confirmation" and first.pending.approval_mode == "human"
    assert first.pending.approval_url and EXECUTIONS == []

    token = first.pending.token
    jti = first.pending.approval_url.rsplit("/", 1)[-1]

    async def confirm(request):  # the person approves on the page, then the app tells the loop
        assert request.call.name == "apply_act_note" and request.result["error"]["code"] == "approval-pending"
        services.confirmations.decide(jti, APPROVER, True)
        return True

    llm2 = ScriptedLlm(
        calls(("apply_act_note", {"token": token}), ("read_note", {"key": "a"}), prefix="r"), LlmTurn(final_text="done")
    )
    second = await AgentLoop(llm2, context, confirm=confirm).run(messages=first.messages)
    assert second.stopped == "final" and EXECUTIONS == ["a"]
    results = tool_results(second)
    assert results["r1"]["error"]["code"] == "approval-pending" and results["r2"]["status"] == "deferred"
    reissued = [r for r in second.records if r.reissued]
    assert [r.call.name for r in reissued] == ["apply_act_note", "read_note"]
    assert reissued[0].result == {"key": "a", "text": "go", "version": 1}
    assert_protocol_valid(second.messages)


async def test_a_human_mode_proposal_is_applied_after_the_page_approval(context, services):
    async def confirm(request):
        assert request.approval_mode == "human" and request.approval_url.endswith(
            "/approvals/" + request.approval_url.rsplit("/", 1)[-1]
        )
        services.confirmations.decide(request.approval_url.rsplit("/", 1)[-1], APPROVER, True)
        return True

    llm = ScriptedLlm(calls(("propose_act_note", {"key": "a", "text": "go"})), LlmTurn(final_text="started"))
    result = await AgentLoop(llm, context, confirm=confirm).run("act")
    assert result.stopped == "final" and EXECUTIONS == ["a"]


async def test_large_results_are_truncated_but_keep_their_structure():
    image = "iVBORw0KGgo" + "A" * 50_000
    big = {
        "steps": [{"intent": "x" * 9000, "crop": {"mime_type": "image/png", "data_base64": image}}] * 3,
        "status": "ok",
        "count": 3,
    }
    small = truncate_result(big, 20_000)
    assert len(json.dumps(small)) <= 20_000
    assert small["status"] == "ok" and small["count"] == 3 and set(small) == {"_truncated", "steps", "status", "count"}
    assert "3 image(s) dropped" in small["_truncated"]
    assert small["steps"][0]["crop"]["data_base64"].startswith("[image data dropped")
    assert small["steps"][0]["intent"].startswith("xxx") and "[cut:" in small["steps"][0]["intent"]
    assert truncate_result({"a": 1}) == {"a": 1}
    many = truncate_result({"items": list(range(20_000))}, 2_000)
    assert len(json.dumps(many)) <= 2_000 and "more items cut" in many["items"][-1]


async def test_the_model_receives_truncated_results(context):
    NOTES["big"] = "y" * 1000
    llm = ScriptedLlm(calls(("read_note", {"key": "big"})), LlmTurn(final_text="ok"))
    result = await AgentLoop(llm, context, max_result_bytes=300).run("read")
    content = tool_results(result)["c1"]
    assert "_truncated" in content and content["key"] == "big"
    assert result.records[0].result["text"] == "y" * 1000  # the loop keeps the full result for the app


async def test_the_openai_compatible_adapter_talks_to_a_chat_completions_endpoint(context):
    seen: list[dict] = []

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append({"auth": request.headers.get("authorization"), **body})
        if len(seen) == 1:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "draft_note", "arguments": json.dumps({"key": "k", "text": "via http"})},
                    }
                ],
            }
        else:
            message = {"role": "assistant", "content": "Note written."}
        return JSONResponse({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

    fake = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    async with asgi_client(fake) as http:
        llm = OpenAICompatibleLlm("http://127.0.0.1:8765/v1", "local-model", "sk-test", client=http)
        result = await AgentLoop(llm, context).run("write a note")
    assert result.stopped == "final" and result.final_text == "Note written." and NOTES == {"k": "via http"}
    assert seen[0]["auth"] == "Bearer sk-test" and seen[0]["model"] == "local-model"
    assert seen[0]["tool_choice"] == "auto" and any(t["function"]["name"] == "draft_note" for t in seen[0]["tools"])
    second = seen[1]["messages"]
    assert second[-2]["tool_calls"][0]["id"] == "call_1" and second[-1]["role"] == "tool"


async def test_the_adapter_retries_without_tools_when_the_provider_refuses_them(context):
    bodies: list[dict] = []

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        bodies.append(body)
        if "tools" in body:
            return JSONResponse({"error": "tools not supported"}, status_code=400)
        return JSONResponse({"choices": [{"message": {"role": "assistant", "content": "plain"}}]})

    fake = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    async with asgi_client(fake) as http:
        turn = await OpenAICompatibleLlm("http://127.0.0.1:8765/v1", "m", client=http)(
            [{"role": "user", "content": "hi"}], [{"type": "function"}]
        )
    assert turn == LlmTurn(final_text="plain") and len(bodies) == 2


async def test_tool_calls_carry_ids_names_and_parsed_arguments():
    from rpa_mcp.agent_loop import parse_chat_completion

    turn = parse_chat_completion(
        {
            "choices": [
                {
                    "message": {
                        "content": None,
                        "tool_calls": [
                            {"id": "a", "function": {"name": "x", "arguments": '{"k": 1}'}},
                            {"id": "b", "function": {"name": "y", "arguments": ""}},
                        ],
                    }
                }
            ]
        }
    )
    assert list(turn.tool_calls) == [ToolCall("a", "x", {"k": 1}), ToolCall("b", "y", {})]
