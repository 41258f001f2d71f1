"""The text a step typed is the step's own effect, never an unexpected message, whatever words it holds.

A reason typed into a field may hold a word of the error list ("échec"). The field is left out of the
message check when its change lies inside the target's box; a window sized unlike the demonstration's
draws the field wider than that box, and the typed line was read as an error. A line reading exactly the
typed text, on the field typed into, is not a message; an error shown elsewhere after the typing still is.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.testing import LineReader
from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.vision.ocr import OcrLine

W, H = 1280, 720
TYPED = "Eczéma étendu, échec des dermocorticoïdes"
LEARNED_FIELD = (664, 223, 338, 31)  # the field's box where the step was demonstrated (narrower window)
FIELD_NOW = (664, 223, 352, 31)  # the same field in this run's window: 14 px wider
ERROR = "Échec de l'enregistrement du rendez-vous"


class ReadsByInk(LineReader):
    """Reads a crop by its ink's colour: red ink is the error banner, dark ink the field's text."""

    @staticmethod
    def reading(image: np.ndarray) -> OcrLine:
        red = bool(((image[..., 2] > 150) & (image[..., 0] < 90)).any())
        text = ERROR if red else f"{TYPED.replace('ï', 'i')}|"  # as OCR reads it: the caret after it
        return OcrLine(text, (0, 0, image.shape[1], image.shape[0]), 0.97)


def _frames(*, error: bool) -> tuple[np.ndarray, np.ndarray]:
    before = np.full((H, W, 3), 236, np.uint8)
    x, y, w, h = FIELD_NOW
    cv2.rectangle(before, (x, y), (x + w, y + h), (255, 255, 255), -1)
    after = before.copy()
    cv2.putText(after, "Eczema etendu, echec des", (x + 4, y + 21), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (20, 20, 20), 1)
    cv2.putText(after, "dermo", (x + 230, y + 21), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (20, 20, 20), 1)
    cv2.putText(after, "corticoides", (x + 280, y + 21), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (20, 20, 20), 1)
    if error:
        cv2.rectangle(after, (80, 560), (700, 600), (255, 255, 255), -1)
        cv2.putText(after, "Echec de l'enregistrement", (96, 588), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 220), 2)
    return before, after


def _check(*, error: bool, action: str = "type_text") -> float | None:
    before, after = _frames(error=error)
    ctx = CheckContext(
        action, before, after, Target("Motif :", LEARNED_FIELD), Expected(text=TYPED), Observed(), ReadsByInk()
    )
    return ALL_CHECKERS["UnexpectedMessageChecker"].check(ctx, "unexpected", {}).score


def test_the_typed_text_in_a_field_wider_than_its_learned_box_is_no_error() -> None:
    assert _check(error=False) == 0.0  # the code before: 1.0, "an error appeared ... échec"


def test_an_error_shown_elsewhere_after_the_typing_is_still_flagged() -> None:
    assert _check(error=True) == 1.0


def test_the_same_line_after_a_step_that_typed_nothing_is_still_read_as_an_error() -> None:
    assert _check(error=False, action="click_anchor") == 1.0
