"""A push button around a click's text, from the pixels: a button-sized face, the text centred on it, a closed
outline. Rows of a grid or a list, a selected line and a text field holding a name are no button."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.push_button import button_around

Colour = tuple[int, int, int]
GREY: Colour = (200, 200, 200)
WHITE: Colour = (255, 255, 255)
INK: Colour = (20, 20, 20)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def panel(colour: Colour = GREY) -> np.ndarray:
    return np.full((400, 640, 3), colour, np.uint8)


def write(image: np.ndarray, text: str, box: BBox, *, colour: Colour = INK, centred: bool = True) -> BBox:
    """`text` on `box` (centred, else 4 px from its left edge); the box of its ink."""
    (tw, th), base = cv2.getTextSize(text, FONT, 0.45, 1)
    x, y, w, h = box
    left = x + (w - tw) // 2 if centred else x + 4
    bottom = y + (h + th) // 2
    cv2.putText(image, text, (left, bottom), FONT, 0.45, colour, 1, cv2.LINE_AA)
    return left, bottom - th, tw, th + base


def bevel(image: np.ndarray, box: BBox, light: Colour, dark: Colour, *, width: int = 2) -> None:
    """A raised outline around the face `box` (light above and left, dark below and right)."""
    x, y, w, h = box
    for i in range(1, width + 1):
        cv2.line(image, (x - i, y - i), (x + w - 1 + i, y - i), light)
        cv2.line(image, (x - i, y - i), (x - i, y + h - 1 + i), light)
        cv2.line(image, (x - i, y + h - 1 + i), (x + w - 1 + i, y + h - 1 + i), dark)
        cv2.line(image, (x + w - 1 + i, y - i), (x + w - 1 + i, y + h - 1 + i), dark)


FACE: BBox = (200, 150, 96, 24)


def motif(text: str = "Rechercher") -> tuple[np.ndarray, BBox]:
    """An AWT (Motif-like) button: a grey face, as grey as the window, raised by a two-pixel bevel."""
    image = panel()
    bevel(image, FACE, (245, 245, 245), (110, 110, 110))
    return image, write(image, text, FACE)


def windows_classic(text: str = "OK") -> tuple[np.ndarray, BBox]:
    image = panel((192, 192, 192))
    x, y, w, h = FACE
    cv2.rectangle(image, (x - 2, y - 2), (x + w + 1, y + h + 1), (0, 0, 0), 1)  # the default button's frame
    bevel(image, (x + 1, y + 1, w - 2, h - 2), (255, 255, 255), (128, 128, 128), width=2)
    return image, write(image, text, FACE)


def metal(text: str = "Envoyer la demande") -> tuple[np.ndarray, BBox]:
    """A Java Swing (Metal) button: a face as grey as the window, etched (a dark line, a white one beside it),
    the etching open by a pixel at two corners, diagonally from the face."""
    image = panel((204, 204, 204))
    x, y, w, h = (190, 150, 150, 21)
    dark, white = (102, 102, 102), (255, 255, 255)
    image[y - 2, x - 2 : x + w + 1] = dark
    image[y - 2 : y + h + 1, x - 2] = dark
    image[y : y + h + 1, x + w] = dark
    image[y + h, x : x + w + 1] = dark
    image[y - 1, x - 1 : x + w] = white
    image[y - 1 : y + h, x - 1] = white
    image[y - 1 : y + h + 2, x + w + 1] = white
    image[y + h + 1, x - 1 : x + w + 2] = white
    return image, write(image, text, (x, y, w, h))


def outlined(text: str = "Confirmer le RDV") -> tuple[np.ndarray, BBox]:
    """A flat button: white face, one grey pixel of border, on a white window."""
    image = panel(WHITE)
    x, y, w, h = (190, 150, 140, 26)
    cv2.rectangle(image, (x - 1, y - 1), (x + w, y + h), (150, 150, 150), 1)
    return image, write(image, text, (x, y, w, h))


def filled(text: str = "Ajouter RDV") -> tuple[np.ndarray, BBox]:
    """A coloured box on a white window, no border, white text."""
    image = panel(WHITE)
    x, y, w, h = (190, 150, 120, 30)
    cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), (200, 120, 30), -1)
    return image, write(image, text, (x, y, w, h), colour=WHITE)


def gradient(text: str = "Save Changes") -> tuple[np.ndarray, BBox]:
    """A face shaded from light at its top to darker at its bottom, a thin darker border."""
    image = panel((235, 235, 235))
    x, y, w, h = (190, 150, 130, 28)
    cv2.rectangle(image, (x - 1, y - 1), (x + w, y + h), (120, 120, 120), 1)
    for row in range(h):
        image[y + row, x : x + w] = 250 - row
    return image, write(image, text, (x, y, w, h))


def centre(box: BBox) -> tuple[int, int]:
    return box[0] + box[2] // 2, box[1] + box[3] // 2


@pytest.mark.parametrize("draw", [motif, windows_classic, metal, outlined, filled, gradient])
def test_a_button_of_any_style_is_seen_around_its_text(draw: Callable[[], tuple[np.ndarray, BBox]]) -> None:
    image, text = draw()
    face = button_around(image, centre(text), text)
    assert face is not None
    x, y, w, h = face
    assert x < text[0] and text[0] + text[2] < x + w and y <= text[1] and text[1] + text[3] <= y + h
    assert button_around(image, centre(text)) == face  # the line read there is not needed


def test_two_buttons_side_by_side_are_each_a_button() -> None:
    image = panel()
    boxes = [(200, 150, 90, 24), (298, 150, 90, 24)]  # six pixels of window between their bevels
    texts = []
    for box, label in zip(boxes, ("OK", "Annuler"), strict=True):
        bevel(image, box, (245, 245, 245), (110, 110, 110))
        texts.append(write(image, label, box))
    assert [button_around(image, centre(t), t) for t in texts] == boxes


def grid(*, name_fills_cell: bool = False) -> tuple[np.ndarray, BBox]:
    """A table drawn with grid lines; the name's cell (its text left, or filling the cell, centred)."""
    image = panel(WHITE)
    columns, top, row_h = [100, 220, 330, 450], 100, 22
    widths = [108, 100, 110] if name_fills_cell else [120, 110, 120]
    columns = [100, 100 + widths[0], 100 + widths[0] + widths[1], 100 + sum(widths)]
    for r in range(6):
        cv2.line(image, (columns[0], top + r * row_h), (columns[-1], top + r * row_h), (160, 160, 160))
    for c in columns:
        cv2.line(image, (c, top), (c, top + 5 * row_h), (160, 160, 160))
    names = ["DUPONT Jean", "MARTIN Anne", "LEGRAND Paul", "FAURE Lea", "MOREL Eve"]
    found = None
    for r, name in enumerate(names):
        cell = (columns[0] + 1, top + r * row_h + 1, columns[1] - columns[0] - 1, row_h - 1)
        ink = write(image, name, cell, centred=name_fills_cell)
        write(image, "12/03/1950", (columns[1] + 1, cell[1], columns[2] - columns[1] - 1, row_h - 1))
        found = ink if r == 2 else found
    assert found is not None
    return image, found


