"""Rectangles of an edge map: closed regions, stacked bands, borders that run on, drop shadows."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate.geometry import area
from rpa_mcp.vision.images import BBox

SHADOW_MIN = 4.0  # grey levels a drop shadow darkens the strip just outside the box
BAND_ONE_SIDE, BAND_BOTH_SIDES = 0.9, 0.6  # border continuation that makes a box a band of a panel
LINE_BESIDE = 5  # px: the columns beside a side's border compared with it (past the edge map's dilation)
LINE_OVER_BESIDE = 0.3  # coverage a border that runs on has over the less covered of its two sides
RECT_FILL, PILL_FILL = 0.85, 0.78  # share of its bounding box a region's outline must enclose
PILL_MAX_H = 72  # a button's height at most (buttons.BUTTON_H)
HOLLOW_RING = 4  # px of a button's frame (border, focus ring) left out of its face
HOLLOW_MAX = 0.8  # share of a button's face the edge map may cover (its label); a word's blob covers more
BACKDROP_STEP = 40  # grey levels a modal's face stands above the dimmed page around it
ACROSS = 0.9  # share of a box's width a line drawn across it covers on the edge map
SCREEN_SIDE = 8  # px: windows placed against a side of the screen share their border column there
DOT_MIN_CONTRAST = 12.0  # mean grey levels a side's line stands off its background (else no line)
DOT_SWING = 0.4  # mean step between neighbouring pixels of a dotted line, as a share of its contrast
DOT_CLEAR = 4  # px outside a focus ring on the window's face where no drawn line runs (a button's bevel)
RING_INSET = 3  # px at least between a button's border and a focus ring drawn round its label
RING_CENTRED = 4  # px the ring's centre may lie off its button's centre
RING_MIN_SPAN = (0.3, 0.4)  # share of the button's width and height the ring spans at least (no glyph)


def edge_map(gray: np.ndarray, *, dilate: bool = True) -> np.ndarray:
    """Canny's edges, dilated by a pixel (broken outlines close) unless `dilate` is False: then a
    thin frame drawn a pixel or two from its label or from a neighbour's frame stays apart from them."""
    edges = cv2.Canny(gray, 10, 30)
    if dilate:
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    edges[0, :] = edges[-1, :] = 255  # close regions cut by the screen border (off-screen dialogs)
    edges[:, 0] = edges[:, -1] = 255
    return edges


def closed_regions(edges: np.ndarray, min_w: int, min_h: int) -> list[BBox]:
    """Bounding boxes of nearly rectangular regions enclosed by edges."""
    height, width = edges.shape
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    out: set[BBox] = set()
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w < min_w or h < min_h or (w > 0.97 * width and h > 0.9 * height):
            continue
        pill = h <= PILL_MAX_H and w >= 1.2 * h  # a rounded button's ends take more of its box
        if cv2.contourArea(contour) < (PILL_FILL if pill else RECT_FILL) * w * h:
            continue
        x0, y0 = max(0, x - 1), max(0, y - 1)
        out.add((x0, y0, min(width, x + w + 1) - x0, min(height, y + h + 1) - y0))
    return list(out)


def hollow(edges: np.ndarray, box: BBox, *, ring: int = HOLLOW_RING, most: float = HOLLOW_MAX) -> bool:
    """Inside its frame the box is mostly flat (a button: its face around a label), not the solid
    blob of edges the glyphs of a word make once the edge map is dilated."""
    x, y, w, h = box
    inner = edges[y + ring : y + h - ring, x + ring : x + w - ring]
    return inner.size == 0 or bool(np.count_nonzero(inner) <= most * inner.size)


def dotted(gray: np.ndarray, box: BBox, *, reach: int = HOLLOW_RING) -> bool:
    """The box's outline is a dotted focus ring drawn on the window's face (a focused check box's or
    radio button's label): along its top and its bottom, the strongest line within `reach` px of the
    edge (or just outside it: the edge map is dilated) alternates ink and background, and no drawn
    line runs beside it outside (a focused button's ring sits inside the button's own border or bevel,
    and the button is kept). A button's border is a drawn line."""
    x, y, w, h = box
    if w < 8 or h < 2 * reach:
        return False
    top = _dotted_row(gray, range(y - 2, y + reach), x + 2, x + w - 2)
    bottom = _dotted_row(gray, range(y + h - reach, y + h + 2), x + 2, x + w - 2)
    if top is None or bottom is None:
        return False
    beside = [*range(top - DOT_CLEAR, top), *range(bottom + 1, bottom + DOT_CLEAR + 1)]
    return not any(_drawn_line(gray, r, x + 2, x + w - 2) for r in beside)


