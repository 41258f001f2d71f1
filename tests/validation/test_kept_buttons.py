"""The answered dialog's other buttons, found by their shapes on the clicked one's row, checked after."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation import Target, Validator, VerdictKind
from rpa_mcp.validation.checkers.kept_buttons import kept_button
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.matrix import ValidatorMatrix
from rpa_mcp.validation.model import Expected, Observed
from rpa_mcp.vision.images import BBox

DIALOG = (600, 400, 420, 200)
YES, NO = (800, 540, 90, 30), (900, 540, 90, 30)  # "No" is clicked
TOOL = (1120, 540, 90, 30)  # a button of the window behind, farther along the same line


class NoOcr:
    def read(self, image: np.ndarray) -> list[object]:
        return []

    def read_line(self, image: np.ndarray) -> None:
        return None

    def read_lines(self, images: list[np.ndarray]) -> list[None]:
        return [None for _ in images]


def _button(frame: np.ndarray, box: BBox, label: str, face: int = 225) -> None:
    x, y, w, h = box
    frame[y : y + h, x : x + w] = face
    cv2.rectangle(frame, (x, y), (x + w - 1, y + h - 1), (110, 110, 110), 1)
    cv2.putText(frame, label, (x + 28, y + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (20, 20, 20), 1)


def _prompt() -> np.ndarray:
    frame = np.full((1080, 1920, 3), 250, np.uint8)
    x, y, w, h = DIALOG
    frame[y : y + h, x : x + w] = 235
    cv2.rectangle(frame, (x, y), (x + w - 1, y + h - 1), (90, 90, 90), 1)
    _button(frame, YES, "Yes")
    _button(frame, NO, "No")
    return frame


def _kept(before: np.ndarray, after: np.ndarray, dialog: BBox | None = None) -> BBox | None:
    ctx = CheckContext("dialog_button", before, after, Target("No", NO), Expected(), Observed(), NoOcr())  # type: ignore[arg-type]
    return kept_button(ctx, NO, dialog)


def _at(found: BBox | None, button: BBox) -> bool:
    """The face found is the button's (its outline as the edge map closes it: a few pixels out)."""
    return found is not None and all(abs(a - b) <= 6 for a, b in zip(found, button, strict=True))


def test_a_button_left_as_it_was_beside_the_clicked_one_is_kept() -> None:
    before = _prompt()
    after = before.copy()
    after[NO[1] + 3 : NO[1] + NO[3] - 3, NO[0] + 3 : NO[0] + NO[2] - 3] = 225  # relabelled: its label gone
    assert _at(_kept(before, after), YES)
    assert _at(_kept(before, after, DIALOG), YES)


def test_a_focus_ring_moved_onto_it_keeps_it() -> None:
    before = _prompt()
    after = before.copy()
    x, y, w, h = YES
    cv2.rectangle(after, (x + 3, y + 3), (x + w - 4, y + h - 4), (0, 0, 0), 1)  # more pixels than its label
    after[NO[1] + 3 : NO[1] + NO[3] - 3, NO[0] + 3 : NO[0] + NO[2] - 3] = 225
    assert _at(_kept(before, after), YES)


def test_the_dialog_gone_over_a_page_of_its_colour_keeps_nothing() -> None:
    before = np.full((1080, 1920, 3), 225, np.uint8)  # the page behind: the buttons' own grey
    _button(before, YES, "Yes")
    _button(before, NO, "No")
    after = np.full_like(before, 225)
    assert _kept(before, after) is None


def test_a_button_of_the_window_behind_farther_along_the_row_is_no_button_of_the_dialog() -> None:
    before = _prompt()
    _button(before, TOOL, "Tool")
    after = np.full_like(before, 250)
    _button(after, TOOL, "Tool")  # the dialog closed; the window behind's button is where it was
    assert _kept(before, after) is None
    assert _kept(before, after, DIALOG) is None


def test_a_button_without_a_label_answered_in_a_dialog_still_open_is_not_a_success(matrix: ValidatorMatrix) -> None:
    """Without a label the changed share around the button decides: an error drawn above the row and the
    clicked face repainted change a third of it, but "Yes" stands where it stood."""
    before = _prompt()
    after = before.copy()
    after[500:536, 780:1010] = (205, 205, 250)
    _button(after, NO, "...", face=180)
    validator = Validator(matrix, NoOcr())  # type: ignore[arg-type]
    verdict = validator.validate("dialog_button", before, after, Target(None, NO, (945, 555)))
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert closed.score == 0.0 and "still open" in closed.detail, closed.detail
