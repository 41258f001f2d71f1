"""A replay is refused before its first input when the workstation is not there or not showing what it needs."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.bootstrap import build_services
from rpa_mcp.errors import WorkstationNotReady
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.ops.registry import Caller
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock
from rpa_mcp.vision.ocr import OcrLine
from tests.replay.kit import make_service, make_services

pytestmark = pytest.mark.anyio

STEP = {
    "index": 1,
    "intent": "Ouvrir le dossier",
    "action_type": "click_anchor",
    "target": {
        "label": "Dossier",
        "window_title": "MédiDossier",
        "frame_size": [1280, 720],
        "rel_x": 0.5,
        "rel_y": 0.5,
    },
}


def png(width: int = 1280, height: int = 720) -> bytes:
    ok, buf = cv2.imencode(".png", np.full((height, width, 3), 240, np.uint8))
    assert ok
    return bytes(buf)


@pytest.fixture
def live(tmp_path: Path) -> Any:
    services = make_services(tmp_path, settings={"replay_preflight": True})
    return services, make_service(services)


def refusal(service: ReplayService, *steps: dict[str, Any]) -> WorkstationNotReady:
    with pytest.raises(WorkstationNotReady) as caught:
        service.preflight("pc-1", service.plan(list(steps) or [STEP]))
    assert caught.value.code == "workstation-not-ready" and caught.value.details["executed"] == 0
    return caught.value


async def test_a_workstation_that_never_polled_is_refused_naming_it(live: Any) -> None:
    _, service = live
    error = refusal(service)
    assert error.details["machine_id"] == "pc-1" and "pc-1" in error.details["missing"][0]


async def test_a_workstation_silent_for_too_long_is_refused(live: Any) -> None:
    services, service = live
    await service.next_action("pc-1")
    assert service.preflight("pc-1", service.plan([STEP]))["connected"] is True
    services.clock.advance(service.config.presence_s + 1)
    refusal(service)


async def test_without_a_recent_screen_the_workstation_is_observed_first(live: Any) -> None:
    services, service = live
    service.store.machine_screen(
        "pc-1", now=service.time.now(), window_title="PACS", size=(800, 600), png=png(800, 600)
    )
    services.clock.advance(service.config.screen_fresh_s + 1)
    await service.next_action("pc-1")
    assert "not recent" in observed_first(service)["why"]


def observed_first(service: ReplayService) -> dict[str, Any]:
    """The preflight's answer when the last screen cannot be trusted: observed again before any input."""
    readiness = service.preflight("pc-1", service.plan([STEP]))
    assert readiness["observe_first"] is True and readiness["screen_checked"] is False, readiness
    return readiness


async def test_a_last_screen_without_the_first_steps_window_is_observed_again(live: Any) -> None:
    services, service = live
    await service.next_action("pc-1")
    services.ocr.lines = [OcrLine(text="Dossier", bbox=(600, 350, 80, 20), score=0.99)]
    service.store.machine_screen(
        "pc-1", now=service.time.now(), window_title="PACS Viewer", size=(1280, 720), png=png()
    )
    assert "PACS Viewer" in observed_first(service)["why"]  # the person may have brought it back since
    service.store.machine_screen(
        "pc-1", now=service.time.now(), window_title="MédiDossier", size=(1280, 720), png=png()
    )
    assert service.preflight("pc-1", service.plan([STEP]))["screen_checked"] is True


async def test_a_screen_smaller_than_the_recorded_one_is_refused(live: Any) -> None:
    _, service = live
    await service.next_action("pc-1")
    service.store.machine_screen(
        "pc-1", now=service.time.now(), window_title="MédiDossier", size=(1024, 600), png=png(1024, 600)
    )
    assert "1024x600" in refusal(service).details["missing"][0]


