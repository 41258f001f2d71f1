"""A field's text caret, left out of what is read.

A field just typed in shows its caret right after the text: a bar one or two pixels wide, as tall as
the font's whole line (above its tallest letters and below its baseline). Beside a short text the recognizer
may read the bar and the last glyph as one other glyph (a "3" with the bar against it read "E"). The
caret is the last ink of the line, thin, reaching above and below all the text before it; a glyph (an
"l", a "1", a "|") stands on the baseline or reaches no higher than the text. Taking the bar away
changes nothing a check accepts: a bar read as one more l, I or | after the text is already taken for
the caret (`validation.text.text_equals`).
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.validation.text import ink_mask

CARET_MAX_W = 3  # px: the widest a caret is
CARET_FILL = 0.9  # of its height: a caret's column is inked from its top to its bottom


def without_caret(line: np.ndarray) -> np.ndarray | None:
    """A copy of a one-line crop (BGR) with the caret after its text painted over in the background's
    colour; None when the crop ends with no caret."""
    if line.ndim != 3 or min(line.shape[:2]) < 4:
        return None
    ink = ink_mask(line).astype(bool)
    columns = np.flatnonzero(ink.any(axis=0))
    if columns.size == 0:
        return None
    right = int(columns[-1])
    bar_rows = np.flatnonzero(ink[:, right])
    top, bottom = int(bar_rows[0]), int(bar_rows[-1])
    height = bottom - top + 1
    if bar_rows.size < CARET_FILL * height:
        return None
    left = right
    while left > 0 and ink[top : bottom + 1, left - 1].sum() >= CARET_FILL * height:
        left -= 1
    if right - left + 1 > CARET_MAX_W:
        return None  # a wide block (a button's edge, a bold stroke): no caret
    rest_rows = np.flatnonzero(ink[:, :left].any(axis=1))
    if rest_rows.size == 0 or ink[:top, left : right + 1].any() or ink[bottom + 1 :, left : right + 1].any():
        return None  # nothing before it (a lone bar is text to read), or the bar is part of a taller shape
    rest_top, rest_bottom = int(rest_rows[0]), int(rest_rows[-1])
    if top >= rest_top or bottom <= rest_bottom:
        return None  # not above and below all the text: a glyph (an ascender stands on the baseline)
    bare = line.copy()
    bare[:, left : right + 1] = np.median(line.reshape(-1, line.shape[2]), axis=0).astype(line.dtype)
    return bare
