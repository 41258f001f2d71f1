"""A drop-down's option read in a box that cuts its first letter is read again a little wider.

The box an option is read in is the step's box, placed where it was learned around the point clicked: with
the window elsewhere and a shorter option ("ORL" where "Cardiologie" was demonstrated), its left edge cut
the O, read as a D ("DRL"), and the right option was taken for another. The line is read again one text
height wider on each side, and taken only when that reads the expected option; another option shown stays
a mismatch.
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.testing import LineReader
from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.vision.ocr import OcrLine

W, H = 800, 400
FILL, INK = (228, 132, 53), (250, 250, 250)  # a focused drop-down: light text on its highlight
LETTERS = [(300, 12), (316, 10), (330, 9)]  # x and width of the option's three letters
TEXT_Y, TEXT_H = 205, 11
LEARNED = (303, 200, 59, 17)  # the step's box where it was learned: its left edge cuts the first letter


class ReadsWhatTheCropShows(LineReader):
    """Reads the option whole only when the crop shows fill left of its first letter (a cut O reads as a D)."""

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def reading(self, image: np.ndarray) -> OcrLine:
        cut = bool((image[:, 0].astype(int).sum(axis=1) > 600).any())  # ink in the crop's first column
        text = ("D" + self.shown[1:]) if cut else self.shown
        return OcrLine(text, (0, 0, image.shape[1], image.shape[0]), 0.95)


def _frames() -> tuple[np.ndarray, np.ndarray]:
    before = np.full((H, W, 3), 242, np.uint8)
    before[198:222, 280:480] = FILL
    after = before.copy()
    for x, w in LETTERS:
        after[TEXT_Y : TEXT_Y + TEXT_H, x : x + w] = INK
        after[TEXT_Y + 2 : TEXT_Y + TEXT_H - 2, x + 2 : x + w - 2] = FILL  # hollow letters
    return before, after


def _shown(option_on_screen: str, expected: str) -> float | None:
    before, after = _frames()
    ctx = CheckContext(
        "select_option",
        before,
        after,
        Target("Consultation :", LEARNED),
        Expected(text=expected),
        Observed(),
        ReadsWhatTheCropShows(option_on_screen),
    )
    params = {"frame": "after", "what": "expected_text"}
    return ALL_CHECKERS["OcrRoiChecker"].check(ctx, "shown", params).score


def test_an_option_whose_first_letter_its_box_cuts_is_read_again_wider() -> None:
    assert _shown("ORL", "ORL") == 1.0  # the code before: 0.0, read 'DRL'


def test_another_option_shown_is_still_a_mismatch() -> None:
    assert _shown("Pneumologie", "ORL") == 0.0