async def test_a_last_screen_without_the_first_target_is_observed_again(live: Any) -> None:
    services, service = live
    await service.next_action("pc-1")
    service.store.machine_screen(
        "pc-1", now=service.time.now(), window_title="MédiDossier", size=(1280, 720), png=png()
    )
    services.ocr.lines = []
    assert "'Dossier'" in observed_first(service)["why"]


async def test_a_refused_apply_leaves_no_replay_dispatches_nothing_and_keeps_its_token(tmp_path: Path) -> None:
    clock = FakeClock(start=1_800_000_000.0)
    settings = Settings(
        data_dir=tmp_path / "data", jwt_secret="k" * 64, replay_preflight=True, approval="write=token,act=token"
    )
    services = build_services(settings, clock=clock)
    registry = build_registry()
    caller = Caller("nurse", frozenset({"operator"}))
    services.competences.save("Admission", {"name": "Admission", "version": 1, "steps": [STEP]}, machine_id="pc-1")

    async def call(name: str, args: dict[str, Any]) -> Any:
        return await dispatch(registry, services, name, args, caller, surface="rest")

    with pytest.raises(WorkstationNotReady):
        await call("propose_start_replay", {"competence": "Admission"})
    await services.replay.next_action("pc-1")  # the agent polls: connected
    proposal = await call("propose_start_replay", {"competence": "Admission"})
    assert proposal["details"]["workstation"]["connected"] is True
    clock.advance(services.replay.config.presence_s + 1)  # then goes silent before the apply
    with pytest.raises(WorkstationNotReady):
        await call("apply_start_replay", {"token": proposal["token"]})
    assert services.replay.store.list_replays() == []
    await services.replay.next_action("pc-1")
    started = await call("apply_start_replay", {"token": proposal["token"]})  # the token was not spent
    assert started["status"] == "running"


# --- a screen that is not recent: observed again before the first input ---------------------------------
async def start_observed(service: ReplayService, agent: Any) -> str:
    await agent.service.next_action("pc-1")  # connected, but its last screen is old (or there is none)
    observed_first(service)
    return await service.start(steps=[STEP], competence="Admission", version=1, machine_id="pc-1", observe_first=True)


@pytest.fixture
def observer(live: Any) -> Any:
    from tests.replay.kit import FakeAgent

    services, service = live
    return FakeAgent(service, clock=services.clock)


async def test_a_stale_screen_is_observed_again_and_a_wrong_window_pauses_before_any_input(
    live: Any, observer: Any
) -> None:
    services, service = live
    services.ocr.lines = [OcrLine(text="Dossier", bbox=(600, 350, 80, 20), score=0.99)]
    observer.result_for["screenshot_evidence"] = {"window_title": "Écran verrouillé"}
    replay_id = await start_observed(service, observer)
    assert await observer.step() == "done"  # the observation: a screenshot, no input
    replay = service.store.get_replay(replay_id)
    assert replay.state == "paused" and replay.pause_reason == "WORKSTATION_NOT_READY", replay
    assert "Écran verrouillé" in replay.pause_detail["missing"][0] and replay.pause_detail["executed"] == 0
    assert await observer.step() == "idle"  # the first step is not sent
    status = service.status(replay_id)
    assert (status["steps_done"], status["if_stopped_now"], status["steps_total"]) == (0, "halted_before_effect", 1)
    assert [a.action_type for a in service.store.actions(replay_id) if a.dispatches] == ["screenshot_evidence"]

    shot = base64.b64encode(png()).decode()  # the person brought the window back
    observer.result_for["screenshot_evidence"] = {"window_title": "MédiDossier", "screenshot_after": shot}
    await service.answer(replay_id, "retry")  # observed again, checked again
    assert await observer.step() == "done"
    again = service.store.get_replay(replay_id)
    assert again.state == "running", (again.pause_reason, again.pause_detail)
    assert await observer.step() == "done"  # now the first step
    status = service.status(replay_id)
    assert (status["state"], status["steps_done"]) == ("running", 1), status  # not completed before one more look
    assert await observer.step() == "done"  # the closing look: a screenshot, no input
    status = service.status(replay_id)
    assert (status["state"], status["outcome"], status["steps_done"]) == ("completed", "completed", 1), status
    looks = [(a.origin, a.action_type) for a in service.store.actions(replay_id) if a.origin != "workflow"]
    assert looks == [("preflight", "screenshot_evidence")] * 2 + [("closing", "screenshot_evidence")]  # twice observed


