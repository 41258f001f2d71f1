"""A label read with one thin stroke too many ("Flile" for "File") is read again, drawn larger: that reading
decides. The near miss itself is never taken for the label ("Fille" is another word)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.vision.ocr import OcrLine
from tests.validation.test_ocr_regions import write


@dataclass
class ScaleOcr:
    """Reads `small` on the first crop it is given and `larger` on any taller one."""

    small: str
    larger: str
    heights: list[int] = field(default_factory=list)

    def read(self, image: np.ndarray) -> list[OcrLine]:
        raise AssertionError("no checker runs the text detector")

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        self.heights.append(image.shape[0])
        text = self.small if image.shape[0] <= self.heights[0] else self.larger
        return OcrLine(text, (0, 0, image.shape[1], image.shape[0]), 0.9)

    def read_lines(self, images: list[np.ndarray]) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def label_score(ocr: ScaleOcr) -> float | None:
    frame = np.full((120, 300, 3), 240, np.uint8)
    write(frame, "File", 20, 40)
    ctx = CheckContext(
        "click_anchor", frame, frame.copy(), Target("File", (14, 22, 44, 26)), Expected(), Observed(), ocr
    )
    return ALL_CHECKERS["OcrRoiChecker"].check(ctx, "label", {"frame": "before"}).score


def test_a_label_read_with_a_thin_stroke_too_many_is_the_label_when_read_larger() -> None:
    ocr = ScaleOcr("Flile", "File")
    assert label_score(ocr) == 1.0
    assert len(ocr.heights) == 2 and ocr.heights[1] >= 2 * ocr.heights[0]


def test_another_word_read_larger_is_not_the_label() -> None:
    ocr = ScaleOcr("Flile", "Fille")  # one 'l' too many for "File", and a word of its own
    assert label_score(ocr) == 0.0


def test_a_reading_that_is_no_near_miss_is_not_read_again() -> None:
    ocr = ScaleOcr("Edit", "File")
    assert label_score(ocr) == 0.0 and len(ocr.heights) == 1
    ocr = ScaleOcr("Fixle", "File")  # a letter too many, but no thin stroke: leaving one out is no "File"
    assert label_score(ocr) == 0.0 and len(ocr.heights) == 1
