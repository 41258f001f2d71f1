"""The reference agent chooses a drop-down's option by its text and brings a check box to a wanted state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from rpa_mcp.agent_sim import VirtualDesktop
from rpa_mcp.agent_sim.execute import inject
from rpa_mcp.agent_sim.fixtures import ImageResolver
from rpa_mcp.agent_sim.shadow import DemoRecorder
from rpa_mcp.agent_sim.spec import parse_desktop
from rpa_mcp.replay.choices import state_expected
from rpa_mcp.replay.wire import NextAction, WireTarget
from rpa_mcp.settings import shipped_dir
from rpa_mcp.shadow.ir import build_ir
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.store.db import Database
from rpa_mcp.store.traces import TraceStore
from rpa_mcp.testing import FakeClock, FakeOcr
from rpa_mcp.validation import Expected, Target, Validator, VerdictKind, load_validator_matrix
from rpa_mcp.validation.matrix import MATRIX_FILE
from rpa_mcp.vision.images import decode_image
from rpa_mcp.vision.ocr import OcrLine

from .fake_server import FakeReplayServer, Harness, RecordingSleep

FORM = """
name: form
start: form
screens:
  - {id: form, image: observation.png, window_title: "Pharmacie - Dispensation", process: chromium}
choices:
  - {id: packaging, screens: [form], bbox: [900, 300, 240, 36], label: Conditionnement,
     options: [Flacon, Boîte, Sachet]}
checkboxes:
  - {id: urgent, screens: [form], bbox: [900, 520, 160, 24], label: Urgent}
