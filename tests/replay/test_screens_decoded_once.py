"""A screen an agent sends again (the one it resolved a target on, as its report's "before"; an unchanged
"after" as the next step's screen) is decoded once: the report's check does not pay for it twice."""

from __future__ import annotations

from typing import Any

import cv2
import pytest

from rpa_mcp.ops import replay_agent as agent_ops
from rpa_mcp.ops.common import ImageArg
from rpa_mcp.ops.registry import Caller, OpContext
from rpa_mcp.replay import model as m
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.vision.budget import ImageWork
from tests.replay.kit import SHOT_BEFORE, FakeAgent, steps

pytestmark = pytest.mark.anyio


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counted: list[int] = []
    real = cv2.imdecode
    monkeypatch.setattr(cv2, "imdecode", lambda *a: counted.append(1) or real(*a))
    return counted


async def test_the_screen_a_target_was_resolved_on_is_not_decoded_again_for_its_report(
    services: Any, service: ReplayService, agent: FakeAgent, decodes: list[int]
) -> None:
    services.replay, services.image_work = service, ImageWork(2)
    ctx = OpContext(caller=Caller("agent", frozenset({"operator"})), services=services)
    spec = {"uia": {"x": 100, "y": 100, "score": 0.95}}
    found = await agent_ops.resolve_target(
        ctx, agent_ops.ResolveTargetInput(image=ImageArg(png_base64=SHOT_BEFORE), target_spec=spec)
    )
    assert found.resolved and len(decodes) == 1

    rid = await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    assert await agent.step() == "done"  # its before: the screen resolved on; its after: a new screen
    assert len(decodes) == 2
    assert await agent.step() == "done"  # the same two screens again: nothing decoded
    assert len(decodes) == 2
    assert [a.state for a in service.store.actions(rid)][:2] == [m.ACKED, m.ACKED]
