"""An irreversible step is never clicked at its recorded position alone: found by its label or anchor, or paused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rpa_mcp.agent_sim import VirtualDesktop
from rpa_mcp.agent_sim.execute import inject
from rpa_mcp.agent_sim.fixtures import ImageResolver
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.wire import NextAction, WireTarget

pytestmark = pytest.mark.anyio

SAVE = {
    "index": 1,
    "intent": "Valider",
    "action_type": "click_anchor",
    "target": {"label": "Valider", "x": 640, "y": 400, "rel_x": 0.5, "rel_y": 0.5, "uia": {"x": 640, "y": 400}},
}


async def test_an_irreversible_step_goes_out_flagged_without_recorded_pixels(service: ReplayService) -> None:
    await service.start(steps=[SAVE], competence="c", version=1, machine_id="pc-1")
    action = await service.next_action("pc-1")
    assert action is not None and action.target is not None
    assert action.irreversible is True
    assert (action.target.x, action.target.y) == (None, None)
    assert "uia" not in action.target.spec and action.target.spec["step_class"] == "irreversible"


async def test_a_navigation_step_keeps_its_recorded_pixels(service: ReplayService) -> None:
    step = {**SAVE, "intent": "Onglet", "target": {**SAVE["target"], "label": "Onglet"}}
    await service.start(steps=[step], competence="c", version=1, machine_id="pc-1")
    action = await service.next_action("pc-1")
    assert action is not None and action.target is not None
    assert (action.irreversible, action.target.x) == (False, 640)


def test_the_resolver_never_answers_an_irreversible_target_with_recorded_coordinates(service: ReplayService) -> None:
    image = np.full((720, 1280, 3), 255, dtype=np.uint8)
    spec: dict[str, Any] = {"uia": {"x": 640, "y": 400}, "rel_x": 0.5, "rel_y": 0.55}
    assert service.resolver.resolve(image, spec).resolved is True
    res = service.resolver.resolve(image, {**spec, "step_class": "irreversible"})
    assert res.resolved is False


def test_the_simulated_agent_never_clicks_an_irreversible_target_at_its_recorded_position() -> None:
    desktop = VirtualDesktop(VirtualDesktop.load("incident").spec, ImageResolver.default())

    def action(irreversible: bool) -> NextAction:
        return NextAction(
            replay_id="r",
            action_id="a",
            attempt_id="t",
            not_after=1e12,
            server_now=0.0,
            action_type="click_anchor",
            target=WireTarget(label="Nowhere to be seen", rel_x=0.5, rel_y=0.5),
            irreversible=irreversible,
        )

    refused = inject(desktop, action(True))
    assert (refused.executed, refused.success) == (False, False)
    assert desktop.agent_inputs() == []
    assert inject(desktop, action(False)).executed is True
