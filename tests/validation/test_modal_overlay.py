"""A modal over a dimmed page, as browsers draw their own dialogs (JavaScript confirm, leave-site)."""

from __future__ import annotations

import numpy as np

from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation.checkers.dialog_presence import find_modal_overlay
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Expected, Observed, Target

TOOLBAR = 86  # tab strip and address bar: the browser draws them, the page's overlay does not cover them


def browser_frames(
    dialog: tuple[int, int, int, int], *, under_toolbar: bool, face: int = 255
) -> tuple[np.ndarray, np.ndarray]:
    before = np.full((1080, 1920, 3), 244, np.uint8)
    before[:TOOLBAR] = 225
    before[TOOLBAR : TOOLBAR + 55] = (170, 90, 10)  # the application's own header bar
    after = before.copy()
    after[TOOLBAR:] = (after[TOOLBAR:] * 0.6).astype(np.uint8)  # the page dimmed behind the dialog
    x, y, w, h = dialog
    after[y : y + h, x : x + w] = face
    if not under_toolbar:
        after[:TOOLBAR] = (after[:TOOLBAR] * 0.6).astype(np.uint8)
    return before, after


def overlay(before: np.ndarray, after: np.ndarray):
    ctx = CheckContext(
        "click_anchor", before, after, Target("Supprimer", (300, 660, 150, 50)), Expected(), Observed(), FakeOcr()
    )
    return find_modal_overlay(ctx)


def test_a_dialog_hung_under_the_browser_toolbar_is_found_over_the_dimmed_page():
    box = overlay(*browser_frames((736, TOOLBAR - 2, 450, 150), under_toolbar=True))
    assert box is not None
    x, y, w, h = box
    assert abs(x - 736) <= 8 and abs(y - TOOLBAR) <= 8 and abs(w - 450) <= 16 and abs(h - 150) <= 16


def test_a_dialog_in_the_middle_of_a_fully_dimmed_screen_is_found_as_before():
    box = overlay(*browser_frames((700, 400, 500, 200), under_toolbar=False))
    assert box is not None and abs(box[0] - 700) <= 8 and abs(box[1] - 400) <= 8


def test_a_page_that_only_got_darker_has_no_modal():
    before, after = browser_frames((0, 0, 0, 0), under_toolbar=True)
    assert overlay(before, after) is None


def test_a_dark_dialog_darker_than_the_dimmed_page_is_found_too():
    """A dark theme's dialog over a light page: the box is darker than the page around it, yet it is
    not the page dimmed by the overlay's factor."""
    box = overlay(*browser_frames((736, 300, 450, 150), under_toolbar=True, face=45))
    assert box is not None
    x, y, w, h = box
    assert abs(x - 736) <= 8 and abs(y - 300) <= 8 and abs(w - 450) <= 16 and abs(h - 150) <= 16
