"""Every answer of the desktop agent's wire, from a running server over real HTTP, conforms to the
JSON Schemas committed under docs/schemas/; the agent that drives it is written from the docs only."""

from __future__ import annotations

import base64
from typing import Any

import cv2
import httpx2
import numpy as np
import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import create_app
from tests.contract.doc_agent import ENDPOINTS, ContractViolation, DocAgent, conform, schema
from tests.replay.kit import FakeValidator

pytestmark = pytest.mark.anyio
AGENT_TOKEN = "agent-static-token-0123456789"
MACHINE = "pc-contract"


def png(value: int) -> str:
    image = np.full((120, 200, 3), value, np.uint8)
    cv2.putText(image, "Valider", (40, 70), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode()


STEPS = [
    {
        "index": 0,
        "intent": "Click 'Valider'",
        "action_type": "click_anchor",
        "target": {"label": "Valider", "bbox": [30, 40, 120, 40], "rel_x": 0.45, "rel_y": 0.5},
    },
    {"index": 1, "intent": "Type the note", "action_type": "type_text", "params": {"text": "Patient calme"}},
]


@pytest.fixture
async def server(settings, clock, shared_ocr, serve) -> Any:
    services = build_services(settings, clock=clock, ocr=shared_ocr, replay_validator=FakeValidator())
    base = await serve(create_app(services=services))
    return services, base


def result(action: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        **DocAgent.ref(action),
        "success": True,
        "screenshot_before": png(230),
        "screenshot_after": png(200),
        "window_title_before": "MédiDossier",
        "window_title": "MédiDossier",
        "actual_position": [90, 60],
        **extra,
    }


async def test_every_answer_of_the_agent_wire_conforms_to_the_committed_schemas(server):
    services, base = server
    async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
        agent = DocAgent(http, MACHINE, AGENT_TOKEN)
        assert (await agent.next(wait=0)).status == 204  # nothing to do yet
        replay_id = await services.replay.start(steps=STEPS, competence="Contract", version=1, machine_id=MACHINE)

        polled = await agent.next(wait=5)
        assert polled.status == 200 and polled.body["replay_id"] == replay_id  # the action itself, no envelope
        action = polled.body
        retried = await agent.next(wait=0)  # a retried poll: the same action and the same attempt
        assert retried.status == 200 and retried.body["attempt_id"] == action["attempt_id"]
        ref = agent.ref(action)

        assert (await agent.post("/api/v1/replay/receipt", ref)).body["status"] == "accepted"
        assert (await agent.post("/api/v1/replay/receipt", ref)).body["status"] == "duplicate"
        started = await agent.post("/api/v1/replay/start", ref)
        assert started.body["status"] == "accepted" and started.body["proceed"] is True
        beat = await agent.post("/api/v1/replay/heartbeat", {**ref, "progress": 0.5, "message": "clicking"})
        assert beat.body["status"] == "accepted" and beat.body["not_after"] >= action["not_after"]

        resolved = await agent.post(
            "/api/v1/resolve_target",
            {"image": {"png_base64": png(230)}, "target_spec": action["target"]["spec"], "window_title": "MédiDossier"},
        )
        assert resolved.status == 200 and isinstance(resolved.body["resolved"], bool)

        reported = await agent.post("/api/v1/replay/result", result(action))
        assert reported.body["status"] == "accepted"
        assert (await agent.post("/api/v1/replay/result", result(action))).body["status"] == "duplicate"
        stale = await agent.post("/api/v1/replay/result", result({**action, "attempt_id": "at_never-sent"}))
        assert stale.body["status"] == "unknown"

        second = await agent.next(wait=5)
        assert second.status == 200 and second.body["action_type"] == "type_text"
        assert second.body["params"] == {"text": "Patient calme"}

    assert {line.split()[2] for line in agent.checked} == {
        "-",
        "replay-next-action",
        "replay-report-ack",
        "resolve-target-answer",
    }


async def test_a_v1_agent_without_the_protocol_header_gets_the_same_shapes(server):
    services, base = server
    async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
        agent = DocAgent(http, MACHINE, AGENT_TOKEN, version=None)
        await services.replay.start(steps=STEPS[:1], competence="Contract", version=1, machine_id=MACHINE)
        action = (await agent.next(wait=5)).body
        assert (await agent.post("/api/v1/replay/result", result(action))).body["status"] == "accepted"
        look = (await agent.next(wait=5)).body  # one more look at the screen before the replay completes
        assert look["action_type"] == "screenshot_evidence"
        assert (await agent.post("/api/v1/replay/result", result(look))).body["status"] == "accepted"
        assert (await agent.next(wait=0)).status == 204  # the replay is done


async def test_error_answers_of_the_agent_wire_are_problem_documents(server):
    services, base = server
    async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
        agent = DocAgent(http, MACHINE, AGENT_TOKEN)
        await services.replay.start(steps=STEPS[:1], competence="Contract", version=1, machine_id=MACHINE)
        action = (await agent.next(wait=5)).body

        missing = await agent.post("/api/v1/replay/receipt", {"replay_id": action["replay_id"]}, conforming=False)
        assert missing.status == 422 and missing.body["details"]["field"] == "action_id"
        unknown_field = await agent.post("/api/v1/replay/start", {**agent.ref(action), "extra": 1}, conforming=False)
        assert unknown_field.status == 422 and unknown_field.body["details"]["field"] == "extra"
        bad_image = await agent.post(
            "/api/v1/resolve_target", {"image": {"png_base64": "bm90IGFuIGltYWdl"}, "target_spec": {}}
        )
        assert bad_image.status == 422 and bad_image.body["code"] == "image-rejected"
        # A field this server does not know is named: a newer agent drops it and asks again.
        later = await agent.post(
            "/api/v1/resolve_target",
            {"image": {"png_base64": png(200)}, "target_spec": {}, "later_field": []},
            conforming=False,
        )
        assert later.status == 422 and later.body["details"]["field"] == "later_field"
        agent.version = "two"
        assert (await agent.next(wait=0)).status == 422

        agent.version = "2"
        not_a_screenshot = await agent.post("/api/v1/resolve_target", {"image": {"ref": "nope"}, "target_spec": {}})
        assert not_a_screenshot.status == 422 and not_a_screenshot.body["details"]["field"].startswith("image")

        stranger = DocAgent(http, MACHINE, "not-a-token")
        assert (await stranger.next(wait=0)).status == 401
        assert (await stranger.post("/api/v1/replay/result", result(action))).status == 401


def test_every_endpoint_of_the_contract_has_committed_schemas():
    names = {name for pair in ENDPOINTS.values() for name in pair if name} | {"problem"}
    for name in names:  # loading checks each schema against the Draft 2020-12 meta-schema
        assert schema(name).schema["$id"].endswith(f"/{name}.schema.json")


def test_the_contract_checker_refuses_an_answer_that_drifts():
    with pytest.raises(ContractViolation, match="action"):
        conform("replay-next-action", {"action": {"replay_id": "r"}})  # the old envelope is not the contract
