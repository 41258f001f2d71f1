"""A target another window covers is never clicked: resolve_target says window_occluded, the replay pauses."""

from __future__ import annotations

import base64

import cv2
import numpy as np
import pytest

from rpa_mcp.ops import replay_agent as agent_ops
from rpa_mcp.ops.common import ImageArg
from rpa_mcp.ops.registry import Caller, OpContext
from rpa_mcp.replay.occlusion import StackedWindow, covering
from rpa_mcp.replay.service.supervision import never_clicked
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.budget import ImageWork

FORM = "Pharmacie - Dispensation - Chromium"
PACS = StackedWindow("PACS viewer", "pacs", (400, 200, 800, 600))
MAIN = StackedWindow(FORM, "chromium", (0, 0, 1920, 1080))
POPUP = StackedWindow("", "chromium", (480, 280, 200, 120))


def test_the_top_most_window_at_the_point_covers_a_target_of_another_window() -> None:
    assert covering((500, 300), [PACS, MAIN], FORM) is PACS


def test_a_target_whose_window_is_on_top_is_not_covered() -> None:
    assert covering((500, 300), [MAIN, PACS], FORM) is None
    assert covering((100, 100), [PACS, MAIN], FORM) is None  # the other window is elsewhere


def test_a_titleless_pop_up_of_the_application_covers_nothing() -> None:
    assert covering((500, 300), [POPUP, MAIN], FORM) is None


def test_nothing_is_said_without_the_targets_window_among_those_reported() -> None:
    assert covering((500, 300), [PACS, StackedWindow("Autre titre", "chromium", (0, 0, 1920, 1080))], FORM) is None
    assert covering((500, 300), [PACS, MAIN], None) is None


def test_a_window_title_templated_with_the_runs_parameters_is_the_targets_window() -> None:
    record = StackedWindow("Admission — FAURE Céline", "app", (0, 0, 1024, 768))
    assert covering((500, 300), [record], "Admission — {{*}}") is None


def screenshot() -> ImageArg:
    png = cv2.imencode(".png", np.full((1080, 1920, 3), 240, np.uint8))[1].tobytes()
    return ImageArg(png_base64=base64.b64encode(png).decode("ascii"))


@pytest.fixture
def ctx(services, service):
    services.replay = service
    services.image_work = ImageWork(2)
    return OpContext(caller=Caller("agent", frozenset({"operator"})), services=services)


async def resolve(ctx: OpContext, windows: list[dict[str, object]]) -> agent_ops.ResolveTargetOutput:
    args = agent_ops.ResolveTargetInput(
        image=screenshot(),
        target_spec={"uia": {"x": 500, "y": 300, "score": 0.95}, "window_title": FORM},
        windows=[agent_ops.StackedWindowArg.model_validate(w) for w in windows],
    )
    return await agent_ops.resolve_target(ctx, args)


PACS_ARG = {"title": "PACS viewer", "process": "pacs", "box": [400, 200, 800, 600]}
MAIN_ARG = {"title": FORM, "process": "chromium", "box": [0, 0, 1920, 1080]}


@pytest.mark.anyio
async def test_resolve_target_refuses_a_covered_point_and_names_the_covering_window(ctx: OpContext) -> None:
    free = await resolve(ctx, [MAIN_ARG, PACS_ARG])
    assert free.resolved and (free.x, free.y) == (500, 300)
    covered = await resolve(ctx, [PACS_ARG, MAIN_ARG])
    assert not covered.resolved and covered.method == "window_occluded"
    assert covered.reason is not None and "PACS viewer" in covered.reason


@pytest.mark.anyio
async def test_without_windows_the_resolution_is_unchanged(ctx: OpContext) -> None:
    assert (await resolve(ctx, [])).resolved


def test_an_agent_refusing_a_covered_target_pauses_the_replay_as_window_occluded() -> None:
    error = "target_not_resolved: window_occluded: WINDOW_OCCLUDED: covered by the window 'PACS viewer'"
    assert never_clicked(error)["failure_category"] == "WINDOW_OCCLUDED"
    assert never_clicked("target_not_resolved: not_found: nothing") == {}


@pytest.mark.anyio
async def test_resolve_target_reads_the_check_box_beside_the_label_when_asked(services, service) -> None:
    from rpa_mcp.vision.ocr import OcrLine
    from tests.vision.test_checkbox import LABEL, form

    services.replay, services.image_work = service, ImageWork(2)
    service.resolver.ocr = FakeOcr([OcrLine("Urgent", LABEL, 0.97)])  # the whole screen is read: no recorded spot
    ctx = OpContext(caller=Caller("agent", frozenset({"operator"})), services=services)
    answers = []
    for ticked in (True, False):
        png = cv2.imencode(".png", form("outlined", ticked=ticked))[1].tobytes()
        image = ImageArg(png_base64=base64.b64encode(png).decode("ascii"))
        spec = {"label": "Urgent", "check_state": True}
        answers.append(await agent_ops.resolve_target(ctx, agent_ops.ResolveTargetInput(image=image, target_spec=spec)))
    assert [(a.resolved, a.checked, a.mark) for a in answers] == [(True, True, "box"), (True, False, "box")]


@pytest.mark.anyio
async def test_resolve_target_reads_the_radio_button_beside_the_label_when_asked(services, service) -> None:
    # a radio button no accessibility tree shows: selected, the agent clicks nothing; not selected, it clicks
    from rpa_mcp.vision.ocr import OcrLine
    from tests.vision.test_radio import radio

    services.replay, services.image_work = service, ImageWork(2)
    ctx = OpContext(caller=Caller("agent", frozenset({"operator"})), services=services)
    answers = []
    for selected in (True, False):
        image, line = radio("accent_fill", selected=selected)
        service.resolver.ocr = FakeOcr([OcrLine("Urgent", line, 0.97)])
        png = cv2.imencode(".png", image)[1].tobytes()
        arg = ImageArg(png_base64=base64.b64encode(png).decode("ascii"))
        spec = {"label": "Urgent", "check_state": True}
        answers.append(await agent_ops.resolve_target(ctx, agent_ops.ResolveTargetInput(image=arg, target_spec=spec)))
    # the answer says it is a radio button: a selected one wanted cleared is never clicked (a click cannot clear it)
    assert [(a.resolved, a.checked, a.mark) for a in answers] == [(True, True, "radio"), (True, False, "radio")]


@pytest.mark.anyio
async def test_a_target_found_nowhere_whose_recorded_place_another_window_covers_is_occluded(ctx: OpContext) -> None:
    ctx.services.replay.resolver.ocr = FakeOcr([])  # the label is hidden: nothing reads it
    spec = {"label": "Valider", "window_title": FORM, "x_pct": 500 / 1920, "y_pct": 300 / 1080}

    async def hidden(windows: list[dict[str, object]]) -> agent_ops.ResolveTargetOutput:
        args = agent_ops.ResolveTargetInput(
            image=screenshot(),
            target_spec=spec,
            windows=[agent_ops.StackedWindowArg.model_validate(w) for w in windows],
        )
        return await agent_ops.resolve_target(ctx, args)

    covered = await hidden([PACS_ARG, MAIN_ARG])
    assert not covered.resolved and covered.method == "window_occluded"
    assert covered.reason is not None and "PACS viewer" in covered.reason
    missing = await hidden([MAIN_ARG, PACS_ARG])  # its own window on top there: simply not found
    assert not missing.resolved and missing.method != "window_occluded"
