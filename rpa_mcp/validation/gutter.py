"""An editor's gutter: the column of line numbers at the left of its text, no part of what was typed.

A line read in an editor may start with its line number ("2 The patient..."). The number is taken
out only on evidence of a column: the lines above or below start with a number whose ink ends at
the same x, a gap (or a rule) after it, their text starting at the same x, and (read by the caller)
the numbers are consecutive. A number alone, with no such column, stays part of the text: a typed
text is never accepted on a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from rpa_mcp.validation.text import ink_mask, text_line_boxes
from rpa_mcp.vision.images import BBox, clamp_bbox

NUMBER_MAX_W = 4.0  # of the letters' height: the widest a line number is
GAP_MIN = 0.35  # of the letters' height: the least blank after a number, on a line of few letters
RULE = 0.9  # share of a line's rows a column inked that far runs through: a rule, not a letter
ALIGN = 2  # px: the numbers of one column end, and its text starts, this close
REACH = 2.5  # of the line's height: how far from the line its neighbours are looked for
LEADING_NUMBER = re.compile(r"^\s*(\d{1,6})(?!\d)")


@dataclass(frozen=True)
class Lead:
    """A line's first cluster of ink and where its text resumes after a gap (frame x; None: nothing after)."""

    start: int
    end: int
    text_x: int | None


@dataclass(frozen=True)
class Gutter:
    """The typed line's number, where its text starts, and the neighbouring lines of the same column."""

    lead: Lead
    above: list[BBox]
    below: list[BBox]


def leading_cluster(image: np.ndarray, line: BBox) -> Lead | None:
    """The first cluster of ink of a text line, if it is narrow enough to be a number and ends at a gap
    (or a rule: a column inked through the line's rows) or with the line."""
    x, y, w, h = clamp_bbox(line, image.shape)
    if w == 0 or h == 0:
        return None
    ink = ink_mask(image[y : y + h, x : x + w]).astype(bool)
    rows = np.flatnonzero(ink.any(axis=1))
    if not len(rows):
        return None
    rule = ink[rows[0] : rows[-1] + 1].mean(axis=0) >= RULE  # a rule, or a text caret
    rows = np.flatnonzero(ink[:, ~rule].any(axis=1))
    cols = np.flatnonzero(ink.any(axis=0) & ~rule)
    if not len(cols):
        return None
    letters = int(rows[-1] - rows[0]) + 1
    gap = _gap_between_words(cols, letters)
    breaks = np.flatnonzero([_separated(cols[i], cols[i + 1], gap, rule) for i in range(len(cols) - 1)])
    end = int(cols[breaks[0]]) + 1 if len(breaks) else int(cols[-1]) + 1
    if end - int(cols[0]) > NUMBER_MAX_W * letters:
        return None
    text_x = x + int(cols[breaks[0] + 1]) if len(breaks) else None
    return Lead(x + int(cols[0]), x + end, text_x)


def _gap_between_words(cols: np.ndarray, letters: int) -> int:
    """The blank (px) wider than which two inked columns are apart: twice the line's usual blank
    between letters (the median of its blanks), at least 3 px; GAP_MIN of the letters' height on a
    line with too few letters to tell."""
    blanks = np.diff(cols) - 1
    blanks = blanks[blanks > 0]
    if len(blanks) < 3:
        return max(3, round(GAP_MIN * letters))
    return max(3, 2 * int(np.median(blanks)))


def _separated(left: int, right: int, gap: int, rule: np.ndarray) -> bool:
    """Two consecutive inked columns are apart: a blank wider than `gap`, or a rule between them."""
    return right - left > gap or bool(rule[left + 1 : right].any())


def find_gutter(image: np.ndarray, line: BBox) -> Gutter | None:
    """The column of line numbers `line` starts with, from the lines just above and below (no OCR).

    None when the line does not start with a narrow cluster followed by text, or when no neighbour
    line starts with one that ends at the same x with its text at the same x.
    """
    x, y, w, h = clamp_bbox(line, image.shape)
    left = max(0, x - h)  # the number may sit just left of the field's box
    lead = leading_cluster(image, (left, y, x + w - left, h))
    if lead is None or lead.text_x is None:
        return None
    reach = round(REACH * h)
    top = max(0, y - reach)
    region = image[top : min(image.shape[0], y + h + reach), left : x + w]
    above: list[BBox] = []
    below: list[BBox] = []
    for lx, ly, lw, lh in text_line_boxes(region, max_lines=16):
        near = (left + lx, top + ly, lw, lh)
        if near[1] + lh <= y + 2:
            side = above
        elif near[1] >= y + h - 2:
            side = below
        else:
            continue
        other = leading_cluster(image, (left, near[1] - 1, x + w - left, lh + 2))
        if other is None or abs(other.end - lead.end) > ALIGN:
            continue
        if other.text_x is not None and abs(other.text_x - lead.text_x) > ALIGN:
            continue
        side.append((left, near[1] - 1, x + w - left, lh + 2))
    if not above and not below:
        return None
    above.sort(key=lambda b: -b[1])  # nearest first
    below.sort(key=lambda b: b[1])
    return Gutter(lead, above[:1], below[:1])


def leading_number(text: str) -> int | None:
    """The integer a reading starts with ("2 The patient" -> 2), else None."""
    found = LEADING_NUMBER.match(text)
    return int(found.group(1)) if found else None
