"""A field too narrow for the text typed into it, read as a person reads it.

A one-line field scrolls a text longer than itself and shows only a part of it: usually its end,
the caret there, or its start. A person reads such a field as right when the field is *full* (the
text runs from one inner edge of the field to the other, as far from each: no room was left, so the
rest is hidden) and the part shown is a contiguous piece of the typed text long enough not to be a
coincidence: half of it, or a quarter (12 characters at least) when it ends or starts it. The glyph
cut at a hidden edge may be read as another letter ("Iltération" for "Altération"): one character at
either end of what was read is not compared.

Anything else is a mismatch: a field with room left (it holds less than was typed), text that is not
in the typed value (text left before the typing: "PETITBERNARD" for "BERNARD"), a slice too short.
What the field hides cannot be read: the check trusts that the typing replaced the field's content
(the agent selects it all before typing).
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.validation.text import folded, ink_mask
from rpa_mcp.vision.images import BBox

MIN_SLICE_CHARS = 6  # a piece shorter than this is a coincidence, not the typed text ...
MIN_SLICE_SHARE = 0.5  # ... and so is one showing less than this share of it
# a piece that ends the typed text (the field scrolled to the caret) or starts it: a long text in a narrow
# field shows less than half of it, and a piece at its very end or start is no coincidence from this on
MIN_EDGE_SLICE_CHARS = 12
MIN_EDGE_SLICE_SHARE = 0.25
BORDER_SHARE = 0.8  # a row or column inked along this share of the strip is the field's border, not text
MAX_GAP_LINES = 1.5  # a full field's text is at most this many line heights from each inner edge ...
FRAME_REACH = 12  # px from a field's edge where its frame (a border, a bevel, a focus ring) may be
CORNER_DEPTH = 3  # px: a frame's top and side lines kept when a box cuts its other two sides off
INK_CONTRAST = 60  # grey levels from the colour inside a field that a line of its frame stands out by
SAME_GAP_LINES = 0.6  # ... and the two gaps differ by less than this (a character's width): nothing left free


def visible_slice(read: str, expected: str) -> bool:
    """`read` is a contiguous piece of `expected`, shorter than it, long enough (one cut glyph at each end
    of `read` aside): half of it, or a quarter for a piece that ends or starts it."""
    got, want = folded(read), folded(expected)
    if not got or got == want or len(got) > len(want):  # longer than the typed text: never a piece of it
        return False
    least = max(MIN_SLICE_CHARS, round(MIN_SLICE_SHARE * len(want)))
    at_edge = max(MIN_EDGE_SLICE_CHARS, round(MIN_EDGE_SLICE_SHARE * len(want)))
    for piece in (got, got[1:], got[:-1], got[1:-1]):
        if not piece or len(piece) >= len(want) or piece not in want:
            continue
        edge = want.startswith(piece) or want.endswith(piece)
        if len(piece) >= (min(least, at_edge) if edge else least):
            return True
    return False


def full_field(image: np.ndarray, strip: BBox) -> bool:
    """Whether the text in a strip across a field (the line typed into, the field's sides included) runs
    from one inner edge to the other, as far from each."""
    x, y, w, h = strip
    region = image[max(0, y) : y + h, max(0, x) : x + w]
    if region.size == 0 or min(region.shape[:2]) < 4:
        return False
    ink = ink_mask(region if region.ndim == 3 else np.dstack([region] * 3)).astype(bool)
    ink = ink[ink.mean(axis=1) < BORDER_SHARE]  # the field's top and bottom borders
    if ink.shape[0] == 0:
        return False
    borders = np.flatnonzero(ink.mean(axis=0) >= BORDER_SHARE)
    half = ink.shape[1] // 2
    inner_left = int(borders[borders < half].max()) + 1 if (borders < half).any() else 0
    inner_right = int(borders[borders >= half].min()) if (borders >= half).any() else ink.shape[1]
    inside = ink[:, inner_left:inner_right]
    columns, rows = np.flatnonzero(inside.any(axis=0)), np.flatnonzero(inside.any(axis=1))
    if columns.size == 0:
        return False
    line_h = max(int(rows[-1] - rows[0] + 1), 6)
    left_gap, right_gap = int(columns[0]), int(inside.shape[1]) - 1 - int(columns[-1])
    return bool(
        max(left_gap, right_gap) <= MAX_GAP_LINES * line_h and abs(left_gap - right_gap) < SAME_GAP_LINES * line_h
    )


def inside_frame(image: np.ndarray, box: BBox) -> BBox:
    """The part of a field's box inside its frame (its border, its bevel, a focus ring): the rows and columns
    near its four edges inked along most of their length are the field's, never its text. Unchanged without a
    closed frame (a box tight around text, a field drawn with a bottom line only); a box cut at a text area's
    corner keeps its top and one side (a bevel and the menu bar's edge above an editor's text)."""
    x, y, w, h = box
    region = image[max(0, y) : y + h, max(0, x) : x + w]
    if region.size == 0 or min(region.shape[:2]) < 8:
        return box
    ink = _unlike_its_inside(region if region.ndim == 3 else np.dstack([region] * 3))
    rows = ink.mean(axis=1) >= BORDER_SHARE
    top, bottom = _frame_depth(rows), _frame_depth(rows[::-1])
    if region.shape[0] - top - bottom < 4:
        return box
    # a side of the frame is measured between the frame's top and bottom: a box taller than the field (padded
    # around it) has rows the side does not reach, and the frame's own rows would count for every column
    columns = ink[top : ink.shape[0] - bottom].mean(axis=0) >= BORDER_SHARE
    left, right = _frame_depth(columns), _frame_depth(columns[::-1])
    inner_w, inner_h = region.shape[1] - left - right, region.shape[0] - top - bottom
    # a frame is closed on three sides at least (a box may cut one side off): a tall letter at a tight box's
    # side is no frame, and a side between the frame's top and bottom lines is no letter
    closed = (left and right and (top or bottom)) or ((left or right) and top and bottom)
    # a box that cuts two sides off (a corner of a text area: the box ends inside it, right and below)
    # keeps the frame's top and one side: both full lines, the side thicker than a letter's stem, the
    # top ending within reach (a title or menu bar running on below it is no frame's top)
    corner = (
        CORNER_DEPTH <= top < rows.size
        and not rows[top]
        and max(left, right) >= CORNER_DEPTH
        and not (bottom or (left and right))
    )
    closed = closed or corner
    if not closed or inner_w < 4 or inner_h < 4:
        return box
    return max(0, x) + left, max(0, y) + top, inner_w, inner_h


def _frame_depth(border: np.ndarray) -> int:
    """How many lines from an edge belong to the frame: up to the last border line within the edge's reach."""
    reach = min(border.size // 3, FRAME_REACH)
    inked = np.flatnonzero(border[:reach])
    return int(inked[-1]) + 1 if inked.size else 0


def _unlike_its_inside(region: np.ndarray) -> np.ndarray:
    """Where a field's region stands out from the colour inside the field (its middle's median): a frame
    drawn in a grey close to the window's around it (a bevel) stands out from the field's white."""
    h, w = region.shape[:2]
    middle = region[h // 4 : h - h // 4, w // 4 : w - w // 4].reshape(-1, region.shape[2])
    inside = np.median(middle, axis=0)
    unlike: np.ndarray = np.abs(region.astype(np.int16) - inside.astype(np.int16)).max(axis=2) > INK_CONTRAST
    return unlike
