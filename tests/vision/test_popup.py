"""A pop-up list opened by a click, told from the screen alone: a surface that appeared by the control."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.popup import opened_list

COMBO = (400, 300)  # where the drop-down was clicked


def form() -> np.ndarray:
    img = np.full((540, 960, 3), 200, np.uint8)  # a grey dialog
    cv2.rectangle(img, (330, 290), (500, 310), (255, 255, 255), -1)  # the drop-down, showing its first option
    cv2.putText(img, "Name", (340, 360), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (20, 20, 20), 1, cv2.LINE_AA)
    return img


def with_list(img: np.ndarray, top: int = 312, height: int = 100) -> np.ndarray:
    out = img.copy()
    cv2.rectangle(out, (330, top), (500, top + height), (255, 255, 255), -1)
    cv2.rectangle(out, (330, top), (500, top + height), (0, 0, 0), 1)
    for row in range(4):
        cv2.putText(out, f"Item {row}", (336, top + 18 + 22 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    return out


def test_a_list_that_appeared_under_the_clicked_control_holds_the_next_click() -> None:
    box = opened_list(form(), with_list(form()), COMBO, (420, 350))
    assert box is not None
    x, y, w, h = box
    assert 325 <= x <= 332 and 308 <= y <= 314 and 165 <= w <= 180 and 95 <= h <= 106, box


def test_a_list_that_opened_upwards_or_over_the_control_counts_too() -> None:
    assert opened_list(form(), with_list(form(), top=180, height=100), COMBO, (420, 230)) is not None
    assert opened_list(form(), with_list(form(), top=260, height=120), COMBO, (420, 350)) is not None


def test_a_click_outside_the_list_is_no_choice() -> None:
    assert opened_list(form(), with_list(form()), COMBO, (700, 350)) is None


def test_a_surface_far_from_the_clicked_control_was_not_opened_by_it() -> None:
    after = with_list(form(), top=420, height=100)
    assert opened_list(form(), after, COMBO, (420, 470)) is None


def test_results_written_into_a_list_already_shown_are_not_a_pop_up() -> None:
    before = form()
    cv2.rectangle(before, (330, 312), (700, 480), (255, 255, 255), -1)  # an empty results list, already there
    after = before.copy()
    for row in range(6):  # a search filled it: text on a surface that was already there
        text = f"DUBOIS Marcel 5003{row} Cardiologie"
        cv2.putText(after, text, (336, 330 + 22 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    assert opened_list(before, after, COMBO, (360, 326)) is None


def test_a_dialog_as_large_as_the_window_is_not_a_pop_up() -> None:
    after = form()
    cv2.rectangle(after, (100, 312), (900, 530), (250, 250, 250), -1)
    assert opened_list(form(), after, COMBO, (420, 350)) is None


def test_frames_of_different_sizes_say_nothing() -> None:
    assert opened_list(form(), with_list(form())[:500], COMBO, (420, 350)) is None


def test_the_hovered_option_highlighted_like_the_window_behind_is_still_in_the_list() -> None:
    # the pointer rests on the option before the press: its row is highlighted in the window's own grey
    after = with_list(form())
    after[344:362, 331:500] = 200
    box = opened_list(form(), after, COMBO, (420, 352))
    assert box is not None and box[1] <= 312 and box[1] + box[3] >= 400, box
