"""The control's mark beside a label, read from the pixels: a check box's square or a radio button's round mark.

Looked for on the label's left, then on its right (`checkbox.bands_beside`); on a side holding both, the
one nearest the label is the label's. A square is never read as a radio mark (`radio`), nor a round mark as a
check box: a ring's hole, square at its corners, is the round mark's inside.

Each mark read says where it stands (`Place`): its side of the label, the background between it and the
label's text and its size, both in heights of the line's text (the same at any scale). A step learned from a
demonstration keeps the mark the person used (`Learned`); read with it at replay, a mark of another kind or
at another place is not the step's mark (a round letter before the label, a bullet, another control's mark):
its state is unknown, never taken for the step's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

import numpy as np

from rpa_mcp.vision.checkbox import INK, Band, bands_beside, frame_sides, square_in, ticked_in
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.radio import circle_in, selected_in

Kind = Literal["box", "radio"]
Side = Literal["left", "right"]
GAP_TOLERANCE = 0.5  # text heights a mark may stand nearer its label or farther than the one learned ...
SIZE_TOLERANCE = 0.3  # ... and be larger or smaller (a round letter is a text height, a radio mark larger)
GAP_REACH = 4.0  # text heights looked across for the label's text from the mark (farther: that far)


@dataclass(frozen=True)
class Place:
    """Where a mark stands beside its label: `gap`, the background between it and the label's text, and
    `size`, its side (diameter), both in heights of the line's text."""

    side: Side
    gap: float
    size: float


@dataclass(frozen=True)
class Mark:
    kind: Kind
    state: bool | None  # ticked (selected), blank (not selected), None when its inside says neither
    place: Place | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Learned:
    """The mark a step was learned with: its kind and its place beside the label (a step's `target.mark`)."""

    kind: Kind
    place: Place

    def as_json(self) -> dict[str, Any]:
        p = self.place
        return {"kind": self.kind, "side": p.side, "gap": round(p.gap, 2), "size": round(p.size, 2)}

    @classmethod
    def of(cls, mark: Mark) -> Learned | None:
        return cls(mark.kind, mark.place) if mark.place is not None else None

    def fits(self, mark: Mark) -> bool:
        """The mark read is this one: its kind, on its side, about as far from the label and as large."""
        p, q = self.place, mark.place
        return (
            q is not None
            and mark.kind == self.kind
            and q.side == p.side
            and abs(q.gap - p.gap) <= GAP_TOLERANCE
            and abs(q.size - p.size) <= SIZE_TOLERANCE
        )


def learned_mark(value: object) -> Learned:
    """A step's learned mark from its JSON form; ValueError when it is not one."""
    if not isinstance(value, Mapping):
        raise ValueError("a learned mark is an object {kind, side, gap, size}")
    kind, side, gap, size = (value.get(k) for k in ("kind", "side", "gap", "size"))
    if kind not in ("box", "radio") or side not in ("left", "right"):
        raise ValueError("a learned mark's kind is box or radio, its side left or right")
    if not (_number(gap) and _number(size)):
        raise ValueError("a learned mark's gap and size are numbers (text heights)")
    place = Place("left" if side == "left" else "right", float(gap), float(size))
    return Learned("box" if kind == "box" else "radio", place)


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def mark_beside(image: np.ndarray, line: BBox, learned: Learned | None = None) -> Mark | None:
    """The check box or radio button beside the label, with its state and place; None when neither is there.
    With the mark the step was learned with, only that mark: the nearest one on its side, of its kind and at
    its place (else None: what is read there is not the step's mark)."""
    for band in bands_beside(image, line):
        if learned is not None and band.left != (learned.place.side == "left"):
            continue
        found = _nearest(band)
        if learned is not None:
            return found if found is not None and learned.fits(found) else None
        if found is not None:
            return found
    return None


def _nearest(band: Band) -> Mark | None:
    square, circle = square_in(band), circle_in(band)
    if square is not None and circle is not None:
        square_nearer = square[0] > circle[0] if band.left else square[0] < circle[0]
        square, circle = (square, None) if square_nearer and not _within(square, circle) else (None, circle)
    found = square if square is not None else circle
    if found is None:
        return None
    place, beyond = _place(band, found)
    if beyond < place.gap:
        return None  # nearer the text on its other side than the label: a word of that text, or another's mark
    if square is not None:
        return Mark("box", ticked_in(band, square), place)
    return Mark("radio", selected_in(band, found), place)


def _place(band: Band, found: tuple[int, int, int]) -> tuple[Place, float]:
    """Where the mark found in the (widened) band stands: the background between it and the nearest ink of
    the line's text beside it (on the image: OCR may box the mark with its text), and its size; and the
    background between it and the text on its other side (in text heights, `GAP_REACH` when none is near)."""
    x, _, side = found
    left_edge = band.x0 + x  # the same origin in the band and its widened form
    top = max(0, round(band.centre_y - band.text_h / 2))
    inked = _text_columns(band, top)
    reach = round(GAP_REACH * band.text_h)
    after = inked[left_edge + side - 1 : left_edge + side + reach]
    before = inked[max(0, left_edge - reach) : left_edge + 1][::-1]
    to_label, beyond = (after, before) if band.left else (before, after)
    gap, other = _background_run(to_label, reach), _background_run(beyond, reach)
    return Place("left" if band.left else "right", gap / band.text_h, side / band.text_h), other / band.text_h


def _text_columns(band: Band, top: int) -> np.ndarray:
    """The image's columns holding ink in the line's text rows, a frame's sides apart (`checkbox.frame_sides`)."""
    ink = np.abs(band.rows.astype(np.int16) - band.background) > INK
    text: np.ndarray = ink[top : top + band.text_h].any(axis=0) & ~frame_sides(band, ink, top, top + band.text_h)
    return text


def _background_run(columns: np.ndarray, reach: int) -> int:
    """The background columns between the mark's own outline (the first columns, inked) and the next ink."""
    off = np.flatnonzero(~columns)
    if off.size == 0:
        return 0
    on = np.flatnonzero(columns[off[0] :])
    return int(on[0]) if on.size else reach


def _within(square: tuple[int, int, int], circle: tuple[int, int, int]) -> bool:
    """A square whose middle lies in the round mark is that mark's inside (a ring's hole, square at its corners)."""
    (sx, sy, side), (cx, cy, diameter) = square, circle
    return cx <= sx + side / 2 <= cx + diameter and cy <= sy + side / 2 <= cy + diameter
