"""Text lines found in a region, so that a recognition-only OCR reads a whole line at once."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation.text import text_line_boxes


def field_with_text(words: list[str], *, gap: int = 14, caret: bool = True) -> tuple[np.ndarray, int]:
    """A text area (a dark border) holding one line of words spaced like a browser draws them, and the
    x where the line ends (the caret)."""
    image = np.full((170, 950, 3), 255, np.uint8)
    cv2.rectangle(image, (16, 16), (934, 150), (40, 40, 40), 2)
    x = 26
    for word in words:
        cv2.putText(image, word, (x, 44), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 1, cv2.LINE_AA)
        (w, _), _ = cv2.getTextSize(word, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)
        x += w + gap
    end = x - gap + 3
    if caret:
        cv2.line(image, (end, 26), (end, 50), (0, 0, 0), 1)
    return image, end


def test_the_words_of_a_typed_line_are_one_line_box_caret_included():
    image, end = field_with_text(["Deuxieme", "note:", "tout", "va", "bien."])
    boxes = text_line_boxes(image)
    assert len(boxes) == 1
    x, y, w, h = boxes[0]
    assert x <= 28 and x + w >= end and 20 <= y + h <= 60


def test_two_lines_stay_two_boxes_in_reading_order():
    image, _ = field_with_text(["Patient", "calme"], caret=False)
    cv2.putText(image, "douleur 2/10", (26, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 1, cv2.LINE_AA)
    boxes = text_line_boxes(image)
    assert len(boxes) == 2 and boxes[0][1] < boxes[1][1]


def test_words_far_apart_are_separate_lines():
    boxes = text_line_boxes(field_with_text(["Nom", "Prenom"], gap=200, caret=False)[0])
    assert len(boxes) == 2
