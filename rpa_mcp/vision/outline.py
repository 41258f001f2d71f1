"""A rectangle newly drawn on the screen: a surface that appeared, seen by its outline.

A surface drawn in the colour of the window behind it (a Java Metal drop-down's grey list over a
grey panel) changes few of its pixels: where its background covers the panel nothing moves. Its
outline does: four straight sides (a border, or the edge where its background meets what surrounds
it), each a run of pixels unlike their neighbour across the side, along which the screen showed
something else before. Text has no straight run that long; a field or a list already on the screen
keeps its outline from one frame to the next (not new); a surface that closed leaves its outline in
the frame before, not in the frame after.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

EDGE = 24  # channel levels between a side's pixel and its neighbour across the side (as a pixel that changed)
SIDE_MIN = 16  # px: the shortest straight run taken for a side (a glyph's stroke is shorter)
CORNER = 4  # px: how far a side's end may stand from the side it meets
SPAN = 0.9  # share of the rectangle's width a top or bottom side runs along
NEW = 0.5  # share of the outline where the frame before showed no such edge: drawn anew


@dataclass(frozen=True)
class _Run:
    """A straight run of edge pixels (crop coordinates): `start`..`end` along it, `at`..`at_end` across it."""

    start: int
    end: int
    at: int
    at_end: int

    def holds(self, position: int) -> bool:
        return self.start <= position < self.end


def new_outline(before: np.ndarray, after: np.ndarray, region: BBox, point: tuple[int, int]) -> BBox | None:
    """The largest rectangle (x, y, w, h, frame pixels) outlined in `after` within `region` (2 px around it)
    around `point`, along most of whose outline `before` showed no such edge; None when there is none."""
    if before.shape != after.shape:
        return None
    height, width = after.shape[:2]
    x0, y0 = max(0, region[0] - 2), max(0, region[1] - 2)
    x1, y1 = min(width, region[0] + region[2] + 2), min(height, region[1] + region[3] + 2)
    if y1 - y0 < SIDE_MIN or x1 - x0 < SIDE_MIN:
        return None
    new, old = _pixels(after[y0:y1, x0:x1]), _pixels(before[y0:y1, x0:x1])
    upright = _Sides(_edges(new), _edges(old))  # along axis 0 of the crop: columns
    lying = _Sides(_edges(new.transpose(1, 0, 2)), _edges(old.transpose(1, 0, 2)))  # rows
    px, py = point[0] - x0, point[1] - y0
    columns, rows = [c for c in upright.runs() if c.holds(py)], lying.runs()
    best: tuple[int, BBox] | None = None
    for left in (c for c in columns if c.at_end <= px):
        for right in (c for c in columns if c.at > px):
            found = _closed(left, right, rows, py)
            if found is None:
                continue
            top, bottom = found
            x, y, x_end, y_end = left.at, top.at, right.at_end, bottom.at_end
            new_share = (
                upright.new(left, y, y_end)
                + upright.new(right, y, y_end)
                + lying.new(top, x, x_end)
                + lying.new(bottom, x, x_end)
            ) / (2 * (y_end - y) + 2 * (x_end - x))
            area = (x_end - x) * (y_end - y)
            if new_share >= NEW and (best is None or area > best[0]):
                best = (area, (x + x0, y + y0, x_end - x, y_end - y))
    return best[1] if best is not None else None


class _Sides:
    """The straight runs of one direction in a crop, and where each differs from the frame before."""

    def __init__(self, edges: np.ndarray, before: np.ndarray) -> None:
        self.edges, self.before = edges, before

    def runs(self) -> list[_Run]:
        """Runs of at least `SIDE_MIN` px of edge pixels of one colour along them (a side of another colour
        meeting this one breaks it)."""
        sides = cv2.morphologyEx(self.edges.astype(np.uint8), cv2.MORPH_OPEN, np.ones((SIDE_MIN, 1), np.uint8))
        count, _labels, stats, _centres = cv2.connectedComponentsWithStats(sides, connectivity=4)
        return [_Run(int(s[1]), int(s[1] + s[3]), int(s[0]), int(s[0] + s[2])) for s in stats[1:count]]

    def new(self, run: _Run, start: int, end: int) -> int:
        """Positions from `start` to `end` along `run` where the frame before showed other edges across it."""
        after = self.edges[start:end, run.at : run.at_end]
        before = self.before[start:end, run.at : run.at_end]
        return int((after != before).any(axis=1).sum())


def _closed(left: _Run, right: _Run, lying: list[_Run], py: int) -> tuple[_Run, _Run] | None:
    """The top and bottom sides that join two upright sides into a rectangle around row `py`; None without both."""
    top, bottom = max(left.start, right.start), min(left.end, right.end)
    if not top <= py < bottom or bottom - top < SIDE_MIN:
        return None
    x, x_end = left.at, right.at_end
    spans = [r for r in lying if min(r.end, x_end) - max(r.start, x) >= SPAN * (x_end - x)]
    ceiling = [r for r in spans if r.at - CORNER <= top <= r.at_end + CORNER]
    floor = [r for r in spans if r.at - CORNER <= bottom <= r.at_end + CORNER]
    if not ceiling or not floor:
        return None
    return min(ceiling, key=lambda r: r.at), max(floor, key=lambda r: r.at_end)


def _pixels(crop: np.ndarray) -> np.ndarray:
    image = crop.astype(np.int16)
    return image if image.ndim == 3 else image[:, :, None]


def _edges(image: np.ndarray) -> np.ndarray:
    """Pixels unlike a neighbour across axis 1 and like the one before them along axis 0: a side's pixels."""
    across = np.zeros(image.shape[:2], bool)
    across[:, 1:-1] = (_diff(image[:, 1:-1], image[:, :-2]) > EDGE) | (_diff(image[:, 1:-1], image[:, 2:]) > EDGE)
    along = np.zeros(image.shape[:2], bool)
    along[1:, :] = _diff(image[1:], image[:-1]) <= EDGE
    return across & along


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    moved: np.ndarray = np.abs(a - b).max(axis=2)
    return moved