@pytest.mark.parametrize("fills", [False, True])
def test_a_name_in_a_grid_s_cell_is_no_button(fills: bool) -> None:
    image, text = grid(name_fills_cell=fills)
    assert button_around(image, centre(text), text) is None


def listing(*, zebra: bool, selected: int | None, border: bool = True) -> tuple[np.ndarray, BBox]:
    """A list of patients, one a line: alternating fills or not, one line highlighted or not."""
    image = panel()
    x, y, w, row_h = 120, 80, 240, 20
    cv2.rectangle(image, (x, y), (x + w - 1, y + 8 * row_h - 1), WHITE, -1)
    if border:
        bevel(image, (x, y, w, 8 * row_h), (110, 110, 110), (245, 245, 245))  # sunken
    names = ["DUPONT Jean", "MARTIN Anne", "LEGRAND Paul", "FAURE Lea", "MOREL Eve", "PETIT Luc"]
    found = None
    for r, name in enumerate(names):
        line = (x, y + r * row_h, w, row_h)
        fill: Colour | None = (215, 130, 40) if r == selected else (240, 240, 240) if zebra and r % 2 else None
        if fill is not None:
            cv2.rectangle(image, (x, line[1]), (x + w - 1, line[1] + row_h - 1), fill, -1)
        ink = write(image, name, line, centred=False, colour=WHITE if r == selected else INK)
        found = ink if r == 2 else found
    assert found is not None
    return image, found


