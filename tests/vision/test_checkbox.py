"""The check box beside a label and its state, read from the pixels (`marks.mark_beside`); never guessed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rpa_mcp.vision.marks import Mark, mark_beside

LABEL = (334, 302, 80, 18)  # the line "Urgent" as OCR boxes it
TICKED, BLANK, UNREAD = Mark("box", True), Mark("box", False), Mark("box", None)


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
    assert mark_beside(form(style, ticked=True), LABEL) == TICKED
    assert mark_beside(form(style, ticked=False), LABEL) == BLANK


def test_a_label_without_a_box_beside_it_says_nothing() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    assert mark_beside(img, LABEL) is None


def test_a_box_on_the_right_of_its_label_is_found_too() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.rectangle(img, (430, 300), (452, 322), (90, 90, 90), 2)
    cv2.line(img, (434, 311), (439, 317), (20, 20, 20), 3)
    cv2.line(img, (439, 317), (448, 304), (20, 20, 20), 3)
    assert mark_beside(img, LABEL) == TICKED


def test_a_round_letter_before_the_label_is_never_taken_for_a_box() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Non o", (220, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    assert kind_beside(img, LABEL) != "box"  # a lone 'o' is read as a radio today: tests/vision/test_radio.py


def kind_beside(image: np.ndarray, line: tuple[int, int, int, int]) -> str | None:
    mark = mark_beside(image, line)
    return mark.kind if mark is not None else None


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
    assert mark_beside(small_box_in_its_line(ticked=True), line) == TICKED
    assert mark_beside(small_box_in_its_line(ticked=False), line) == BLANK


def check_button(
    style: str, *, ticked: bool, scale: float = 1.0, window: int = 200, panel: int | None = None, box_left: bool = True
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A check button drawn at a scale on a window of grey `window`, on a panel of its own (`panel`: the
    button's background under the pointer, or a white form) or not; its label's line as OCR boxes it.

    Styles: `sunken` (a classic toolkit's white box, dark on its top and left sides, a black tick),
    `flat` (a grey outline), `accent` (a modern box: filled with an accent colour and a white tick when
    ticked), `solid` (an older toolkit's box: filled with a dark colour when ticked, no mark)."""
    label = "Delivrance urgente"
    height, width = round(120 * scale), round(420 * scale)
    img = np.full((height, width, 3), window, np.uint8)
    side, size, stroke = round(11 * scale), 0.45 * scale, max(1, round(scale))
    (text_w, text_h), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, size, stroke)
    cy, bx = height // 2, round(60 * scale)
    text_x = bx + side + round(6 * scale)
    if panel is not None:
        img[
            cy - round(11 * scale) : cy + round(11 * scale), bx - round(8 * scale) : text_x + text_w + round(8 * scale)
        ] = panel
    if not box_left:
        text_x, bx = bx, bx + text_w + round(6 * scale)
    by, end = cy - side // 2, side - 1
    if style == "sunken":
        img[by : by + side, bx : bx + side] = 255
        img[by, bx : bx + side] = img[by : by + side, bx] = 120
    elif style == "solid" or (style == "accent" and ticked):
        img[by : by + side, bx : bx + side] = (48, 48, 176) if style == "solid" else (228, 132, 53)
    else:
        cv2.rectangle(img, (bx, by), (bx + end, by + end), (110, 110, 110), stroke)
        img[by + stroke : by + side - stroke, bx + stroke : bx + side - stroke] = 255
    if style == "solid" and not ticked:
        img[by + stroke : by + side - stroke, bx + stroke : bx + side - stroke] = 255
    if ticked and style != "solid":
        tick = np.array([[0.25, 0.5], [0.42, 0.7], [0.72, 0.28]]) * side + (bx, by)
        colour = (255, 255, 255) if style == "accent" else (0, 0, 0)
        cv2.polylines(img, [tick.astype(np.int32)], False, colour, max(2, round(2 * scale)))
    cv2.putText(
        img, label, (text_x, cy + text_h // 2), cv2.FONT_HERSHEY_SIMPLEX, size, (30, 30, 30), stroke, cv2.LINE_AA
    )
    pad = round(4 * scale)
    return img, (text_x - pad, cy - text_h // 2 - pad, text_w + 2 * pad, text_h + base + 2 * pad)


@pytest.mark.parametrize("scale", [1.0, 1.5, 2.0, 3.0])
@pytest.mark.parametrize("style", ["flat", "accent", "solid"])
@pytest.mark.parametrize("box_left", [True, False])
def test_a_box_on_a_white_panel_is_read_against_the_panel_at_any_scale(
    scale: float, style: str, box_left: bool
) -> None:
    # measured against the whole region's colour, a blank box on the right of its label read ticked
    ticked, _ = check_button(style, ticked=True, scale=scale, panel=255, box_left=box_left)
    blank, line = check_button(style, ticked=False, scale=scale, panel=255, box_left=box_left)
    assert mark_beside(ticked, line) == TICKED
    assert mark_beside(blank, line) == BLANK


@pytest.mark.parametrize("scale", [1.0, 2.0])
@pytest.mark.parametrize("panel", [None, 236])  # 236: the button's lighter background under the pointer
def test_a_sunken_box_reads_on_its_window_and_under_the_pointer(scale: float, panel: int | None) -> None:
    ticked, line = check_button("sunken", ticked=True, scale=scale, panel=panel)
    assert mark_beside(ticked, line) == TICKED
    assert mark_beside(check_button("sunken", ticked=False, scale=scale, panel=panel)[0], line) == BLANK


def test_a_white_box_on_a_dark_window_is_blank_not_ticked() -> None:
    # its white inside stands far from the window's grey: that is no mark
    blank, line = check_button("flat", ticked=False, window=140)
    assert mark_beside(blank, line) == BLANK
    assert mark_beside(check_button("flat", ticked=True, window=140)[0], line) == TICKED


def test_a_box_only_half_drawn_against_its_panel_is_not_guessed() -> None:
    # a sunken box on a white panel shows only its dark top and left sides: no box, no state
    for ticked in (True, False):
        img, line = check_button("sunken", ticked=ticked, panel=255)
        assert mark_beside(img, line) is None


def test_a_box_is_found_beside_its_label_whatever_its_state_says() -> None:
    line = (300, 296, 140, 24)
    unread = small_box_in_its_line(ticked=False)
    cv2.rectangle(unread, (307, 304), (315, 312), (150, 150, 150), -1)  # a grey inside: neither ticked nor blank
    assert mark_beside(unread, line) == UNREAD
    assert mark_beside(small_box_in_its_line(ticked=True), line) == TICKED
    assert mark_beside(small_box_in_its_line(ticked=False), line) == BLANK


def test_a_label_alone_or_beside_a_round_letter_has_no_box() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    assert mark_beside(img, LABEL) is None
    cv2.putText(img, "Non o", (220, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (30, 30, 30), 2, cv2.LINE_AA)
    assert kind_beside(img, LABEL) != "box"


@pytest.mark.parametrize(("font", "size"), [(cv2.FONT_HERSHEY_SIMPLEX, 0.35), (cv2.FONT_HERSHEY_SIMPLEX, 0.6)])
def test_a_letter_at_the_start_of_a_label_without_a_box_is_never_one(font: int, size: float) -> None:
    # a small 'O' touches its word's next letter: a box stands apart from its text
    img = np.full((120, 300, 3), 246, np.uint8)
    cv2.putText(img, "Ordonnance", (60, 60), font, size, (30, 30, 30), 1, cv2.LINE_AA)
    rows, cols = np.flatnonzero((img[..., 0] < 150).any(axis=1)), np.flatnonzero((img[..., 0] < 150).any(axis=0))
    line = (int(cols[0]) - 2, int(rows[0]) - 2, int(cols[-1] - cols[0]) + 5, int(rows[-1] - rows[0]) + 5)
    assert mark_beside(img, line) is None


def metal_box_focused(*, ticked: bool) -> np.ndarray:
    """Java Swing's Metal check box once clicked, as drawn on its grey panel: a dark square, a white bevel inside its
    top and left sides and outside its right and bottom ones, then 3 px of panel and the focus frame around the
    label "Produit irradié"."""
    img = np.full((40, 200, 3), 204, np.uint8)
    x, y = 40, 10  # the square's top left
    cv2.rectangle(img, (x, y), (x + 11, y + 11), (102, 102, 102), 1)
    img[y + 1, x + 1 : x + 11] = img[y + 1 : y + 11, x + 1] = 255
    img[y + 1 : y + 13, x + 12] = img[y + 12, x + 1 : x + 13] = 255
    if ticked:
        cv2.line(img, (x + 3, y + 6), (x + 5, y + 9), (0, 0, 0), 2)
        cv2.line(img, (x + 5, y + 9), (x + 9, y + 3), (0, 0, 0), 2)
    cv2.rectangle(img, (x + 16, y - 2), (x + 130, y + 14), (204, 153, 153), 1)  # Metal's focus colour
    cv2.putText(img, "Produit irradie", (x + 18, y + 10), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    return img


def test_a_box_read_in_its_line_stands_apart_from_the_focus_frame_of_its_label() -> None:
    line = (40, 8, 120, 16)  # OCR boxed the mark with its text
    assert mark_beside(metal_box_focused(ticked=True), line) == TICKED
    assert mark_beside(metal_box_focused(ticked=False), line) == BLANK


def awt_box_focused(*, ticked: bool) -> np.ndarray:
    """Java AWT's check box once clicked (XToolkit's Motif-like look): a bevelled square on the grey panel and a
    solid black focus rectangle around the square and its label "Chambre individuelle", 2 px out."""
    img = np.full((50, 240, 3), 192, np.uint8)
    x, y = 20, 18  # the square's top left
    img[y, x : x + 12] = img[y : y + 12, x] = 128  # the bevel: dark top and left, light bottom and right
    img[y + 11, x : x + 12] = img[y : y + 12, x + 11] = 255
    if ticked:
        cv2.line(img, (x + 3, y + 5), (x + 5, y + 9), (0, 0, 0), 2)
        cv2.line(img, (x + 5, y + 9), (x + 9, y + 2), (0, 0, 0), 2)
    cv2.rectangle(img, (x - 3, y - 5), (x + 170, y + 16), (0, 0, 0), 1)
    cv2.putText(img, "Chambre individuelle", (x + 16, y + 10), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1)
    return img


@pytest.mark.parametrize("ticked", [True, False])
@pytest.mark.parametrize(
    "line",
    [(16, 13, 160, 21), (16, 14, 160, 20)],  # from just left of its left side: its top side in the box, or neither
)
def test_a_focus_rectangle_whose_sides_ocr_left_out_is_no_text(ticked: bool, line: tuple[int, int, int, int]) -> None:
    """OCR boxed the line inside the rectangle's top and bottom sides, or from its top one: the rectangle's upright
    side runs through the whole box, as no letter does; the text's height is the letters'."""
    assert mark_beside(awt_box_focused(ticked=ticked), line) == (TICKED if ticked else BLANK)
