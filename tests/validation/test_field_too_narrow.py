"""A text longer than its field: the field scrolls and shows only a piece of it, which a person reads as right.

Seen on a GTK form: "Altération de l'état général" typed into a narrow field showed scrolled, its first
letter cut; the whole-field check read "Iltération de l'état général" and the replay paused.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation.checkers.text import OcrRoiChecker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.field_slice import full_field, inside_frame, visible_slice
from rpa_mcp.validation.model import Expected, Observed, Target
from rpa_mcp.vision.ocr import OcrLine

FIELD = (40, 40, 200, 28)  # x, y, w, h of the field (its border included)
PADDING = 6  # the field's inner space between its border and its text
TYPED = "params: frame after, what expected_text, match whole"
WHOLE = {"frame": "after", "what": "expected_text", "match": "whole"}


def _field_showing(text: str, *, scrolled_to_end: bool, scale: float = 1.0) -> np.ndarray:
    """A window with a one-line field showing `text`, cut by the field's width like a scrolled entry."""
    x, y, w, h = (round(v * scale) for v in FIELD)
    frame = np.full((round(120 * scale), round(320 * scale), 3), 240, np.uint8)
    cv2.rectangle(frame, (x, y), (x + w - 1, y + h - 1), (120, 120, 120), 1)
    frame[y + 1 : y + h - 1, x + 1 : x + w - 1] = 255
    pad = round(PADDING * scale)
    inner = w - 2 - 2 * pad
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, 1)
    canvas = np.full((h - 2, tw + 2, 3), 255, np.uint8)
    cv2.putText(canvas, text, (1, (h - 2 + th) // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (0, 0, 0), 1)
    shown = canvas[:, -inner:] if scrolled_to_end else canvas[:, :inner]
    shown = shown if shown.shape[1] == inner else canvas  # the text fits: shown whole, from the left
    frame[y + 1 : y + h - 1, x + 1 + pad : x + 1 + pad + shown.shape[1]] = shown
    return frame


def _typed_check(after: np.ndarray, read: str, expected: str, *, scale: float = 1.0) -> float | None:
    before = _field_showing("", scrolled_to_end=False, scale=scale)
    box = tuple(round(v * scale) for v in FIELD)
    ctx = CheckContext(
        "type_text",
        before,
        after,
        Target("Motif", (box[0], box[1], box[2], box[3])),
        Expected(text=expected),
        Observed(),
        FakeOcr([OcrLine(read, (0, 0, 10, 10), 0.98)]),
    )
    return OcrRoiChecker().run(ctx, "typed", WHOLE).score


def test_a_full_field_showing_the_end_of_the_typed_text_is_read_as_the_text_typed() -> None:
    after = _field_showing(TYPED, scrolled_to_end=True)
    assert _typed_check(after, "t, what expected_text, match whole", TYPED) == 0.9


def test_the_glyph_cut_at_the_field_s_edge_is_not_compared() -> None:
    after = _field_showing(TYPED, scrolled_to_end=True, scale=2.0)
    assert _typed_check(after, "Ir, what expected_text, match whole", TYPED, scale=2.0) == 0.9


def test_a_full_field_showing_the_start_of_the_typed_text_is_read_as_the_text_typed() -> None:
    after = _field_showing(TYPED, scrolled_to_end=False)
    assert _typed_check(after, "params: frame after, what expe", TYPED) == 0.9


def test_a_field_with_room_left_holds_less_than_was_typed() -> None:
    after = _field_showing("frame after", scrolled_to_end=False)  # a piece only, room left after it
    assert _typed_check(after, "frame after, what", "params: frame after, what") == 0.0


def test_text_not_in_the_typed_value_is_a_mismatch_even_in_a_full_field() -> None:
    after = _field_showing("PETIT" + TYPED, scrolled_to_end=False)
    assert _typed_check(after, "PETITparams: frame after, wha", TYPED) == 0.0


def test_a_piece_too_short_is_a_coincidence() -> None:
    assert not visible_slice("match whole", TYPED)  # 10 of 45 characters
    assert not visible_slice("BERNARDO", "BERNARD") and not visible_slice("PETITBERNARD", "BERNARD")
    assert not visible_slice("BERNARD", "BERNARD")  # the whole text is no slice: the plain check judges it
    assert visible_slice("Iltération de l'état général", "Altération de l'état général")


SENTENCE = "Le patient a été informé des résultats de son bilan sanguin ce matin."


def test_a_long_text_s_end_or_start_in_a_narrow_field_is_no_coincidence() -> None:
    # FLTK's label field showed the last 32 of 71 characters typed: under half, yet its very end
    assert visible_slice("s de son bilan sanguin ce matin.", SENTENCE)
    assert visible_slice("Le patient a été informé d", SENTENCE)
    # a piece from the middle still needs half; an end piece, a quarter and 12 characters
    assert not visible_slice("informé des résultats de son", SENTENCE)
    assert not visible_slice("ce matin.", SENTENCE) and not visible_slice("match whole", TYPED)


def test_a_field_is_full_only_when_its_text_runs_from_edge_to_edge() -> None:
    box = FIELD[0] - 3, FIELD[1] - 3, FIELD[2] + 6, FIELD[3] + 6  # the checker's box: the field padded
    assert full_field(_field_showing(TYPED, scrolled_to_end=True), box)
    assert full_field(_field_showing(TYPED, scrolled_to_end=False), box)
    assert not full_field(_field_showing("Syncope", scrolled_to_end=False), box)
    assert not full_field(_field_showing("", scrolled_to_end=False), box)


class RingReadingOcr:
    """Reads a crop whose sides hold a dark frame as a recognizer read the ringed "3" ('E'), else the digit."""

    def read(self, image: np.ndarray) -> list[OcrLine]:
        line = self.read_line(image)
        return [line] if line else []

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        ringed = bool((gray[:, :2] < 80).any() or (gray[:, -2:] < 80).any())
        return OcrLine("E" if ringed else "3", (0, 0, image.shape[1], image.shape[0]), 0.9)

    def read_lines(self, images: list[np.ndarray]) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def _focused_field(text: str) -> np.ndarray:
    """A classic toolkit's narrow field with the keyboard: a black focus ring, a grey bevel, the text, a caret."""
    frame = np.full((80, 200, 3), 217, np.uint8)
    cv2.rectangle(frame, (60, 30), (115, 55), (0, 0, 0), 1)  # the focus ring
    cv2.rectangle(frame, (61, 31), (114, 54), (128, 128, 128), 2)  # the bevel
    frame[33:53, 63:113] = 255
    if text:
        cv2.putText(frame, text, (66, 48), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
        frame[36:51, 76] = 0  # the caret after it
    return frame


@pytest.mark.parametrize("field", [(63, 33, 50, 20), (63, 33, 50, 17)])  # the second cuts the ring's bottom off
def test_a_field_s_focus_ring_is_not_read_with_its_text(field: tuple[int, int, int, int]) -> None:
    # seen on a Tk desk: the quantity "3" typed in a narrow focused field read "E", its ring read with it
    ctx = CheckContext(
        "type_text",
        _focused_field(""),
        _focused_field("3"),
        Target("Quantite", field),
        Expected(text="3"),
        Observed(),
        RingReadingOcr(),
    )
    assert OcrRoiChecker().run(ctx, "typed", WHOLE).score == 1.0


def test_the_inside_of_a_field_leaves_out_its_frame() -> None:
    x, y, w, h = inside_frame(_focused_field("3"), (57, 27, 62, 32))
    assert (x, y) >= (63, 33) and (x + w, y + h) <= (113, 53)
    blank = np.full((40, 120, 3), 255, np.uint8)
    assert inside_frame(blank, (10, 5, 100, 30)) == (10, 5, 100, 30)  # no frame: unchanged


def test_a_box_cut_at_a_text_area_s_corner_leaves_out_its_top_and_side() -> None:
    # an editor's text area: the menu bar's edge above, a bevel at its left; the box ends inside it
    frame = np.full((120, 400, 3), 255, np.uint8)
    frame[:20] = 212  # the menu bar
    frame[20:22] = 128  # the bevel's top
    frame[20:, :4] = 128  # ... and its left side
    cv2.putText(frame, "Le patient", (8, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    x, y, w, h = inside_frame(frame, (0, 12, 300, 34))
    assert (x, y) >= (4, 22) and (x + w, y + h) == (300, 46)
    # a box tight around a word starting with a tall letter has no frame
    assert inside_frame(frame, (6, 26, 90, 18)) == (6, 26, 90, 18)


def test_a_box_over_a_title_bar_running_past_the_frame_s_reach_keeps_its_top() -> None:
    # a box drawn loosely over a window's title and menu bars: a band, no frame's top line
    frame = np.full((120, 400, 3), 255, np.uint8)
    frame[:30] = 212  # the title and menu bars
    frame[:, :5] = 128  # the window's left edge
    cv2.putText(frame, "Le patient", (8, 50), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    assert inside_frame(frame, (0, 6, 300, 60)) == (0, 6, 300, 60)