def ringed(gray: np.ndarray, box: BBox) -> bool:
    """A focused button whose focus ring is drawn tight round a short label (Swing's Metal look on "OK"):
    the dilated edge map fills its face, so it is not `hollow`, but the face shows two nested rectangles
    drawn in one grey each, centred on each other — the button's border and, a few pixels inside it, the
    ring holding the label. The blob of a word's glyphs has no rectangle drawn round it."""
    x, y, w, h = box
    crop = gray[max(0, y - 1) : y + h + 1, max(0, x - 1) : x + w + 1].astype(np.int16)
    if min(crop.shape) < 2 * RING_INSET + 8:
        return False
    drawn = _drawn_rectangles(crop, round(RING_MIN_SPAN[0] * w), round(RING_MIN_SPAN[1] * h))
    for bx, by, bw, bh in drawn:
        for rx, ry, rw, rh in drawn:
            inset = min(rx - bx, ry - by, bx + bw - rx - rw, by + bh - ry - rh)
            centred = (
                abs(2 * rx + rw - 2 * bx - bw) <= 2 * RING_CENTRED
                and abs(2 * ry + rh - 2 * by - bh) <= 2 * RING_CENTRED
            )
            if inset >= RING_INSET and centred and _thin_ring(crop, (rx, ry, rw, rh)):
                return True
    return False


def _thin_ring(crop: np.ndarray, ring: BBox) -> bool:
    """A ring is a one-pixel line on the button's face: its top and bottom stand off the face outside
    too, and it holds ink (the label)."""
    x, y, w, h = ring
    grey = int(crop[y, x])
    outside = min(
        np.abs(crop[y - 1, x + 1 : x + w - 1] - grey).mean(), np.abs(crop[y + h, x + 1 : x + w - 1] - grey).mean()
    )
    return outside >= DOT_MIN_CONTRAST and bool(
        np.ptp(crop[y + 2 : y + h - 2, x + 2 : x + w - 2]) >= 2 * DOT_MIN_CONTRAST
    )


def _drawn_rectangles(crop: np.ndarray, min_w: int, min_h: int) -> list[BBox]:
    """Rectangles outlined by a one-pixel line of one grey (within 2 levels) that stands off the pixels
    just inside it by DOT_MIN_CONTRAST along its top and bottom (no band of a flat face)."""
    height = crop.shape[0]
    found: list[BBox] = []
    for top in range(1, height - min_h):
        row = crop[top]
        same = np.abs(np.diff(row)) <= 2
        for x0, x1 in _runs(same, min_w):
            grey = int(row[x0])
            if np.abs(crop[top + 1, x0 + 1 : x1] - grey).mean() < DOT_MIN_CONTRAST:
                continue
            left, right = np.abs(crop[top:, x0] - grey) <= 2, np.abs(crop[top:, x1] - grey) <= 2
            sides = int(
                min(
                    np.argmin(left) if not left.all() else left.size,
                    np.argmin(right) if not right.all() else right.size,
                )
            )
            for bottom in range(top + min_h - 1, top + sides):
                line = crop[bottom, x0 : x1 + 1]
                if (
                    np.abs(line - grey).max() <= 2
                    and np.abs(crop[bottom - 1, x0 + 1 : x1] - grey).mean() >= DOT_MIN_CONTRAST
                ):
                    found.append((x0, top, x1 - x0 + 1, bottom - top + 1))
    return found


def _runs(same: np.ndarray, min_len: int) -> list[tuple[int, int]]:
    """(first, last) columns of each run of `same` steps spanning at least `min_len` pixels."""
    out: list[tuple[int, int]] = []
    start = None
    for i, flat in enumerate([*same.tolist(), False]):
        if flat and start is None:
            start = i
        elif not flat and start is not None:
            if i - start + 1 >= min_len:
                out.append((start, i))
            start = None
    return out


def _dotted_row(gray: np.ndarray, rows: range, x0: int, x1: int) -> int | None:
    """The most contrasted of `rows` (off the band's background, its median: a line is one row of the
    band) when it is a line that changes along itself by at least DOT_SWING of its contrast (dots, even
    drawn at a fractional pitch); None for a drawn line, which keeps its grey level, or no line."""
    height, width = gray.shape
    x0, x1 = max(0, x0), min(width, x1)  # the corners, where the sides meet, are left out
    if x1 - x0 < 8 or rows.start < 0 or rows.stop > height:
        return None
    band = gray[rows.start : rows.stop, x0:x1].astype(np.int16)
    contrast = np.abs(band - int(np.median(band)))
    row = int(np.argmax(contrast.mean(axis=1)))
    strength = float(contrast[row].mean())
    swing = float(np.abs(np.diff(band[row])).mean())
    return rows.start + row if strength >= DOT_MIN_CONTRAST and swing >= DOT_SWING * strength else None


