"""Whether the check box beside a label is ticked, read from the pixels (for applications without AT-SPI).

The box is the square nearest the label on its left (then on its right) whose side is about the
height of the line's text (at any scale), vertically centred on the line. Everything is measured
against the box's own surroundings, never against a whole region's colour: the background is the
one the label is drawn on (a check button's own, lighter when the pointer is over it, or a panel's),
and a mark is ink against the box's own fill. Ticked: a mark covers a share of its inside (a tick, a
cross) or the box is filled with a strong colour (an accent colour, a dark fill); unticked: its inside
is one light or neutral colour. Anything between is None: the state is not guessed. The product reads a
box and a radio button's round mark together (`marks.mark_beside`): this module gives the bands beside a
label (`bands_beside`), the square in one (`square_in`) and what its inside says (`ticked_in`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

SEARCH_LINES = 4.0  # how far from the label, in line heights, the box is looked for
MIN_SIDE, MAX_SIDE = 0.7, 2.5  # the box's side, in heights of the line's text (a letter is smaller)
TICKED, BLANK = 0.12, 0.03  # share of marked pixels inside the box
INK = 60  # grey levels from the background (or from the box's fill) that make a pixel ink
EDGE = 40  # grey levels from the label's background that make a pixel part of a box's outline ...
FAINT_EDGE = 14  # ... or, when no box stands out so, of a light box on a light background (a sunken box's light sides)
FILLED_DARKER = 90  # a box filled this many grey levels darker than the label's background is ticked ...
FILLED_SATURATION = 90  # ... and so is one filled with a colour at least this saturated (an accent colour)
MIN_INK_ROWS = 6  # fewer inked rows are no text line
SIDE_INKED = 0.85  # share of each side of the square that must be inked
PAST, SIDE_RUN = 2, 0.45  # a frame's side runs past a mark and its text, inked along (dotted: every other pixel)
APART = 0.25  # background, in text heights (at least 3 px), on each side of a mark (a letter touches the next;
# a focus frame drawn 3 px past a 12 px line's box, Java's Metal, is apart)


@dataclass(frozen=True)
class Band:
    """Where a control's mark beside a label is looked for: the rows around the line, on one side of it."""

    left: bool  # the band left of the label (the mark nearest the label is the right-most one), else right of it
    x0: int  # the band's left edge on the image
    gray: np.ndarray
    colour: np.ndarray
    background: float  # the colour the label is drawn on
    text_h: int  # the height of the line's text (OCR pads a line's box)
    centre_y: float  # the text's middle row, in the band
    rows: np.ndarray  # the band's rows across the whole image (grey): what stands beside a mark
    colour_rows: np.ndarray  # the same rows in colour


def bands_beside(image: np.ndarray, line: BBox) -> list[Band]:
    """The bands left of the label (its first line height included: OCR may box a mark with its text), then
    right of it, where a check box or a radio button's mark is looked for."""
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    height, width = gray.shape[:2]
    x, y, w, h = (int(v) for v in line)
    h = max(h, 8)
    reach = int(SEARCH_LINES * h)
    y0, y1 = max(0, y - h), min(height, y + 2 * h)
    top, text_h = _inked_rows(gray, (x, y, w, h))  # the text's own height: OCR pads a line's box
    background = _line_background(gray, (x, y, w, h))
    bands = []
    for x0, x1 in ((max(0, x - reach), min(width, x + h)), (min(width, x + w), min(width, x + w + reach))):
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        left = x0 < x
        bands.append(
            Band(
                left,
                x0,
                gray[y0:y1, x0:x1],
                colour[y0:y1, x0:x1],
                background,
                text_h,
                top + text_h / 2 - y0,
                gray[y0:y1],
                colour[y0:y1],
            )
        )
    return bands


def square_in(band: Band) -> tuple[int, int, int] | None:
    """The check box's square (x, y, side) in the band nearest the label; None when none is there."""
    band = widened(band)
    for edge in (EDGE, FAINT_EDGE):  # a box that stands out, else a light box on a light background

        def apart(bx: int, by: int, bw: int, bh: int, edge: int = edge) -> bool:
            return set_apart(band, edge, band.x0 + bx, by, bw, bh)

        found = _square(
            band.gray, band.background, band.text_h, band.centre_y, nearest_right=band.left, edge=edge, apart=apart
        )
        if found is not None:
            return found
    return None


def widened(band: Band) -> Band:
    """A band left of the label reaching a text height farther into its line: a mark OCR boxed with its text
    may be wider than the line's first height (its letters are told apart by `set_apart`)."""
    if not band.left:
        return band
    x1 = min(band.rows.shape[1], band.x0 + band.gray.shape[1] + band.text_h)
    return replace(band, gray=band.rows[:, band.x0 : x1], colour=band.colour_rows[:, band.x0 : x1])


def set_apart(band: Band, edge: int, x: int, y: int, w: int, h: int) -> bool:
    """Background on each side of a mark at `x` on the image, over its rows, looked at past the band's ends too:
    a control's mark stands apart from its text, a letter touches its word's next one (an 'O' is no mark).
    A frame's side beside it is no letter (`frame_sides`)."""
    gap = max(3, round(APART * band.text_h))
    ink = np.abs(band.rows.astype(np.int16) - band.background) > edge
    touching = ink[y : y + h].any(axis=0) & ~frame_sides(band, ink, y, y + h)
    return not touching[max(0, x - gap) : x].any() and not touching[x + w : x + w + gap].any()


