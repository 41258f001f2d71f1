"""A short value typed into a narrow field, read with neither the field's frame nor its caret.

Seen on the Tk desk in its small window: the quantity "3" typed into a focused field read "E" (the
field's box, located a little inside the field, cut off its right side: its frame was not found and
its grey bevel was read as a stroke before the digit; the caret against the digit was read with it)
and the replay paused. The
fixtures are that field cut from the desk's screen (before the typing; after it, the caret shown and
blinked off).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from rpa_mcp.validation.caret import without_caret
from rpa_mcp.validation.checkers.text import OcrRoiChecker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.field_slice import inside_frame
from rpa_mcp.validation.model import Expected, Observed, Target
from rpa_mcp.vision.ocr import RapidOcrEngine

FIXTURES = Path(__file__).parent / "fixtures"
WHOLE = {"frame": "after", "what": "expected_text", "match": "whole"}
FIELD = (124, 64, 56, 23)  # the Tk entry in the fixtures: its focus ring, its bevel, its white inside
INSIDE = (127, 67, 52, 19)  # ... the white inside only
# the field's box as located on the screen: exact, a pixel wider, padded (taller than the field), and as
# the replay located it, inside the field (padded by the checker, it cuts off the frame's right side)
BOXES = [FIELD, (123, 63, 58, 25), (121, 61, 62, 29), (120, 60, 64, 30), (126, 66, 50, 20)]


def _screen(name: str) -> np.ndarray:
    image = cv2.imread(str(FIXTURES / f"{name}.png"), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def _typed_score(after: str, box: tuple[int, int, int, int], expected: str, ocr: RapidOcrEngine) -> float | None:
    ctx = CheckContext(
        "type_text",
        _screen("tk_quantity_before"),
        _screen(after),
        Target("Quantité", box),
        Expected(text=expected),
        Observed(),
        ocr,
    )
    return OcrRoiChecker().run(ctx, "typed", WHOLE).score


@pytest.mark.parametrize("after", ["tk_quantity_3_caret", "tk_quantity_3"])
@pytest.mark.parametrize("box", BOXES)
def test_a_digit_typed_into_a_focused_tk_field_reads_as_typed(
    after: str, box: tuple[int, int, int, int], engine: RapidOcrEngine
) -> None:
    assert _typed_score(after, box, "3", engine) == 1.0


@pytest.mark.parametrize("after", ["tk_quantity_3_caret", "tk_quantity_3"])
@pytest.mark.parametrize("box", [BOXES[2], BOXES[4]])
def test_another_value_is_still_a_mismatch(after: str, box: tuple[int, int, int, int], engine: RapidOcrEngine) -> None:
    for other in ("8", "E", "B", "35", "13"):
        assert _typed_score(after, box, other, engine) == 0.0


@pytest.mark.parametrize("box", BOXES)
def test_the_inside_of_a_field_leaves_out_a_bevel_close_to_the_window_s_grey(box: tuple[int, int, int, int]) -> None:
    # the bevel (grey 153) stands out from the field's white, not from the window's grey (200) around it
    x, y, w, h = box
    padded = (x - 3, y - 3, w + 6, h + 6)  # as the checker reads a field's box
    ix, iy, iw, ih = inside_frame(_screen("tk_quantity_3_caret"), padded)
    x0, y0, w0, h0 = INSIDE
    assert (ix, ix + iw) == (x0, x0 + w0)  # the ring and the bevel on the left, the ring on the right, left out
    assert y0 - 1 <= iy <= y0 and iy + ih <= y0 + h0  # the bevel's last row, lighter, may stay


def _line(text_right: int, bar: tuple[int, int, int] | None) -> np.ndarray:
    """A white line with a black block of text (rows 6..17) up to `text_right`, then a bar (x, top, bottom)."""
    line = np.full((24, 60, 3), 255, np.uint8)
    line[6:18, 4:text_right] = 0
    line[6:18, 6 : text_right - 2 : 3] = 255  # letters, not one block
    if bar is not None:
        x, top, bottom = bar
        line[top:bottom, x : x + 2] = 0
    return line


def test_the_caret_after_the_text_is_painted_over() -> None:
    line = _line(12, (12, 3, 21))  # against the text, taller than it above and below
    bare = without_caret(line)
    assert bare is not None and (bare[:, 12:14] == 255).all()
    assert (bare[:, :12] == line[:, :12]).all()  # the text itself untouched


def test_a_glyph_no_taller_than_the_text_is_no_caret() -> None:
    assert without_caret(_line(12, (14, 6, 18))) is None  # an l, a 1, a | as tall as the text
    assert without_caret(_line(12, (14, 4, 18))) is None  # an ascender a little taller, on the baseline
    assert without_caret(_line(12, None)) is None
    lone = np.full((24, 60, 3), 255, np.uint8)
    lone[3:21, 10:12] = 0
    assert without_caret(lone) is None  # a bar alone is text to read
    wide = _line(12, None)
    wide[3:21, 14:20] = 0
    assert without_caret(wide) is None  # a block, not a caret
