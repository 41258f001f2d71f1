"""A slow application draws the last letters typed after the agent's still-screen wait: a field that reads a
strict beginning of the typed text gets one later look (no input) before the step is judged; the input is
never sent again."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.service.later_look import LATER_LOOK_WAIT_S
from rpa_mcp.settings import shipped_dir
from rpa_mcp.validation.service import Validator
from tests.replay.kit import (
    FakeAgent,
    JumpClock,
    Verdict,
    assert_clean,
    drain,
    make_service,
    make_services,
    png_b64,
    replay_of,
    steps,
)

pytestmark = pytest.mark.anyio

TYPED = "BOYER"
LOOK_BEFORE = png_b64(120, 240)  # the screen when the look began: never the typing step's before


def reads(text: str, verdict: str = "FAILURE") -> Verdict:
    """The validator's verdict on a typing step whose field reads `text`."""
    category = "TEXT_MISMATCH" if verdict == "FAILURE" else None
    typed = {"checker": "OcrRoiChecker", "signal": "typed", "score": 1.0 if verdict == "SUCCESS" else 0.0}
    return Verdict(verdict, category, evidence=[typed | {"read": text, "detail": f"reads {text!r}"}])


def by_origin(service: ReplayService, rid: str, origin: str) -> list[ActionRow]:
    return [a for a in service.store.actions(rid) if a.origin == origin]


def typing_step(service: ReplayService, rid: str) -> ActionRow:
    [typed] = [a for a in service.store.actions(rid) if a.action_type == "type_text"]
    return typed


