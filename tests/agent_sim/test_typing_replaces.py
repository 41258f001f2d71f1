"""Typing a value replaces what its field held, and the check reads the whole field.

Seen on a native application: a search field still held an earlier search, the agent typed after it
and the check accepted "PETITBERNARD" for "BERNARD".
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.agent_sim.desktop import VirtualDesktop
from rpa_mcp.agent_sim.execute import inject
from rpa_mcp.replay.wire import NextAction, WireTarget
from rpa_mcp.settings import shipped_dir
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation import Expected, Target, Validator, VerdictKind, load_validator_matrix
from rpa_mcp.validation.matrix import MATRIX_FILE, ValidatorMatrix
from rpa_mcp.validation.text import text_equals
from rpa_mcp.vision.ocr import OcrLine

NOTE_AREA = (800, 500)  # inside the note field of the incident desktop's observation screen


@pytest.fixture(scope="module")
def matrix() -> ValidatorMatrix:
    return load_validator_matrix(shipped_dir("catalog") / MATRIX_FILE)


def typing(text: str, **params: Any) -> NextAction:
    return NextAction(
        replay_id="r",
        action_id="a",
        attempt_id="t",
        not_after=1e12,
        server_now=0.0,
        action_type="type_text",
        target=WireTarget(label=None, x=NOTE_AREA[0], y=NOTE_AREA[1]),
        params={"text": text, **params},
    )


def test_typing_replaces_an_earlier_value_left_in_the_field(desktop: VirtualDesktop) -> None:
    desktop.goto("observation")
    inject(desktop, typing("PETIT"))
    inject(desktop, typing("BERNARD"))
    assert desktop.field_value("note") == "BERNARD"


def test_a_step_may_say_its_text_follows_what_the_field_holds(desktop: VirtualDesktop) -> None:
    desktop.goto("observation")
    inject(desktop, typing("Patient "))
    inject(desktop, typing("calme", replace=False))
    assert desktop.field_value("note") == "Patient calme"


def test_a_field_holds_its_text_only_when_it_holds_nothing_else() -> None:
    assert text_equals("BERNARD", "BERNARD") and text_equals("Bernard ", "BERNARD")
    assert not text_equals("PETITBERNARD", "BERNARD") and not text_equals("BERNARD PETIT", "BERNARD")
    assert text_equals("Dr MARTIN Paul", "Dr {{*}} Paul") and not text_equals("x Dr MARTIN Paul", "Dr {{*}} Paul")


def field_frames(after_text: str) -> tuple[np.ndarray, np.ndarray]:
    before = np.full((200, 400, 3), 255, np.uint8)
    cv2.rectangle(before, (20, 80), (380, 120), (150, 150, 150), 1)
    after = before.copy()
    cv2.putText(after, after_text, (26, 108), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (20, 20, 20), 2, cv2.LINE_AA)
    return before, after


def test_the_typed_check_refuses_text_left_in_the_field_before_the_typing(matrix: ValidatorMatrix) -> None:
    before, after = field_frames("PETITBERNARD")
    ocr = FakeOcr([OcrLine("PETITBERNARD", (0, 0, 10, 10), 0.99)])
    verdict = Validator(matrix, ocr).validate(
        "type_text", before, after, Target(None, (20, 80, 360, 40)), Expected(text="BERNARD")
    )
    assert verdict.verdict is VerdictKind.FAILURE and verdict.failure_category is not None
    assert verdict.failure_category.value == "TEXT_MISMATCH"


def test_the_typed_check_accepts_the_field_holding_exactly_the_text(matrix: ValidatorMatrix) -> None:
    before, after = field_frames("BERNARD")
    ocr = FakeOcr([OcrLine("BERNARD", (0, 0, 10, 10), 0.99)])
    verdict = Validator(matrix, ocr).validate(
        "type_text", before, after, Target(None, (20, 80, 360, 40)), Expected(text="BERNARD")
    )
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason
