"""A target its agent scrolled into view is guarded against where the recorded point went, not where it was."""

from __future__ import annotations

import pydantic
import pytest

from rpa_mcp.ops import replay_agent as agent_ops
from rpa_mcp.ops.registry import Caller, OpContext
from rpa_mcp.vision.budget import ImageWork
from tests.replay.test_occlusion import FORM, screenshot

# the control shows at (500, 300); it was demonstrated at (500, 700): the page has since scrolled up by 400 px
SPEC = {"uia": {"x": 500, "y": 300, "score": 0.95}, "window_title": FORM, "x_pct": 500 / 1920, "y_pct": 700 / 1080}


@pytest.fixture
def ctx(services, service):
    services.replay, services.image_work = service, ImageWork(2)
    return OpContext(caller=Caller("agent", frozenset({"operator"})), services=services)


async def resolve(ctx: OpContext, shift: int) -> agent_ops.ResolveTargetOutput:
    args = agent_ops.ResolveTargetInput(image=screenshot(), target_spec=SPEC, content_shift_y=shift)
    return await agent_ops.resolve_target(ctx, args)


@pytest.mark.anyio
async def test_a_hit_where_the_scroll_took_the_recorded_point_is_accepted(ctx: OpContext) -> None:
    scrolled = await resolve(ctx, -400)
    assert scrolled.resolved and (scrolled.x, scrolled.y) == (500, 300)


@pytest.mark.anyio
async def test_without_the_shift_or_with_another_one_the_hit_is_too_far(ctx: OpContext) -> None:
    for shift in (0, 400, -100):
        far = await resolve(ctx, shift)
        assert not far.resolved and far.method.startswith("rejected_drift"), (shift, far)


def test_a_shift_larger_than_any_screen_is_refused_by_name() -> None:
    with pytest.raises(pydantic.ValidationError, match="content_shift_y"):
        agent_ops.ResolveTargetInput(image=screenshot(), target_spec=SPEC, content_shift_y=20000)
