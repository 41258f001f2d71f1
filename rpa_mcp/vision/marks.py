"""The control's mark beside a label, read from the pixels: a check box's square or a radio button's round mark.

Looked for on the label's left, then on its right (`checkbox.bands_beside`); on a side holding both, the
one nearest the label is the label's. A square is never read as a radio mark (`radio`), nor a round mark as a
check box: a ring's hole, square at its corners, is the round mark's inside.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np

from rpa_mcp.vision.checkbox import bands_beside, square_in, ticked_in
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.radio import circle_in, selected_in


class Mark(NamedTuple):
    kind: Literal["box", "radio"]
    state: bool | None  # ticked (selected), blank (not selected), None when its inside says neither


def mark_beside(image: np.ndarray, line: BBox) -> Mark | None:
    """The check box or radio button beside the label, with its state; None when neither is there."""
    for band in bands_beside(image, line):
        square, circle = square_in(band), circle_in(band)
        if square is not None and circle is not None:
            square_nearer = square[0] > circle[0] if band.left else square[0] < circle[0]
            square, circle = (square, None) if square_nearer and not _within(square, circle) else (None, circle)
        if square is not None:
            return Mark("box", ticked_in(band, square))
        if circle is not None:
            return Mark("radio", selected_in(band, circle))
    return None


def _within(square: tuple[int, int, int], circle: tuple[int, int, int]) -> bool:
    """A square whose middle lies in the round mark is that mark's inside (a ring's hole, square at its corners)."""
    (sx, sy, side), (cx, cy, diameter) = square, circle
    return cx <= sx + side / 2 <= cx + diameter and cy <= sy + side / 2 <= cy + diameter
