"""The shadow operations, called as the registry calls them (handlers, dispatch for propose/apply)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.errors import Conflict, InvalidInput, PreconditionFailed
from rpa_mcp.notify import Notifier
from rpa_mcp.ops import shadow as ops
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller, NoInput, OpContext, Registry
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev, load_demo

OPERATOR = Caller("dom@hospital", frozenset({"operator"}))
AGENT = Caller("agent:DESKTOP-DOM01", frozenset({"agent"}), via="rest", auth="api-token")


class RecordingNotifier(Notifier):
    def __init__(self) -> None:
        super().__init__()
        self.updated: list[str] = []

    def resource_updated(self, uri: str) -> None:
        self.updated.append(uri)


@pytest.fixture
def services(settings, clock) -> Services:
    ocr = FakeOcr(lines=[OcrLine("Imagerie", (120, 12, 64, 20), 0.9)])
    return build_services(settings, clock=clock, ocr=ocr, notifier=RecordingNotifier())


def call(services: Services, handler: Any, args: Any, caller: Caller = OPERATOR) -> Any:
    ctx = OpContext(caller=caller, services=services)
    return anyio.run(handler, ctx, args)


def stream_demo(services: Services, name: str) -> str:
    events, expected = load_demo(name)
    n = expected["start_after"]
    call(services, ops.ingest_events, ops.IngestInput.model_validate({"events": events[:n]}), AGENT)
    call(services, ops.shadow_start, ops.StartInput())
    for event in events[n:]:
        call(services, ops.ingest_events, ops.IngestInput.model_validate(event), AGENT)  # one event per POST
    return str(events[0]["session_id"])


def test_the_whole_conversation_through_the_operations(services: Services) -> None:
    machines = call(services, ops.list_machines, NoInput())
    assert machines.machines == []
    sid = stream_demo(services, "open_record_imagerie")
    machines = call(services, ops.list_machines, NoInput()).machines
    assert [(m.machine_id, m.active_session_id) for m in machines] == [("DESKTOP-DOM01", sid)]
    sessions = call(services, ops.list_sessions, ops.ListSessionsInput(machine_id="DESKTOP-DOM01")).sessions
    assert sessions[0].events == 10

    again = call(services, ops.shadow_start, ops.StartInput())
    assert again.status == "already_observing"
    stopped = call(services, ops.shadow_stop, ops.SessionOptInput())
    assert stopped.steps_count == 3
    # calibrated (catalog/shadow_confidence.yaml): the UIA-named typing above the window title and the OCR'd tab
    first, typing, tab = (s.confidence for s in stopped.understanding)
    assert 0 < first < typing <= 1 and 0 < tab < typing

    fb = call(
        services,
        ops.shadow_feedback,
        ops.FeedbackInput(session_id=sid, action="correct", step_index=1, new_intent="Aller dans MédiDossier"),
    )
    assert fb.status == "feedback_applied"
    bad = call(services, ops.shadow_feedback, ops.FeedbackInput(session_id=sid, action="split", step_index=1))
    assert bad.status == "feedback_rejected" and "at_event_index" in bad.reason
    call(services, ops.shadow_feedback, ops.FeedbackInput(session_id=sid, action="validate"))

    understanding = call(services, ops.get_understanding, ops.UnderstandingInput(session_id=sid))
    assert understanding.steps[0].intent == "Aller dans MédiDossier"
    tab = understanding.steps[2].target  # the OCR line (120, 12) of the crop that starts at (286, 0)
    assert tab["bbox"] == [406, 12, 64, 20] and tab["label"] == "Imagerie"
    assert [h["outcome"] for h in understanding.feedback_history] == ["applied", "rejected", "applied"]

    built = call(
        services, ops.shadow_build, ops.BuildInput(session_id=sid, name="Imagerie patient", require_all_validated=True)
    )
    assert built.status == "workflow_built" and len(built.workflow_ir["steps"]) == 3
    assert f"rpa://sessions/{sid}/understanding" in services.notifier.updated


def test_persisting_goes_through_propose_and_apply_and_resets_the_session(services: Services) -> None:
    from rpa_mcp.ops import build_registry

    registry: Registry = build_registry(["shadow"])
    sid = stream_demo(services, "type_observation_save")
    call(services, ops.shadow_stop, ops.SessionOptInput(session_id=sid))

    def run(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return anyio.run(lambda: dispatch(registry, services, name, arguments, OPERATOR, surface="mcp"))

    args = {"session_id": sid, "name": "Compte-rendu : observation"}
    proposal = run("propose_persist_competence", args)
    assert proposal["details"]["slug"] == "compte-rendu-observation"
    assert proposal["details"]["replaces_version"] is None and proposal["details"]["steps_count"] == 2
    assert "DESKTOP-DOM01" in proposal["summary"]
    assert not (services.settings.data_dir / "competences" / "candidate" / "compte-rendu-observation.yaml").exists()

    done = run("apply_persist_competence", {"token": proposal["token"]})
    assert (done["version"], done["path"]) == (1, "competences/candidate/compte-rendu-observation.yaml")
    assert done["session_reset"] is True
    saved = (services.settings.data_dir / done["path"]).read_text(encoding="utf-8")
    assert "bbox:" in saved and "label: Éditeur de texte" in saved
    assert services.shadow.understanding(sid)["steps"] == []

    # a second observation under the same name: the preview shows what the new version changes
    services.shadow.ingest(
        [ev("click", 1741772600.0, session=sid, machine="DESKTOP-DOM01", x=5, y=5, element={"name": "Fichier"})]
    )
    second = run("propose_persist_competence", args)
    assert second["details"]["replaces_version"] == 1 and second["details"]["new_version"] == 2
    assert second["diff"] and "Fichier" in second["diff"]


def test_persisting_a_cancelled_observation_is_refused_at_propose(services: Services) -> None:
    sid = stream_demo(services, "type_observation_save")
    call(services, ops.shadow_feedback, ops.FeedbackInput(session_id=sid, action="cancel"))
    with pytest.raises(PreconditionFailed):
        call(services, ops.preview_persist_competence, ops.PersistInput(session_id=sid, name="x"))
    built = call(services, ops.shadow_build, ops.BuildInput(session_id=sid, name="x"))
    assert built.status == "cancelled" and built.workflow_ir is None


def test_start_and_stop_errors_read_well(services: Services) -> None:
    with pytest.raises(PreconditionFailed) as err:
        call(services, ops.shadow_start, ops.StartInput())
    assert "do something on the workstation first" in err.value.message
    call(services, ops.ingest_events, ops.IngestInput.model_validate(ev("focus", 1.0, window_title="A")), AGENT)
    call(services, ops.shadow_stop, ops.SessionOptInput())
    with pytest.raises(Conflict):
        call(services, ops.shadow_stop, ops.SessionOptInput(session_id="s1"))


def test_a_bad_streamed_event_is_invalid_input_naming_the_field(services: Services) -> None:
    with pytest.raises(InvalidInput) as err:
        call(services, ops.ingest_events, ops.IngestInput.model_validate(ev("click", 1.0, x=3)), AGENT)
    assert err.value.code == "invalid-input" and err.value.details["field"] == "events[0].y"


def test_resources_return_the_understanding_events_and_screenshots(services: Services) -> None:
    sid = stream_demo(services, "open_record_imagerie")
    understanding = json.loads(anyio.run(ops.understanding_resource, services, sid))
    assert len(understanding["steps"]) == 3
    events = json.loads(anyio.run(ops.events_resource, services, sid))["events"]
    assert events[6]["agent_version"] == "1.8.2"
    ref = events[6]["screenshot_ref"].removeprefix("rpa://screenshots/")
    assert anyio.run(ops.screenshot_resource, services, ref).startswith(b"\x89PNG")
    uris = {r[0] if isinstance(r, tuple) else r.uri for r in ops.RESOURCES}
    assert {"rpa://sessions/{session_id}/understanding", "rpa://sessions/{session_id}/events"} <= uris


def test_the_operations_are_declared_as_the_contract_says() -> None:
    by_name = {op.name: op for op in ops.OPERATIONS}
    assert {n: op.risk for n, op in by_name.items()} == {
        "list_machines": "read",
        "list_sessions": "read",
        "shadow_start": "draft",
        "shadow_stop": "draft",
        "get_understanding": "read",
        "shadow_feedback": "draft",
        "shadow_build": "draft",
        "persist_competence": "write",
        "ingest_events": "draft",
    }
    assert by_name["ingest_events"].allowed_roles == {"agent"} and by_name["ingest_events"].surfaces == {"rest"}
    assert by_name["shadow_start"].allowed_roles == {"operator", "agent"}
    paths = {(h.method, h.path) for op in ops.OPERATIONS for h in op.http}
    assert {
        ("POST", "/api/v1/traces/stream/event"),
        ("GET", "/api/v1/traces/stream/machines"),
        ("GET", "/api/v1/traces/stream/sessions"),
        ("GET", "/api/v1/shadow/{session_id}/understanding"),
        ("POST", "/api/v1/lea/competences/candidate/persist"),
    } <= paths


@pytest.mark.parametrize("name", ["teach-me", "review-steps"])
def test_the_review_prompts_ask_about_unsure_steps_and_suggestions_rather_than_every_step(name: str) -> None:
    from rpa_mcp.entrypoints.prompts import load_prompts
    from rpa_mcp.settings import Settings

    prompt = next(p for p in load_prompts(Settings().prompts_path) if p.name == name)
    text = prompt.render({"session_id": "s1", "task": "t", "language": "fr"})
    for needed in ("review.ask_first", "review.suggestions", "kind=detour", "parameterize", "post_conditions"):
        assert needed in text.replace("`", "").replace("action=undo, ", ""), needed
