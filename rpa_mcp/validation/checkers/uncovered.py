"""The box found at the answered dialog's place after the click: the dialog still open, or the window under it?

The classifier may take a small window holding a dialog over it for the dialog (the dialog's buttons read
as the window's), and find that window again at the same place once the dialog closed. The box alone
then says "still open". The frames tell the two apart:

- the answered dialog's own frame vanished: inside the box found after, a smaller box holding the clicked
  button changed on all four of its sides (rows changed from one side of the window to the other — its
  title bar turning active when the dialog over it closes — are no side of it);
- the window found after stood there before: its left, right and bottom borders are unchanged (its title
  bar, at the top, may have changed);
- nothing dialog-like is drawn in it where the dialog stood: no box the dialogs locator finds on the AFTER
  frame lies over that place, narrower than the window (the window's own body spans its width);
- the classifier reads none of the buttons it read before at their places after.

A dialog still open keeps its outline (or its buttons, which `kept_buttons` checks beside this): it never
reads uncovered here. A dialog replaced in place by another one of the same size keeps an outline where it
stood; one of another size is a box the locator finds over the place.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate import score_candidates
from rpa_mcp.dialogs.locate.geometry import inside, same_box
from rpa_mcp.validation.checkers.dialog_presence import MODAL_MIN_H, MODAL_MIN_W
from rpa_mcp.validation.context import CELL, CheckContext
from rpa_mcp.validation.ports import DialogHit
from rpa_mcp.validation.regions import contains
from rpa_mcp.vision.images import BBox, clamp_bbox

OUTLINE_MIN_SIDE = 0.8  # of each side of a closed box changed
ACROSS_MIN = 0.5  # of a row changed, from the window's one side to the other: its title bar, not the dialog
FRAME_STOOD = 0.75  # of each of the window's left, right and bottom borders unchanged: it was there before
MIN_AREA_RATIO = 3.0  # the vanished box is this many times the clicked button's area at least
SAME_BUTTON = 4  # px each side of a button read after may stand off one read before: the same button
BODY_SIDE = 8  # px: a locator's box this near both sides of the window is the window's own body


def sides_changed(mask: np.ndarray, box: BBox) -> bool:
    """Each of `box`'s four border bands (a change-map cell thick) changed along OUTLINE_MIN_SIDE of it:
    its border line went (not text behind it)."""
    x, y, w, h = box
    inner = mask[y : y + h, x : x + w] > 0
    if inner.shape[0] < 2 * CELL or inner.shape[1] < 2 * CELL:
        return False
    sides = (
        inner[:CELL].any(axis=0),
        inner[-CELL:].any(axis=0),
        inner[:, :CELL].any(axis=1),
        inner[:, -CELL:].any(axis=1),
    )
    return all(side.mean() >= OUTLINE_MIN_SIDE for side in sides)


def uncovered_window(ctx: CheckContext, button: BBox, answered: DialogHit, found: DialogHit) -> BBox | None:
    """The answered dialog's box that vanished inside `found` (the window that was under it), or None: the
    box found after may be the dialog still open. `answered`/`found`: the classifier's readings before/after."""
    window = clamp_bbox(found.bbox, ctx.shape)
    if _button_read_again(answered, found) or not _frame_stood(ctx, window):
        return None
    gone = _vanished_inside(ctx, button, window)
    if gone is None or _drawn_over(ctx, window, gone):
        return None
    return gone


def _button_read_again(answered: DialogHit, found: DialogHit) -> bool:
    """A button the classifier read before is read again, with its label, where it stood."""
    return any(
        label == again and same_box(box, other, SAME_BUTTON)
        for label, box in answered.buttons
        for again, other in found.buttons
    )


