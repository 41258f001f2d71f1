"""Whether the radio button beside a label is selected, read from the pixels (for applications without AT-SPI).

The radio button's mark is the round one (a circle, or a toolkit's diamond) nearest the label on its left
(then on its right), about the height of the line's text, vertically centred on it, with background on
both sides of it: a round letter ('O', 'o') touches its word's next letter, a mark stands apart. It is
told from a check box's square by its outline: every ray from its centre meets it near its radius,
and it touches its bounding box only around the middle of each side (a square runs along them).
Everything is measured against the mark's own surroundings, as for the check box (`checkbox`).
Selected: the middle of the mark unlike the ring of its inside around it (a dot of ink, a light dot on
an accent fill) or the whole inside filled with a strong colour (a dark or an accent fill); not
selected: its inside one light or neutral colour. Anything between is None: the state is not guessed.
The product reads it with the check box's square (`marks.mark_beside`): this module gives the round mark in
a band (`circle_in`) and what its inside says (`selected_in`).
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.checkbox import (
    EDGE,
    FAINT_EDGE,
    FILLED_DARKER,
    FILLED_SATURATION,
    INK,
    Band,
    set_apart,
    widened,
)

MIN_SIDE, MAX_SIDE = 0.6, 2.5  # the mark's diameter, in heights of the line's text (a bullet is smaller)
RAYS = 32  # rays from the mark's centre that must meet its outline ...
RAYS_MET = 0.85  # ... this share of them, between ...
RAY_FROM = 0.5  # ... this share of its radius and its edge (a diamond's sides are at 0.7 of it)
SIDE_TOUCHED = 0.6  # a mark touching its bounding box along more of a side than this is a square
DOT, INNER = 0.25, (0.5, 0.7)  # the middle of the mark, and the ring of its inside around it (in radii)
DOT_DIFFERS, DOT_SAME = INK, 25  # grey levels between the middle and that ring: a dot / one colour


def circle_in(band: Band) -> tuple[int, int, int] | None:
    """The radio mark's bounding square (x, y, side) in the band nearest the label; None when none is there."""
    band = widened(band)
    for edge in (EDGE, FAINT_EDGE):  # a mark that stands out, else a light mark on a light background
        found = _circle(band, edge)
        if found is not None:
            return found
    return None


def selected_in(band: Band, circle: tuple[int, int, int]) -> bool | None:
    """The state the inside of the band's radio mark says."""
    band = widened(band)
    bx, by, side = circle
    r = side / 2
    cy, cx = by + (side - 1) / 2, bx + (side - 1) / 2
    rows, cols = np.ogrid[: band.gray.shape[0], : band.gray.shape[1]]
    dist = np.hypot(rows - cy, cols - cx) / r
    middle = band.colour[dist <= max(DOT, 1.2 / r)].astype(np.int16)
    inner = band.colour[(dist >= INNER[0]) & (dist <= INNER[1])]
    if middle.size == 0 or inner.size == 0:
        return None
    differs = float(np.abs(np.median(middle, axis=0) - np.median(inner.astype(np.int16), axis=0)).max())
    if differs >= DOT_DIFFERS:
        return True  # a dot: ink on a light inside, or a light dot on an accent fill
    if differs > DOT_SAME:
        return None
    fill = float(np.median(cv2.cvtColor(inner[None], cv2.COLOR_BGR2GRAY)))
    saturation = float(np.median(cv2.cvtColor(inner[None], cv2.COLOR_BGR2HSV)[..., 1]))
    if band.background - fill >= FILLED_DARKER or saturation >= FILLED_SATURATION:
        return True  # filled: a dark or an accent-coloured mark
    if fill >= band.background - INK:
        return False  # one light or neutral colour: not selected
    return None


def _circle(band: Band, edge: int) -> tuple[int, int, int] | None:
    edges = (np.abs(band.gray.astype(np.int16) - band.background) > edge).astype(np.uint8)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for contour in contours:
        bx, by, bw, bh = cv2.boundingRect(contour)
        side = (bw + bh) / 2
        if not (MIN_SIDE * band.text_h <= side <= MAX_SIDE * band.text_h) or abs(bw - bh) > 0.2 * side:
            continue
        if abs(by + bh / 2 - band.centre_y) > band.text_h * 0.75:
            continue
        if not _round(edges[by : by + bh, bx : bx + bw]) or not set_apart(band, edge, band.x0 + bx, by, bw, bh):
            continue
        found.append((bx, by, round(side)))
    if not found:
        return None
    return max(found, key=lambda c: c[0]) if band.left else min(found, key=lambda c: c[0])


def _round(mark: np.ndarray) -> bool:
    """Every ray from the centre meets the outline near the radius (a square's corners are farther), and the
    outline touches its bounding box only around the middle of each side (a square's sides run along it)."""
    h, w = mark.shape[:2]
    if min(h, w) < 6:
        return False
    sides = [mark[0], mark[-1], mark[:, 0], mark[:, -1]]
    if max(float(side.mean()) for side in sides) > SIDE_TOUCHED:
        return False
    cy, cx, r = (h - 1) / 2, (w - 1) / 2, min(h, w) / 2
    mark = cv2.dilate(mark, np.ones((2, 2), np.uint8))  # a one-pixel slanted side lets no ray through
    met = 0
    for angle in np.linspace(0, 2 * np.pi, RAYS, endpoint=False):
        radii = np.arange(RAY_FROM * r, r + 0.5, 0.5)
        ys = np.clip(np.round(cy + radii * np.sin(angle)).astype(int), 0, h - 1)
        xs = np.clip(np.round(cx + radii * np.cos(angle)).astype(int), 0, w - 1)
        met += bool(mark[ys, xs].any())
    return met >= RAYS_MET * RAYS
