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


# --- a list drawn in the window's own grey: few of its pixels change, its outline does ---------------------
PANEL = 200  # the window's grey, which the list's background shares
OPTIONS = ("- choisir -", "Globules rouges", "Plasma frais", "Plaquettes", "Cryoprecipite")


def grey_form() -> np.ndarray:
    """A form in the window's grey: the drop-down, two white fields and a check box under it."""
    img = np.full((540, 960, 3), PANEL, np.uint8)
    cv2.rectangle(img, (330, 290), (500, 310), (120, 130, 140), 1)  # the drop-down, drawn on the panel
    cv2.putText(img, "- choisir -", (336, 305), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    for left, top, right in ((330, 322, 390), (334, 346, 470)):
        cv2.rectangle(img, (left, top), (right, top + 16), (255, 255, 255), -1)
        cv2.rectangle(img, (left, top), (right, top + 16), (120, 130, 140), 1)
    cv2.rectangle(img, (334, 374), (344, 384), (120, 130, 140), 1)
    cv2.putText(img, "Produit irradie", (350, 384), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    return img


def with_grey_list(img: np.ndarray, hovered: int = 1) -> np.ndarray:
    """The drop-down's list open under it: the window's grey, a black border, one row highlighted."""
    out = img.copy()
    cv2.rectangle(out, (330, 312), (500, 412), (PANEL, PANEL, PANEL), -1)
    cv2.rectangle(out, (331, 314 + 19 * hovered), (499, 331 + 19 * hovered), (204, 154, 154), -1)
    cv2.rectangle(out, (330, 312), (500, 412), (0, 0, 0), 1)
    for row, text in enumerate(OPTIONS):
        cv2.putText(out, text, (334, 327 + 19 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    return out


def changed_share(before: np.ndarray, after: np.ndarray, box: tuple[int, int, int, int]) -> float:
    x, y, w, h = box
    moved = np.abs(after.astype(int) - before.astype(int)).max(axis=2) > 24
    return float(moved[y : y + h, x : x + w].mean())


def test_a_list_drawn_in_the_window_s_own_grey_is_seen_by_its_new_outline() -> None:
    before, after = grey_form(), with_grey_list(grey_form())
    assert changed_share(before, after, (330, 312, 171, 101)) < 0.5  # not a filled surface
    box = opened_list(before, after, COMBO, (420, 340))  # on "Globules rouges", the highlighted row
    assert box is not None
    x, y, w, h = box
    assert 326 <= x <= 332 and 308 <= y <= 314 and 166 <= w <= 178 and 96 <= h <= 106, box


def test_a_click_on_an_option_not_highlighted_of_a_grey_list_is_in_it_too() -> None:
    box = opened_list(grey_form(), with_grey_list(grey_form()), COMBO, (360, 381))  # "Plaquettes"
    assert box is not None and box[1] <= 314 and box[1] + box[3] >= 410, box


def test_a_grey_list_that_closed_is_no_list_opening_over_the_field_it_uncovered() -> None:
    # the option's click, then the click on the field the list covered: the list's outline was in the frame before
    before = with_grey_list(grey_form())
    after = grey_form()
    after[291:310, 331:500] = PANEL
    cv2.putText(after, "Globules rouges", (336, 305), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    assert opened_list(before, after, (420, 340), (350, 354)) is None
    assert opened_list(before, after, (420, 340), (400, 330)) is None


def test_results_written_into_an_outlined_list_already_shown_are_not_a_pop_up() -> None:
    before = grey_form()
    cv2.rectangle(before, (330, 312), (500, 412), (PANEL, PANEL, PANEL), -1)
    cv2.rectangle(before, (330, 312), (500, 412), (0, 0, 0), 1)  # an empty list with its border, already there
    after = with_grey_list(before)
    assert opened_list(before, after, COMBO, (420, 340)) is None


def test_an_outlined_surface_without_a_column_of_options_is_no_list() -> None:
    # a framed note opened under the control, one line of text: nothing to choose in it
    before = grey_form()
    after = before.copy()
    cv2.rectangle(after, (330, 312), (500, 412), (PANEL, PANEL, PANEL), -1)
    cv2.rectangle(after, (330, 312), (500, 412), (0, 0, 0), 1)
    cv2.putText(after, "Saisie obligatoire", (334, 330), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    assert opened_list(before, after, COMBO, (360, 326)) is None


def test_a_grey_list_far_from_the_clicked_control_was_not_opened_by_it() -> None:
    assert opened_list(grey_form(), with_grey_list(grey_form()), (420, 150), (420, 340)) is None


def test_a_framed_list_uncovered_when_a_grey_list_closed_holds_too_little_of_the_change() -> None:
    # under the drop-down's list lay a small framed list of its own: the list closing shows it again, new outline
    # and rows included, but most of what changed (the closed list's outline and rows) is outside it
    form = grey_form()
    cv2.rectangle(form, (340, 350), (440, 392), (PANEL, PANEL, PANEL), -1)
    cv2.rectangle(form, (340, 350), (440, 392), (0, 0, 0), 1)
    for row, text in enumerate(("Note 1", "Note 2")):
        cv2.putText(form, text, (344, 366 + 19 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    before = with_grey_list(form)
    assert opened_list(before, form, (420, 340), (380, 362)) is None
