"""Whether the check box beside a label is ticked, read from the pixels (for applications without AT-SPI).

The box is the square nearest the label on its left (then on its right) whose side is about the
line's height, vertically centred on the line. Ticked: ink covers a share of its inside (a tick, a
cross, a filled box); unticked: its inside is blank. Anything between, or no square found, is None:
the state is not guessed.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

SEARCH_LINES = 4.0  # how far from the label, in line heights, the box is looked for
MIN_SIDE, MAX_SIDE = 0.7, 2.5  # the box's side, in heights of the line's text (a letter is smaller)
TICKED, BLANK = 0.12, 0.03  # share of inked pixels inside the box
INK = 60  # grey levels from the background that make a pixel ink
MIN_INK_ROWS = 6  # fewer inked rows are no text line
SIDE_INKED = 0.85  # share of each side of the square that must be inked


def box_state(image: np.ndarray, line: BBox) -> bool | None:
    """True (ticked), False (blank) or None (no box found, or its inside says neither)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    height, width = gray.shape[:2]
    x, y, w, h = (int(v) for v in line)
    h = max(h, 8)
    reach = int(SEARCH_LINES * h)
    y0, y1 = max(0, y - h), min(height, y + 2 * h)
    top, text_h = _inked_rows(gray, (x, y, w, h))  # the text's own height: OCR pads a line's box
    # OCR may box the square with its text (a glyph at the line's start): the line's first `h` px are looked at too
    for x0, x1 in ((max(0, x - reach), min(width, x + h)), (min(width, x + w), min(width, x + w + reach))):
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        square = _square(gray[y0:y1, x0:x1], text_h, top + text_h / 2 - y0, nearest_right=x0 < x)
        if square is not None:
            bx, by, side = square
            return _ticked(gray[y0:y1, x0:x1], bx, by, side)
    return None


def _inked_rows(gray: np.ndarray, line: BBox) -> tuple[int, int]:
    """(top, height) of the rows of a line's box that hold ink; the whole box when none or too few do."""
    x, y, w, h = line
    band = gray[max(0, y) : y + h, max(0, x) : x + w]
    if band.size == 0:
        return y, h
    rows = np.flatnonzero((np.abs(band.astype(np.int16) - float(np.median(band))) > INK).any(axis=1))
    if rows.size == 0 or rows[-1] - rows[0] + 1 < MIN_INK_ROWS:
        return y, h
    return max(0, y) + int(rows[0]), int(rows[-1] - rows[0] + 1)


def _square(region: np.ndarray, line_h: int, centre_y: float, *, nearest_right: bool) -> tuple[int, int, int] | None:
    background = float(np.median(region))
    edges = (np.abs(region.astype(np.int16) - background) > 40).astype(np.uint8)
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)  # a hole in a letter is no box
    found = []
    for contour in contours:
        bx, by, bw, bh = cv2.boundingRect(contour)
        side = (bw + bh) / 2
        if not (MIN_SIDE * line_h <= side <= MAX_SIDE * line_h) or abs(bw - bh) > 0.25 * side:
            continue
        if abs(by + bh / 2 - centre_y) > line_h * 0.75 or not _outlined(edges[by : by + bh, bx : bx + bw]):
            continue
        found.append((bx, by, round(side)))
    if not found:
        return None
    return max(found, key=lambda s: s[0]) if nearest_right else min(found, key=lambda s: s[0])


def _outlined(box: np.ndarray) -> bool:
    """A square's four sides are inked along their length (a round letter such as 'o' is not)."""
    if min(box.shape[:2]) < 4:
        return False
    sides = [box[:2].max(axis=0), box[-2:].max(axis=0), box[:, :2].max(axis=1), box[:, -2:].max(axis=1)]
    return all(float(side.mean()) >= SIDE_INKED for side in sides)


def _ticked(region: np.ndarray, bx: int, by: int, side: int) -> bool | None:
    inset = max(3, int(side * 0.22))
    inside = region[by + inset : by + side - inset, bx + inset : bx + side - inset]
    if inside.size == 0:
        return None
    background = float(np.median(region))
    ink = float((np.abs(inside.astype(np.int16) - background) > 60).mean())
    if ink >= TICKED:
        return True
    if ink <= BLANK:
        return False
    return None
