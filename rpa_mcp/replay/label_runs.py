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
from rpa_mcp.vision.line_parts import line_parts
from rpa_mcp.vision.ocr import OcrLine

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
    (x, y, w, h), parts = line_parts(image, box)
    if len(parts) < 2:
        return None
    centre = round(w * share(line.text, wanted))
    part = next((p for p in parts if p.left <= centre <= p.right), None)
    if part is None:
        return None
    read = reader.read_line(image[y : y + h, x + part.crop_left : x + part.crop_right])
    if read is None or not _reads_alone(read.text, wanted):
        return None
    return OcrLine(read.text, (x + part.left, y, part.right - part.left, h), float(read.score))


def _whole_run(read: str, label: str, start: int) -> bool:
    """The label stands between spaces (or the line's ends) in the line: whole words, not a word's part."""
    end = start + len(label)
    return (start == 0 or read[start - 1] == " ") and (end == len(read) or read[end] == " ") and read != label


def _has_full_height(text: str) -> bool:
    """The line holds a capital, a digit or a tall letter: its ink is the text's whole height."""
    return any(c.isupper() or c in TALL for c in text)


def _reads_alone(text: str, wanted: str) -> bool:
    return any(read == label and label for read, label in zip(letter_forms(text), letter_forms(wanted), strict=True))
