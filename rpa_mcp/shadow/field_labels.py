"""The text that names a text field, read on the screen around it, and a line read whole.

A text field's accessible name may be empty (a web form's label in a table cell with no `for`) or be
what the field itself shows (Chromium names a field without a label by its placeholder,
"jj/mm/aaaa"). Neither names it as a person does: the label beside it does, left of it on its row,
else above it. `label_line` picks that label among the lines read around the field; text drawn
inside the field (its placeholder, its content) never names it. A click on no text, with no tree, is
named the same way (`row_line`): by the text on its own row first — the label left of a field, the
name at the start of a grid's cell — and by a text above it only when its row holds none.

A line the region read cuts at its side ("seignements cliniques :" for "Renseignements cliniques
:") is read again across a wider strip of the frame, on its own row: `whole_line`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rpa_mcp.shadow.boxes import same_text
from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.ocr import OcrEngine, OcrLine, normalize_text

MIN_SCORE = 0.5
MIN_NAME_CHARS = 2  # letters or digits a label holds at least (a lone '/' or ':' names nothing)
ROW_SLACK = 0.5  # of the field's height: how far a label's middle may stand from the field's row
ABOVE_PX = 2.0  # of the field's height: how far above the field a label standing over it may be
EDGE_PX = 3  # a line this close to a side of the region read may go on past it
LINE_REACH = 300  # px read further on each side of a cut line
STRIP_PAD = 4  # px above and below the cut line in the strip read again
ROW_PX = 3  # px a click may stand above or below a line, or past its end, and still be on its row
ROW_REACH = 150  # px left of a click inside a control where the text on its row still names it
BESIDE_REACH = 60  # px either side of any other click (the reach of a line beside it)

# A format mask shown in an empty field ("jj/mm/aaaa", "dd-mm-yyyy", "__/__/____", "hh:mm"): groups of
# letters or underscores between one repeated separator, most of them one character repeated. OCR may
# misread a letter ("ij/mm/aaaa"): two repeated groups of three are enough. It says what to type, never
# what the field is.
_GROUPS = re.compile(r"^[a-z_]{1,4}(?:([/.:\-])[a-z_]{1,4})(?:\1[a-z_]{1,4})?$")
_REPEATED = re.compile(r"^([a-z_])\1+$")


def is_format_mask(text: str | None) -> bool:
    compact = normalize_text(text or "").replace(" ", "")
    if not _GROUPS.match(compact):
        return False
    groups = re.split(r"[/.:\-]", compact)
    repeated = sum(_REPEATED.match(group) is not None for group in groups)
    return repeated >= 2  # "hh:mm", "dd/mm/yyyy", "ij/mm/aaaa"; not "N/A", not "km/h"


def names_a_field(text: str) -> bool:
    return sum(ch.isalnum() for ch in text) >= MIN_NAME_CHARS and not is_format_mask(text)


def shown_inside(lines: Sequence[OcrLine], name: str, field: BBox) -> bool:
    """Whether a line reading `name` is drawn inside the field (its placeholder or its content)."""
    return any(same_text(line.text, name) and _centre_in(line.bbox, field) for line in lines)


def label_line(lines: Sequence[OcrLine], field: BBox) -> OcrLine | None:
    """The line that labels the field: the nearest left of it on its row, else the nearest just above it
    (over its left part); None when neither is read. Lines inside the field are never its label."""
    fx, fy, fw, fh = field
    row_mid = fy + fh / 2
    left: list[tuple[float, OcrLine]] = []
    above: list[tuple[float, OcrLine]] = []
    for line in lines:
        if line.score < MIN_SCORE or not names_a_field(line.text) or _overlaps(line.bbox, field):
            continue
        x, y, w, h = line.bbox
        if x + w <= fx + EDGE_PX and abs(y + h / 2 - row_mid) <= fh * ROW_SLACK + h / 2:
            left.append((fx - (x + w), line))
        elif y + h <= fy + EDGE_PX and fy - (y + h) <= fh * ABOVE_PX and x < fx + fw / 2 and x + w > fx - fh:
            above.append((fy - (y + h), line))
    for found in (left, above):
        if found:
            return min(found, key=lambda pair: pair[0])[1]
    return None


def row_line(lines: Sequence[OcrLine], point: tuple[float, float], *, reach: float) -> OcrLine | None:
    """The line that names a click on no text by its own row: the nearest line whose height holds the click's,
    left of it within `reach` px (a field's label, the name at the start of a grid's cell) or right of it
    within BESIDE_REACH (a check box's text). None when the row holds no such line: a line above may name it
    then (a field whose label stands over it)."""
    px, py = point
    best, best_d = None, float("inf")
    for line in lines:
        if line.score < MIN_SCORE or not names_a_field(line.text):
            continue
        x, y, w, h = line.bbox
        if not y - ROW_PX <= py <= y + h + ROW_PX:
            continue
        d = px - (x + w) if x + w <= px + ROW_PX else x - px
        if -ROW_PX <= d <= (reach if x + w <= px + ROW_PX else BESIDE_REACH) and d < best_d:
            best, best_d = line, d
    return best


def cut_at_side(line: BBox | tuple[float, ...], region: Sequence[int], frame_width: int) -> bool:
    """Whether a line read in `region` (frame pixels) touches a side of it that is not the frame's own:
    the line may go on past it."""
    x, _, w, _ = line
    rx, _, rw, _ = region
    return (x <= EDGE_PX and rx > 0) or (x + w >= rw - EDGE_PX and rx + rw < frame_width)


def whole_line(ocr: OcrEngine, frame: np.ndarray, line: OcrLine, origin: tuple[int, int]) -> OcrLine | None:
    """The line read again across a strip LINE_REACH wider on each side, on its own row (frame pixels in,
    the same coordinates as `line` out: relative to `origin`). None when the strip reads no longer line
    holding the same text."""
    ox, oy = origin
    x, y, w, h = (round(v) for v in line.bbox)
    strip = clamp_bbox((ox + x - LINE_REACH, oy + y - STRIP_PAD, w + 2 * LINE_REACH, h + 2 * STRIP_PAD), frame.shape)
    sx, sy, sw, sh = strip
    if sw <= w or sh < 4:
        return None
    best: OcrLine | None = None
    for read in ocr.read(frame[sy : sy + sh, sx : sx + sw]):
        bx, by, bw, bh = read.bbox
        box = (sx + bx - ox, sy + by - oy, bw, bh)
        if not _overlaps(box, (x, y, w, h)) or len(normalize_text(read.text)) <= len(normalize_text(line.text)):
            continue
        if not same_text(read.text, line.text) or read.score < MIN_SCORE:
            continue
        if best is None or bw > best.bbox[2]:
            best = OcrLine(read.text, box, read.score)
    return best


def _centre_in(box: BBox | tuple[float, ...], field: BBox) -> bool:
    x, y, w, h = box
    fx, fy, fw, fh = field
    return fx <= x + w / 2 <= fx + fw and fy <= y + h / 2 <= fy + fh


def _overlaps(a: BBox | tuple[float, ...], b: BBox | tuple[float, ...]) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah
