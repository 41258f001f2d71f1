"""The state of the check box beside a label, read from the pixels; never guessed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rpa_mcp.vision.checkbox import box_state

LABEL = (334, 302, 80, 18)  # the line "Urgent" as OCR boxes it


def form(style: str, *, ticked: bool, scale: float = 1.0) -> np.ndarray:
    img = np.full((480, 640, 3), 246, np.uint8)
    x, y, side = 300, 300, 22
    if style == "outlined":
        cv2.rectangle(img, (x, y), (x + side, y + side), (90, 90, 90), 2)
        if ticked:
            cv2.line(img, (x + 4, y + 11), (x + 9, y + 17), (20, 20, 20), 3)
            cv2.line(img, (x + 9, y + 17), (x + 18, y + 4), (20, 20, 20), 3)
    elif style == "filled":  # a modern check box: filled with the accent colour when ticked
        if ticked:
            cv2.rectangle(img, (x, y), (x + side, y + side), (173, 92, 11), -1)
            cv2.line(img, (x + 5, y + 11), (x + 9, y + 16), (255, 255, 255), 2)
            cv2.line(img, (x + 9, y + 16), (x + 17, y + 5), (255, 255, 255), 2)
        else:
            cv2.rectangle(img, (x, y), (x + side, y + side), (140, 140, 140), 1)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("style", ["outlined", "filled"])
def test_a_ticked_box_reads_ticked_and_a_blank_one_blank(style: str) -> None:
    assert box_state(form(style, ticked=True), LABEL) is True
    assert box_state(form(style, ticked=False), LABEL) is False


def test_a_label_without_a_box_beside_it_says_nothing() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    assert box_state(img, LABEL) is None


def test_a_box_on_the_right_of_its_label_is_found_too() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.rectangle(img, (430, 300), (452, 322), (90, 90, 90), 2)
    cv2.line(img, (434, 311), (439, 317), (20, 20, 20), 3)
    cv2.line(img, (439, 317), (448, 304), (20, 20, 20), 3)
    assert box_state(img, LABEL) is True


def test_a_round_letter_before_the_label_is_never_taken_for_a_box() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Non o", (220, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    assert box_state(img, LABEL) is None


def small_box_in_its_line(*, ticked: bool) -> np.ndarray:
    """A classic toolkit's check button: a 11 px box, its text beside it, OCR boxing both as one padded line."""
    img = np.full((480, 640, 3), 214, np.uint8)
    cv2.rectangle(img, (306, 303), (316, 313), (60, 60, 60), 1)
    cv2.rectangle(img, (307, 304), (315, 312), (255, 255, 255), -1)
    if ticked:
        cv2.line(img, (308, 308), (310, 311), (0, 0, 0), 2)
        cv2.line(img, (310, 311), (314, 305), (0, 0, 0), 2)
    cv2.putText(img, "Urgent delivery", (322, 313), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize(
    "line",
    [(300, 296, 140, 24), (296, 294, 150, 28)],  # as the learning's OCR boxes it, as the replay's resolver does
)
def test_a_small_box_ocr_boxed_with_its_text_is_read_at_the_line_start(line: tuple[int, int, int, int]) -> None:
    # the line's box starts before the box and is twice (or more) as tall as it: its side is measured
    # against the text's own height
    assert box_state(small_box_in_its_line(ticked=True), line) is True
    assert box_state(small_box_in_its_line(ticked=False), line) is False