@pytest.mark.parametrize(
    ("zebra", "selected", "border"),
    [
        (False, None, True),
        (True, None, True),
        (True, None, False),
        (False, 2, True),
        (True, 2, True),
        (False, 2, False),
    ],
)
def test_a_line_of_a_list_is_no_button(zebra: bool, selected: int | None, border: bool) -> None:
    image, text = listing(zebra=zebra, selected=selected, border=border)
    assert button_around(image, centre(text), text) is None


@pytest.mark.parametrize("centred", [False, True])
def test_a_text_field_holding_a_name_is_no_button(centred: bool) -> None:
    image = panel()
    box = (200, 150, 130, 22)
    cv2.rectangle(image, box[:2], (box[0] + box[2] - 1, box[1] + box[3] - 1), WHITE, -1)
    bevel(image, box, (110, 110, 110), (245, 245, 245))  # sunken
    text = write(image, "DUPONT Jean", box, centred=centred)
    cv2.line(image, (text[0] + text[2] + 2, box[1] + 3), (text[0] + text[2] + 2, box[1] + box[3] - 4), INK)  # caret
    assert button_around(image, centre(text), text) is None


def test_text_on_the_window_itself_is_no_button() -> None:
    image = panel()
    text = write(image, "Nom du patient :", (100, 100, 200, 20))
    assert button_around(image, centre(text), text) is None
    assert button_around(image, (5000, 10)) is None


def test_a_card_naming_a_patient_on_two_lines_is_no_button() -> None:
    image = panel(WHITE)
    x, y, w, h = (190, 150, 170, 44)
    cv2.rectangle(image, (x - 1, y - 1), (x + w, y + h), (150, 150, 150), 1)
    name = write(image, "DUPONT Jean", (x, y + 2, w, 20))
    write(image, "12/03/1950", (x, y + 22, w, 20))
    assert button_around(image, centre(name), name) is None


def tabs() -> tuple[np.ndarray, BBox, BBox]:
    """A row of tabs over a page: the chosen one open on the page, the other closed by the page's top line."""
    image = panel()
    top, bottom = 100, 124
    cv2.rectangle(image, (60, bottom), (600, 380), (110, 110, 110), 1)  # the page's outline
    texts = []
    for left, right, label in ((60, 200, "DUPONT Jean"), (204, 344, "MARTIN Anne")):
        cv2.line(image, (left, bottom), (left, top), (110, 110, 110))
        cv2.line(image, (left, top), (right, top), (110, 110, 110))
        cv2.line(image, (right, top), (right, bottom), (110, 110, 110))
        texts.append(write(image, label, (left + 1, top + 1, right - left - 1, bottom - top - 1)))
    cv2.line(image, (61, bottom), (199, bottom), GREY)  # the chosen tab opens on its page
    return image, texts[0], texts[1]


def test_a_tab_naming_a_patient_is_no_button() -> None:
    image, chosen, other = tabs()
    assert button_around(image, centre(chosen), chosen) is None
    assert button_around(image, centre(other), other) is None