async def test_a_recent_screen_showing_what_the_first_step_needs_is_not_observed_again(live: Any) -> None:
    services, service = live
    await service.next_action("pc-1")
    services.ocr.lines = [OcrLine(text="Dossier", bbox=(600, 350, 80, 20), score=0.99)]
    service.store.machine_screen(
        "pc-1", now=service.time.now(), window_title="MédiDossier", size=(1280, 720), png=png()
    )
    assert "observe_first" not in service.preflight("pc-1", service.plan([STEP]))


async def test_a_first_target_whose_window_moved_far_is_on_the_screen_all_the_same(live: Any) -> None:
    services, service = live
    await service.next_action("pc-1")
    service.store.machine_screen(
        "pc-1", now=service.time.now(), window_title="MédiDossier", size=(1280, 720), png=png()
    )
    # recorded at (0.3, 0.4), read now beyond the top left corner of the region read around it
    place = {"x_pct": 0.3, "y_pct": 0.4, "screen": [1280, 720]}
    recorded = {**STEP, "target": {**{k: v for k, v in STEP["target"].items() if k[:4] != "rel_"}, **place}}
    services.ocr.lines = [OcrLine(text="Dossier", bbox=(-300, -180, 80, 20), score=0.99)]
    readiness = service.preflight("pc-1", service.plan([recorded]))
    assert readiness["screen_checked"] is True and readiness.get("observe_first") is not True, readiness


async def far_field_readiness(live: Any, front_title: str, step_window: str | None) -> dict[str, Any]:
    """The preflight of a first step typing in a field recorded beside its label near the top left, on a
    screen where `front_title` is in front and the label is read far from there."""
    services, service = live
    await service.next_action("pc-1")
    service.store.machine_screen("pc-1", now=service.time.now(), window_title=front_title, size=(1280, 720), png=png())
    target = {
        "label": "Nom du patient :",
        **({"window_title": step_window} if step_window else {}),
        "frame_size": [1280, 720],
        "x_pct": 0.1,
        "y_pct": 0.1,
        "screen": [1280, 720],
        "bbox": [119, 60, 400, 20],
        "in_field": True,
        "label_offset": [123, 8],
        "label_click": [123, 8],
    }
    step = {**STEP, "action_type": "type_text", "params": {"text": "MOREL"}, "target": target}
    services.ocr.lines = [OcrLine(text="Nom du patient :", bbox=(700, 500, 110, 20), score=0.99)]
    readiness: dict[str, Any] = service.preflight("pc-1", service.plan([step]))
    return readiness


async def test_a_first_field_beside_its_label_whose_window_moved_far_is_on_the_screen_all_the_same(
    live: Any,
) -> None:
    # the window now stands far from where the field was typed: the field beside the label read is too far
    # from there (the resolver answers not found, never a guess), yet the label and its field are on the screen
    readiness = await far_field_readiness(live, "MédiDossier", "MédiDossier")
    assert readiness["screen_checked"] is True and readiness.get("observe_first") is not True, readiness


async def test_a_first_field_not_found_is_searched_anywhere_only_when_its_own_window_is_known_in_front(
    live: Any,
) -> None:
    # the same field, the same words on the screen, but another window in front and no title recorded for the
    # step: not found stays the answer (the same words in another window are no reason to start)
    readiness = await far_field_readiness(live, "Visionneuse PACS", None)
    assert readiness.get("observe_first") is True or readiness.get("missing"), readiness
