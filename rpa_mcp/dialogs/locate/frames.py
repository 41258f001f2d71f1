"""What a box's frame says about it: an application's main window, or a dialog cut by the screen.

- `caption_buttons`: the right end of the box's title bar holds minimize, maximize and close
  ("—", a square, a cross, evenly spaced): an application's main window (Notepad, Explorer, a
  browser), not a dialog, whose title bar has a close cross at most. Its status bar cells read as
  a row of buttons otherwise.
- `clipped_below`: the box is a framed panel with a title whose straight side borders run down
  to the bottom of the work area (the frame's last row, or the top of the taskbar drawn across
  the whole screen): a window dragged low, its footer and buttons hidden. It has no footer to
  find, so it is a candidate on its frame alone, and the classifier keeps it only when its title
  names a catalog entry (as a panel without buttons).
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

CAPTION_BAND = 60  # px from a box's top searched for caption glyphs (a title bar at 150 %)
CAPTION_STRIP = 280  # px from its right end (three caption buttons of 46 px at 150 %, and a margin)
GLYPH = (6, 32)  # a caption glyph's size (its longer side at least, both sides at most)
PITCH = (24, 100)  # px between the centres of two caption glyphs (one caption button's width)
WORK_AREA_BOTTOM = 0.12  # share of the frame's height at its bottom where a taskbar may begin
CLIP_REACH = 16  # px between a panel's last closed band and the edge that cuts it (its footer's top)
BAR_SPAN = 0.9  # share of the frame's width (outside the box) a taskbar's top edge covers
STRAIGHT = 0.9  # share of a side or top border that must be edge for a framed panel
TITLE_INK = 0.02  # edge share of the title band (its top-left part): a panel with a title


def caption_buttons(edges: np.ndarray, box: BBox) -> bool:
    """Minimize, maximize and close at the right end of the box's top band."""
    x, y, w, h = box
    strip = edges[y + 3 : y + min(CAPTION_BAND, h // 4), x + w - min(CAPTION_STRIP, w // 2) : x + w - 3]
    if strip.size == 0:
        return False
    count, _, stats, _ = cv2.connectedComponentsWithStats((strip > 0).astype(np.uint8), connectivity=8)
    height, width = strip.shape
    glyphs = sorted(
        (bx + bw / 2, by + bh / 2, bw, bh)
        for bx, by, bw, bh, _ in stats[1:count].tolist()
        # a glyph stands free in the band: what touches the band's sides is a border or a long title
        if bx > 0 and by > 0 and bx + bw < width and by + bh < height and GLYPH[0] <= max(bw, bh)
        and bw <= GLYPH[1] and bh <= GLYPH[1]
    )  # fmt: skip
    if len(glyphs) < 3:
        return False
    minimize, maximize, close = glyphs[-3:]
    if max(abs(minimize[1] - maximize[1]), abs(maximize[1] - close[1])) > 4:
        return False  # not on one line
    first, second = maximize[0] - minimize[0], close[0] - maximize[0]
    flat = minimize[3] <= max(6, minimize[2] / 2)  # the minimize glyph is a dash
    square = all(abs(g[2] - g[3]) <= 5 for g in (maximize, close))
    return (
        flat
        and square
        and PITCH[0] <= min(first, second)
        and max(first, second) <= PITCH[1]
        and abs(first - second) <= 0.2 * max(first, second)  # evenly spaced
        and width - close[0] <= max(first, second)  # the close cross ends the band
    )


def clipped_below(edges: np.ndarray, box: BBox) -> bool:
    """A framed panel with a title whose side borders run down to the bottom of the work area."""
    x, y, w, h = box
    height, width = edges.shape
    if x <= 2 or x + w >= width - 2:
        return False  # flush with a side of the frame: a pane of a maximized window

    def side(col: int) -> float:
        return float(edges[y + 2 : y + h - 2, max(0, col - 1) : col + 2].any(axis=1).mean())

    top = float(edges[max(0, y - 1) : y + 2, x + 2 : x + w - 2].any(axis=0).mean())
    if min(side(x), side(x + w - 1), top) < STRAIGHT:
        return False  # not a rectangle's frame (a shape of the wallpaper, a cut in the page)
    title = edges[y + 4 : y + min(h // 3, 60), x + 4 : x + w // 2]
    if title.size == 0 or float(title.mean()) / 255.0 < TITLE_INK:
        return False  # a flat block, no title
    bottom = y + h
    if bottom >= height - 2:
        return True  # the frame's edge cuts it
    for row in range(max(bottom - 2, int(height * (1 - WORK_AREA_BOTTOM))), min(height, bottom + CLIP_REACH)):
        line = np.asarray(edges[max(0, row - 1) : row + 2].any(axis=0))
        outside = (int(line[:x].sum()) + int(line[x + w :].sum())) / max(1, width - w)
        if outside < BAR_SPAN:
            continue
        if row - bottom > 3:
            # the panel's borders reach the bar: its footer runs under it
            below = edges[bottom:row]
            if min(float(below[:, max(0, c - 1) : c + 2].any(axis=1).mean()) for c in (x, x + w - 1)) < 0.8:
                return False
        return True
    return False
