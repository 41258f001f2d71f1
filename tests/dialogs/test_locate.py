"""Locating a dialog without OCR: modal evidence keeps page cards, status bars and toolbars out."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from rpa_mcp.dialogs.locate import find_modal, iou, score_candidates
from rpa_mcp.dialogs.locate.buttons import button_group, button_like
from rpa_mcp.dialogs.locate.edges import closed_regions, dotted, edge_map, hollow, ringed

from .helpers import synthetic_dialog

TASKBARS = Path(__file__).resolve().parents[1] / "fixtures" / "taskbars"  # bottoms of generated frames


def page(seed: int) -> np.ndarray:
    """A 1000x700 web page: header, a table card and a report card (text-like strokes)."""
    rng = np.random.default_rng(seed)
    img = np.full((700, 1000, 3), 246, np.uint8)
    cv2.rectangle(img, (0, 0), (999, 60), (120, 60, 20), -1)
    for x, y, w, h in ((60, 100, 520, 200), (60, 330, 520, 140)):
        cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
        cv2.rectangle(img, (x, y), (x + w, y + h), (215, 215, 215), 1)
        for row in range(y + 20, y + h - 15, 24):
            for word in range(x + 15, x + w - 60, 70):
                length = int(rng.integers(25, 60))
                cv2.line(img, (word, row), (word + length, row), (60, 60, 60), 2)
    return img


def with_shadow(img: np.ndarray, box: tuple[int, int, int, int]) -> None:
    x, y, w, h = box
    for d in range(1, 9):  # darker next to the box, fading out
        shade = img[y + d + 2 : y + h + d, x + d + 2 : x + w + d].astype(np.int16) - (9 - d) * 4
        img[y + d + 2 : y + h + d, x + d + 2 : x + w + d] = np.clip(shade, 0, 255).astype(np.uint8)
    cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (200, 200, 200), 1)


def test_the_synthetic_dialog_is_found():
    image, _ = synthetic_dialog(2)
    region = find_modal(image)
    assert region is not None and iou(region.bbox, (300, 220, 401, 191)) >= 0.9
    assert len(region.buttons) == 2 and "buttons" in region.evidence


def test_a_repainted_page_is_not_a_dialog():
    # a tab switch repaints the page: its cards are new, but so is everything around them
    before, after = page(1), page(2)
    assert find_modal(after, previous=before) is None
    assert find_modal(after) is None


def test_a_window_status_bar_is_not_a_button_row():
    img = np.full((700, 1000, 3), (140, 90, 40), np.uint8)
    cv2.rectangle(img, (200, 150), (800, 550), (255, 255, 255), -1)
    cv2.rectangle(img, (200, 150), (800, 550), (90, 90, 90), 1)
    cv2.line(img, (200, 522), (800, 522), (150, 150, 150), 1)
    for x0, x1 in ((560, 640), (640, 700), (700, 780)):  # cells flush with the bottom edge
        cv2.rectangle(img, (x0, 522), (x1, 550), (150, 150, 150), 1)
        cv2.putText(img, "Ln 1", (x0 + 8, 542), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    assert find_modal(img) is None


@pytest.mark.parametrize("name", ["win11-125.png", "win10-100.png"])
def test_a_taskbar_along_the_bottom_is_no_candidate(name):
    # its clock and tray read as a button in a footer, its search box as a shadowed panel: read on every frame
    strip = cv2.imread(str(TASKBARS / name))
    height = strip.shape[0]
    assert [m.bbox for m in score_candidates(strip) if m.bbox[1] + m.bbox[3] >= height - 1] == []


def test_a_dialog_above_the_taskbar_is_still_found():
    dialog, _ = synthetic_dialog(2)  # 1000x700, the dialog at (300, 220, 401, 191)
    bar = cv2.imread(str(TASKBARS / "win11-125.png"))[-61:]
    frame = np.full((761, 1920, 3), (120, 80, 30), np.uint8)
    frame[:700, :1000] = dialog
    frame[700:] = bar
    region = find_modal(frame)
    assert region is not None and iou(region.bbox, (300, 220, 401, 191)) >= 0.9


def test_a_toast_that_appears_on_an_unchanged_page_is_found():
    before = page(1)
    after = before.copy()
    box = (640, 40, 320, 64)  # over the header band, like the app's toast
    with_shadow(after, box)
    cv2.putText(after, "Enregistre", (660, 78), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 120, 30), 2, cv2.LINE_AA)
    region = find_modal(after, previous=before)
    assert region is not None and iou(region.bbox, box) >= 0.8
    assert {"new", "shadow"} <= set(region.evidence)
    # without the previous frame it is a floating panel: the classifier keeps it only if its text
    # names a catalog entry (tests/dialogs/test_resolver.py)
    alone = find_modal(after)
    assert alone is not None and alone.buttonless and "panel" in alone.evidence


def _stacked_bubble(scale: float) -> tuple[np.ndarray, tuple[int, int, int, int], int]:
    """Chromium's permission bubble at a display scale: three full-width pill buttons one above the
    other (258 px wide at 100 %, 387 px at 150 %), on a light page, casting no shadow of note."""
    s = scale
    img = np.full((int(900 * s), int(1600 * s), 3), 246, np.uint8)
    box = (int(120 * s), int(74 * s), int(300 * s), int(254 * s))
    x, y, w, h = box
    cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (200, 200, 200), 1)
    button_w, button_h = int(258 * s), int(36 * s)
    for i in range(3):
        by = y + int((107 + 45 * i) * s)
        cv2.rectangle(img, (x + int(21 * s), by), (x + int(21 * s) + button_w, by + button_h), (250, 226, 210), -1)
        cv2.rectangle(img, (x + int(21 * s), by), (x + int(21 * s) + button_w, by + button_h), (220, 190, 170), 1)
    return img, box, button_w


@pytest.mark.parametrize("scale", [1.0, 1.25, 1.5])
def test_a_stack_of_full_width_buttons_is_found_at_every_display_scale(scale):
    # at 150 % a bubble's buttons are wider than any dialog's footer button at 100 %
    image, box, button_w = _stacked_bubble(scale)
    region = find_modal(image)
    assert region is not None and iou(region.bbox, box) >= 0.9
    assert "buttons" in region.evidence and len(region.buttons) == 3
    assert all(abs(b[2] - button_w) <= 10 for b in region.buttons)  # the edge map widens a box by a few px


def test_an_inset_border_makes_no_second_candidate():
    # a card's border and its inset line close two outlines around the same buttons: one box, read once
    image, _ = synthetic_dialog(2)
    cv2.rectangle(image, (304, 224), (696, 406), (60, 60, 60), 1)
    with_buttons = [m for m in score_candidates(image) if m.buttons]
    assert len(with_buttons) == 1 and iou(with_buttons[0].bbox, (300, 220, 401, 191)) >= 0.8


def test_a_column_of_table_cells_is_no_stack_of_buttons():
    # a results table's date cells, boxed and one above the other at the left of a wide card
    card = (277, 335, 1266, 193)
    cells = [(308, 400, 84, 17), (308, 437, 84, 17), (308, 475, 84, 17)]
    assert button_group(card, cells) == [(308, 475, 84, 17)]
    bubble = (120, 74, 300, 254)  # Chromium's permission bubble: full-width buttons, one above the other
    pills = [(141, 181, 258, 36), (141, 226, 258, 36), (141, 271, 258, 36)]
    assert button_group(bubble, pills) == pills


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_a_word_on_a_card_is_no_button_but_a_framed_label_is(scale):
    """Once the edge map is dilated a short word is a solid closed blob the size of a button: it is
    not taken for one (its card would be read as a dialog), while a framed button's face stays flat."""
    image = np.full((200, 600, 3), 255, np.uint8)
    size = 0.55 * scale
    cv2.putText(image, "2008", (40, 60), cv2.FONT_HERSHEY_SIMPLEX, size, (40, 40, 40), 1, cv2.LINE_AA)
    h, w = round(28 * scale), round(90 * scale)
    cv2.rectangle(image, (300, 40), (300 + w, 40 + h), (120, 120, 120), 1)
    cv2.putText(image, "Save", (300 + w // 4, 40 + 2 * h // 3), cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), 1)
    edges = edge_map(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    boxes = button_like(closed_regions(edges, 30, 14))
    word = [b for b in boxes if b[0] < 200]
    framed = [b for b in boxes if b[0] >= 290]
    assert word and framed, boxes  # both look like buttons by their outline alone
    assert not any(hollow(edges, b) for b in word)
    assert any(hollow(edges, b) for b in framed)


GPSPRUNE = Path(__file__).resolve().parents[1] / "fixtures" / "real_programs" / "gpsprune"  # a tuning program


@pytest.mark.parametrize(
    ("frame", "box"),
    [("en-1920x1080", (826, 485, 262, 91)), ("fr-1600x900", (666, 400, 262, 90)), ("en-1366x768", (549, 337, 262, 90))],
)
def test_a_focus_ring_drawn_tight_round_a_short_label_keeps_the_button_and_its_box(frame, box):
    """Swing's Metal look: the focused OK's shaded face, its ring and its glyphs fill the button once the
    edge map is dilated (not hollow), but its border and the ring are two nested rectangles drawn in one
    grey each: the button is kept, and the one-OK error box is a candidate on its frame alone."""
    image = cv2.imread(str(GPSPRUNE / f"gpsprune-file-not-found-{frame}.png"))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    edges = edge_map(gray)
    x, y, w, h = box
    button = next(b for b in button_like(closed_regions(edges, 30, 14)) if iou(b, (x, y, w, h)) > 0 and b[2] < 60)
    assert not hollow(edges, button) and ringed(gray, button)
    found = [m for m in score_candidates(image) if m.buttons == (button,)]
    assert found and "buttons" in found[0].evidence and iou(found[0].bbox, box) >= 0.9


def _ruled_button(ring: bool) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A button drawn with a border, a label and (or not) a one-pixel rectangle round the label."""
    image = np.full((120, 200, 3), 238, np.uint8)
    bx, by, bw, bh = 60, 40, 60, 30
    cv2.rectangle(image, (bx, by), (bx + bw, by + bh), (134, 134, 134), 2)
    cv2.putText(image, "OK", (bx + 20, by + 21), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (51, 51, 51), 1)
    if ring:
        cv2.rectangle(image, (bx + 16, by + 6), (bx + 44, by + 25), (180, 180, 180), 1)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (bx - 1, by - 1, bw + 3, bh + 3)


def test_a_word_a_block_or_a_button_without_a_ring_is_not_ringed():
    image = np.full((200, 600, 3), 255, np.uint8)
    cv2.putText(image, "2008", (40, 60), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (40, 40, 40), 1, cv2.LINE_AA)
    cv2.rectangle(image, (200, 40), (290, 70), (40, 40, 40), -1)  # a filled block
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    boxes = button_like(closed_regions(edge_map(gray), 30, 14))
    assert boxes and not any(ringed(gray, b) for b in boxes)
    assert not ringed(*_ruled_button(ring=False))
    assert ringed(*_ruled_button(ring=True))


def _form_with_check_box(ring: str) -> np.ndarray:
    """A framed form panel of labelled values whose last line is a check box, its label focused."""
    img = np.full((600, 900, 3), 237, np.uint8)
    cv2.rectangle(img, (200, 100), (560, 380), (160, 160, 160), 1)
    for k in range(5):
        y = 120 + 40 * k
        cv2.putText(img, "Name", (215, y + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (30, 30, 30), 1, cv2.LINE_AA)
        cv2.putText(img, "Dupont", (300, y + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (30, 30, 30), 1, cv2.LINE_AA)
    cv2.rectangle(img, (302, 334), (316, 348), (90, 90, 90), 1)
    cv2.putText(img, "Urgent", (326, 346), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (30, 30, 30), 1, cv2.LINE_AA)
    x, y, w, h = 322, 331, 64, 20
    if ring == "dotted":  # GTK's focus ring: one pixel of ink, one of background
        img[y, x : x + w + 1 : 2] = img[y + h, x : x + w + 1 : 2] = 60
        img[y : y + h + 1 : 2, x] = img[y : y + h + 1 : 2, x + w] = 60
    else:
        cv2.rectangle(img, (x, y), (x + w, y + h), (60, 60, 60), 1)
    return img


def test_a_dotted_focus_ring_is_no_button_but_a_drawn_border_is():
    """A ticked check box's dotted focus ring has a button's outline: taken for one, it made the form
    above it a dialog with a footer button (read by OCR on every step only to be dismissed)."""
    assert find_modal(_form_with_check_box("dotted")) is None
    framed = find_modal(_form_with_check_box("solid"))
    assert framed is not None and framed.buttons and "buttons" in framed.evidence


def test_dotted_tells_dots_from_a_border():
    image = cv2.cvtColor(_form_with_check_box("dotted"), cv2.COLOR_BGR2GRAY)
    solid = cv2.cvtColor(_form_with_check_box("solid"), cv2.COLOR_BGR2GRAY)
    assert dotted(image, (321, 330, 67, 23))
    assert not dotted(solid, (321, 330, 67, 23))


def test_a_focused_buttons_dotted_ring_inside_its_bevel_keeps_the_button():
    """FLTK draws a focused button's dotted ring inside its bevel: the ring may be the box the edge map
    closes, and the button (the dialog's only one) is still a button."""
    image = np.full((700, 1000, 3), (140, 90, 40), np.uint8)
    cv2.rectangle(image, (300, 220), (700, 410), (192, 192, 192), -1)
    cv2.putText(image, "Please choose a file", (330, 280), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1)
    bx, by, bw, bh = 590, 360, 90, 30
    cv2.line(image, (bx, by), (bx + bw, by), (255, 255, 255), 1)  # the bevel: light above and left
    cv2.line(image, (bx, by), (bx, by + bh), (255, 255, 255), 1)
    cv2.line(image, (bx, by + bh), (bx + bw, by + bh), (0, 0, 0), 2)  # dark below and right
    cv2.line(image, (bx + bw, by), (bx + bw, by + bh), (0, 0, 0), 2)
    rx, ry, rw, rh = bx + 3, by + 3, bw - 6, bh - 6
    image[ry, rx : rx + rw + 1 : 2] = image[ry + rh, rx : rx + rw + 1 : 2] = 0
    image[ry : ry + rh + 1 : 2, rx] = image[ry : ry + rh + 1 : 2, rx + rw] = 0
    cv2.putText(image, "Close", (bx + 18, by + 21), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert not dotted(gray, (rx - 1, ry - 1, rw + 3, rh + 3))
    region = find_modal(image)
    assert region is not None and "buttons" in region.evidence and iou(region.bbox, (300, 220, 401, 191)) >= 0.9


POEDIT = GPSPRUNE.parent / "poedit"  # a tuning program (wxWidgets on GTK 3)


def test_a_dialog_drawn_at_its_size_on_a_smaller_screen_is_still_a_dialog():
    """GTK's file chooser keeps its size (1100 x 850 px) at 1600x900, where it covers over half the screen:
    a dialog's size limits are a 1080p screen's, not a share of the smaller one."""
    region = find_modal(cv2.imread(str(POEDIT / "poedit-open-fr-1600x900.png")))
    cancel = (1165, 835, 74, 36)  # its Cancel, at the footer's right
    assert region is not None and "buttons" in region.evidence
    x, y, w, h = region.bbox
    assert w > 1000 and h > 700 and x <= cancel[0] and cancel[0] + cancel[2] <= x + w and cancel[1] < y + h


KWRITE_125 = Path(__file__).resolve().parents[1] / "fixtures" / "real_programs" / "kwrite@125"  # a tuning program


def test_buttons_of_one_width_stacked_are_no_dialog_holding_the_chooser_behind_them() -> None:
    """Qt's file dialog at 125 % display scaling: Save ("Enregistrer", its icon beside it) stands over
    Cancel, both 132 px wide, wider than a dialog's smallest width at that scale; the box they make
    together is a button wide and no dialog on the chooser, which stays the candidate read first."""
    image = cv2.imread(str(KWRITE_125 / "kwrite-save-as-fr-1920x1080@125.png"))
    found = score_candidates(image)
    assert found and iou(found[0].bbox, (559, 211, 803, 550)) > 0.9, [m.bbox for m in found]
    assert not any(m.bbox[2] < 200 for m in found)  # no box of the two buttons alone
