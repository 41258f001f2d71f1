"""Button-like rectangles and the group a dialog's buttons form (a footer row or a stack)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from rpa_mcp.dialogs.locate.edges import closed_regions, dotted, edge_map, hollow, ringed
from rpa_mcp.dialogs.locate.geometry import area, inside, iou
from rpa_mcp.vision.images import BBox

BUTTON_H = (16, 72)
# up to 150 % display scale: Chromium's permission bubble stacks full-width buttons (258 px at 100 %,
# 387 px at 150 %, a few more once the edge map has widened them)
BUTTON_W = (34, 420)
STACK_MIN_SPAN = 0.5  # a stack's buttons span at least this share of the box (the bubble's: 86 %)


def button_like(rects: list[BBox]) -> list[BBox]:
    return [
        r
        for r in rects
        if BUTTON_H[0] <= r[3] <= BUTTON_H[1] and BUTTON_W[0] <= r[2] <= BUTTON_W[1] and r[2] >= 1.2 * r[3]
    ]


def faces(gray: np.ndarray, edges: np.ndarray, regions: list[BBox]) -> list[BBox]:
    """The button faces among a frame's closed regions: button-shaped, flat inside their frame around a
    label (or a focus ring drawn tight round it), no check box's dotted ring."""
    return [b for b in button_like(regions) if (hollow(edges, b) or ringed(gray, b)) and not dotted(gray, b)]


def faces_in(image: np.ndarray, region: BBox, keep: Callable[[BBox], bool] | None = None) -> list[BBox]:
    """The button faces inside `region` of a frame (frame coordinates): only that region is made grey and
    mapped into edges; `keep` picks the boxes worth the face's tests (they cost most)."""
    x, y, w, h = region
    crop = image[y : y + h, x : x + w]
    if crop.size == 0:
        return []
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    edges = edge_map(gray)
    boxes = [(bx + x, by + y, bw, bh) for bx, by, bw, bh in closed_regions(edges, 30, 14)]
    chosen = [(bx - x, by - y, bw, bh) for bx, by, bw, bh in boxes if keep is None or keep((bx, by, bw, bh))]
    return [(bx + x, by + y, bw, bh) for bx, by, bw, bh in faces(gray, edges, chosen)]


def dedupe(buttons: list[BBox]) -> list[BBox]:
    out: list[BBox] = []
    for b in sorted(buttons, key=area, reverse=True):  # keep the outer box of nested duplicates
        if not any(iou(b, o) > 0.5 or inside(b, o, tol=3) for o in out):
            out.append(b)
    return sorted(out, key=lambda b: (b[1], b[0]))


def button_group(candidate: BBox, buttons: list[BBox]) -> list[BBox]:
    """The candidate's buttons: the lowest row in its lower part, or the stack it ends (Chromium's
    permission bubble: full-width buttons one above the other). Rows left to right, stacks top down.
    A stack of narrow boxes at one side of a wide box is a column of a table or a list, no buttons."""
    _x, y, w, h = candidate
    inside_ = dedupe(
        [
            b
            for b in buttons
            if inside(b, candidate) and b[1] + b[3] / 2 >= y + 0.3 * h and b[2] < 0.95 * w and b[3] < 0.6 * h
        ]
    )
    if not inside_:
        return []
    lowest = max(b[1] + b[3] / 2 for b in inside_)
    row = sorted((b for b in inside_ if abs(b[1] + b[3] / 2 - lowest) <= 8), key=lambda b: b[0])
    if len(row) == 1:
        stack = [row[0]]
        for b in sorted(inside_, key=lambda b: -b[1]):
            top = stack[-1]
            if (
                b is not top
                and abs(b[0] - top[0]) <= 4
                and abs(b[2] - top[2]) <= 4
                and 0 < top[1] - (b[1] + b[3]) <= 1.5 * top[3]
            ):
                stack.append(b)
        if len(stack) > 1 and row[0][2] >= STACK_MIN_SPAN * w:
            return sorted(stack, key=lambda b: b[1])
    return [b for b in row if b[1] + b[3] / 2 >= y + 0.45 * h]


def in_a_row(box: BBox, buttons: list[BBox]) -> bool:
    """`box` is shaped like a button and another button stands beside it, on the same line, as tall."""
    if not button_like([box]):
        return False
    x, y, w, h = box
    for b in buttons:
        gap = max(b[0] - (x + w), x - (b[0] + b[2]))  # < 0: they overlap horizontally
        if 0 <= gap <= h and abs(b[1] + b[3] / 2 - (y + h / 2)) <= 8 and abs(b[3] - h) <= 8:
            return True
    return False