def _drawn_line(gray: np.ndarray, row: int, x0: int, x1: int) -> bool:
    """Row `row` differs from the row beyond the box's background as a solid line does (a bevel, a border)."""
    height, width = gray.shape
    x0, x1 = max(0, x0), min(width, x1)
    if not 0 <= row < height or x1 - x0 < 8:
        return True  # at the screen's edge: nothing to tell, keep the box a button
    line = gray[row, x0:x1].astype(np.int16)
    contrast = np.abs(line - int(np.median(gray[max(0, row - DOT_CLEAR) : row + DOT_CLEAR + 1, x0:x1])))
    strength = float(contrast.mean())
    return strength >= DOT_MIN_CONTRAST and float(np.abs(np.diff(line)).mean()) < DOT_SWING * strength


def merge_bands(rects: list[BBox], tol: int = 5) -> list[BBox]:
    """Union of rectangles stacked vertically with the same left and right edges (header+body+footer)."""
    rects = sorted(set(rects), key=lambda r: (r[1], r[0]))
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(rects):
            for j, b in enumerate(rects):
                if (
                    i != j
                    and abs(a[0] - b[0]) <= tol
                    and abs(a[0] + a[2] - b[0] - b[2]) <= tol
                    and abs(a[1] + a[3] - b[1]) <= tol
                ):
                    x0, x1 = min(a[0], b[0]), max(a[0] + a[2], b[0] + b[2])
                    union = (x0, a[1], x1 - x0, b[1] + b[3] - a[1])
                    rects = [r for k, r in enumerate(rects) if k not in (i, j)] + [union]
                    merged = True
                    break
            if merged:
                break
    return rects


def run(mask: np.ndarray, fixed: int, start: int, step: int, axis: int, gap: int = 3) -> int:
    """Follow a line of `mask` from `start` while it continues (small gaps allowed); return the end.

    The line is the 5-pixel band around row (axis 1) or column (axis 0) `fixed`; it stops at the
    first run of more than `gap` positions with no edge. One array operation per call (a Python
    loop over the pixels cost a classification ~10 ms)."""
    limit = mask.shape[1] if axis == 1 else mask.shape[0]
    if not 0 <= start < limit:
        return start
    lo, hi = max(0, fixed - 2), fixed + 3
    line = np.asarray(mask[lo:hi, :].any(axis=0) if axis == 1 else mask[:, lo:hi].any(axis=1))
    seq = line[start:] if step > 0 else line[start::-1]
    if len(seq) > gap:
        # seq[k..k+gap] all without edge: the walk stops there
        empty = np.convolve((~seq).astype(np.int16), np.ones(gap + 1, np.int16), mode="valid") == gap + 1
        if empty.any():
            seq = seq[: int(np.argmax(empty))]
    found = np.flatnonzero(seq)
    return start + step * (int(found[-1]) if found.size else 0)


def complete_occluded(rect: BBox, edges: np.ndarray) -> BBox:
    """Grow a rectangle whose left or right part is hidden: follow its right/left border down,
    then the bottom border sideways (a window covering a dialog's corner leaves three sides)."""
    x, y, w, h = rect
    best = rect
    for side in (x + w - 1, x):  # a border column that is visible
        bottom = run(edges, side, y + h - 1, +1, axis=0)
        if bottom - (y + h - 1) < 8:
            continue
        step = -1 if side != x else +1
        end = run(edges, bottom, side, step, axis=1)
        x0, x1 = (end, side + 1) if step < 0 else (side, end + 1)
        grown = (x0, y, x1 - x0, bottom + 1 - y)
        if grown[2] > w * 1.3 and area(grown) > area(best):
            best = grown
    return best


def grow_up(rect: BBox, edges: np.ndarray, *, min_gain: float = 1.3) -> BBox:
    """A footer band whose side borders run on upward is the bottom of a taller panel: follow the
    borders up to where they stop (one side suffices: the other may be under another window)."""
    x, y, w, h = rect
    tops = [run(edges, col, y, -1, axis=0) for col in (x, x + w - 1)]
    top = min(tops)
    if y + h - top < min_gain * h:
        return rect
    # a top border must close the panel on at least 40 % of its width
    row = edges[max(0, top - 2) : top + 3, x : x + w].any(axis=0)
    if row.size == 0 or float(row.mean()) < 0.4:
        return rect
    return (x, top, w, y + h - top)