def frame_sides(band: Band, ink: np.ndarray, top: int, bottom: int) -> np.ndarray:
    """The image's columns whose ink runs, whole or dotted, from above to below both the rows `top:bottom` (a
    mark's) and the line's text: the sides of a frame (a lit row's edge, a focus ring around the label, a
    panel's border), never a letter's stroke: a line's letters stay within its text's rows."""
    text_top = round(band.centre_y - band.text_h / 2)
    above, below = min(top, text_top) - PAST, max(bottom, text_top + band.text_h) + PAST
    if above < 0 or below > ink.shape[0]:
        return np.zeros(ink.shape[1], bool)
    span = ink[above:below]
    sides: np.ndarray = span[:PAST].any(axis=0) & span[-PAST:].any(axis=0) & (span.mean(axis=0) >= SIDE_RUN)
    return sides


def ticked_in(band: Band, square: tuple[int, int, int]) -> bool | None:
    """The state the inside of the band's square says."""
    band = widened(band)
    bx, by, side = square
    return _ticked(band.colour, band.background, bx, by, side)


def _line_background(gray: np.ndarray, line: BBox) -> float:
    """The colour the label is drawn on: the most common grey of its line's box (text is the lesser part)."""
    x, y, w, h = line
    band = gray[max(0, y) : y + h, max(0, x) : x + w]
    if band.size == 0:
        return float(np.median(gray))
    return float(np.argmax(np.bincount(band.ravel(), minlength=256)))


def _inked_rows(gray: np.ndarray, line: BBox) -> tuple[int, int]:
    """(top, height) of the rows of a line's box that hold the text's ink; the whole box when none or too few
    do. A rule across the box (a focus ring's top or bottom side, an underline) is no text: its ink runs, whole
    or dotted, longer than the box is high; a row of letters breaks at each letter. Nor is ink joined to two
    rules, one above and one below (a focus ring's sides): letters stand apart from a frame around them. Nor
    is an upright at the box's ends that runs through all its other rows (a focus ring OCR boxed in part)."""
    x, y, w, h = line
    band = gray[max(0, y) : y + h, max(0, x) : x + w]
    if band.size == 0:
        return y, h
    ink = np.abs(band.astype(np.int16) - float(np.median(band))) > INK
    ruled = _longest_runs(ink) >= band.shape[0]
    rules = np.flatnonzero(ruled)
    if rules.size >= 2 and rules[-1] - rules[0] > 2 * PAST:
        top, bottom = rules[0], rules[-1]
        ink = ink & ~(ink[top + 1 : top + 1 + PAST].any(axis=0) & ink[bottom - PAST : bottom].any(axis=0))
    elif (~ruled).sum() > 2 * PAST:
        # a focus ring's rules left out of the box, or one of them: its upright sides, at the box's ends, run
        # through every other row of it, as no letter does, and are no text either
        upright = ink[~ruled].all(axis=0)
        upright[PAST + 1 : -PAST - 1] = False
        ink = ink & ~upright
    rows = np.flatnonzero(ink.any(axis=1) & ~ruled)
    if rows.size == 0 or rows[-1] - rows[0] + 1 < MIN_INK_ROWS:
        return y, h
    return max(0, y) + int(rows[0]), int(rows[-1] - rows[0] + 1)


def _longest_runs(ink: np.ndarray) -> np.ndarray:
    """Each row's longest run of ink, one-pixel gaps bridged (a dotted line is one run)."""
    bridged = ink.copy()
    bridged[:, 1:-1] |= ink[:, :-2] & ink[:, 2:]
    padded = np.pad(bridged, ((0, 0), (1, 1))).astype(np.int8)
    longest = np.zeros(ink.shape[0], int)
    for r, edges in enumerate(np.diff(padded, axis=1)):
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        longest[r] = int((ends - starts).max()) if starts.size else 0
    return longest


def _square(
    region: np.ndarray,
    background: float,
    line_h: int,
    centre_y: float,
    *,
    nearest_right: bool,
    edge: int = EDGE,
    apart: Callable[[int, int, int, int], bool] | None = None,
) -> tuple[int, int, int] | None:
    edges = (np.abs(region.astype(np.int16) - background) > edge).astype(np.uint8)
    # every outline, those inside another's hole included (a box on a panel of its own colour)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for contour in contours:
        bx, by, bw, bh = cv2.boundingRect(contour)
        side = (bw + bh) / 2
        if not (MIN_SIDE * line_h <= side <= MAX_SIDE * line_h) or abs(bw - bh) > 0.25 * side:
            continue
        if abs(by + bh / 2 - centre_y) > line_h * 0.75:
            continue
        if not _outlined(edges[by : by + bh, bx : bx + bw]):  # a round letter such as 'o' is not a box
            continue
        if apart is not None and not apart(bx, by, bw, bh):  # nor a letter that touches the next one
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


def _ticked(region: np.ndarray, background: float, bx: int, by: int, side: int) -> bool | None:
    """The state the inside of the box at (bx, by) says: a mark on its fill, a strong fill, or blank."""
    inset = max(2, round(side * 0.18))  # past the border: a tick may reach near it
    inside = region[by + inset : by + side - inset, bx + inset : bx + side - inset]
    if inside.size == 0:
        return None
    gray = cv2.cvtColor(inside, cv2.COLOR_BGR2GRAY).astype(np.int16)
    fill = float(np.median(gray))
    mark = float((np.abs(gray - fill) > INK).mean())  # a tick or a cross: the fill is the greater part
    if mark >= TICKED:
        return True
    if mark > BLANK:
        return None
    saturation = float(np.median(cv2.cvtColor(inside, cv2.COLOR_BGR2HSV)[..., 1]))
    if background - fill >= FILLED_DARKER or saturation >= FILLED_SATURATION:
        return True  # filled: a dark or an accent-coloured box
    if fill >= background - INK:
        return False  # one light or neutral colour: blank
    return None
