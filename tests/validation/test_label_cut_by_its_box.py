"""A clicked label that the box read around the click cuts at an edge is read again a little wider.

In a window shorter than the demonstration's, "Ouvrir le dossier" was clicked right of its centre; the box of the
recorded size around the click cut its first two letters ("vrir le dossier") and the right click was judged
WRONG_TARGET. The line is read again one text height wider on each side, and taken only when that reads the
label; another label there stays a miss.
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.testing import LineReader
from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.vision.ocr import OcrLine

W, H = 900, 500
LABEL = (670, 400, 150, 14)  # the label's ink where it stands now
AROUND_CLICK = (700, 395, 166, 25)  # the recorded box centred on the click: its left edge cuts two letters


class ReadsWhatTheCropShows(LineReader):
    """Reads `shown` whole only when the crop starts left of the label's ink; cut, without its first letters."""

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def reading(self, image: np.ndarray) -> OcrLine:
        cut = bool((image[:, 0] < 100).any())  # ink in the crop's first column
        return OcrLine(self.shown[2:] if cut else self.shown, (0, 0, image.shape[1], image.shape[0]), 0.95)


def _seen(label_on_screen: str, label: str) -> float | None:
    before = np.full((H, W, 3), 245, np.uint8)
    x, y, w, h = LABEL
    before[y : y + h, x : x + w] = 20
    after = before.copy()
    after[:120] = 200  # the record opened
    ctx = CheckContext(
        "click_anchor", before, after, Target(label, AROUND_CLICK), Expected(), Observed(),
        ReadsWhatTheCropShows(label_on_screen),
    )  # fmt: skip
    params = {"frame": "before", "what": "target_label"}
    return ALL_CHECKERS["OcrRoiChecker"].check(ctx, "visible_before", params).score


def test_a_label_whose_first_letters_the_box_cuts_is_read_again_wider() -> None:
    assert _seen("Ouvrir le dossier", "Ouvrir le dossier") == 1.0  # the code before: 0.0, read 'vrir le dossier'


def test_another_label_there_is_still_not_the_target() -> None:
    assert _seen("Supprimer le dossier", "Ouvrir le dossier") == 0.0
    assert _seen("Ouvrir le dossier", "Fermer le dossier") == 0.0