def runs_on(edges: np.ndarray, box: BBox, reach: int = 40, *, title_bar: bool = False) -> bool:
    """The box's left/right borders continue past its bottom or its top: a band of a larger panel.

    `title_bar`: above the box, its borders are followed only past the topmost line drawn across its
    whole width within `reach` (a window's own title bar, the window manager's, closed on top: its
    sides are the box's and run on no further; a panel's sides run on past such a line too).

    A border that runs on is a line: its column is covered more than the columns a few pixels
    beside it on one side at least. Letters of a list or a page behind the box cover those alike:
    they are no border running on. Nor is a border within SCREEN_SIDE of the screen's side: a
    window manager places windows against it, a message box over the dialog that opened it, and
    their borders meet in one column.
    """
    x, y, w, h = box
    height, width = edges.shape

    def covered(col: int, y0: int, y1: int) -> float:
        return float(edges[y0:y1, max(0, col - 1) : col + 2].any(axis=1).mean())

    def column(col: int, y0: int, y1: int) -> float:
        y0, y1 = max(0, y0), min(height, y1)
        if col <= SCREEN_SIDE or col >= width - 1 - SCREEN_SIDE or y1 - y0 < 5:
            return 0.0  # against the screen's side (or no room): no evidence either way
        line = covered(col, y0, y1)
        beside = min(covered(max(0, col - LINE_BESIDE), y0, y1), covered(min(width - 1, col + LINE_BESIDE), y0, y1))
        return line if line - beside >= LINE_OVER_BESIDE else 0.0

    top = _closed_above(edges, box, reach) if title_bar else None
    above = (y - reach, y - 4) if top is None else (top - reach, top - 4)
    for y0, y1 in ((y + h + 4, y + h + reach), above):
        left, right = column(x, y0, y1), column(x + w - 1, y0, y1)
        if max(left, right) >= BAND_ONE_SIDE or min(left, right) >= BAND_BOTH_SIDES:
            return True
    return False


def _closed_above(edges: np.ndarray, box: BBox, reach: int) -> int | None:
    """The topmost row within `reach` above the box whose edges cross its whole width (a title bar's top),
    or None."""
    x, y, w, _ = box
    rows = [r for r in range(max(0, y - reach), max(0, y - 4)) if (edges[r, x : x + w] > 0).mean() >= ACROSS]
    return min(rows) if rows else None


def over_backdrop(gray: np.ndarray, box: BBox, ring: int = 24) -> bool:
    """The box is much brighter than what surrounds it on the left, right and below: a modal over a
    dimmed page (above it may be a browser's toolbar the dimming leaves alone)."""
    x, y, w, h = box
    height, width = gray.shape
    if x < ring or x + w + ring > width or y + h + ring > height or w < 3 * ring or h < 3 * ring:
        return False
    face = float(np.median(gray[y + 8 : y + h - 8, x + 8 : x + w - 8]))
    sides = (
        gray[y + 8 : y + h - 8, x - ring : x - 4],
        gray[y + 8 : y + h - 8, x + w + 4 : x + w + ring],
        gray[y + h + 4 : y + h + ring, x + 8 : x + w - 8],
    )
    return all(face - float(np.median(side)) >= BACKDROP_STEP for side in sides)


def casts_shadow(gray: np.ndarray, box: BBox) -> bool:
    """The pixels just below and right of the box are darker than a little further out (a drop
    shadow: something floats on top). Sides at the screen border are not judged."""
    x, y, w, h = box
    height, width = gray.shape
    drops = []
    if y + h + 16 <= height and w > 40:
        near = gray[y + h + 1 : y + h + 5, x + 12 : x + w - 12].mean(axis=0, dtype=np.float32)
        far = gray[y + h + 12 : y + h + 16, x + 12 : x + w - 12].mean(axis=0, dtype=np.float32)
        drops.append(float(np.median(far - near)))
    if x + w + 16 <= width and h > 40:
        near = gray[y + 12 : y + h - 12, x + w + 1 : x + w + 5].mean(axis=1, dtype=np.float32)
        far = gray[y + 12 : y + h - 12, x + w + 12 : x + w + 16].mean(axis=1, dtype=np.float32)
        drops.append(float(np.median(far - near)))
    return bool(drops) and min(drops) >= SHADOW_MIN
