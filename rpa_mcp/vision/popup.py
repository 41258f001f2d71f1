"""A pop-up list seen on the screen: the surface a click opened right by the control it clicked.

Between the frame before a click on a control and the frame before the next click, a drop-down's
list (a menu, a date picker) is a new surface: a compact region of changed pixels, mostly filled
(a background drawn where the window showed something else, not text written on a surface that
was already there), hanging under or over the control, or covering it. The next click inside it
chooses in it. A list drawn in the colour of the window behind it (Java's Metal grey over a grey
panel) changes few of its pixels: it is then seen by its outline, a rectangle drawn anew along the
changed region's edges (`rpa_mcp.vision.outline`) that holds most of the change, its text a column
of options with the click on one of them. Results written into a list that was already on the screen
are text on an existing surface (sparse changes, its outline there before), a list that closed left
its outline in the frame before, and a dialog is larger than a pop-up: none is taken for one. The
option under the pointer may be highlighted in a colour close to what was there before (a hole in
the change): the list is then the surface around the click.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.lines import text_lines
from rpa_mcp.vision.outline import new_outline

CHANGED = 24  # a pixel whose channels moved this much changed (anti-aliasing and JPEG noise stay below)
FILLED = 0.5  # share of a region's pixels that changed: a surface that appeared, not text written
REACH = 40  # px between the control's click and the list's near edge (the list hangs from the control)
SIDE = 8  # px the control's click may stand beside the list's left or right edge
MIN_SIDE = 16  # px: a smaller region is a caret, a focus ring or a cursor
MAX_WIDTH, MAX_HEIGHT = 0.5, 0.6  # share of the frame: larger is a dialog or a page, not a pop-up
HELD = 0.8  # share of a sparse region's changed pixels inside the new outline: the surface is what changed
ALIGN = 6  # px between the left edges of two options of a column
ROW_SLACK = 2  # px around a line's box the click may stand and be on its row


def opened_list(before: np.ndarray, after: np.ndarray, opener: tuple[int, int], click: tuple[int, int]) -> BBox | None:
    """The pop-up (x, y, w, h, frame pixels) the click at `opener` opened, when the click at `click` (on
    the frame `after`) lands in it; None when it lands in no such surface."""
    if before.shape != after.shape or before.ndim != after.ndim:
        return None
    height, width = before.shape[:2]
    if not (0 <= click[0] < width and 0 <= click[1] < height):
        return None
    moved = np.abs(before.astype(np.int16) - after.astype(np.int16))
    changed = ((moved.max(axis=2) if moved.ndim == 3 else moved) > CHANGED).astype(np.uint8)
    joined = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))  # the list's rows as one
    _count, labels, stats, _centres = cv2.connectedComponentsWithStats(joined, connectivity=8)
    label = int(labels[click[1], click[0]]) or _around(stats, click)
    if label == 0:
        return None
    x, y, w, h = (int(v) for v in stats[label][:4])
    if w < MIN_SIDE or h < MIN_SIDE or w > MAX_WIDTH * width or h > MAX_HEIGHT * height:
        return None
    box = _surface(before, after, changed, labels[y : y + h, x : x + w] == label, (x, y, w, h), click)
    if box is None or box[2] < MIN_SIDE or box[3] < MIN_SIDE:
        return None
    x, y, w, h = box
    ox, oy = opener
    beside = x - SIDE <= ox <= x + w + SIDE
    hangs = y - REACH <= oy <= y + h + REACH  # under it, over it, or covering it
    return (x, y, w, h) if beside and hangs else None


def _surface(
    before: np.ndarray, after: np.ndarray, changed: np.ndarray, own: np.ndarray, region: BBox, click: tuple[int, int]
) -> BBox | None:
    """The surface that appeared, which the changed region `region` (its pixels `own`) around the click is: the
    region itself when mostly filled; else the rectangle newly outlined around the click that holds most of the
    region's change, its text a column of rows, the click on one of them (a list drawn in the colour of the
    window behind it). None when the change is no new surface (text written, a surface that closed)."""
    x, y, w, h = region
    if float(changed[y : y + h, x : x + w].mean()) >= FILLED:
        return region
    box = new_outline(before, after, region, click)
    if box is None:
        return None
    bx, by, bw, bh = box
    mine = changed[y : y + h, x : x + w].astype(bool) & own
    held = int(mine[max(0, by - y) : by + bh - y, max(0, bx - x) : bx + bw - x].sum())
    if held < HELD * int(mine.sum()):
        return None  # an outline among wider changes: a field uncovered when a surface over it closed
    return box if _options(after[by : by + bh, bx : bx + bw], click[1] - by) else None


def _options(surface: np.ndarray, row: int) -> bool:
    """Whether the surface's text is a column of rows (two or more lines starting at one edge) and the row `row`
    is one of them: a list's options."""
    lines = text_lines(surface)
    clicked = [line for line in lines if line[1] - ROW_SLACK <= row < line[1] + line[3] + ROW_SLACK]
    return any(abs(line[0] - mine[0]) <= ALIGN for mine in clicked for line in lines if line is not mine)


def _around(stats: np.ndarray, click: tuple[int, int]) -> int:
    """The smallest changed surface whose box holds the click, when the click's own pixels did not change: the
    row under the pointer highlighted in a colour close to what the screen showed there before (a list's
    hovered option over a grey window), a hole in the list. 0 when none holds it."""
    holding = [
        (int(stats[i][2]) * int(stats[i][3]), i)
        for i in range(1, len(stats))
        if stats[i][0] <= click[0] < stats[i][0] + stats[i][2] and stats[i][1] <= click[1] < stats[i][1] + stats[i][3]
    ]
    return min(holding)[1] if holding else 0
