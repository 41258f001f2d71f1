"""The frame of the answered dialog, rebuilt from its footer: is it gone after the click?

A dialog drawn as a window of its own (GTK's file chooser under a window manager: a title bar, a
border all round, its buttons at the bottom) may be too large for the classifier: it spans the
screen's height and most of its width, or its box runs into the menu bar above it. Then no dialog is
found before nor after, and little of the region around the clicked button may change (the list
under it as white as the chooser's). What the frame before still shows is the dialog's frame around
the clicked button: a border under the button's face and the two side borders rising from it, lines
of the edge map. When both side lines are drawn nowhere near their place after, along their whole
length, the box they framed is gone: the window beneath shows there (its title bar may look like the
dialog's, which is why the top is not asked).

A dialog still open keeps its frame lines where they stood (one turned inactive, recoloured, is still
a line): it never reads closed here. Rows where a line or a word of the frame after crosses the side's
place say nothing either way (a side of the dialog's own runs alone there), nor do rows in the taskbar
clock's corner: a clock's tick cannot make a side vanish.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate.buttons import faces_in
from rpa_mcp.dialogs.locate.edges import edge_map, run
from rpa_mcp.validation.checkers.dialog_presence import MODAL_MIN_H, MODAL_MIN_W
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Frame
from rpa_mcp.vision.images import BBox, clamp_bbox

FOOTER_DEPTH = 2.2  # button heights under the clicked face where the dialog's bottom border runs
BORDER_FILL = 0.9  # share of a row (under the face) or a column (beside it) a border's edges cover
MIN_BUTTONS_W = 2.5  # a dialog is at least this many of its button's widths wide
SCREEN_SIDE = 8  # px: the edge map draws the screen's sides; no side of a dialog's frame is taken there
NEAR = 2  # px either side of a side's column where its line shows after (the edge map is dilated)
BESIDE = 6  # px outward and inward of it where edges make a row crossing the side's place after
GONE_SHARE = 0.9  # of a side's telling rows, those where no line is drawn any more
TELLING_MIN = 0.5  # of a side's rows that must tell (not crossed after, not in the clock's corner)


def frame_gone(ctx: CheckContext, button: BBox) -> BBox | None:
    """The box framed by the border under the clicked button's face and the side borders rising from
    it in the frame BEFORE, when both sides are drawn no more in the frame AFTER; else None."""
    box = frame_before(ctx, button)
    if box is None:
        return None
    x, y, w, h = box
    after = _edges(ctx, "after")
    sides = (x, x + w - 1)
    return box if all(_gone(after, col, y, y + h, _outside_clock(ctx, col, y, y + h)) for col in sides) else None


def frame_before(ctx: CheckContext, button: BBox) -> BBox | None:
    """The dialog's frame around the clicked button in the frame BEFORE: the first border under its
    face from which a dialog's sides rise (the nearest columns beside the face whose edges cover the
    face's rows down to that border and run on above the button), up to where both sides still run."""
    edges = _edges(ctx, "before")
    height, width = edges.shape
    fx, fy, fw, fh = _clicked_face(ctx, button)
    below = fy + fh + 1
    under = edges[below : min(height, below + int(FOOTER_DEPTH * fh)), fx : fx + fw]
    if under.size == 0:
        return None
    rows = below + np.flatnonzero((under > 0).mean(axis=1) >= BORDER_FILL)
    starts = [int(r) for i, r in enumerate(rows) if i == 0 or rows[i - 1] != r - 1]  # one per line
    for start in starts:
        bottom = start + 1
        left = _rising(edges, _sides(edges, fx - NEAR, SCREEN_SIDE + 1, -1, fy, bottom - 2), bottom, fy - fh)
        right = _rising(
            edges, _sides(edges, fx + fw - 1 + NEAR, width - 2 - SCREEN_SIDE, +1, fy, bottom - 2), bottom, fy - fh
        )
        if left is None or right is None:
            continue
        top = max(run(edges, left, bottom - 1, -1, axis=0), run(edges, right, bottom - 1, -1, axis=0))
        box = (left, top, right - left + 1, bottom - top + 1)
        if box[2] >= max(MODAL_MIN_W, MIN_BUTTONS_W * fw) and box[3] >= MODAL_MIN_H:
            return box
    return None


