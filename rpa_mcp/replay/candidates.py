"""A place where a target may be (`Candidate`), and the reading of OCR lines that show a target's label:
its score as the label, where the label is along the line, a field placed beside its label."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrLine, normalize_text

SPACE_BEFORE_MARK = re.compile(r" ([:;!?])")  # French typography's space, read or not

LINE_PAD = (8, 4)  # around a remembered label line: the crop recognised by the quick label check


@dataclass
class Candidate:
    x: int
    y: int
    score: float
    method: str
    line_box: BBox | None = None  # where the label's line was read (absolute pixels), for OCR hits
    read_score: float | None = None  # the OCR's own confidence in that line (before the label's share of it)
    label_x: int | None = None  # where in that line the label itself is (its share of the line's width)
    click_x: int | None = None  # where to click once accepted, when not at x (a row's cell: its label)
    label_left: int | None = None  # where in that line the label begins (the line may read more before it)
    label_right: int | None = None  # and where it ends
    judged_at: tuple[int, int] | None = None  # where the drift guard judges it, when clicked elsewhere (a field)
    first_look: bool = False  # read in the small region around the recorded point (`replay.first_look`)
    rivals: tuple[tuple[int, int], ...] = ()  # other rows that read the same record (never clicked: ambiguous)
    read_text: str | None = None  # the line as read, for OCR hits of a region's lines


def showing(lines: list[OcrLine], wanted: str, origin: tuple[int, int]) -> list[Candidate]:
    """The lines (read in a region at `origin`) that show the wanted label, best first (reading order among
    equal scores)."""
    x0, y0 = origin
    found: list[Candidate] = []
    for line in lines:
        score = label_score(line.text, float(line.score), wanted)
        if score is None:
            continue
        bx, by, bw, bh = line.bbox
        box = (x0 + bx, y0 + by, bw, bh)
        centre = x0 + bx + round(bw * share(line.text, wanted))
        left = x0 + bx + round(bw * share(line.text, wanted, at=0.0))
        right = x0 + bx + round(bw * share(line.text, wanted, at=1.0))
        found.append(
            Candidate(
                x0 + bx + bw // 2,
                y0 + by + bh // 2,
                score,
                "hybrid_text_direct",
                box,
                float(line.score),
                centre,
                label_left=left,
                label_right=right,
                read_text=line.text,
            )
        )
    found.sort(key=lambda c: -c.score)
    return found


def label_score(text: str, score: float, wanted: str) -> float | None:
    """A read line's score as the label: its own for the label alone, lowered for the label inside
    longer text, None when it does not show the label (compared as read, else as the letters look: `letter_forms`)."""
    found = label_found(text, wanted)
    if found is None:
        return None
    read, label, _start = found
    return score if read == label else score * (len(label) / len(read)) ** 0.25


def letter_forms(text: str) -> tuple[str, str]:
    """Text normalised (`normalize_text`, no space before a colon: a read drops or adds the French one,
    "Examen:" for "Examen :"), and as its letters look: a capital I taken for the small l it is drawn as in a
    sans-serif font ("lonogramme" read for "Ionogramme")."""
    return _tight(normalize_text(text)), _tight(normalize_text(text.replace("I", "l")))


def _tight(text: str) -> str:
    return SPACE_BEFORE_MARK.sub(r"\1", text)


def label_found(text: str, wanted: str) -> tuple[str, str, int] | None:
    """(the line, the label, where the label starts in it), in the first form that shows the label; None when
    neither does."""
    for read, label in zip(letter_forms(text), letter_forms(wanted), strict=True):
        if read and label and label in read:
            return read, label, read.find(label)
    return None


def beside(cand: Candidate | None, spec: Mapping[str, Any], shape: tuple[int, ...]) -> Candidate | None:
    """A field whose label stands beside it (a native form): the label's line found, the field is where it
    was from its label in the demonstration (`label_offset`, frame pixels, wherever the window now is)."""
    offset, size = spec.get("label_offset"), spec.get("frame_size")
    if cand is None or cand.line_box is None or not isinstance(offset, list | tuple) or len(offset) != 2:
        return cand
    scale = shape[1] / size[0] if isinstance(size, list | tuple) and size and size[0] else 1.0
    dx, dy = float(offset[0]) * scale, float(offset[1]) * scale
    width = spec.get("label_width")  # the line's width when only the screen named the target, beside the line
    if isinstance(width, int | float) and offset[0] >= width and cand.label_right is not None:
        x = cand.label_right + (float(offset[0]) - width) * scale  # right of the line: from its end
    else:
        x = (cand.label_left if cand.label_left is not None else cand.line_box[0]) + dx
    return replace(cand, x=round(x), y=round(cand.line_box[1] + dy))


def share(text: str, wanted: str, *, at: float = 0.5) -> float:
    """Where a point of the label (`at`: 0 its start, 0.5 its middle) is along a line that shows it (0 left,
    1 right), by characters."""
    found = label_found(text, wanted)
    if found is None:
        return at
    read, label, start = found
    return (start + len(label) * at) / len(read)


def within(box: BBox, region: BBox, image: np.ndarray, margin: int = 2) -> bool:
    """`box` keeps `margin` px from each side of `region` that is not the frame's own edge (nothing beyond it)."""
    h, w = image.shape[:2]
    x, y, bw, bh = box
    rx, ry, rw, rh = region
    return (
        (rx == 0 or x - rx >= margin)
        and (ry == 0 or y - ry >= margin)
        and (rx + rw == w or rx + rw - (x + bw) >= margin)
        and (ry + rh == h or ry + rh - (y + bh) >= margin)
    )


def label_span(cand: Candidate) -> BBox:
    """Where the label's words are on the candidate's line (its share of the line, by characters)."""
    assert cand.line_box is not None
    x, y, w, h = cand.line_box
    left = cand.label_left if cand.label_left is not None else x
    right = cand.label_right if cand.label_right is not None else x + w
    return left, y, max(1, right - left), h


def padded(box: BBox) -> BBox:
    x, y, w, h = box
    px, py = LINE_PAD
    return x - px, y - py, w + 2 * px, h + 2 * py


def inside(box: BBox, outer: BBox) -> BBox | None:
    """The part of `box` inside `outer` (None when they do not overlap)."""
    x0, y0 = max(box[0], outer[0]), max(box[1], outer[1])
    x1, y1 = min(box[0] + box[2], outer[0] + outer[2]), min(box[1] + box[3], outer[1] + outer[3])
    return (x0, y0, x1 - x0, y1 - y0) if x1 > x0 and y1 > y0 else None
