"""A push button around a click's text, seen on the screen (for applications without an accessibility tree).

A button's text sits on its face: one colour (flat, or a gentle gradient) bounded on all four sides by
its outline — a bevel (Motif, AWT, Windows classic), a thin border, or the edge of a filled box on the
window's background. The face is button-sized, the text stands centred on it with some padding, and
the outline is closed: its sides end at its corners. What else holds text on a face does not look so:

- a table's cell or row: its grid lines run on past the cell, to the next cells and rows;
- a list's line, a selected line's highlight, rows of alternating fills: the face spans the list, its
  sides are the list's own border, which runs on above and below the line;
- a text field: its text starts at its left edge, and its border is sunken (dark above, light below);
- a plain list or panel: the face is far taller than a line; a card: two lines or more on it.

`button_around` answers only when all of it holds; None says "not a button, or not sure", and the
caller keeps judging the click by its words.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

STEP = 3  # channel levels between neighbours still on one face (a gradient's step, not an edge)
SEED_REACH = 6  # px around the text (or the click) where the face's colour is looked for
SEED_SHARE = 0.25  # share of the largest patch of that colour a patch holding the seed covers at least
HEIGHT = (14, 48)  # px: a button's face, one line high (up to 150 % display scale)
WIDTH = (24, 420)  # px (the dialog locator's button widths, `rpa_mcp.dialogs.locate.buttons`)
FILLED = 0.5  # share of the face's box its colour covers (the text leaves holes)
STRAIGHT = 0.75  # share of each side of the face's box the face reaches (a rectangle, corners rounded)
LOOSE = 8  # px the line read may stand past the face on a side (OCR boxes a line with a margin)
PAD = 2  # px at least between the text and each side of the face
CENTRED = 0.25  # share of the two paddings their difference may be (left/right; more above/below)
OFF_CENTRE = 4  # px of difference always allowed
LINE_OFF_CENTRE = 0.15  # share of the face's width the line read may stand from its middle (an icon beside it)
TALL = 4.0  # the face is at most this many times the text's height
LINE_GAP = 3  # empty rows across the text that part two lines
BEYOND = (2, 9)  # px past a corner where a side that runs on still shows its edge (past a grid's line)
BREAKS = 1  # positions there without the edge a side that runs on may have (a button's gap has more)
SUNKEN = 24  # levels darker above and left than below and right: a field's (or a list's) border


def button_around(image: np.ndarray, point: tuple[int, int], text: BBox | None = None) -> BBox | None:
    """The face of the push button whose text is at `point` (x, y, w, h, image pixels; `text`: the line
    read there, when known), None when no button is seen there for sure."""
    height, width = image.shape[:2]
    pixels = image if image.ndim == 3 else image[:, :, None]
    seed = _face_seed(pixels, point, text)
    if seed is None:
        return None
    mask = np.zeros((height + 2, width + 2), np.uint8)
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (255 << 8)  # 4-connected: an etched outline's corner gap holds it
    step = (STEP,) * 3 if image.ndim == 3 else STEP
    filled, _img, _mask, rect = cv2.floodFill(image.copy(), mask, seed, 0, step, step, flags)
    x, y, w, h = (int(v) for v in rect)
    face = mask[1 + y : 1 + y + h, 1 + x : 1 + x + w] > 0
    box = (x, y, w, h)
    if x <= 0 or y <= 0 or x + w >= width or y + h >= height:
        return None  # cut by the frame: a panel, not a button
    if not (HEIGHT[0] <= h <= HEIGHT[1] and max(WIDTH[0], h) <= w <= WIDTH[1]):
        return None
    if int(filled) < FILLED * w * h or not _rectangular(face):
        return None
    ink = _ink(face, text, box)
    if ink is None or not _centred(ink, box, text) or h > TALL * ink[3] or not _one_line(face, ink):
        return None
    if _runs_on(pixels, box) or _sunken(pixels, box):
        return None
    return box


def _face_seed(pixels: np.ndarray, point: tuple[int, int], text: BBox | None) -> tuple[int, int] | None:
    """A pixel of the face: of the most common colour around the text (or the click), in one of its largest
    patches (a letter's inside is a small one; the window around a button of its colour a large one, farther
    from the click), nearest the click."""
    height, width = pixels.shape[:2]
    px, py = point
    if not (0 <= px < width and 0 <= py < height):
        return None
    if text is not None:
        x0, y0, x1, y1 = text[0] - 2, text[1] - 2, text[0] + text[2] + 2, text[1] + text[3] + 2
    else:
        x0, y0, x1, y1 = px - SEED_REACH, py - SEED_REACH, px + SEED_REACH + 1, py + SEED_REACH + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    patch = pixels[y0:y1, x0:x1]
    if patch.size == 0:
        return None
    colours, counts = np.unique(patch.reshape(-1, patch.shape[2]), axis=0, return_counts=True)
    common = np.all(patch == colours[int(np.argmax(counts))], axis=2).astype(np.uint8)
    _count, labels, stats, _centres = cv2.connectedComponentsWithStats(common, connectivity=4)
    areas = stats[1:, cv2.CC_STAT_AREA]
    if areas.size == 0:
        return None
    spots = np.argwhere(np.isin(labels, 1 + np.flatnonzero(areas >= SEED_SHARE * areas.max())))
    dy, dx = min(spots.tolist(), key=lambda s: (s[0] + y0 - py) ** 2 + (s[1] + x0 - px) ** 2)
    return x0 + int(dx), y0 + int(dy)


def _rectangular(face: np.ndarray) -> bool:
    """The face reaches along each side of its box (a rectangle, not a blob or a shape of the page)."""
    inner = face[1:-1, 1:-1] if min(face.shape) > 4 else face
    sides = (inner[0], inner[-1], inner[:, 0], inner[:, -1])
    return all(float(side.mean()) >= STRAIGHT for side in sides)


def _ink(face: np.ndarray, text: BBox | None, box: BBox) -> BBox | None:
    """The box of what is drawn on the face (its text, an icon beside it), face-box coordinates; None when
    nothing is, or when the line read there runs past the face."""
    x, y, w, h = box
    if text is not None:
        tx, ty = text[0] - x, text[1] - y
        if min(tx, ty, w - tx - text[2], h - ty - text[3]) < -LOOSE:
            return None  # the text runs past the face: a face within a larger control
    holes = ~face
    holes[:2, :] = holes[-2:, :] = False  # rounded corners
    holes[:, :2] = holes[:, -2:] = False
    spots = np.argwhere(holes)
    if spots.size == 0:
        return None
    (top, left), (bottom, right) = spots.min(axis=0), spots.max(axis=0)
    return int(left), int(top), int(right - left + 1), int(bottom - top + 1)


def _one_line(face: np.ndarray, ink: BBox) -> bool:
    """What is drawn on the face is one line: no band of empty rows across it (a card naming a patient on two
    lines, its birth date under the name, is no button; an accent stands a pixel or two above its letter)."""
    x, y, w, h = ink
    holes: np.ndarray = np.logical_not(face[y : y + h, x : x + w])
    longest = run = 0
    inked = np.asarray(holes.any(axis=1), dtype=bool)
    for blank in (not bool(row) for row in inked.tolist()):
        run = run + 1 if blank else 0
        longest = max(longest, run)
    return longest < LINE_GAP


def _centred(ink: BBox, box: BBox, text: BBox | None) -> bool:
    """What is drawn on the face stands in its middle, with some padding on each side, and so does the line
    read there (a drop-down's text starts at its left, its arrow at its right end)."""
    x, _y, w, h = box
    left, right = ink[0], w - ink[0] - ink[2]
    top, bottom = ink[1], h - ink[1] - ink[3]
    if min(left, right) < PAD or min(top, bottom) < 1:
        return False
    across = abs(left - right) <= max(OFF_CENTRE, CENTRED * (left + right))
    down = abs(top - bottom) <= max(OFF_CENTRE, 2 * CENTRED * (top + bottom))
    line = text is None or abs(text[0] + text[2] / 2 - (x + w / 2)) <= max(OFF_CENTRE, LINE_OFF_CENTRE * w)
    return across and down and line


def _runs_on(pixels: np.ndarray, box: BBox) -> bool:
    """A side of the face whose edge (its pixels unlike those across it) goes on past a corner without a
    break: a grid's line or a list's border. A button's outline ends with its face: past it, the window's
    background shows on both sides of the line, at least for the gap before a neighbouring button."""
    x, y, w, h = box
    image = pixels.astype(np.int16)
    height, width = image.shape[:2]
    ahead = np.arange(*BEYOND)

    def goes_on(inside: np.ndarray, outside: np.ndarray) -> bool:
        if len(inside) < len(ahead):
            return False  # the frame ends there
        edge = np.abs(inside - outside).max(axis=-1) > 2 * STEP
        return int((~edge).sum()) <= BREAKS

    right, left = x + w + ahead, x - 1 - ahead
    below, above = y + h + ahead, y - 1 - ahead
    cols = [c[(c >= 0) & (c < width)] for c in (left, right)]
    rows = [r[(r >= 0) & (r < height)] for r in (above, below)]
    sides = [(image[y, c], image[y - 1, c]) for c in cols]  # the top side, past its two corners
    sides += [(image[y + h - 1, c], image[y + h, c]) for c in cols]  # the bottom side
    sides += [(image[r, x], image[r, x - 1]) for r in rows]  # the left side, past its two corners
    sides += [(image[r, x + w - 1], image[r, x + w]) for r in rows]  # the right side
    return any(goes_on(inside, outside) for inside, outside in sides)


def _sunken(pixels: np.ndarray, box: BBox) -> bool:
    """The outline is darker above and left of the face than below and right of it: a field's border."""
    x, y, w, h = box
    grey = pixels.astype(np.float32).mean(axis=2)
    above = float(
        np.concatenate([grey[max(0, y - 2) : y, x : x + w].ravel(), grey[y : y + h, max(0, x - 2) : x].ravel()]).mean()
    )
    below = float(
        np.concatenate([grey[y + h : y + h + 2, x : x + w].ravel(), grey[y : y + h, x + w : x + w + 2].ravel()]).mean()
    )
    return above + SUNKEN < below