def _frame_stood(ctx: CheckContext, window: BBox) -> bool:
    """The window's left, right and bottom borders are unchanged: it was on screen before (its title bar,
    at the top, may have turned active)."""
    x, y, w, h = window
    region = ctx.change().mask[y : y + h, x : x + w] > 0
    if region.shape[0] < 2 * CELL or region.shape[1] < 2 * CELL:
        return False
    sides = (region[-CELL:].any(axis=0), region[:, :CELL].any(axis=1), region[:, -CELL:].any(axis=1))
    return all(1.0 - side.mean() >= FRAME_STOOD for side in sides)


def _vanished_inside(ctx: CheckContext, button: BBox, window: BBox) -> BBox | None:
    """Inside `window`, the box of changed pixels around the clicked button, rows changed across the whole
    window left out, when its four sides all changed and it is smaller than the window (frame coordinates)."""
    x, y, w, h = window
    region = (ctx.change().mask[y : y + h, x : x + w] > 0).copy()
    across = region[:, :CELL].any(axis=1) & region[:, -CELL:].any(axis=1) & (region.mean(axis=1) >= ACROSS_MIN)
    region[across] = False
    bx, by, bw, bh = button
    box = _changed_box_holding(region, (bx - x, by - y, bw, bh))
    if box is None:
        return None
    gx, gy, gw, gh = box
    if gw < MODAL_MIN_W or gh < MODAL_MIN_H or gw * gh < MIN_AREA_RATIO * bw * bh:
        return None
    if gw >= w - 2 * CELL and gh >= h - 2 * CELL:
        return None  # the whole window changed: no box of its own inside it
    if not sides_changed(region, box):
        return None
    gone = (x + gx, y + gy, gw, gh)
    return gone if contains(gone, button) else None


def _changed_box_holding(region: np.ndarray, button: BBox) -> BBox | None:
    """The box of the changed pixels of `region` joined (on change-map cells) to those under `button`."""
    height, width = region.shape
    cells = cv2.resize(
        region.astype(np.uint8) * 255, (max(1, width // CELL), max(1, height // CELL)), interpolation=cv2.INTER_AREA
    )
    _count, labels, stats, _ = cv2.connectedComponentsWithStats((cells > 0).astype(np.uint8), connectivity=8)
    bx, by, bw, bh = button
    under = labels[
        max(0, by // CELL) : max(0, (by + bh) // CELL + 1), max(0, bx // CELL) : max(0, (bx + bw) // CELL + 1)
    ]
    held = [int(i) for i in np.unique(under) if i]
    if not held:
        return None
    label = max(held, key=lambda i: int(stats[i, cv2.CC_STAT_AREA]))
    cx, cy, cw, ch = (int(v) * CELL for v in stats[label, :4])
    # the cells' box is rounded to cells: the changed pixels' own box within it (a cell more each side)
    x0, y0 = max(0, cx - CELL), max(0, cy - CELL)
    ys, xs = np.nonzero(region[y0 : cy + ch + CELL, x0 : cx + cw + CELL])
    if not len(xs):
        return None
    return x0 + int(xs.min()), y0 + int(ys.min()), int(xs.max() - xs.min()) + 1, int(ys.max() - ys.min()) + 1


def _drawn_over(ctx: CheckContext, window: BBox, gone: BBox) -> bool:
    """A box the dialogs locator finds on the AFTER frame lies in the window over where the dialog stood,
    narrower than the window: a dialog drawn there (another one, or the same one moved a little)."""
    for candidate in score_candidates(ctx.after):
        box = candidate.bbox
        if not inside(box, window, BODY_SIDE) or not _overlap(box, gone):
            continue
        body = abs(box[0] - window[0]) <= BODY_SIDE and abs(box[0] + box[2] - window[0] - window[2]) <= BODY_SIDE
        if not body:
            return True
    return False


def _overlap(a: BBox, b: BBox) -> bool:
    return min(a[0] + a[2], b[0] + b[2]) > max(a[0], b[0]) and min(a[1] + a[3], b[1] + b[3]) > max(a[1], b[1])
