"""Find a modal dialog in a frame with OpenCV only (no OCR): rectangles, buttons, text lines.

A dialog is a rectangle made of stacked bands (header, body, footer) with a row of
button-like rectangles near its bottom, sitting on top of larger windows. We find closed
regions of an edge map, merge vertically stacked bands of the same width, complete
rectangles whose corner is hidden by another window, and score the candidates. When the
previous frame is given, what changed between the two frames weighs in.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

MIN_DIALOG_W, MIN_DIALOG_H = 120, 50
BUTTON_H = (16, 72)
BUTTON_W = (34, 360)
MIN_SCORE = 2.0  # below: nothing dialog-like on the frame (dialogs score >= 2.4, page cards <= 1.5)
FOOTER_MIN_GAP = 4  # px between the lowest buttons and the bottom edge (status bars sit flush)
SHADOW_MIN = 4.0  # grey levels a drop shadow darkens the strip just outside the box
SHADOW_BONUS = 1.0
NEW_RING_MAX = 0.2  # changed share allowed around a "new rectangle"
BAND_ONE_SIDE, BAND_BOTH_SIDES = 0.9, 0.6  # border continuation that makes a box a band of a panel
BAND_PENALTY = 1.5


@dataclass(frozen=True)
class ModalRegion:
    bbox: BBox  # visible part of the dialog, frame coordinates
    buttons: tuple[BBox, ...]  # button-like rectangles inside, frame coordinates, left to right
    score: float
    evidence: tuple[str, ...] = ()  # buttons | new | shadow | band


def _area(b: BBox) -> int:
    return b[2] * b[3]


def _inside(inner: BBox, outer: BBox, tol: int = 2) -> bool:
    return (
        inner[0] >= outer[0] - tol
        and inner[1] >= outer[1] - tol
        and inner[0] + inner[2] <= outer[0] + outer[2] + tol
        and inner[1] + inner[3] <= outer[1] + outer[3] + tol
    )


def _flush(inner: BBox, outer: BBox, tol: int = 8) -> bool:
    """Inner shares the left or the right edge of outer: a band of the same panel."""
    return abs(inner[0] - outer[0]) <= tol or abs(inner[0] + inner[2] - outer[0] - outer[2]) <= tol


def iou(a: BBox, b: BBox) -> float:
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    inter = max(0, x1 - x0) * max(0, y1 - y0)
    union = _area(a) + _area(b) - inter
    return inter / union if union else 0.0


def edge_map(gray: np.ndarray) -> np.ndarray:
    edges = cv2.Canny(gray, 10, 30)
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
        if cv2.contourArea(contour) < 0.85 * w * h:
            continue
        x0, y0 = max(0, x - 1), max(0, y - 1)
        out.add((x0, y0, min(width, x + w + 1) - x0, min(height, y + h + 1) - y0))
    return list(out)


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


def _run(mask: np.ndarray, fixed: int, start: int, step: int, axis: int, gap: int = 3) -> int:
    """Follow a line of `mask` from `start` while it continues (small gaps allowed); return the end."""
    limit = mask.shape[1] if axis == 1 else mask.shape[0]
    pos, last, missing = start, start, 0
    while 0 <= pos < limit:
        lo, hi = max(0, fixed - 2), fixed + 3
        on = mask[lo:hi, pos].any() if axis == 1 else mask[pos, lo:hi].any()
        if on:
            last, missing = pos, 0
        else:
            missing += 1
            if missing > gap:
                break
        pos += step
    return last


def complete_occluded(rect: BBox, edges: np.ndarray) -> BBox:
    """Grow a rectangle whose left or right part is hidden: follow its right/left border down,
    then the bottom border sideways (a window covering a dialog's corner leaves three sides)."""
    x, y, w, h = rect
    best = rect
    for side in (x + w - 1, x):  # a border column that is visible
        bottom = _run(edges, side, y + h - 1, +1, axis=0)
        if bottom - (y + h - 1) < 8:
            continue
        step = -1 if side != x else +1
        end = _run(edges, bottom, side, step, axis=1)
        x0, x1 = (end, side + 1) if step < 0 else (side, end + 1)
        grown = (x0, y, x1 - x0, bottom + 1 - y)
        if grown[2] > w * 1.3 and _area(grown) > _area(best):
            best = grown
    return best


def button_like(rects: list[BBox]) -> list[BBox]:
    return [
        r
        for r in rects
        if BUTTON_H[0] <= r[3] <= BUTTON_H[1] and BUTTON_W[0] <= r[2] <= BUTTON_W[1] and r[2] >= 1.2 * r[3]
    ]


def _button_row(candidate: BBox, buttons: list[BBox]) -> list[BBox]:
    """Buttons inside the candidate's lower part, on the lowest row."""
    _x, y, w, h = candidate
    inside = [
        b
        for b in buttons
        if _inside(b, candidate) and b[1] + b[3] / 2 >= y + 0.45 * h and b[2] < 0.9 * w and b[3] < 0.6 * h
    ]
    if not inside:
        return []
    lowest = max(b[1] + b[3] / 2 for b in inside)
    row = [b for b in inside if abs(b[1] + b[3] / 2 - lowest) <= 8]
    return sorted(row, key=lambda b: b[0])


def _dedupe(buttons: list[BBox]) -> list[BBox]:
    out: list[BBox] = []
    for b in sorted(buttons, key=_area, reverse=True):  # keep the outer box of nested duplicates
        if not any(iou(b, o) > 0.5 or _inside(b, o, tol=3) for o in out):
            out.append(b)
    return sorted(out, key=lambda b: b[0])


def find_modal(image: np.ndarray, previous: np.ndarray | None = None) -> ModalRegion | None:
    """The most dialog-like rectangle of the frame, or None.

    A rectangle counts only with modal evidence: a row of buttons in its footer, or (with the
    previous frame) a change that is a compact new rectangle. A drop shadow adds to the score;
    a rectangle whose side borders run on past its top or bottom is a band of a larger panel
    (a page card, a window's toolbar) and loses score. Page cards, status bars and toolbars are
    what these rules keep out.
    """
    return max(score_candidates(image, previous), key=lambda m: (m.score, _area(m.bbox)), default=None)


def score_candidates(image: np.ndarray, previous: np.ndarray | None = None) -> list[ModalRegion]:
    """Every rectangle with modal evidence and a score >= MIN_SCORE (for find_modal and diagnostics)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    height, width = gray.shape
    edges = edge_map(gray)
    regions = closed_regions(edges, 30, 14)
    buttons = button_like(regions)
    bands = [r for r in regions if r[2] >= 60 and r[3] >= 20]
    candidates = [r for r in merge_bands(bands) if r[2] >= MIN_DIALOG_W and r[3] >= MIN_DIALOG_H]
    # a dialog whose corner is under another window: grow button-less fragments into a full dialog
    for fragment in list(candidates):
        if not _button_row(fragment, buttons):
            grown = complete_occluded(fragment, edges)
            if grown != fragment and _button_row(grown, buttons):
                candidates.append(grown)
    changed = _changed_mask(gray, previous)

    frame_area = width * height
    scored: list[ModalRegion] = []
    for cand in set(candidates):
        _x, y, w, h = cand
        share = _area(cand) / frame_area
        if share > 0.45 or w > 0.8 * width or h > 0.85 * height or w < 0.6 * h:
            continue  # a window, the page or a side panel, not a dialog
        row = _dedupe(_button_row(cand, buttons))
        if row and y + h - max(b[1] + b[3] for b in row) < FOOTER_MIN_GAP:
            row = []  # cells flush with the bottom edge: a status bar or tabs, not a dialog's buttons
        if row and h < 2.2 * max(b[3] for b in row):
            continue  # a button strip, not a whole dialog
        score, evidence = 0.0, []
        if row:
            button_h = max(b[3] for b in row)
            gap_below = y + h - max(b[1] + b[3] for b in row)
            # a dialog's buttons sit in its footer; a window's "buttons" far above its bottom edge
            # belong to something drawn on top of it
            if gap_below <= 2.2 * button_h:
                score += 2.0 + 0.2 * min(len(row), 3)
                evidence.append("buttons")
            else:
                score += 0.5 + 0.2 * min(len(row), 3)
        if changed is not None and share < 0.15:
            fresh = _new_rectangle(changed, cand)
            if fresh > 0.0:
                score += 2.5 * fresh
                evidence.append("new")
        if _casts_shadow(gray, cand):
            score += SHADOW_BONUS
            evidence.append("shadow")
        if _runs_on(edges, cand):
            score -= BAND_PENALTY
            evidence.append("band")
        score += 0.5 * min(1.0, share / 0.02)  # very small boxes are rarely dialogs
        if "buttons" in evidence or "new" in evidence:
            scored.append(ModalRegion(cand, tuple(row), score, tuple(evidence)))
    # A dialog sits on top of a window: when two candidates hold the same buttons, the inner one
    # is the dialog and the outer one the window behind it.
    scored.sort(key=lambda m: _area(m.bbox))
    kept: list[ModalRegion] = []
    for region in scored:
        inner = [
            k
            for k in kept
            if k.buttons
            and _inside(k.bbox, region.bbox)
            and any(b in region.buttons for b in k.buttons)
            and not _flush(k.bbox, region.bbox)  # a band of the dialog itself, not a dialog on a window
            and _area(k.bbox) < 0.5 * _area(region.bbox)
        ]
        if inner:
            region = ModalRegion(region.bbox, region.buttons, region.score - 1.5, region.evidence)
        kept.append(region)
    return [m for m in kept if m.score >= MIN_SCORE]


def _new_rectangle(changed: np.ndarray, box: BBox, ring: int = 20) -> float:
    """Changed share inside `box` when the change is a compact new rectangle (little change in a
    ring around it), else 0: a tab switch repaints a whole page, a pop-up only its own box."""
    x, y, w, h = box
    inside = changed[y : y + h, x : x + w]
    outer = changed[max(0, y - ring) : y + h + ring, max(0, x - ring) : x + w + ring]
    around = (float(outer.sum()) - float(inside.sum())) / 255.0
    ring_px = outer.size - inside.size
    if ring_px <= 0 or around / ring_px > NEW_RING_MAX:
        return 0.0
    return float(inside.mean()) / 255.0


def _casts_shadow(gray: np.ndarray, box: BBox) -> bool:
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


def _runs_on(edges: np.ndarray, box: BBox, reach: int = 40) -> bool:
    """The box's left/right borders continue past its bottom or its top: a band of a larger panel."""
    x, y, w, h = box
    height, width = edges.shape

    def run(col: int, y0: int, y1: int) -> float:
        y0, y1 = max(0, y0), min(height, y1)
        if col <= 2 or col >= width - 3 or y1 - y0 < 5:
            return 0.0  # at the screen border (or no room): no evidence either way
        return float(edges[y0:y1, max(0, col - 1) : col + 2].any(axis=1).mean())

    for y0, y1 in ((y + h + 4, y + h + reach), (y - reach, y - 4)):
        left, right = run(x, y0, y1), run(x + w - 1, y0, y1)
        if max(left, right) >= BAND_ONE_SIDE or min(left, right) >= BAND_BOTH_SIDES:
            return True
    return False


def _changed_mask(gray: np.ndarray, previous: np.ndarray | None) -> np.ndarray | None:
    if previous is None:
        return None
    prev = cv2.cvtColor(previous, cv2.COLOR_BGR2GRAY) if previous.ndim == 3 else previous
    if prev.shape != gray.shape:
        return None
    diff = cv2.absdiff(gray, prev)
    mask = (diff > 24).astype(np.uint8) * 255
    share = float(mask.mean()) / 255.0
    if share < 0.0005 or share > 0.6:  # nothing, or everything (dimmed backdrop): no signal
        return None
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))


