"""A text field's own box around a click, from the pixels: its flat inside bounded by its border."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.fields import field_around


def form(*, text: str = "") -> np.ndarray:
    img = np.full((540, 960, 3), 200, np.uint8)  # a grey window
    cv2.putText(img, "Drug :", (300, 305), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (20, 20, 20), 1, cv2.LINE_AA)
    cv2.rectangle(img, (439, 289), (701, 311), (90, 90, 90), 1)  # a sunken field's border
    cv2.rectangle(img, (440, 290), (700, 310), (255, 255, 255), -1)
    if text:
        cv2.putText(img, text, (444, 306), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.rectangle(img, (300, 340), (316, 356), (40, 40, 40), 1)  # a check box
    cv2.rectangle(img, (301, 341), (315, 355), (255, 255, 255), -1)
    return img


def test_a_click_inside_an_empty_field_gives_the_field_inside() -> None:
    assert field_around(form(), (452, 300)) == (440, 290, 261, 21)


def test_text_already_in_the_field_leaves_the_box_whole_even_when_the_click_is_on_a_letter() -> None:
    image = form(text="Paracetamol 1 g")
    dark = np.argwhere(image[292:309, 444:520].max(axis=2) < 100)[0]
    assert field_around(image, (444 + int(dark[1]), 292 + int(dark[0]))) == (440, 290, 261, 21)


def test_the_window_background_a_label_or_a_check_box_is_no_field() -> None:
    assert field_around(form(), (800, 450)) is None  # the window itself: far too wide
    assert field_around(form(), (308, 348)) is None  # a square
    assert field_around(form(), (2000, 10)) is None  # outside the frame
