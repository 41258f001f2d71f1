"""A replay begins on the workflow's own window the application was left on, when its first steps only search
for the run's record; never on another application's window, nor on another record for a step that changes it."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.start_window import leading_run, own_template, own_templates, template_of
from rpa_mcp.vision.ocr import OcrLine
from tests.replay.kit import FakeAgent, make_service, make_services

pytestmark = pytest.mark.anyio

HOME = "Admission — Bureau des entrées"
RECORD = "Admission — {{patient}} {{*}}"  # the demonstrated patient's window, templated by the IR
PREVIOUS = "Admission — DUPONT Marie"  # the window the previous run left
SEARCH = OcrLine(text="Rechercher un patient", bbox=(100, 80, 200, 20), score=0.99)
FORM = OcrLine(text="Motif d'admission", bbox=(100, 300, 160, 20), score=0.99)


def step(index: int, action: str, label: str, before: str, after: str, **extra: Any) -> dict[str, Any]:
    return {
        "index": index,
        "intent": f"{action} {label}",
        "action_type": action,
        "target": {"label": label, "window_title": before, "frame_size": [1280, 720]},
        "expected_window_before": before,
        "expected_window_after": after,
        **extra,
    }


def admission(start: str = HOME) -> list[dict[str, Any]]:
    """Search the patient, open their record (chosen by who they are), fill the reason, save."""
    return [
        step(1, "type_text", "Rechercher un patient", start, start, params={"text": "{{patient}}"}),
        step(2, "click_anchor", "Rechercher", start, start, step_class="navigation"),
        step(3, "click_anchor", "{{patient}}", start, RECORD, identity="{{patient}} {{*}}", step_class="navigation"),
        step(4, "type_text", "Motif d'admission", RECORD, RECORD, params={"text": "Douleur"}),
        step(5, "click_anchor", "Enregistrer", RECORD, RECORD, step_class="irreversible"),
    ]


def png(width: int = 1280, height: int = 720) -> bytes:
    ok, buf = cv2.imencode(".png", np.full((height, width, 3), 240, np.uint8))
    assert ok
    return bytes(buf)


@pytest.fixture
def live(tmp_path: Path) -> Any:
    services = make_services(tmp_path, settings={"replay_preflight": True})
    return services, make_service(services)


async def showing(service: ReplayService, title: str) -> None:
    await service.next_action("pc-1")  # connected
    service.store.machine_screen("pc-1", now=service.time.now(), window_title=title, size=(1280, 720), png=png())


def readiness(service: ReplayService, steps: list[dict[str, Any]]) -> dict[str, Any]:
    return service.preflight("pc-1", service.plan(steps, {"patient": "MARTIN"}))


# --- templates ---------------------------------------------------------------------------------------------
def test_a_record_window_as_a_template_names_the_window_of_any_record() -> None:
    assert template_of(RECORD) == "Admission — {{*}}"
    templates = own_templates([HOME, RECORD, "{{patient}}", None])
    assert templates == ["Admission — Bureau des entrées", "Admission — {{*}}"]  # '{{*}}' alone names no window
    assert own_template(PREVIOUS, templates) == "Admission — {{*}}"
    assert own_template("PACS Viewer — DUPONT Marie", templates) is None
    assert own_template("Fermer Admission — DUPONT", templates) is None  # the whole title, not a part of it


def test_only_steps_that_search_for_the_record_may_begin_elsewhere(live: Any) -> None:
    _, service = live
    assert leading_run(service.plan(admission(), {"patient": "MARTIN"})) == [0, 1, 2]
    saved_at_once = [*admission()[:2], step(3, "click_anchor", "Valider", HOME, HOME, step_class="irreversible")]
    assert leading_run(service.plan(saved_at_once, {"patient": "MARTIN"})) == []
    form_first = admission()[3:]  # recorded on the record's own form: typing there changes a record
    assert leading_run(service.plan(form_first, {"patient": "MARTIN"})) == []


# --- the preflight on a recent screen: what the screen shows now decides --------------------------------
async def test_a_last_screen_showing_the_previous_patients_window_is_observed_again(live: Any) -> None:
    services, service = live
    services.ocr.lines = [SEARCH]
    await showing(service, PREVIOUS)  # the application may have been restarted since this report
    ready = readiness(service, admission())
    assert ready["observe_first"] is True and "another of the workflow's own windows" in ready["why"], ready


async def test_a_last_screen_observed_again_anyway_is_not_searched_first(live: Any) -> None:
    services, service = live
    services.ocr.lines = [SEARCH]
    await showing(service, PREVIOUS)
    assert readiness(service, admission())["observe_first"] is True
    assert services.ocr.calls == 0  # the observation decides: the report before it is not read for nothing


async def test_the_run_patients_window_is_the_recorded_one(live: Any) -> None:
    services, service = live
    services.ocr.lines = [FORM]
    await showing(service, "Admission — MARTIN Paul")
    ready = readiness(service, admission()[3:])  # expects 'Admission — MARTIN {{*}}'
    assert ready["screen_checked"] is True and "starts_on" not in ready, ready


async def test_another_patients_form_is_never_typed_into(live: Any) -> None:
    services, service = live
    services.ocr.lines = [FORM]
    await showing(service, PREVIOUS)
    ready = readiness(service, admission()[3:])
    assert ready.get("observe_first") is True and "starts_on" not in ready
    assert "is not in front" in ready["why"]


async def test_another_applications_window_is_not_the_workflows(live: Any) -> None:
    services, service = live
    services.ocr.lines = [SEARCH]
    await showing(service, "PACS Viewer")
    ready = readiness(service, admission())
    assert ready.get("observe_first") is True and "starts_on" not in ready


async def test_the_workflows_own_window_without_the_first_target_is_observed_again(live: Any) -> None:
    services, service = live
    services.ocr.lines = [FORM]  # the record's form, no search field
    await showing(service, PREVIOUS)
    ready = readiness(service, admission())
    assert ready.get("observe_first") is True and "starts_on" not in ready


# --- what the run's steps then expect ----------------------------------------------------------------------
def windows(service: ReplayService, replay_id: str) -> list[tuple[Any, Any, Any]]:
    return [
        (a.expected.get("window_before"), a.expected.get("window_after"), (a.target or {}).get("window_title"))
        for a in service.store.actions(replay_id)
        if a.origin == "workflow"
    ]


def expected_after_start(service: ReplayService, replay_id: str) -> None:
    rows = windows(service, replay_id)
    assert rows[:2] == [(PREVIOUS, PREVIOUS, PREVIOUS)] * 2
    assert rows[2] == (PREVIOUS, "Admission — MARTIN {{*}}", PREVIOUS)  # then the run's patient is opened
    assert rows[3:] == [("Admission — MARTIN {{*}}",) * 3] * 2  # the form and the save: unchanged
    chosen = next(a for a in service.store.actions(replay_id) if a.step_index == 3)
    assert chosen.target["identity_values"] == ["MARTIN"]  # the record is still read before its click


async def observed(
    service: ReplayService, agent: FakeAgent, title: str, start: str = HOME, steps: list[dict[str, Any]] | None = None
) -> str:
    """A replay begun by observing the screen, which shows `title`: its observation reported."""
    await agent.service.next_action("pc-1")
    shot = base64.b64encode(png()).decode()
    agent.result_for["screenshot_evidence"] = {"window_title": title, "screenshot_after": shot}
    replay_id = await service.start(
        steps=steps or admission(start),
        competence="Admission",
        version=1,
        machine_id="pc-1",
        params={"patient": "MARTIN"},
        observe_first=True,
    )
    assert await agent.step() == "done"  # the observation: a screenshot, no input
    return replay_id


@pytest.mark.parametrize("start", [HOME, RECORD])
async def test_an_observed_screen_showing_the_previous_patient_lets_the_search_begin_there(
    live: Any, start: str
) -> None:
    services, service = live
    services.ocr.lines = [SEARCH]
    replay_id = await observed(service, FakeAgent(service, clock=services.clock), PREVIOUS, start)
    replay = service.store.get_replay(replay_id)
    assert replay.state == "running", (replay.pause_reason, replay.pause_detail)
    expected_after_start(service, replay_id)


async def test_an_observed_start_window_after_a_report_of_the_previous_patient_changes_nothing(live: Any) -> None:
    services, service = live
    services.ocr.lines = [SEARCH]
    await showing(service, PREVIOUS)  # the run before left it; the application was restarted since
    assert readiness(service, admission())["observe_first"] is True
    replay_id = await observed(service, FakeAgent(service, clock=services.clock), HOME)
    assert service.store.get_replay(replay_id).state == "running"
    assert windows(service, replay_id)[0] == (HOME, HOME, HOME)


async def test_an_observed_screen_showing_another_patients_form_pauses_before_any_input(live: Any) -> None:
    services, service = live
    services.ocr.lines = [FORM]
    agent = FakeAgent(service, clock=services.clock)
    replay_id = await observed(service, agent, PREVIOUS, steps=admission()[3:])
    replay = service.store.get_replay(replay_id)
    assert replay.state == "paused" and replay.pause_reason == "WORKSTATION_NOT_READY"
    assert await agent.step() == "idle"  # nothing typed into DUPONT's form
