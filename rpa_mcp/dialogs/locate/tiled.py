"""A dialog whose outline does not close because ink outside touches it, found from its body and footer.

A dialog whose buttons tile its footer (GTK under a plain window manager: Vim's swap-file warning, a
browser's leave question) has closed regions inside (its body band, each button) but its outer outline
closes only when nothing touches it: the editor's text right under its bottom border, a page's text area
running under its left border, join the outline to lines of the window behind, and the outer region is
no rectangle any more. What is left is the body band and, right under it, a row of buttons spanning its
width with their labels centred (a status bar's cells hold text from their left end), over a bottom
border that spans the same width. From them the box is rebuilt: the band's sides give its width, the
bottom border under the buttons its bottom, the sides followed up to a top border that spans the
width (the title bar's) its top. Ink crossing the outline outside these lines does not matter.
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.dialogs.locate.edges import run
from rpa_mcp.vision.images import BBox

ROW_GAP = 6  # px between the band's bottom and the top of each button of the row under it
ROW_SPAN = 0.9  # share of the band's width the buttons of the row cover together
BORDER_SPAN = 0.9  # share of the width a bottom or a top border covers
BORDER_REACH = 8  # px under the buttons' bottom where the bottom border is looked for
LABEL_CENTRED = 0.15  # of a button's width: how far its label's ink centre may lie off its centre
LABEL_RING = 4  # px of a button's frame left out when its label is looked for


def box_over_tiled_row(edges: np.ndarray, band: BBox, buttons: list[BBox]) -> BBox | None:
    """The dialog whose body is `band` and whose footer is a row of `buttons` (deduplicated) tiling its
    width, or None."""
    x, y, w, h = band
    row = sorted(
        (b for b in buttons if abs(b[1] - (y + h)) <= ROW_GAP and b[0] >= x - 3 and b[0] + b[2] <= x + w + 3),
        key=lambda b: b[0],
    )
    if len(row) < 2 or sum(b[2] for b in row) < ROW_SPAN * w:
        return None
    if not all(_label_centred(edges, b) for b in row):
        return None  # cells with text from their left end: a status bar, not buttons
    last = _last_border_row(edges, x, w, max(b[1] + b[3] for b in row))
    if last is None:
        return None
    top = min(run(edges, col, y, -1, axis=0) for col in (x, x + w - 1))
    if _covered(edges, top, x, w) < BORDER_SPAN:
        top = y + 1  # no top border spanning the width above: the band's own top
    return (x, top - 1, w, last + 2 - (top - 1))


def _covered(edges: np.ndarray, row: int, x: int, w: int) -> float:
    if not 0 <= row < edges.shape[0]:
        return 0.0
    return float((edges[row, x : x + w] > 0).mean())


def _last_border_row(edges: np.ndarray, x: int, w: int, buttons_bottom: int) -> int | None:
    """The last row of the bottom border: the first run of rows spanning the width under the buttons."""
    rows = [
        r for r in range(buttons_bottom - 3, buttons_bottom + BORDER_REACH) if _covered(edges, r, x, w) >= BORDER_SPAN
    ]
    if not rows:
        return None
    last = rows[0]
    while last + 1 in rows:
        last += 1
    return last


def _label_centred(edges: np.ndarray, button: BBox) -> bool:
    """The button's label (the edges inside its frame) has its centre near the button's centre."""
    x, y, w, h = button
    inner = edges[y + LABEL_RING : y + h - LABEL_RING, x + LABEL_RING : x + w - LABEL_RING]
    columns = np.flatnonzero((inner > 0).any(axis=0)) if inner.size else np.empty(0)
    if columns.size == 0:
        return False  # an empty cell
    centre = (columns[0] + columns[-1]) / 2
    return bool(abs(centre - (inner.shape[1] - 1) / 2) <= LABEL_CENTRED * w)
