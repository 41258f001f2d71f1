"""A label the text detector ran together with a neighbouring control's text ("Programmé Urgent": two radio
buttons side by side read as one line): the label's own part of the line, cut where the ink leaves a wide gap.

A word space is 0.3–0.6 of the line's ink height; the background between two controls (a radio button's text
and the next one's mark) is wider. The line is cut only at such gaps, the part where the label's characters
fall is recognised alone, and it counts only when it reads the label alone and the label is a whole run of
the line's words: "Urgent" is never taken out of "Non urgent" or a sentence with ordinary spacing (no cut),
nor out of a part that reads more than the label.
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.replay.candidates import Candidate, label_found, letter_forms, share
from rpa_mcp.replay.ports import TextReader
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrLine

WIDE_GAP = 0.8  # background columns, in heights of the line's ink, that part two controls' texts
INK_CONTRAST = 48  # grey levels from the line's background that make a pixel ink (a light radio mark's outline)
MIN_INK_ROWS = 6  # fewer inked rows: no text height to measure a gap against
# letters (and signs) reaching above or below the small letters: a line without any has only their height,
# against which a word space looks wide
TALL = frozenset("bdfhklgjpqyt0123456789()[]{}/|")


def label_part_candidate(image: np.ndarray, cand: Candidate, wanted: str, reader: TextReader) -> Candidate | None:
    """A region's candidate line cut to the label's own part (`label_part`), as a candidate of its own, scored
    as the label alone (its part's reading); None when the line has no such part."""
    if cand.line_box is None or cand.read_score is None or cand.read_text is None:
        return None
    part = label_part(image, OcrLine(cand.read_text, cand.line_box, cand.read_score), cand.line_box, wanted, reader)
    if part is None:
        return None
    (x, y, w, h), score = part.bbox, float(part.score)
    centre = x + w // 2
    return Candidate(
        centre,
        y + h // 2,
        score,
        cand.method,
        part.bbox,
        score,
        centre,
        label_left=x,
        label_right=x + w,
        first_look=True,
    )


def label_part(image: np.ndarray, line: OcrLine, box: BBox, wanted: str, reader: TextReader) -> OcrLine | None:
    """The label's own part of a longer line read at `box` (absolute pixels of `image`), recognised alone: its
    reading and its box (absolute, the part's ink across the line's rows); None when the line shows the label
    inside longer text that no wide gap parts, or the part reads anything but the label alone."""
    found = label_found(line.text, wanted)
    if found is None or not _whole_run(*found) or not _has_full_height(line.text):
        return None
    x, y, w, h = _clamped(box, image.shape)
    if w <= 4 or h <= 4:
        return None
    columns, height = _ink_columns(image[y : y + h, x : x + w])
    if height < MIN_INK_ROWS:
        return None
    parts = _parts(columns, WIDE_GAP * height)
    if len(parts) < 2:
        return None
    centre = round(w * share(line.text, wanted))
    at = next((i for i, (left, right, _, _) in enumerate(parts) if left <= centre <= right), None)
    if at is None:
        return None
    left, right, crop_left, crop_right = parts[at]
    read = reader.read_line(image[y : y + h, x + crop_left : x + crop_right])
    if read is None or not _reads_alone(read.text, wanted):
        return None
    return OcrLine(read.text, (x + left, y, right - left, h), float(read.score))


def _whole_run(read: str, label: str, start: int) -> bool:
    """The label stands between spaces (or the line's ends) in the line: whole words, not a word's part."""
    end = start + len(label)
    return (start == 0 or read[start - 1] == " ") and (end == len(read) or read[end] == " ") and read != label


def _has_full_height(text: str) -> bool:
    """The line holds a capital, a digit or a tall letter: its ink is the text's whole height."""
    return any(c.isupper() or c in TALL for c in text)


def _reads_alone(text: str, wanted: str) -> bool:
    return any(read == label and label for read, label in zip(letter_forms(text), letter_forms(wanted), strict=True))


def _clamped(box: BBox, shape: tuple[int, ...]) -> BBox:
    x0, y0 = max(0, box[0]), max(0, box[1])
    x1, y1 = min(shape[1], box[0] + box[2]), min(shape[0], box[1] + box[3])
    return x0, y0, x1 - x0, y1 - y0


def _ink_columns(crop: np.ndarray) -> tuple[np.ndarray, int]:
    """The crop's columns holding ink (against the median of its border, the line's background) and the
    height of its ink (first to last inked row)."""
    grey = crop.astype(np.int16).mean(axis=2) if crop.ndim == 3 else crop.astype(np.int16)
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    ink = np.abs(grey - np.median(border)) >= INK_CONTRAST
    rows = np.flatnonzero(ink.any(axis=1))
    return ink.any(axis=0), int(rows[-1] - rows[0] + 1) if rows.size else 0


def _parts(columns: np.ndarray, wide: float) -> list[tuple[int, int, int, int]]:
    """The line's parts between wide gaps: (first inked column, end of the last, crop start, crop end), each
    crop reaching to the middle of the gaps beside it (the line's ends beyond the first and last)."""
    inked = np.flatnonzero(columns)
    if inked.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(inked) - 1 >= wide)  # index of the last inked column before each wide gap
    starts = [int(inked[0])] + [int(inked[i + 1]) for i in breaks]
    ends = [int(inked[i]) + 1 for i in breaks] + [int(inked[-1]) + 1]
    middles = [(end + start) // 2 for end, start in zip(ends[:-1], starts[1:], strict=True)]
    crop_starts, crop_ends = [0, *middles], [*middles, len(columns)]
    return list(zip(starts, ends, crop_starts, crop_ends, strict=True))