def _clicked_face(ctx: CheckContext, button: BBox) -> BBox:
    """The smallest button face of the frame before holding the clicked button's middle (the caller's
    box may be its label's, off the face by a few pixels), or the caller's box."""
    x, y, w, h = button
    cx, cy = x + w // 2, y + h // 2
    band = clamp_bbox((0, y - h, ctx.shape[1], 3 * h), ctx.shape)
    held = [
        f
        for f in faces_in(ctx.before, band)
        if f[0] <= cx < f[0] + f[2] and f[1] <= cy < f[1] + f[3] and f[3] <= 2 * h and f[2] <= 4 * w
    ]
    return min(held, key=lambda f: f[2] * f[3]) if held else button


def _rising(edges: np.ndarray, columns: list[int], bottom: int, above: int) -> int | None:
    """The first of `columns` whose line runs up from `bottom` to row `above` at least: a side of the
    dialog runs on above its button (the button's own border stops at its top)."""
    return next((col for col in columns if run(edges, col, bottom - 1, -1, axis=0) <= above), None)


def _sides(edges: np.ndarray, start: int, stop: int, step: int, y0: int, y1: int) -> list[int]:
    """The columns from `start` to `stop` (leftward when `step` < 0), nearest first, whose edges cover
    rows [y0, y1)."""
    leftward = step < 0
    lo, hi = (stop, start + 1) if leftward else (start, stop + 1)
    lo, hi = max(0, lo), min(edges.shape[1], hi)
    if hi <= lo or y1 <= y0:
        return []  # (no room left that way: the face stands against the screen's side)
    covered = lo + np.flatnonzero((edges[y0:y1, lo:hi] > 0).mean(axis=0) >= BORDER_FILL)
    return [int(c) for c in (covered[::-1] if leftward else covered)]


def _gone(edges: np.ndarray, col: int, y0: int, y1: int, seen: np.ndarray) -> bool:
    """The side's line at `col` over rows [y0, y1) is drawn no more: of the rows that tell, nearly all
    have no edge near the column (a row with edges on both sides of it too is a line or a word crossing
    there: it tells nothing)."""
    width = edges.shape[1]

    def edged(c0: int, c1: int) -> np.ndarray:
        return np.asarray((edges[y0:y1, max(0, c0) : min(width, c1)] > 0).any(axis=1))

    near = edged(col - NEAR, col + NEAR + 1)
    crossed = near & edged(col - BESIDE - 1, col - BESIDE + 2) & edged(col + BESIDE - 1, col + BESIDE + 2)
    telling = seen & ~crossed
    if telling.sum() < TELLING_MIN * (y1 - y0):
        return False
    return float((telling & ~near).sum()) >= GONE_SHARE * float(telling.sum())


def _outside_clock(ctx: CheckContext, col: int, y0: int, y1: int) -> np.ndarray:
    """Which rows [y0, y1) of column `col` lie outside the taskbar clock's corner."""
    rows = np.arange(y0, y1)
    if col < ctx.shape[1] - ctx.diff_settings.clock_zone_right:
        return np.ones(rows.shape, bool)
    return np.asarray(rows < ctx.shape[0] - ctx.diff_settings.clock_zone_bottom)


def _edges(ctx: CheckContext, which: Frame) -> np.ndarray:
    key = f"frame_edges_{which}"
    if key not in ctx.memo:
        image = ctx.frame(which)
        ctx.memo[key] = edge_map(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image)
    edges: np.ndarray = ctx.memo[key]
    return edges
