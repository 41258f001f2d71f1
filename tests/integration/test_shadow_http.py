"""Issue 4 end to end over real HTTP: an agent streams, an LLM client observes, corrects, builds, persists."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from tests.integration.conftest import demo_events

pytestmark = pytest.mark.anyio


async def call(client, name, args=None):
    result = await client.call_tool(name, args or {})
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def error_code(client, name, args=None) -> str:
    result = await client.call_tool(name, args or {})
    assert result.is_error
    return result.meta["rpa/error"]["code"]


async def test_observe_correct_build_and_persist_over_http(stack):
    events = demo_events("open_record_imagerie")
    llm = await stack.mcp("operator")
    async with stack.http() as agent:  # the static agent token
        # Nothing connected yet: the model gets a message it can relay.
        assert await error_code(llm, "shadow_start") == "precondition-failed"
        first = await agent.post("/api/v1/traces/stream/event", json=events[0])
        assert first.status_code == 200 and first.json()["accepted"] == 1
        started = await call(llm, "shadow_start")
        assert started["status"] == "shadow_started" and started["session_id"] == events[0]["session_id"]
        assert (await call(llm, "shadow_start"))["status"] == "already_observing"
        batch = await agent.post("/api/v1/traces/stream/event", json=events[1:])
        assert batch.status_code == 200
        bad = await agent.post(
            "/api/v1/traces/stream/event", json={"session_id": "s", "machine_id": "m", "type": "warp"}
        )
        assert bad.status_code == 422 and bad.json()["code"] == "invalid-input"

    session_id = started["session_id"]
    stopped = await call(llm, "shadow_stop", {"session_id": session_id})
    assert stopped["status"] == "shadow_stopped" and stopped["steps_count"] >= 2
    steps = (await call(llm, "get_understanding", {"session_id": session_id}))["steps"]
    assert all(0 < s["confidence"] <= 1 and s["intent"] for s in steps)
    assert any("Imagerie" in s["intent"] for s in steps)

    # Each kind of feedback, and a refused one that changes nothing.
    refused = await call(llm, "shadow_feedback", {"session_id": session_id, "action": "correct", "step_index": 1})
    assert refused["status"] == "feedback_rejected" and refused["reason"] and refused["steps"] == steps
    corrected = await call(
        llm,
        "shadow_feedback",
        {"session_id": session_id, "action": "correct", "step_index": 1, "new_intent": "Ouvrir le dossier patient"},
    )
    assert corrected["steps"][0]["intent"] == "Ouvrir le dossier patient"
    assert corrected["steps"][0]["status"] == "corrected"
    await call(llm, "shadow_feedback", {"session_id": session_id, "action": "validate"})

    built = await call(llm, "shadow_build", {"session_id": session_id, "name": "Ouvrir l'imagerie du patient"})
    assert built["status"] == "workflow_built" and built["workflow_ir"]["steps"]

    proposal = await call(llm, "propose_persist_competence", {"session_id": session_id, "name": "Imagerie patient"})
    assert proposal["approval_mode"] == "token" and "Imagerie" in proposal["summary"]
    persisted = await call(llm, "apply_persist_competence", {"token": proposal["token"]})
    path = stack.services.settings.data_dir / persisted["path"]
    saved = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert persisted["version"] == 1 and saved["steps"][0]["intent"] == "Ouvrir le dossier patient"
    listed = await call(llm, "list_competences")
    assert any(c["name"] == "Imagerie patient" for c in listed["competences"])

    operations = [r["operation"] for r in stack.services.audit.rows()]
    assert {
        "propose_persist_competence",
        "propose:persist_competence",
        "apply:persist_competence",
        "apply_persist_competence",
        "ingest_events",
    } <= set(operations)
    assert stack.services.audit.verify().ok


async def test_the_same_operations_answer_on_the_seed_rest_paths(stack):
    events = demo_events("type_observation_save")
    async with stack.http() as agent, stack.http("operator") as operator:
        assert (await agent.post("/api/v1/traces/stream/event", json=events)).status_code == 200
        machines = (await agent.get("/api/v1/traces/stream/machines")).json()
        assert [m["machine_id"] for m in machines["machines"]] == [events[0]["machine_id"]]
        sessions = await agent.get("/api/v1/traces/stream/sessions", params={"machine_id": events[0]["machine_id"]})
        assert sessions.json()["sessions"][0]["session_id"] == events[0]["session_id"]
        session_id = events[0]["session_id"]
        understanding = await operator.get(f"/api/v1/shadow/{session_id}/understanding")
        assert understanding.status_code == 200 and understanding.json()["steps"]
        missing = await operator.get("/api/v1/shadow/nope/understanding")
        assert missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
        forbidden = await agent.post(
            "/api/v1/lea/competences/candidate/persist", json={"session_id": session_id, "name": "x"}
        )
        assert forbidden.status_code == 403  # agents observe; only operators persist


async def test_completion_offers_real_session_and_machine_ids(stack):
    from mcp.types import PromptReference

    events = demo_events("type_observation_save")
    async with stack.http() as agent:
        await agent.post("/api/v1/traces/stream/event", json=events[:2])
    llm = await stack.mcp("operator")
    sessions = await llm.complete(
        PromptReference(type="ref/prompt", name="review-steps"), {"name": "session_id", "value": ""}
    )
    assert sessions.completion.values == [events[0]["session_id"]]
    none = await llm.complete(
        PromptReference(type="ref/prompt", name="review-steps"), {"name": "session_id", "value": "zz"}
    )
    assert none.completion.values == []


async def test_screenshots_are_served_as_blobs_with_their_real_type(stack):
    import base64

    import cv2
    import numpy as np

    jpeg = cv2.imencode(".jpg", np.full((20, 30, 3), 128, np.uint8))[1].tobytes()
    event = {
        "session_id": "s-jpeg",
        "machine_id": "PC-J",
        "ts": "2026-11-29T22:09:56.806Z",  # as a JavaScript or .NET agent sends it
        "type": "screenshot",
        "screenshot": base64.b64encode(jpeg).decode(),
    }
    async with stack.http() as agent:
        assert (await agent.post("/api/v1/traces/stream/event", json=event)).status_code == 200
    llm = await stack.mcp("operator")
    events = json.loads((await llm.read_resource("rpa://sessions/s-jpeg/events")).contents[0].text)
    ref = json.dumps(events)
    screenshot_id = re.search(r"rpa://screenshots/([A-Za-z0-9_-]+)", ref) or re.search(
        r'"screenshot_id": "([^"]+)"', ref
    )
    blob = (await llm.read_resource(f"rpa://screenshots/{screenshot_id[1]}")).contents[0]
    assert blob.mime_type == "image/jpeg" and base64.b64decode(blob.blob) == jpeg


async def test_every_feedback_kind_and_versioning_over_http(stack):
    llm = await stack.mcp("operator")
    async with stack.http() as agent:
        for name in ("open_record_imagerie", "type_observation_save"):
            assert (await agent.post("/api/v1/traces/stream/event", json=demo_events(name))).status_code == 200
    first, second = (demo_events(name)[0]["session_id"] for name in ("open_record_imagerie", "type_observation_save"))

    def fb(session_id, action, **kw):
        return call(llm, "shadow_feedback", {"session_id": session_id, "action": action, **kw})

    steps = (await call(llm, "get_understanding", {"session_id": first}))["steps"]
    multi = next(s for s in steps if len(s["events"]) > 1)
    split = await fb(first, "split", step_index=multi["index"], at_event_index=multi["events"][-1])
    assert split["status"] == "feedback_applied" and len(split["steps"]) == len(steps) + 1
    merged = await fb(first, "merge_next", step_index=multi["index"])
    assert [s["events"] for s in merged["steps"]] == [s["events"] for s in steps]
    undone = await fb(first, "undo", step_index=1)
    assert len(undone["steps"]) == len(steps) - 1
    bad_split = await fb(first, "split", step_index=1, at_event_index=10_000)
    assert bad_split["status"] == "feedback_rejected" and bad_split["steps"] == undone["steps"]
    assert (await fb(first, "validate", step_index=1))["steps"][0]["status"] == "validated"
    await fb(first, "validate")

    for session_id in (first, second):  # the same competence name twice: version 2, version 1 kept
        proposal = await call(llm, "propose_persist_competence", {"session_id": session_id, "name": "Suivi patient"})
        saved = await call(llm, "apply_persist_competence", {"token": proposal["token"]})
    assert saved["version"] == 2 and saved["replaced_version"] == 1
    folder = stack.services.settings.data_dir / "competences" / "candidate"
    assert {p.name for p in folder.glob("suivi-patient*.yaml")} == {"suivi-patient.yaml", "suivi-patient.v1.yaml"}

    assert (await fb(second, "cancel"))["steps"] == []
    built = await call(llm, "shadow_build", {"session_id": second, "name": "x"})
    assert built["status"] == "cancelled"


async def test_an_event_time_without_a_zone_or_out_of_range_is_a_422_naming_ts(stack):
    event = {"session_id": "s-ts", "machine_id": "PC-T", "type": "focus", "window_title": "DxCare"}
    async with stack.http() as agent:
        for ts in ("2026-11-29T22:09:56.806", 1.0, "NaN"):
            refused = await agent.post("/api/v1/traces/stream/event", json={**event, "ts": ts})
            assert refused.status_code == 422, refused.text
            assert refused.json()["details"]["field"] == "events[0].ts"
        machines = await agent.get("/api/v1/traces/stream/machines")
        assert "PC-T" not in machines.text
        accepted = await agent.post("/api/v1/traces/stream/event", json={**event, "ts": 1_795_990_196_806})
        assert accepted.status_code == 200, accepted.text
