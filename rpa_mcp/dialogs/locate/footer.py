"""A dialog found from a button that no closed outline holds.

A dark dialog whose top overlaps a browser's toolbar or a page's header of the same grey (Chromium's
`confirm()` hung under the toolbar) has no closed outline: its face runs into the band above it.
What shows is its footer: a button, the bottom border under it, and the side borders rising from
that border's ends. From them the box is rebuilt: the sides give the visible part, and the face's
grey, followed up past where the sides stop, gives the top (where that grey ends). A dialog hung
from the toolbar's bottom edge (its top corners too faint to close its outline) takes that edge as
its top; a bottom border that runs on along a line of the page gives way to the side borders
rising nearest the button.
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.dialogs.locate.edges import run
from rpa_mcp.vision.images import BBox

BORDER_FILL = 0.9  # share of a row (under the button) or a column (beside it) an edge must cover
MIN_BUTTONS_W = 2.5  # a dialog is at least this many of its button's widths wide
MAX_SCREEN_W = 0.8  # a wider box is a window or the page
FOOTER_DEPTH = 2.2  # button heights: the bottom border lies this close under the button
SIDE_SEARCH = (12, 4)  # px outward and inward from a bottom border's end where its side border may be
FACE_TOLERANCE = 4  # grey levels a row above may differ from the face and still be the face
RUNS_PAST = 0.25  # of the box's width: how far a toolbar's edge runs on past each side of a dialog hung from it


def box_above_footer(gray: np.ndarray, edges: np.ndarray, button: BBox) -> BBox | None:
    """The dialog whose footer holds `button` and whose face runs on above its side borders, or None."""
    x, y, w, h = button
    height, width = gray.shape
    below = y + h + 2
    under = edges[below : min(height, below + int(FOOTER_DEPTH * h)), x : x + w]
    full = np.flatnonzero((under > 0).mean(axis=1) >= BORDER_FILL) if under.size else np.array([])
    if full.size == 0:
        return None
    bottom = below + int(full[0]) + 1
    left, right = run(edges, bottom, x, -1, axis=1), run(edges, bottom, x + w - 1, +1, axis=1)
    if left >= x or right <= x + w:
        return None
    outward, inward = SIDE_SEARCH
    left_col = _border_column(edges, left - outward, left + inward, y, y + h)
    right_col = _border_column(edges, right - inward + 1, right + outward + 1, y, y + h)
    # the bottom border ran on along a line of the page at its height: the dialog's own sides are the
    # borders nearest the button that rise from that border past the button's top
    left_col = left_col if left_col is not None else _nearest_side(edges, x - 1, left - outward, y, bottom - 2)
    right_col = right_col if right_col is not None else _nearest_side(edges, x + w, right + outward, y, bottom - 2)
    if left_col is None or right_col is None:
        return None
    # (a dialog's least size is the caller's rule, as for every other candidate)
    if right_col - left_col < MIN_BUTTONS_W * w or right_col - left_col > MAX_SCREEN_W * width:
        return None
    # the sides are both seen up to here; above, the face may run into a band of its own grey
    top = max(run(edges, left_col, bottom - 1, -1, axis=0), run(edges, right_col, bottom - 1, -1, axis=0))
    if bottom - top < FOOTER_DEPTH * h:
        return None
    climb = _face_climb(gray, top, bottom, left_col, right_col)
    if climb == 0 and not _runs_past(edges, top, left_col, right_col):
        return None  # the sides meet a top border of the box's own: a box whose outline is open
        # elsewhere (a window half under another), not a face that runs into a band of its own grey
    top -= climb  # (none when the sides meet a line running on past both: the toolbar it hangs from)
    return (left_col, top, right_col - left_col + 1, bottom - top + 1)


def _nearest_side(edges: np.ndarray, start: int, stop: int, y0: int, y1: int) -> int | None:
    """The column nearest `start`, going toward `stop`, whose edges cover rows [y0, y1)."""
    lo, density = _column_cover(edges, *((stop, start + 1) if stop < start else (start, stop + 1)), y0, y1)
    covered = np.flatnonzero(density >= BORDER_FILL)
    if covered.size == 0:
        return None
    return lo + int(covered[-1] if stop < start else covered[0])


def _runs_past(edges: np.ndarray, row: int, left: int, right: int) -> bool:
    """The edge along `row` crosses [left, right] and runs on past both ends: a band's bottom edge
    (a toolbar's), not the top border of a box of its own."""
    margin = RUNS_PAST * (right - left)
    lo, hi = max(0, row - 2), row + 3
    if (edges[lo:hi, left : right + 1] > 0).any(axis=0).mean() < BORDER_FILL:
        return False
    return run(edges, row, left, -1, axis=1) < left - margin and run(edges, row, right, +1, axis=1) > right + margin


def _border_column(edges: np.ndarray, x0: int, x1: int, y0: int, y1: int) -> int | None:
    """The column of [x0, x1) most covered by edges over rows [y0, y1), if it is a border."""
    x0, density = _column_cover(edges, x0, x1, y0, y1)
    if density.size == 0:
        return None
    best = int(np.argmax(density))
    return x0 + best if density[best] >= BORDER_FILL else None


def _column_cover(edges: np.ndarray, x0: int, x1: int, y0: int, y1: int) -> tuple[int, np.ndarray]:
    """(first column, share of rows [y0, y1) each column of [x0, x1) has an edge in), clipped to the
    frame; an empty share when nothing is left."""
    x0, x1 = max(0, x0), min(edges.shape[1], x1)
    if x1 <= x0 or y1 <= y0:
        return x0, np.empty(0)
    return x0, (edges[y0:y1, x0:x1] > 0).mean(axis=0)


def _face_climb(gray: np.ndarray, top: int, bottom: int, left: int, right: int) -> int:
    """Rows above `top` whose median grey is the face's (at most as many as are seen below it)."""
    inner = slice(left + 4, right - 4, 4)  # every fourth column: a median of a row needs no more
    face = float(np.median(gray[top + 2 : bottom - 2 : 2, inner]))
    reach = min(top, bottom - top)
    if reach <= 0:
        return 0
    rows = np.median(gray[top - reach : top, inner], axis=1)[::-1]  # nearest first
    off = np.flatnonzero(np.abs(rows - face) > FACE_TOLERANCE)
    return int(off[0]) if off.size else reach
