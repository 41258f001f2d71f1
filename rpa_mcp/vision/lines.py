"""Text lines of a region, found with morphology (no OCR): the boxes recognition then reads.

Used on a dialog crop (the dialogs classifier) and on the band around a click (the validator
looking for a target's label): a text detector network costs 10-30x more on such regions.
`ink_box` cuts a label's crop to its letters before it is read.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

ICON_MIN = 14  # px: a square blob this tall is an icon, not a glyph
INK_CONTRAST = 60  # grey levels between a label's letters and the face they are drawn on
RULE_FILL = 0.9  # share of a crop's row in ink above which the row is a bar or a border, not letters


def text_lines(
    region: np.ndarray, exclude: list[BBox] | None = None, max_lines: int = 24, *, drop_icons: bool = False
) -> list[BBox]:
    """Boxes of text lines in a region (region coordinates), top to bottom.

    `drop_icons`: leave out square blobs of icon size (a favicon, a profile picture) so a label's
    box is the label's, not the label and the icons beside it (the band around a tab click).
    """
    gray = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    h, w = gray.shape
    if h < 8 or w < 8:
        return []
    grad = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, np.ones((2, 2), np.uint8))
    mask = (grad > 40).astype(np.uint8) * 255
    # long rules and borders are not text
    horizontal = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (45, 1)))
    vertical = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, 30)))
    mask[(horizontal > 0) | (vertical > 0)] = 0
    mask[:3, :] = mask[-3:, :] = 0
    mask[:, :3] = mask[:, -3:] = 0
    for bx, by, bw, bh in exclude or []:
        mask[max(0, by - 2) : by + bh + 2, max(0, bx - 2) : bx + bw + 2] = 0
    joined = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (9, 3)))
    count, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    boxes = []
    for i in range(1, count):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        if drop_icons and bh >= ICON_MIN and 0.7 * bh <= bw <= 1.4 * bh:
            continue
        if 8 <= bh <= 70 and bw >= 6 and bw >= 0.4 * bh:
            boxes.extend(_split_stacked(mask, (x, y, bw, bh)))
    lines = _join_lines(boxes)
    lines = [b for b in lines if not any(_icon_beside(b, other) for other in lines if other is not b)]
    lines.sort(key=lambda b: (b[1], b[0]))
    return lines[:max_lines]


def _split_stacked(mask: np.ndarray, box: BBox, min_h: int = 22) -> list[BBox]:
    """Two lines set close together (a descender touching the next line's capitals) become one
    blob: split it at the emptiest row of its middle third, when that row is nearly empty."""
    x, y, w, h = box
    if h < min_h:
        return [box]
    rows = (mask[y : y + h, x : x + w] > 0).sum(axis=1)
    lo, hi = h // 3, h - h // 3
    if hi <= lo:
        return [box]
    cut = lo + int(np.argmin(rows[lo:hi]))
    if rows[cut] > 0.15 * rows.max():
        return [box]
    return [(x, y, w, cut), (x, y + cut, w, h - cut)]


def _icon_beside(icon: BBox, text: BBox) -> bool:
    """Whether `icon` is a square blob at least twice as tall as `text`, which sits level with it
    and close beside it: a notification's badge or a message box's symbol beside its lines (it
    would otherwise join them into one box as tall as the icon, which reads as nothing)."""
    ix, iy, iw, ih = icon
    x, y, w, h = text
    square = ih >= ICON_MIN and 0.7 * ih <= iw <= 1.4 * ih
    level = y >= iy - 2 and y + h <= iy + ih + 2
    gap = max(x - (ix + iw), ix - (x + w))
    return square and ih >= 2 * h and level and gap <= 1.2 * ih


def _join_lines(boxes: list[BBox]) -> list[BBox]:
    """Merge boxes on the same text line separated by a word gap."""
    boxes = sorted(boxes, key=lambda b: b[0])
    out: list[list[int]] = []
    for x, y, w, h in boxes:
        for line in out:
            lx, ly, lw, lh = line
            overlap = min(ly + lh, y + h) - max(ly, y)
            near = overlap >= 0.6 * min(lh, h) and x - (lx + lw) <= 1.2 * max(lh, h)
            line_box, box = (lx, ly, lw, lh), (x, y, w, h)
            if near and not (_icon_beside(line_box, box) or _icon_beside(box, line_box)):
                x1, y1 = max(lx + lw, x + w), max(ly + lh, y + h)
                line[0], line[1] = min(lx, x), min(ly, y)
                line[2], line[3] = x1 - line[0], y1 - line[1]
                break
        else:
            out.append([x, y, w, h])
    return [(a, b, c, d) for a, b, c, d in out]


def ink_box(label: np.ndarray, pad: int = 4) -> np.ndarray:
    """The part of a label's crop that holds its letters, `pad` px around them: a pill's rounded
    ends and a frame's corners read as letters ('Autriser pendant'), and a label small in a tall
    box (a tab's, a label's) reads worse than the same label filling the recognizer's height."""
    if label.size == 0:
        return label
    gray = cv2.cvtColor(label, cv2.COLOR_BGR2GRAY).astype(np.int16)
    ink = np.abs(gray - int(np.median(gray))) > INK_CONTRAST
    ink[:2, :] = ink[-2:, :] = False  # the frame itself
    ink[:, :2] = ink[:, -2:] = False
    ink[ink.mean(axis=1) >= RULE_FILL, :] = False  # a bar across the crop (a tab's underline) is no letter
    ys, xs = np.nonzero(ink)
    if xs.size < 8:
        return label
    height, width = gray.shape
    x0, x1 = max(0, int(xs.min()) - pad), min(width, int(xs.max()) + pad + 1)
    y0, y1 = max(0, int(ys.min()) - pad), min(height, int(ys.max()) + pad + 1)
    return label[y0:y1, x0:x1]
