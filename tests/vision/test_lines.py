"""Text lines found by morphology: an icon as tall as two lines beside them is not part of either."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from rpa_mcp.vision.lines import text_lines


def write(img: np.ndarray, words: str, x: int, y: int, scale: float = 0.45) -> None:
    cv2.putText(img, words, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (235, 235, 235), 1, cv2.LINE_AA)


TOAST = Path(__file__).resolve().parents[1] / "fixtures" / "lines" / "defender-toast-win11-dark.png"
TOAST_BOX = (1542, 368, 368, 122)  # the notification in that picture: x, y, w, h


def toast() -> np.ndarray:
    """The lower half of a 1080p frame of the project's screen generator (`rpa_mcp.screens`, tuning
    split): a dark Windows 11 "Virus & threat protection" notification, a red badge beside its title
    and its sentence, as tall as both."""
    image = cv2.imread(str(TOAST))
    x, y, w, h = TOAST_BOX
    return image[y : y + h, x : x + w]


def test_a_badge_as_tall_as_two_lines_is_left_out_and_the_lines_stay_apart():
    lines = [b for b in text_lines(toast()) if b[2] >= 40]

    assert len(lines) == 4, lines  # the header, the title, the sentence and its end: no box for the badge
    header, title, sentence, _end = lines
    assert title[1] + title[3] <= sentence[1] + 2, (title, sentence)  # one above the other
    assert title[0] >= 60 and sentence[0] >= 60, lines  # neither begins at the badge (x 15-64)
    assert header[1] < title[1]


def test_an_icon_of_the_text_s_own_height_is_still_read_with_its_line():
    img = np.full((60, 300, 3), (43, 43, 43), np.uint8)
    cv2.rectangle(img, (20, 22), (34, 36), (200, 120, 40), -1)  # a favicon beside a label, as tall as it
    write(img, "Patient record", 40, 35)

    lines = text_lines(img)

    assert len(lines) == 1, lines
    assert lines[0][0] <= 22  # the line begins at the icon, as before: only a taller icon stands apart


def test_a_large_heading_is_one_line_whatever_its_round_letters():
    img = np.full((80, 400, 3), (255, 255, 255), np.uint8)
    cv2.putText(img, "Ordonnance OK", (12, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (20, 20, 20), 2, cv2.LINE_AA)

    lines = text_lines(img)

    assert len(lines) == 1, lines
    assert lines[0][2] > 250


def test_a_bar_across_a_label_crop_is_left_out_of_its_ink() -> None:
    from rpa_mcp.vision.lines import ink_box

    crop = np.full((45, 110, 3), (219, 222, 225), np.uint8)
    cv2.putText(crop, "courrier.txt", (8, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (40, 40, 40), 1)
    crop[36:40, :] = (228, 132, 53)  # a tab's underline, under the label and across the crop
    inked = ink_box(crop)
    assert inked.shape[0] <= 30  # the letters and their margin, not the bar ten rows under them
