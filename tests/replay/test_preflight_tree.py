"""The preflight accepts a first target OCR does not read when the window's accessibility tree names it, as the
agent's fallback finds it at step time; never for a step the fallback does not stand in for."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.tree_fallback import QUESTION
from tests.replay.kit import FakeAgent, make_service, make_services
from tests.replay.test_preflight import STEP, png

pytestmark = pytest.mark.anyio

ELEMENT = {"name": "Dossier", "role": "Button"}
TREE_STEP = {**STEP, "target": {**STEP["target"], "element": ELEMENT}}
WINDOW_BOX = [0, 0, 1280, 720]
FOUND = {
    "found": True,
    "name": "Dossier",
    "role": "Button",
    "point": [640, 360],
    "box": [600, 350, 80, 20],
    "window_title": "MédiDossier",
    "window_box": WINDOW_BOX,
}


@pytest.fixture
def live(tmp_path: Path) -> tuple[ReplayService, FakeAgent]:
    services = make_services(tmp_path, settings={"replay_preflight": True})
    services.ocr.lines = []  # the label is drawn in a font OCR does not read
    service = make_service(services)
    return service, FakeAgent(service, clock=services.clock)


async def observed(
    live: tuple[ReplayService, FakeAgent],
    step: dict[str, Any],
    answer: dict[str, Any] | None,
    *,
    front: str = "MédiDossier",
) -> tuple[str, dict[str, Any]]:
    """A replay of `step` begun by an observation the agent answers with `front` in front and `answer` (None:
    an agent that does not know the question); the replay's id and the look's params."""
    service, agent = live
    await service.next_action("pc-1")  # connected; no recent screen: observed first
    replay_id = await service.start(
        steps=[step], competence="Admission", version=1, machine_id="pc-1", observe_first=True
    )
    look = next(a for a in service.store.actions(replay_id) if a.origin == "preflight")
    shot = base64.b64encode(png()).decode()
    result: dict[str, Any] = {"window_title": front, "screenshot_after": shot}
    if answer is not None:
        result["output"] = {QUESTION: answer}
    agent.result_for["screenshot_evidence"] = result
    assert await agent.step() == "done"  # the observation: a screenshot, no input
    return replay_id, look.params


def paused_before_any_input(service: ReplayService, replay_id: str) -> None:
    replay = service.store.get_replay(replay_id)
    assert replay is not None
    assert (replay.state, replay.pause_reason) == ("paused", "WORKSTATION_NOT_READY"), replay
    assert replay.pause_detail["executed"] == 0 and "'Dossier'" in replay.pause_detail["missing"][-1]
    assert [a.action_type for a in service.store.actions(replay_id) if a.dispatches] == ["screenshot_evidence"]


async def test_a_first_target_ocr_misses_is_found_by_the_tree_and_the_evidence_says_so(live: Any) -> None:
    service, agent = live
    replay_id, asked = await observed(live, TREE_STEP, FOUND)
    question = asked[QUESTION]
    assert (question["action_type"], question["irreversible"]) == ("click_anchor", False)
    assert question["target"]["spec"] == {"element": ELEMENT, "window_title": "MédiDossier"}
    replay = service.store.get_replay(replay_id)
    assert replay.state == "running", (replay.pause_reason, replay.pause_detail)
    look = service.status(replay_id)["actions"][0]
    assert look["origin"] == "preflight"
    assert {"checker": "first_target", "signal": "accessibility_tree"}.items() <= look["checkers"][-1].items()
    verdict = next(a for a in service.store.actions(replay_id) if a.origin == "preflight").verdict
    assert verdict["first_target"]["found_by"] == "accessibility_tree" and verdict["first_target"]["point"] == [
        640,
        360,
    ]
    assert await agent.step() == "done"  # now the first step is sent
    assert [a.action_type for a in service.store.actions(replay_id) if a.dispatches][:2] == [
        "screenshot_evidence",
        "click_anchor",
    ]


async def test_an_agent_that_does_not_answer_leaves_the_replay_paused_as_before(live: Any) -> None:
    service, _ = live
    replay_id, asked = await observed(live, TREE_STEP, None)
    assert QUESTION in asked
    paused_before_any_input(service, replay_id)


async def test_an_irreversible_first_step_is_never_found_by_the_tree(live: Any) -> None:
    service, _ = live
    step = {**TREE_STEP, "step_class": "irreversible"}
    replay_id, asked = await observed(live, step, FOUND)  # an agent that answers all the same
    assert QUESTION not in asked
    paused_before_any_input(service, replay_id)


async def test_a_record_selecting_first_step_is_never_found_by_the_tree(live: Any) -> None:
    service, _ = live
    step = {**TREE_STEP, "target": {**TREE_STEP["target"], "identity": "DUPONT Marie"}}
    replay_id, asked = await observed(live, step, FOUND)
    assert QUESTION not in asked
    paused_before_any_input(service, replay_id)


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param({"found": False, "name": "Dossier", "role": "Button", "reason": "two"}, id="none-or-two"),
        pytest.param({**FOUND, "window_title": "Visionneuse PACS"}, id="answered-for-another-window"),
        pytest.param({**FOUND, "window_box": [700, 0, 580, 720]}, id="point-outside-the-window"),
        pytest.param({**FOUND, "window_box": None}, id="window-box-unknown"),
        pytest.param({**FOUND, "name": "Dossiers"}, id="another-element"),
        pytest.param({**FOUND, "point": [640]}, id="broken-answer"),
    ],
)
async def test_a_tree_answer_that_does_not_show_the_target_in_its_window_leaves_the_replay_paused(
    live: Any, answer: dict[str, Any]
) -> None:
    service, _ = live
    replay_id, _ = await observed(live, TREE_STEP, answer)
    paused_before_any_input(service, replay_id)


async def test_another_window_in_front_is_not_ready_whatever_the_tree_says(live: Any) -> None:
    service, _ = live
    answer = {**FOUND, "window_title": "Visionneuse PACS"}
    replay_id, _ = await observed(live, TREE_STEP, answer, front="Visionneuse PACS")
    replay = service.store.get_replay(replay_id)
    assert (replay.state, replay.pause_reason) == ("paused", "WORKSTATION_NOT_READY")
    assert "Visionneuse PACS" in replay.pause_detail["missing"][0]


async def test_a_step_without_a_recorded_element_asks_nothing(live: Any) -> None:
    service, _ = live
    replay_id, asked = await observed(live, STEP, FOUND)
    assert QUESTION not in asked
    paused_before_any_input(service, replay_id)


async def test_the_agent_core_answers_the_look_and_the_server_accepts_its_answer(live: Any) -> None:
    # the whole wire, in memory: the server's look, the agent core carrying it out on a desktop whose tree
    # names the button (no OCR reads it), the agent's result judged by the server
    from rpa_agent.core import wire as agent_wire
    from rpa_agent.core.perform import Performer

    from rpa_mcp.replay.wire import ActionResult
    from tests.agent_core.fakes import FakeDesktop, FakeHttp, FakeServer
    from tests.agent_core.test_first_look_tree import TreeWindows

    service, _ = live
    target = {k: v for k, v in TREE_STEP["target"].items() if k != "frame_size"}  # the fake screen is 64x48
    await service.next_action("pc-1")
    replay_id = await service.start(
        steps=[{**TREE_STEP, "target": target}],
        competence="Admission",
        version=1,
        machine_id="pc-1",
        observe_first=True,
    )
    sent = await service.next_action("pc-1", wait=0, protocol_version=1)
    assert sent is not None and sent.action_type == "screenshot_evidence"
    desktop = FakeDesktop()
    desktop.windows = TreeWindows(("Dossier", "Button", (20, 20, 20, 8)))
    desktop.windows.open[0] = replace(desktop.windows.open[0], box=(0, 0, 64, 48))
    performer = Performer(
        desktop, FakeHttp(FakeServer()), machine_id="pc-1", say=lambda _: None, settle_ms=0, sleep=lambda _: None
    )
    look = agent_wire.next_action(sent.model_dump(mode="json"))
    performer.begin(look)
    result = performer.execute(look)
    assert result["output"][QUESTION]["point"] == [30, 24] and desktop.input.sent == []
    await service.report(ActionResult(**result))
    replay = service.store.get_replay(replay_id)
    assert replay.state == "running", (replay.pause_reason, replay.pause_detail)
    first = await service.next_action("pc-1", wait=0, protocol_version=1)
    assert first is not None and first.action_type == "click_anchor"