"""
COMBO = (1020, 318)
BOX = (910, 532)


@pytest.fixture
def form() -> VirtualDesktop:
    return VirtualDesktop(parse_desktop(FORM), ImageResolver.default())


def action(kind: str, at: tuple[int, int] | None, label: str | None = None, **params: Any) -> NextAction:
    target = WireTarget(label=label, x=at[0] if at else None, y=at[1] if at else None)
    return NextAction(
        replay_id="r",
        action_id="a",
        attempt_id="t",
        not_after=1e12,
        server_now=0.0,
        action_type=kind,
        target=target,
        params=params,
        idempotent=True,
    )


def test_the_option_is_found_by_its_text_in_the_opened_list_and_clicked(form: VirtualDesktop) -> None:
    outcome = inject(form, action("select_option", COMBO, option="Boîte"))
    assert outcome.success and form.text_at(*COMBO) == "Boîte"
    assert [e.effect for e in form.agent_inputs()] == ["open:packaging", "chose:packaging:Boîte"]


def test_the_drop_down_is_found_by_its_label_when_the_server_gave_no_point(form: VirtualDesktop) -> None:
    assert inject(form, action("select_option", None, "Conditionnement", option="Sachet")).success
    assert form.text_at(*COMBO) == "Sachet"


def test_an_option_not_in_the_list_closes_it_and_fails_without_choosing(form: VirtualDesktop) -> None:
    outcome = inject(form, action("select_option", COMBO, option="Ampoule"))
    assert not outcome.success and outcome.error is not None and outcome.error.startswith("TARGET_NOT_RESOLVED")
    assert form.text_at(*COMBO) == "-- choisir --" and form._state.controls.open is None


def test_the_chosen_option_is_what_the_check_reads_after(form: VirtualDesktop) -> None:
    before = decode_image(form.screenshot_png())
    inject(form, action("select_option", COMBO, option="Boîte"))
    after = decode_image(form.screenshot_png())
    matrix = load_validator_matrix(shipped_dir("catalog") / MATRIX_FILE)
    validator = Validator(matrix, FakeOcr([OcrLine("Boîte", (0, 0, 60, 20), 0.98)]))
    verdict = validator.validate(
        "select_option", before, after, Target(None, (900, 300, 240, 36)), Expected(text="Boîte")
    )
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason


def test_an_unticked_box_is_clicked_once_and_reads_ticked_after(form: VirtualDesktop) -> None:
    outcome = inject(form, action("set_checked", BOX, checked=True))
    assert (outcome.executed, outcome.success, outcome.output) == (True, True, {"checked": True})
    assert len(form.agent_inputs()) == 1


def test_a_box_already_in_the_wanted_state_is_not_clicked(form: VirtualDesktop) -> None:
    inject(form, action("set_checked", BOX, checked=True))
    outcome = inject(form, action("set_checked", BOX, checked=True))
    assert (outcome.success, outcome.output) == (True, {"checked": True})
    assert len(form.agent_inputs()) == 1  # the second step read the state and left the box alone


def test_a_box_is_unticked_when_the_step_wants_it_so(form: VirtualDesktop) -> None:
    inject(form, action("set_checked", BOX, checked=True))
    assert inject(form, action("set_checked", BOX, checked=False)).output == {"checked": False}


def test_a_point_without_a_check_box_is_never_clicked(form: VirtualDesktop) -> None:
    outcome = inject(form, action("set_checked", (100, 100), checked=True))
    assert not outcome.executed and not outcome.success and form.agent_inputs() == []


def test_the_reported_state_and_the_frames_make_a_verified_set_checked(form: VirtualDesktop) -> None:
    before = decode_image(form.screenshot_png())
    outcome = inject(form, action("set_checked", BOX, checked=True))
    after = decode_image(form.screenshot_png())
    matrix = load_validator_matrix(shipped_dir("catalog") / MATRIX_FILE)
    expected = state_expected("set_checked", {"checked": True}, Expected(), outcome.output)
    verdict = Validator(matrix, FakeOcr()).validate(
        "set_checked", before, after, Target(None, (900, 520, 160, 24)), expected
    )
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason


def test_the_agent_reports_the_state_it_read_to_the_server(form: VirtualDesktop, tmp_path: Path) -> None:
    async def run() -> dict[str, Any]:
        server = FakeReplayServer()
        transport = httpx2.ASGITransport(app=server.app())
        async with httpx2.AsyncClient(transport=transport, base_url="http://rpa.test") as client:
            harness = Harness(server, client, form, tmp_path / "agent.journal.sqlite", RecordingSleep())
            action_id = server.enqueue("set_checked", target={"x": BOX[0], "y": BOX[1]}, params={"checked": True})
            agent = harness.agent()
            await agent.poll_once()
            for journal in harness.journals:
                journal.close()
            return server.results[action_id]

    result = anyio.run(run)
    assert (result["success"], result["output"]) == (True, {"checked": True})


def test_a_demonstration_on_the_form_is_learnt_then_replayed_with_its_option_and_state(
    form: VirtualDesktop, tmp_path: Path
) -> None:
    clock = FakeClock()
    person = DemoRecorder(form, session_id="s1", machine_id="PC-1", clock=clock, screenshots=False)
    person.click(*COMBO)
    clock.advance(1.5)
    person.click_label("Boîte")  # in the open list
    clock.advance(2.0)
    person.click(*BOX)
    shadow = ShadowService(TraceStore(Database(tmp_path / "traces.sqlite3")), FakeOcr(), clock)
    shadow.ingest(person.events)
    steps = shadow.understanding("s1")["steps"][1:]  # after the window the recording began on
    assert [(s["action_type"], s["params"]) for s in steps] == [
        ("select_option", {"option": "Boîte"}),
        ("set_checked", {"checked": True}),
    ]
    ir = build_ir(steps, name="form", domain="d", session_id="s1", machine_id="PC-1", created_at=0.0)
    desk = VirtualDesktop(parse_desktop(FORM), ImageResolver.default())  # a new day: nothing chosen
    for step in ir["steps"]:
        target = step["target"]
        label = target.get("label") or target.get("by_text")
        action = NextAction(
            replay_id="r", action_id=str(step["index"]), attempt_id="t", not_after=1e12, server_now=0.0,
            action_type=step["action_type"], target=WireTarget(label=label, spec=target), params=step["params"],
        )  # fmt: skip
        assert inject(desk, action).success
    assert desk.text_at(*COMBO) == "Boîte" and desk.checked_at(*BOX) is True
    assert [e.effect for e in desk.agent_inputs()] == ["open:packaging", "chose:packaging:Boîte", "toggle:urgent:True"]