def text_lines(region: np.ndarray, exclude: list[BBox] | None = None, max_lines: int = 24) -> list[BBox]:
    """Boxes of text lines in a dialog crop (region coordinates), top to bottom."""
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
        if 8 <= bh <= 70 and bw >= 6 and bw >= 0.4 * bh:
            boxes.append((x, y, bw, bh))
    lines = _join_lines(boxes)
    lines.sort(key=lambda b: (b[1], b[0]))
    return lines[:max_lines]


def _join_lines(boxes: list[BBox]) -> list[BBox]:
    """Merge boxes on the same text line separated by a word gap."""
    boxes = sorted(boxes, key=lambda b: b[0])
    out: list[list[int]] = []
    for x, y, w, h in boxes:
        for line in out:
            lx, ly, lw, lh = line
            overlap = min(ly + lh, y + h) - max(ly, y)
            if overlap >= 0.6 * min(lh, h) and x - (lx + lw) <= 1.2 * max(lh, h):
                x1, y1 = max(lx + lw, x + w), max(ly + lh, y + h)
                line[0], line[1] = min(lx, x), min(ly, y)
                line[2], line[3] = x1 - line[0], y1 - line[1]
                break
        else:
            out.append([x, y, w, h])
    return [(a, b, c, d) for a, b, c, d in out]
