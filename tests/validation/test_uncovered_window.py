"""The box the classifier finds again after answering a dialog: the window that was under it, uncovered,
only when the dialog's own box vanished inside it and the window's borders stood (drawn frames, no OCR)."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers.uncovered import uncovered_window
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.ports import DialogHit
from tests.validation.test_ocr_regions import RecordingOcr

WINDOW = (200, 150, 500, 260)
DIALOG = (300, 200, 280, 150)
BUTTON = (320, 300, 80, 30)


def window(image: np.ndarray, *, active: bool) -> None:
    x, y, w, h = WINDOW
    cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), (90, 90, 90), 1)
    image[y + 1 : y + 24, x + 1 : x + w - 1] = (200, 150, 90) if active else (200, 200, 200)
    for row in range(3):  # the window's own content, some of it hidden under the dialog
        cv2.rectangle(image, (x + 20, y + 50 + 60 * row), (x + 200, y + 80 + 60 * row), (120, 120, 120), 1)


def dialog(image: np.ndarray, box: tuple[int, int, int, int] = DIALOG) -> None:
    x, y, w, h = box
    image[y : y + h, x : x + w] = 235
    cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), (60, 60, 60), 2)
    image[y + 2 : y + 22, x + 2 : x + w - 2] = (200, 150, 90)
    bx, by, bw, bh = BUTTON
    cv2.rectangle(image, (bx, by), (bx + bw - 1, by + bh - 1), (80, 80, 80), 1)
    cv2.rectangle(image, (bx + 100, by), (bx + 100 + bw - 1, by + bh - 1), (80, 80, 80), 1)


def frames(after_dialog: tuple[int, int, int, int] | None) -> tuple[np.ndarray, np.ndarray]:
    before = np.zeros((600, 900, 3), np.uint8)
    window(before, active=False)
    dialog(before)
    after = np.zeros_like(before)
    window(after, active=True)  # its title bar turns active when the dialog over it closes
    if after_dialog is not None:
        dialog(after, after_dialog)
    return before, after


def context(before: np.ndarray, after: np.ndarray) -> CheckContext:
    target = Target("Cancel", BUTTON, (360, 315))
    return CheckContext("dialog_button", before, after, target, Expected(), Observed(), RecordingOcr("unused"))


ANSWERED = DialogHit(WINDOW, "unknown", buttons=(("Cancel", BUTTON), ("OK", (420, 300, 80, 30))))
FOUND = DialogHit(WINDOW, "unknown", buttons=(("Entry", (230, 210, 40, 14)),))


def test_the_window_found_again_where_the_dialog_vanished_is_uncovered() -> None:
    gone = uncovered_window(context(*frames(None)), BUTTON, ANSWERED, FOUND)
    assert gone is not None
    assert all(abs(a - b) <= 8 for a, b in zip(gone, DIALOG, strict=True))


def test_a_dialog_still_where_it_stood_is_not_uncovered() -> None:
    assert uncovered_window(context(*frames(DIALOG)), BUTTON, ANSWERED, FOUND) is None


def test_a_window_whose_borders_changed_was_not_there_before() -> None:
    before, after = frames(None)
    x, y, w, h = WINDOW
    cv2.rectangle(after, (x, y), (x + w - 1, y + h - 1), (255, 255, 255), 3)  # a new window's frame
    assert uncovered_window(context(before, after), BUTTON, ANSWERED, FOUND) is None


def test_a_button_read_again_where_it_stood_is_not_uncovered() -> None:
    again = DialogHit(WINDOW, "unknown", buttons=(("OK", (421, 301, 80, 30)),))
    assert uncovered_window(context(*frames(None)), BUTTON, ANSWERED, again) is None
