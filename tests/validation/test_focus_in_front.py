"""Focusing a window that is already in front: nothing changes on screen, and that is the step done."""

from __future__ import annotations

import numpy as np

from rpa_mcp.validation import Expected, FailureCategory, Observed, Target, Validator, VerdictKind

TITLE = "Easily — DURAND Alice — Observations"
SCREEN = np.full((720, 1280, 3), 240, np.uint8)


def focus(bare_validator: Validator, before: str | None, after: str | None):
    return bare_validator.validate(
        "focus_window", SCREEN, SCREEN.copy(), Target(None, None), Expected(window_title=TITLE), Observed(before, after)
    )


def test_a_window_already_in_front_and_in_front_after_is_a_success(bare_validator: Validator) -> None:
    verdict = focus(bare_validator, TITLE, TITLE)
    assert (verdict.verdict, verdict.rule) == (VerdictKind.SUCCESS, "already-in-front")


def test_a_window_that_was_not_in_front_and_nothing_changed_is_a_failure(bare_validator: Validator) -> None:
    verdict = focus(bare_validator, "PACS", "PACS")  # the other application is still in front
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.WRONG_APPLICATION)


def test_without_the_title_before_nothing_changed_is_still_no_visual_change(bare_validator: Validator) -> None:
    verdict = focus(bare_validator, None, TITLE)
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.NO_VISUAL_CHANGE)


def test_a_window_in_front_before_but_not_after_is_not_a_success(bare_validator: Validator) -> None:
    verdict = focus(bare_validator, TITLE, "PACS")
    assert verdict.verdict is VerdictKind.FAILURE
