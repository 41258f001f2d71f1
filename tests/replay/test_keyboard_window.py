"""A keyboard step with no target of its own still names the window its keys are for (the agent types
nothing into another window in front)."""

from __future__ import annotations

import pytest

from rpa_mcp.replay.service import ReplayService

pytestmark = pytest.mark.anyio


def step(action_type: str, **extra: object) -> dict[str, object]:
    return {
        "index": 1,
        "intent": "Valider par Entrée",
        "action_type": action_type,
        "expected_window_before": "Admission — {{nom}}",
        **extra,
    }


async def test_a_key_step_goes_out_with_its_window_templated_for_the_run(service: ReplayService) -> None:
    await service.start(
        steps=[step("key_press", params={"keys": "enter"})],
        competence="c",
        version=1,
        machine_id="pc-1",
        params={"nom": "FAURE"},
    )
    action = await service.next_action("pc-1")
    assert action is not None and action.target is not None
    assert action.target.window_title == "Admission — FAURE"
    assert (action.target.label, action.target.x, action.target.rel_x) == (None, None, None)  # nothing to click


async def test_a_focus_step_is_not_given_the_window_it_leaves_as_its_target(service: ReplayService) -> None:
    # a focus step's window is the one it brings forward, never its window before
    await service.start(
        steps=[step("focus_window", params={"window_title": "Imagerie"})], competence="c", version=1, machine_id="pc-1"
    )
    action = await service.next_action("pc-1")
    assert action is not None and action.target is None
