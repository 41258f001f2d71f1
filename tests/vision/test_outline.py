"""A rectangle newly drawn on the screen, told by its outline: new in the frame after, not only present."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.outline import new_outline

GREY = 200


def panel() -> np.ndarray:
    return np.full((300, 400, 3), GREY, np.uint8)


def framed(img: np.ndarray) -> np.ndarray:
    out = img.copy()
    cv2.rectangle(out, (100, 80), (260, 200), (0, 0, 0), 1)
    cv2.putText(out, "Option", (104, 100), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    return out


def test_a_frame_drawn_over_the_panel_is_a_new_outline() -> None:
    before, after = panel(), framed(panel())
    box = new_outline(before, after, (100, 80, 161, 121), (180, 140))
    assert box is not None
    x, y, w, h = box
    assert 97 <= x <= 101 and 77 <= y <= 81 and 158 <= w <= 166 and 118 <= h <= 126, box


def test_a_frame_already_on_the_screen_is_not_new_even_where_its_inside_changed() -> None:
    before = framed(panel())
    after = before.copy()
    after[81:200, 101:260] = 230  # everything inside it repainted: its outline stayed
    assert new_outline(before, after, (99, 79, 163, 123), (180, 140)) is None


def test_a_frame_that_closed_leaves_no_outline_in_the_frame_after() -> None:
    before, after = framed(panel()), panel()
    assert new_outline(before, after, (100, 80, 161, 121), (180, 140)) is None


def test_a_point_outside_the_frame_has_no_outline_around_it() -> None:
    before, after = panel(), framed(panel())
    assert new_outline(before, after, (100, 80, 161, 121), (300, 140)) is None


def test_text_alone_has_no_outline() -> None:
    before = panel()
    after = before.copy()
    for row in range(4):
        cv2.putText(after, "Lorem ipsum dolor", (104, 100 + 20 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 2)
    assert new_outline(before, after, (100, 80, 200, 100), (150, 120)) is None
