"""A teach-me conversation played by a scripted model through function calling, on the real operations.

observe → steps → correct → validate → build → persist (a deferred batch) → promote → replay start
(a person approves on the page), then the same calls through MCP leave the same audit trail.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from rpa_mcp.agent_loop import AgentLoop, Confirmation, ConfirmationRequest, LlmTurn
from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.functions import FunctionContext
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from tests.conftest import SECRET
from tests.functions.scripted import ScriptedLlm, assert_protocol_valid, calls, last_result

pytestmark = pytest.mark.anyio
NURSE = Caller("alice", frozenset({"operator"}))
APPROVER = Caller("dr-martin", frozenset({"approver"}), via="web")  # a person, in the console
AGENT = Caller("agent:api-token", frozenset({"agent"}), auth="api-token")
NAME = "Note d'observation"


@pytest.fixture
def registry():
    return build_registry()


def demonstration() -> list[dict[str, Any]]:
    from rpa_mcp.agent_sim import DemoRecorder, VirtualDesktop

    recorder = DemoRecorder(VirtualDesktop.load("incident"), session_id="sess-1", machine_id="ws-01")
    recorder.click_label("Observations")
    recorder.click_label("Texte de l'observation")
    recorder.type("Patient stable, pas de douleur")
    recorder.key("ctrl+s")
    recorder.click_label("Confirmer")
    return recorder.events


async def agent_streams(services, registry, events) -> None:
    await dispatch(registry, services, "ingest_events", {"events": events}, AGENT, surface="rest")


def the_script() -> ScriptedLlm:
    def person_works(messages):  # the person did the task meanwhile (the agent streamed it)
        assert last_result(messages, "shadow_start")["status"] == "shadow_started"
        return calls(("shadow_stop", {}), prefix="stop")

    def steps_shown(messages):
        stopped = last_result(messages, "shadow_stop")
        assert stopped["steps_count"] == 4, stopped
        sid = stopped["session_id"]
        return calls(
            (
                "shadow_feedback",
                {"session_id": sid, "action": "correct", "step_index": 2, "new_intent": "Écrire l'observation"},
            ),
            prefix="fb",
        )

    def validate_all(messages):
        sid = last_result(messages, "shadow_stop")["session_id"]
        return calls(
            ("shadow_feedback", {"session_id": sid, "action": "validate"}),
            ("shadow_build", {"session_id": sid, "name": NAME}),
            prefix="vb",
        )

    def persist_batch(messages):  # one turn: propose + two reads that must wait for the person
        sid = last_result(messages, "shadow_stop")["session_id"]
        return calls(
            ("propose_persist_competence", {"session_id": sid, "name": NAME}),
            ("list_competences", {}),
            ("get_understanding", {"session_id": sid}),
            prefix="p",
        )

    def promote(messages):
        assert last_result(messages, "apply_persist_competence")["version"] == 1
        return calls(("propose_promote_competence", {"name": NAME}), prefix="pr")

    def replay(messages):
        return calls(
            ("propose_start_replay", {"competence": NAME, "machine_id": "ws-01"}), ("list_replays", {}), prefix="rp"
        )

    llm = ScriptedLlm(
        calls(("list_machines", {}), prefix="m"),
        calls(("shadow_start", {}), prefix="s"),
        person_works,
        steps_shown,
        validate_all,
        persist_batch,
        promote,
        replay,
        LlmTurn(final_text="La compétence est enregistrée et le rejeu a démarré."),
    )
    return llm


async def test_teach_me_through_function_calling_then_the_same_audit_trail_through_mcp(
    registry, settings, shared_ocr, tmp_path
):
    services = build_services(settings, clock=FakeClock(), ocr=shared_ocr)
    events = demonstration()
    await agent_streams(services, registry, events[:1])  # the agent is connected: one machine, one session
    llm = the_script()
    original = llm.__call__
    turns = {"n": 0}

    async def llm_with_person(messages, tools):  # after shadow_start, the person works (the agent streams)
        turns["n"] += 1
        if turns["n"] == 3:
            await agent_streams(services, registry, events[1:])
        return await original(messages, tools)

    asked: list[ConfirmationRequest] = []

    async def confirm(request: ConfirmationRequest) -> Confirmation:
        asked.append(request)
        if request.approval_mode == "human":  # a second person approves on the page
            services.confirmations.decide(request.approval_url.rsplit("/", 1)[-1], APPROVER, True)
        return Confirmation(True, "d'accord")

    context = FunctionContext(caller=NURSE, services=services, registry=registry)
    result = await AgentLoop(llm_with_person, context, confirm=confirm, max_iterations=12).run("Regarde ce que je fais")

    assert result.stopped == "final", [(r.call.name, r.result) for r in result.records]
    assert_protocol_valid(result.messages)
    assert [r.operation for r in asked] == ["persist_competence", "promote_competence", "start_replay"]
    deferred = [r.call.name for r in result.records if r.status == "deferred"]
    assert deferred == ["list_competences", "get_understanding", "list_replays"]
    reissued = [r for r in result.records if r.reissued]
    assert [r.call.name for r in reissued] == [
        "apply_persist_competence",
        "list_competences",
        "get_understanding",
        "apply_promote_competence",
        "apply_start_replay",
        "list_replays",
    ]
    assert [c["name"] for c in reissued[1].result["competences"]] == [NAME]
    started = reissued[4].result
    assert started["replay_id"] and services.replay.status(started["replay_id"], with_crops=False)

    # the same calls through MCP, in the order the loop executed them, on a fresh server
    executed = [r for r in result.records if r.status == "executed"]
    settings_b = Settings(
        data_dir=tmp_path / "b", jwt_secret=SECRET, api_token="agent-static-token-0123456789", replay_preflight=False
    )
    services_b = build_services(settings_b, clock=FakeClock(), ocr=shared_ocr)
    await agent_streams(services_b, registry, events[:1])
    server = build_mcp_server(registry, services_b, local_caller=NURSE)
    last_proposal: dict[str, Any] = {}
    async with Client(server) as client:
        for record in executed:
            if record.call.name == "shadow_stop":
                await agent_streams(services_b, registry, events[1:])
            args = dict(record.call.arguments)
            if record.call.name.startswith("apply_"):
                if last_proposal.get("approval_mode") == "human":
                    services_b.confirmations.decide(last_proposal["approval_url"].rsplit("/", 1)[-1], APPROVER, True)
                args = {"token": last_proposal["token"]}
            answer = await client.call_tool(record.call.name, args)
            assert not answer.is_error, answer.content
            if record.call.name.startswith("propose_"):
                last_proposal = answer.structured_content

    def trail(svc) -> list[tuple[str, str, str, str | None]]:
        return [(r["actor"], r["operation"], r["outcome"], r["code"]) for r in svc.audit.rows(limit=10_000)]

    def is_read(row: tuple[str, str, str, str | None]) -> bool:
        op = registry.operations.get(row[1])
        return op is not None and op.risk == "read"

    # the same rows, and the writes in the same order: a read's row is group-committed without waiting
    # (ops/dispatch.py), its place among the next calls' rows is not asserted
    assert sorted(trail(services)) == sorted(trail(services_b))
    assert [r for r in trail(services) if not is_read(r)] == [r for r in trail(services_b) if not is_read(r)]
    vias = {r["via"] for r in services.audit.rows(limit=10_000) if r["actor"] == "alice" and r["via"]}
    assert vias == {"functions"}