def befores(services: Any) -> list[float]:
    """The grey level of the screen before each call of the validator."""
    seen: list[float] = []
    validate = services.validator.validate

    def recording(action_type: str, before: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        seen.append(float(before.mean()))
        return validate(action_type, before, *args, **kwargs)

    services.validator.validate = recording
    return seen


async def start_typing(service: ReplayService, agent: FakeAgent) -> str:
    agent.result_for["screenshot_evidence"] = {"screenshot_before": LOOK_BEFORE, "actual_position": None}
    return await service.start(
        steps=steps(1, "type_text", params={"text": TYPED}), competence="c", version=1, machine_id="pc-1"
    )


async def test_a_field_reading_a_beginning_then_the_whole_text_at_the_later_look_completes_with_one_input(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [reads("BOYE"), reads(TYPED, "SUCCESS")]  # then the closing look: no dialog
    seen = befores(services)
    rid = await start_typing(service, agent)
    assert await agent.step() == "done"  # the typing: its field reads "BOYE"
    typed = typing_step(service, rid)
    assert (typed.state, typed.outcome) == (m.HELD, m.AWAITING_LATER_LOOK) and typed.screen_before
    assert replay_of(service, rid).state == m.RUNNING  # no pause: one more look first
    [look] = by_origin(service, rid, m.LATER_LOOK_ORIGIN)
    assert (look.action_type, look.params, look.state) == (
        "screenshot_evidence",
        {"seconds": LATER_LOOK_WAIT_S},
        m.PENDING,
    )
    assert look.seq < typed.seq and look.expected["looks_at"] == typed.action_id

    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.COMPLETED, (replay.pause_reason, replay.pause_detail)
    sent = [a for _r, a, _t in agent.executions]
    assert sent.count(typed.action_id) == 1 and sent.count(look.action_id) == 1  # each action exactly once
    typed = typing_step(service, rid)
    assert (typed.state, typed.outcome, typed.verdict["verdict"]) == (m.ACKED, "success", "SUCCESS")
    assert typed.screen_before is None  # the screen before is not kept once judged
    later = typed.verdict["later_look"]
    assert (later["action_id"], later["first_read"]) == (look.action_id, "BOYE")
    assert later["attempt_id"] == service.store.get_action(rid, look.action_id).attempt_id  # the screenshot that judged
    assert services.validator.calls == ["type_text", "type_text", "screenshot_evidence"]
    assert seen[1] == seen[0] == 10.0  # judged again against the screen before the typing, not the look's
    steps_seen = [s for s in service.evidence_bundle(rid)["bundle"]["steps"] if s["action_id"] == typed.action_id]
    assert steps_seen[0]["typed"] == {"expected": TYPED, "read_back": TYPED}
    assert service.status(rid)["done"] == 1 and service.status(rid)["steps_done"] == 1
    assert_clean(service, [agent])


async def test_a_field_still_reading_a_beginning_at_the_later_look_pauses_as_before(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [reads("BOYE"), reads("BOYE")]
    rid = await start_typing(service, agent)
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    typed = typing_step(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED
    assert (replay.pause_detail or {})["action_id"] == typed.action_id
    assert (replay.pause_detail or {})["failure_category"] == "TEXT_MISMATCH"
    assert (typed.state, typed.outcome) == (m.HELD, "failed")
    [look] = by_origin(service, rid, m.LATER_LOOK_ORIGIN)  # one later look, never a second
    assert look.state == m.ACKED and services.validator.calls == ["type_text", "type_text"]
    assert [a for _r, a, _t in agent.executions].count(typed.action_id) == 1
    assert_clean(service, [agent])

    await service.answer(rid, "retry")  # a person's retry types it again, as before
    services.validator.script = [reads(TYPED, "SUCCESS")]
    await drain(service, [agent], clock)
    assert replay_of(service, rid).state == m.COMPLETED
    assert [a for _r, a, _t in agent.executions].count(typed.action_id) == 2  # with the person's consent


async def test_a_screen_unchanged_after_the_typing_gets_a_later_look_and_completes_when_the_text_comes(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    # an application busy when the keys came draws nothing before the agent's still-screen wait ends
    services.validator.script = [Verdict("FAILURE", "NO_VISUAL_CHANGE"), reads(TYPED, "SUCCESS")]
    rid = await start_typing(service, agent)
    await drain(service, [agent], clock)
    assert replay_of(service, rid).state == m.COMPLETED
    typed = typing_step(service, rid)
    [look] = by_origin(service, rid, m.LATER_LOOK_ORIGIN)
    assert typed.verdict["later_look"]["first_verdict"]["failure_category"] == "NO_VISUAL_CHANGE"
    assert [a for _r, a, _t in agent.executions].count(typed.action_id) == 1 and look.state == m.ACKED


async def test_a_screen_still_unchanged_at_the_later_look_pauses_as_before(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [Verdict("FAILURE", "NO_VISUAL_CHANGE"), Verdict("FAILURE", "NO_VISUAL_CHANGE")]
    rid = await start_typing(service, agent)
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and (replay.pause_detail or {})["failure_category"] == "NO_VISUAL_CHANGE"
    assert len(by_origin(service, rid, m.LATER_LOOK_ORIGIN)) == 1  # one look, never a second
    assert [a for _r, a, _t in agent.executions].count(typing_step(service, rid).action_id) == 1


async def test_a_wrong_letter_pauses_at_once_without_a_later_look(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [reads("BOYEZ")]
    rid = await start_typing(service, agent)
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED
    assert by_origin(service, rid, m.LATER_LOOK_ORIGIN) == [] and services.validator.calls == ["type_text"]
    assert (typing_step(service, rid).state, typing_step(service, rid).outcome) == (m.HELD, "failed")


async def test_a_later_look_the_agent_could_not_take_leaves_the_first_judgement(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [reads("BOYE")]
    rid = await start_typing(service, agent)
    agent.result_for["screenshot_evidence"] = {"success": False, "error": "screen grab failed"}
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    typed = typing_step(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED, replay.pause_reason
    assert (replay.pause_detail or {})["action_id"] == typed.action_id
    assert typed.verdict["later_look"]["screenshot"].startswith("none") and typed.screen_before is None
    assert services.validator.calls == ["type_text"] and len(by_origin(service, rid, m.LATER_LOOK_ORIGIN)) == 1
    assert_clean(service, [agent])


async def test_a_later_look_a_person_skips_leaves_the_first_judgement(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [reads("BOYE")]
    rid = await start_typing(service, agent)
    assert await agent.step() == "done"
    await service.pause(rid)
    await service.answer(rid, "skip")  # the look, first in the queue, is skipped: the typing is judged as first seen
    replay = replay_of(service, rid)
    typed = typing_step(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED
    assert (replay.pause_detail or {})["action_id"] == typed.action_id and typed.outcome == "failed"
    assert agent.executions and await agent.step() == "idle"


def field(text: str) -> str:
    """A screen with a labelled field showing `text` (PNG, base64)."""
    img = np.full((300, 600, 3), 236, np.uint8)
    cv2.putText(img, "Nom du patient :", (20, 110), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.rectangle(img, (200, 88), (420, 120), (255, 255, 255), -1)
    cv2.rectangle(img, (200, 88), (420, 120), (120, 120, 120), 1)
    if text:
        cv2.putText(img, text, (206, 112), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2, cv2.LINE_AA)
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return base64.b64encode(bytes(buf)).decode()


async def test_the_validator_reading_the_last_letter_late_completes_the_step_on_its_later_look(
    tmp_path: Path, shared_ocr: Any
) -> None:
    services = make_services(tmp_path)
    services.validator = Validator.from_catalog(shipped_dir("catalog"), shared_ocr)  # the real checkers and OCR
    service = make_service(services)
    agent = FakeAgent(service, clock=services.clock)
    agent.result_for["type_text"] = {"screenshot_before": field(""), "screenshot_after": field("BOYE")}
    agent.result_for["screenshot_evidence"] = {
        "screenshot_before": field(TYPED),  # the looks' own screen before: never the typing step's
        "screenshot_after": field(TYPED),
        "actual_position": None,
        "window_title_before": "MédiDossier",
    }
    target = {
        "label": "Nom du patient :",
        "bbox": [200, 88, 220, 32],
        "x": 300,
        "y": 104,
        "window_title": "MédiDossier",
    }
    plan = [
        {"index": 0, "intent": "Type the name", "action_type": "type_text", "target": target, "params": {"text": TYPED}}
    ]
    agent.result_for["type_text"]["actual_position"] = [300, 104]
    rid = await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], services.clock)
    replay = replay_of(service, rid)
    typed = typing_step(service, rid)
    assert replay.state == m.COMPLETED, (replay.pause_reason, replay.pause_detail)
    assert typed.verdict["later_look"]["first_read"] == "BOYE" and typed.verdict["verdict"] == "SUCCESS"
    assert [a for _r, a, _t in agent.executions].count(typed.action_id) == 1
    assert_clean(service, [agent])
