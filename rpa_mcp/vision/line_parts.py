"""A line of text cut into the parts wide gaps leave between them: separate controls the text detector ran
together ("Programmé Urgent", two radio buttons side by side; "Fichier Édition Aide", a menu bar).

A word space is 0.3–0.6 of the line's ink height; the background between two controls' texts is wider. A
sentence with ordinary spacing has one part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rpa_mcp.vision.images import BBox

WIDE_GAP = 0.8  # background columns, in heights of the line's ink, that part two controls' texts
INK_CONTRAST = 48  # grey levels from the line's background that make a pixel ink (a light radio mark's outline)
MIN_INK_ROWS = 6  # fewer inked rows: no text height to measure a gap against
RULE_FILL = 0.9  # share of a row in ink above which it is a bar or a border, not letters


@dataclass(frozen=True)
class Part:
    """One part of a line (x in the line's crop): its ink from `left` to `right`, and the crop to read it
    alone, reaching to the middle of the gaps beside it (the line's ends beyond the first and last)."""

    left: int
    right: int
    crop_left: int
    crop_right: int


def line_parts(image: np.ndarray, box: BBox, *, wide: float = WIDE_GAP) -> tuple[BBox, list[Part]]:
    """The line at `box` (absolute pixels of `image`, clamped to it) and its parts between gaps of `wide`
    heights of its ink; no part when its ink is too short to measure a gap against."""
    x, y, w, h = clamped(box, image.shape)
    if w <= 4 or h <= 4:
        return (x, y, w, h), []
    columns, height = ink_columns(image[y : y + h, x : x + w])
    if height < MIN_INK_ROWS:
        return (x, y, w, h), []
    return (x, y, w, h), parts(columns, wide * height)


def clamped(box: BBox, shape: tuple[int, ...]) -> BBox:
    x0, y0 = max(0, box[0]), max(0, box[1])
    x1, y1 = min(shape[1], box[0] + box[2]), min(shape[0], box[1] + box[3])
    return x0, y0, x1 - x0, y1 - y0


def ink_columns(crop: np.ndarray) -> tuple[np.ndarray, int]:
    """The crop's columns holding ink (against its median, the line's background) and the height of its ink
    (first to last inked row). A row inked across nearly all its width is no text: a bar or a border a loose
    line box took in (the edge of a title bar above a menu bar)."""
    grey = crop.astype(np.int16).mean(axis=2) if crop.ndim == 3 else crop.astype(np.int16)
    ink = np.abs(grey - np.median(grey)) >= INK_CONTRAST
    ink[ink.mean(axis=1) > RULE_FILL] = False
    rows = np.flatnonzero(ink.any(axis=1))
    return ink.any(axis=0), int(rows[-1] - rows[0] + 1) if rows.size else 0


def parts(columns: np.ndarray, wide: float) -> list[Part]:
    """The line's parts between gaps of at least `wide` background columns."""
    inked = np.flatnonzero(columns)
    if inked.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(inked) - 1 >= wide)  # index of the last inked column before each wide gap
    starts = [int(inked[0])] + [int(inked[i + 1]) for i in breaks]
    ends = [int(inked[i]) + 1 for i in breaks] + [int(inked[-1]) + 1]
    middles = [(end + start) // 2 for end, start in zip(ends[:-1], starts[1:], strict=True)]
    crop_starts, crop_ends = [0, *middles], [*middles, len(columns)]
    return [Part(*p) for p in zip(starts, ends, crop_starts, crop_ends, strict=True)]
