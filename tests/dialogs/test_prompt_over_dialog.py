"""A prompt over a dialog with its own buttons (a file dialog asking to overwrite): the prompt is on top."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate import find_modal, iou
from rpa_mcp.dialogs.locate.edges import edge_map, runs_on

BOX = (100, 120, 200, 80)


def _text_rows(img: np.ndarray, x0: int, y0: int, y1: int) -> None:
    """Lines of a list's letters, one every 16 px: a file list behind a prompt."""
    for y in range(y0 + 12, y1, 16):
        cv2.putText(img, "MWMHNWMHNMWMHNWMHNMWMHN", (x0, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)


def _box(img: np.ndarray, box: tuple[int, int, int, int], fill: int = 255) -> None:
    x, y, w, h = box
    cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), (fill, fill, fill), -1)
    cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), (60, 60, 60), 1)


def test_letters_above_a_box_are_no_border_running_on() -> None:
    img = np.full((300, 400, 3), 255, np.uint8)
    _text_rows(img, 40, 70, 118)
    _box(img, BOX)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert not runs_on(edge_map(gray), BOX)


def test_a_border_that_continues_above_a_box_still_runs_on() -> None:
    img = np.full((300, 400, 3), 255, np.uint8)
    x, y, w, _ = BOX
    cv2.line(img, (x, 40), (x, y), (60, 60, 60), 1)
    cv2.line(img, (x + w - 1, 40), (x + w - 1, y), (60, 60, 60), 1)
    _text_rows(img, 112, 70, 118)  # letters inside the panel, between its borders
    _box(img, BOX)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert runs_on(edge_map(gray), BOX)


def test_a_border_shared_with_a_window_placed_against_the_screen_side_does_not_run_on() -> None:
    # a message box over the dialog that opened it, both placed against the screen's left side: the
    # dialog's border goes on above and below the box in the box's own border column
    img = np.full((300, 400, 3), 200, np.uint8)
    dialog, box = (4, 40, 300, 240), (4, 120, 250, 80)
    _box(img, dialog, 220)
    _box(img, box)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert not runs_on(edge_map(gray), box)
    # the same two boxes away from the screen's side: the border that runs on is a band's
    shifted = np.full((300, 400, 3), 200, np.uint8)
    _box(shifted, (40, 40, 300, 240), 220)
    _box(shifted, (40, 120, 250, 80))
    assert runs_on(edge_map(cv2.cvtColor(shifted, cv2.COLOR_BGR2GRAY)), (40, 120, 250, 80))


def _buttons(img: np.ndarray, box: tuple[int, int, int, int]) -> None:
    x, y, w, h = box
    for i in range(2):
        bx, by = x + w - (i + 1) * 100, y + h - 42
        cv2.rectangle(img, (bx, by), (bx + 86, by + 28), (225, 225, 225), -1)
        cv2.rectangle(img, (bx, by), (bx + 86, by + 28), (100, 100, 100), 1)
        cv2.putText(img, "Btn", (bx + 28, by + 19), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)


def test_a_prompt_with_its_own_buttons_inside_a_dialog_is_on_top_of_it() -> None:
    img = np.full((800, 1200, 3), (120, 80, 30), np.uint8)
    outer, prompt = (250, 150, 700, 450), (460, 290, 290, 130)
    _box(img, outer, 245)
    _buttons(img, outer)
    cv2.putText(img, "Save file", (270, 180), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    _box(img, prompt)
    _buttons(img, prompt)
    cv2.putText(img, "Replace the file?", (480, 330), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    region = find_modal(img)
    assert region is not None and iou(region.bbox, prompt) >= 0.9, region
