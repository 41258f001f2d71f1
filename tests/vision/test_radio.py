"""The state of the radio button beside a label, read from the pixels; never guessed, never taken for a box."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rpa_mcp.vision.marks import GAP_TOLERANCE, SIZE_TOLERANCE, Learned, Mark, Place, learned_mark, mark_beside

ACCENT = (228, 116, 53)  # BGR: a toolkit's blue accent colour

LOOKS = ["ring_and_dot", "accent_fill", "accent_ring", "metal", "diamond"]


def radio(style: str, *, selected: bool, scale: float = 1.0, background: int = 246) -> tuple[np.ndarray, tuple]:
    """A radio button of `style` at `scale` and its label "Urgent"; (the image, the label's line as OCR boxes it)."""
    img = np.full((int(480 * scale), int(640 * scale), 3), background, np.uint8)
    r = round(9 * scale)
    cx, cy = round(311 * scale), round(311 * scale)

    def disc(radius: float, colour: tuple[int, ...], thickness: int = -1) -> None:
        cv2.circle(img, (cx, cy), max(1, round(radius)), colour, thickness, cv2.LINE_AA)

    if style == "ring_and_dot":  # a classic toolkit: a white inside, a dark ring, a dark dot
        disc(r, (255, 255, 255))
        disc(r, (70, 70, 70), max(1, round(scale)))
        if selected:
            disc(r * 0.4, (0, 0, 0))
    elif style == "accent_fill":  # GTK, Windows 11: an accent disc with a light dot when selected
        if selected:
            disc(r, ACCENT)
            disc(r * 0.4, (255, 255, 255))
        else:
            disc(r, (255, 255, 255))
            disc(r, (150, 150, 150), max(1, round(scale)))
    elif style == "accent_ring":  # a browser: an accent ring and an accent dot, a white gap between
        disc(r, (255, 255, 255))
        disc(r, ACCENT if selected else (118, 118, 118), max(1, round((1.5 if selected else 1) * scale)))
        if selected:
            disc(r * 0.45, ACCENT)
    elif style == "metal":  # Java's Metal look: a light gradient inside a grey ring, a dark dot
        for i in range(r, 0, -1):
            shade = 255 - round(30 * i / r)
            disc(i, (shade, shade, shade))
        disc(r, (122, 138, 153), 1)
        if selected:
            disc(r * 0.35, (51, 51, 51))
    elif style == "diamond":  # Tk's themed default look: a diamond, filled with an accent colour when selected
        points = np.array([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], np.int32)
        cv2.fillPoly(img, [points], (132, 105, 74) if selected else (255, 255, 255))
        cv2.polylines(img, [points], True, (110, 110, 110), 1)
    size = 0.7 * scale
    cv2.putText(
        img, "Urgent", (round(334 * scale), round(318 * scale)), 0, size, (30, 30, 30), max(1, round(2 * scale))
    )
    line = (round(334 * scale), round(302 * scale), round(80 * scale), round(18 * scale))
    return img, line


@pytest.mark.parametrize("scale", [1.0, 1.5, 2.0])
@pytest.mark.parametrize("style", LOOKS)
def test_a_selected_radio_reads_selected_and_another_not_selected(style: str, scale: float) -> None:
    for selected in (True, False):
        img, line = radio(style, selected=selected, scale=scale)
        assert mark_beside(img, line) == Mark("radio", selected), (style, scale, selected)


@pytest.mark.parametrize("style", LOOKS)
def test_a_radio_is_never_taken_for_a_check_box(style: str) -> None:
    for selected in (True, False):
        img, line = radio(style, selected=selected)
        assert mark_beside(img, line) == Mark("radio", selected)


def test_a_check_box_is_never_taken_for_a_radio() -> None:
    from tests.vision.test_checkbox import LABEL, form

    for ticked in (True, False):
        for style in ("outlined", "filled"):
            img = form(style, ticked=ticked)
            assert mark_beside(img, LABEL) == Mark("box", ticked)


def test_a_radio_on_the_right_of_its_label_is_found_too() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Urgent", (334, 318), 0, 0.7, (30, 30, 30), 2)
    cv2.circle(img, (440, 311), 9, (70, 70, 70), 1, cv2.LINE_AA)
    cv2.circle(img, (440, 311), 4, (0, 0, 0), -1, cv2.LINE_AA)
    assert mark_beside(img, (334, 302, 80, 18)) == Mark("radio", True)


@pytest.mark.parametrize("text", ["Oubli", "Oo", "Rond"])
def test_a_round_letter_in_or_before_the_label_is_no_radio(text: str) -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, text, (250, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    # the label alone, and the round letters boxed at the start of its line by OCR
    for line in ((334, 302, 80, 18), (250, 298, 164, 24)):
        assert mark_beside(img, line) is None, (text, line)


def test_a_lone_round_letter_before_the_label_is_no_radio() -> None:
    # "Non o Urgent": the word 'o' stands apart from its neighbours as a mark does, about as tall as one, but
    # nearer the word before it than the label: a mark stands nearer its own label than anything else
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Non o", (220, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    assert mark_beside(img, (334, 302, 80, 18)) is None


def test_a_bullet_before_the_label_is_no_radio() -> None:
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.circle(img, (318, 311), 3, (30, 30, 30), -1, cv2.LINE_AA)
    cv2.putText(img, "Urgent", (334, 318), 0, 0.7, (30, 30, 30), 2)
    assert mark_beside(img, (334, 302, 80, 18)) is None


def test_a_radio_whose_inside_says_neither_is_not_guessed() -> None:
    img, line = radio("ring_and_dot", selected=False)
    cv2.circle(img, (311, 311), 3, (200, 200, 200), -1)  # a faint grey middle: a dot, or a shade?
    assert mark_beside(img, line) == Mark("radio", None)


def test_the_mark_nearest_the_label_is_its_own() -> None:
    # a row "[x] Ordonnance  ( ) Urgent": the box belongs to the line before, the radio to "Urgent"
    img, line = radio("ring_and_dot", selected=False)
    cv2.rectangle(img, (120, 302), (138, 320), (70, 70, 70), 2)
    cv2.line(img, (123, 311), (128, 317), (20, 20, 20), 3)
    cv2.line(img, (128, 317), (135, 305), (20, 20, 20), 3)
    assert mark_beside(img, line) == Mark("radio", False)


def small_radio_in_its_line(*, selected: bool) -> np.ndarray:
    """A classic toolkit's radio button: an 11 px round mark, its text beside it (as `small_box_in_its_line`)."""
    img = np.full((480, 640, 3), 214, np.uint8)
    cv2.circle(img, (311, 308), 5, (255, 255, 255), -1, cv2.LINE_AA)
    cv2.circle(img, (311, 308), 5, (60, 60, 60), 1, cv2.LINE_AA)
    if selected:
        cv2.circle(img, (311, 308), 2, (0, 0, 0), -1, cv2.LINE_AA)
    cv2.putText(img, "Urgent delivery", (322, 313), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize("line", [(300, 296, 140, 24), (296, 294, 150, 28)])
def test_a_small_radio_ocr_boxed_with_its_text_is_read_at_the_line_start(line: tuple[int, int, int, int]) -> None:
    for selected in (True, False):
        assert mark_beside(small_radio_in_its_line(selected=selected), line) == Mark("radio", selected)


def test_a_mark_nearer_the_text_before_it_than_the_label_is_that_texts_own() -> None:
    # "Programmé (•)   Urgent ( )": the selected radio on the left belongs to "Programmé"; "Urgent"'s is its own
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "Prog", (200, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.circle(img, (276, 311), 9, (70, 70, 70), 1, cv2.LINE_AA)
    cv2.circle(img, (276, 311), 4, (0, 0, 0), -1, cv2.LINE_AA)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.circle(img, (436, 311), 9, (70, 70, 70), 1, cv2.LINE_AA)
    assert mark_beside(img, (334, 302, 80, 18)) == Mark("radio", False)


def test_a_mark_read_says_its_place_in_text_heights_at_any_scale() -> None:
    places = []
    for scale in (1.0, 1.5, 2.0):
        img, line = radio("ring_and_dot", selected=True, scale=scale)
        mark = mark_beside(img, line)
        assert mark is not None and mark.place is not None
        places.append(mark.place)
    assert {p.side for p in places} == {"left"}
    assert max(p.gap for p in places) - min(p.gap for p in places) <= GAP_TOLERANCE
    assert max(p.size for p in places) - min(p.size for p in places) <= SIZE_TOLERANCE


def test_with_the_learned_mark_only_that_mark_is_read() -> None:
    img, line = radio("ring_and_dot", selected=True)
    mark = mark_beside(img, line)
    assert mark is not None
    learned = Learned.of(mark)
    assert learned is not None and learned_mark(learned.as_json()).fits(mark)
    assert mark_beside(img, line, learned) == Mark("radio", True)
    # a box learned there, the radio learned farther, larger, or on the other side: not the step's mark
    p = learned.place
    for other in (
        Learned("box", p),
        Learned("radio", Place(p.side, p.gap + 1.0, p.size)),
        Learned("radio", Place(p.side, p.gap, p.size + 0.5)),
        Learned("radio", Place("right", p.gap, p.size)),
    ):
        assert mark_beside(img, line, other) is None, other


def test_a_box_learned_beside_the_label_is_not_read_from_a_round_letter_there() -> None:
    # the label's box gone (another screen, another layout): the 'o' before the label says nothing of the box
    img = np.full((480, 640, 3), 246, np.uint8)
    cv2.putText(img, "o", (308, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (30, 30, 30), 2, cv2.LINE_AA)
    cv2.putText(img, "Urgent", (334, 318), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (30, 30, 30), 2, cv2.LINE_AA)
    line = (334, 302, 80, 18)
    box = Learned("box", Place("left", 0.65, 1.45))
    assert mark_beside(img, line, box) is None


@pytest.mark.parametrize(
    "value",
    [
        None,
        "radio",
        {"kind": "radio"},
        {"kind": "dial", "side": "left", "gap": 1, "size": 1},
        {"kind": "box", "side": "up", "gap": 1, "size": 1},
        {"kind": "box", "side": "left", "gap": True, "size": 1},
    ],
)
def test_a_learned_mark_that_is_not_one_is_refused(value: object) -> None:
    with pytest.raises(ValueError):
        learned_mark(value)


def lit_radio(*, selected: bool, focused: bool = False) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Tk's themed (clam) radio button under the pointer: its row lit, the lit row's side 3 px from its mark, a
    mark whose lower right arc is light (30 grey levels from the lit row); `focused`, after its click: a dotted
    focus ring around its text 3 px from its mark, boxed by OCR with the text (and the mark)."""
    img = np.full((480, 640, 3), 218, np.uint8)
    cv2.rectangle(img, (301, 294), (430, 324), (235, 235, 235), -1)  # the lit row
    cv2.circle(img, (309, 308), 5, (255, 255, 255), -1)
    cv2.circle(img, (309, 308), 5, (205, 205, 205), 1)
    cv2.ellipse(img, (309, 308), (5, 5), 0, 135, 315, (154, 154, 154), 1)
    if selected:
        cv2.circle(img, (309, 308), 2, (60, 60, 60), -1)
    cv2.putText(img, "Programme", (321, 315), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    if not focused:
        return img, (319, 297, 110, 23)
    left, top, right, bottom = 318, 297, 415, 320
    img[top, left:right:2] = img[bottom, left:right:2] = 0
    img[top:bottom:2, left] = img[top:bottom:2, right] = 0
    return img, (300, 293, 120, 31)


@pytest.mark.parametrize("focused", [False, True])
def test_a_radio_on_a_row_lit_under_the_pointer_is_read(focused: bool) -> None:
    # the lit row's straight side, the focus ring's dotted one beside the mark: a frame's sides, no letters
    for selected in (True, False):
        img, line = lit_radio(selected=selected, focused=focused)
        assert mark_beside(img, line) == Mark("radio", selected), selected
