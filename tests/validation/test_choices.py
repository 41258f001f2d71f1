"""A set_checked step succeeds only when the state read after is the wanted one; select_option reads the option."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.replay.choices import option_expected, state_expected, wanted_state
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation import Expected, FailureCategory, Target, Validator, VerdictKind
from rpa_mcp.validation.matrix import ValidatorMatrix
from rpa_mcp.vision.ocr import OcrLine

W, H = 1280, 720
BOX = (300, 300, 22, 22)
URGENT = Target("Urgent", BOX)


def form(ticked: bool) -> np.ndarray:
    img = np.full((H, W, 3), 246, np.uint8)
    x, y, w, h = BOX
    cv2.rectangle(img, (x, y), (x + w, y + h), (90, 90, 90), 2)
    if ticked:
        cv2.line(img, (x + 4, y + 11), (x + 9, y + 17), (20, 20, 20), 3)
        cv2.line(img, (x + 9, y + 17), (x + 18, y + 4), (20, 20, 20), 3)
    cv2.putText(img, "Urgent", (x + 34, y + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    return img


def wanting(checked: bool, output: object) -> Expected:
    return state_expected("set_checked", {"checked": checked}, Expected(), output)


def test_a_box_clicked_into_the_wanted_state_is_a_success(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("set_checked", form(False), form(True), URGENT, wanting(True, {"checked": True}))
    assert verdict.verdict == VerdictKind.SUCCESS


def test_a_box_already_in_the_wanted_state_and_left_alone_is_a_success(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("set_checked", form(True), form(True), URGENT, wanting(True, {"checked": True}))
    assert verdict.verdict == VerdictKind.SUCCESS


def test_a_box_read_in_the_other_state_after_is_a_failure(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("set_checked", form(True), form(False), URGENT, wanting(True, {"checked": False}))
    assert verdict.verdict == VerdictKind.FAILURE
    assert verdict.failure_category == FailureCategory.TEXT_MISMATCH


def test_a_changed_box_without_a_state_read_after_is_never_a_success(bare_validator: Validator) -> None:
    verdict = bare_validator.validate("set_checked", form(False), form(True), URGENT, wanting(True, None))
    assert verdict.verdict != VerdictKind.SUCCESS


def test_a_parameter_filled_in_as_text_gives_the_wanted_state() -> None:
    assert wanted_state({"checked": "false"}) is False
    assert wanted_state({"checked": "oui"}) is True
    assert wanted_state({"checked": "peut-être"}) is None


def test_the_option_is_the_text_a_select_option_step_must_leave_shown() -> None:
    assert option_expected("select_option", {"option": "Boîte"}) == "Boîte"
    assert option_expected("click_anchor", {"option": "Boîte"}) is None


def test_a_box_reading_the_wanted_state_after_a_click_elsewhere_in_view_is_a_success(
    bare_validator: Validator,
) -> None:
    before, after = form(False), form(True)
    after[600:640, 900:1000] = 20  # something else moved too: the box's own crop is unknown (no box given)
    verdict = bare_validator.validate("set_checked", before, after, Target("Urgent"), wanting(True, {"checked": True}))
    assert verdict.verdict == VerdictKind.SUCCESS


COMBO = Target("Examen", (300, 300, 400, 20))


def drop_down(option: str) -> np.ndarray:
    """A drop-down (its option in small light text on a dark highlight after the choice)."""
    img = np.full((H, W, 3), 212, np.uint8)
    x, y, w, h = COMBO.bbox or (0, 0, 0, 0)
    cv2.rectangle(img, (x, y), (x + w, y + h), (0, 0, 0) if option else (255, 255, 255), -1)
    cv2.putText(img, option, (x + 3, y + 14), cv2.FONT_HERSHEY_PLAIN, 0.8, (255, 255, 255), 1)
    return img


def choosing(option: str, output: object) -> Expected:
    wanted = option_expected("select_option", {"option": option})
    return state_expected("select_option", {"option": option}, Expected(text=wanted), output)


def test_an_option_the_tree_names_in_the_drop_down_is_a_success_though_its_text_misreads(
    matrix: ValidatorMatrix,
) -> None:
    misreading = Validator(matrix, FakeOcr(lines=[OcrLine("RMcerebrale", (0, 0, 100, 14), 0.9)]))
    before, after = drop_down(""), drop_down("IRM cerebrale")
    shown = misreading.validate(
        "select_option", before, after, COMBO, choosing("IRM cérébrale", {"option": "IRM cérébrale"})
    )
    assert shown.verdict == VerdictKind.SUCCESS
    other = misreading.validate(
        "select_option", before, after, COMBO, choosing("IRM cérébrale", {"option": "Mammographie"})
    )
    unread = misreading.validate("select_option", before, after, COMBO, choosing("IRM cérébrale", None))
    assert other.verdict == VerdictKind.FAILURE and unread.verdict == VerdictKind.FAILURE
    assert other.failure_category == FailureCategory.TEXT_MISMATCH
