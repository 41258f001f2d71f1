"""A set_checked step keeps the mark the person used (its kind, its side of the label, how far and how large):
at replay, `resolve_target` reads only that mark; another mark, or a glyph at another place, says no state and
no kind, so the agent clicks nothing and the replay pauses (a false "already so" would skip the step)."""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.ops import replay_agent as agent_ops
from rpa_mcp.ops.common import ImageArg
from rpa_mcp.ops.registry import Caller, OpContext
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.budget import ImageWork
from rpa_mcp.vision.ocr import OcrLine
from tests.vision.test_radio import radio

BOX_LEARNED = {"kind": "box", "side": "left", "gap": 0.65, "size": 1.45}  # as tests.vision.test_checkbox draws one
RADIO_LEARNED = {"kind": "radio", "side": "left", "gap": 0.9, "size": 1.2}  # as tests.vision.test_radio draws one


async def read(services: Any, service: Any, image: np.ndarray, line: tuple, spec: dict[str, Any]) -> tuple:
    services.replay, services.image_work = service, ImageWork(2)
    service.resolver.ocr = FakeOcr([OcrLine("Urgent", line, 0.97)])
    ctx = OpContext(caller=Caller("agent", frozenset({"operator"})), services=services)
    png = base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")
    spec = {"label": "Urgent", "check_state": True} | spec
    answer = await agent_ops.resolve_target(
        ctx, agent_ops.ResolveTargetInput(image=ImageArg(png_base64=png), target_spec=spec)
    )
    return answer.resolved, answer.checked, answer.mark


@pytest.mark.anyio
async def test_the_learned_radio_is_read_where_it_was_learned(services: Any, service: Any) -> None:
    image, line = radio("ring_and_dot", selected=True)
    assert await read(services, service, image, line, {"mark": RADIO_LEARNED}) == (True, True, "radio")


@pytest.mark.anyio
async def test_a_radio_read_where_a_box_was_learned_says_no_state(services: Any, service: Any) -> None:
    # the old reading: a selected radio, "already so", nothing clicked and the step reported done
    image, line = radio("ring_and_dot", selected=True)
    assert await read(services, service, image, line, {}) == (True, True, "radio")
    assert await read(services, service, image, line, {"mark": BOX_LEARNED}) == (True, None, None)


@pytest.mark.anyio
async def test_a_round_mark_at_another_place_than_the_learned_one_says_no_state(services: Any, service: Any) -> None:
    image, line = radio("ring_and_dot", selected=True)
    farther = RADIO_LEARNED | {"gap": 2.5}
    smaller = RADIO_LEARNED | {"size": 0.7}
    right = RADIO_LEARNED | {"side": "right"}
    for learned in (farther, smaller, right):
        assert await read(services, service, image, line, {"mark": learned}) == (True, None, None), learned


@pytest.mark.anyio
async def test_a_learned_mark_that_is_not_one_reads_nothing(services: Any, service: Any) -> None:
    image, line = radio("ring_and_dot", selected=True)
    for broken in ({"kind": "dial", "side": "left", "gap": 1, "size": 1}, {"kind": "radio"}, "radio", None):
        assert await read(services, service, image, line, {"mark": broken}) == (True, None, None), broken
