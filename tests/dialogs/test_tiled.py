"""A dialog whose outline ink outside touches, rebuilt from its body over a row of buttons tiling its width."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate import find_modal, iou
from rpa_mcp.dialogs.locate.edges import closed_regions, edge_map

PAGE, FACE, BORDER, INK = 255, 238, 90, 20
DIALOG = (400, 300, 600, 110)  # title bar 20 px, body, a row of three buttons flush with its bottom border
LABELS = ("Open", "Recover", "Abort")


def tiled_dialog(*, text_under: bool = True, left_aligned: bool = False) -> np.ndarray:
    img = np.full((800, 1400, 3), PAGE, np.uint8)
    x, y, w, h = DIALOG
    cv2.rectangle(img, (x, y), (x + w, y + h), (FACE, FACE, FACE), -1)
    cv2.rectangle(img, (x, y), (x + w, y + 20), (200, 150, 100), -1)  # the title bar
    cv2.putText(img, "ATTENTION", (x + 250, y + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (BORDER,) * 3, 1)
    cv2.putText(img, "Swap file already exists!", (x + 180, y + 48), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (INK,) * 3, 1)
    cell = w // len(LABELS)
    top = y + h - 34
    cv2.line(img, (x, top), (x + w, top), (BORDER,) * 3, 1)  # the buttons' top: the body's bottom
    for i, label in enumerate(LABELS):
        left = x + i * cell
        if i:
            cv2.line(img, (left, top), (left, y + h), (BORDER,) * 3, 1)
        size = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)[0][0]
        at = left + 8 if left_aligned else left + (cell - size) // 2
        cv2.putText(img, label, (at, top + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (INK,) * 3, 1)
    if text_under:
        # the editor's text right under the bottom border, from left of the dialog into it
        for row, words in enumerate(('"swap" named ".notes.txt.swp"', "owned by: rpa   dated: Mon Dec 7")):
            cv2.putText(img, words, (250, y + h + 12 + 16 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (INK,) * 3, 1)
    return img


def test_its_outline_closes_when_nothing_touches_it():
    region = find_modal(tiled_dialog(text_under=False))
    assert region is not None and "buttons" in region.evidence and iou(region.bbox, DIALOG) >= 0.9


def test_text_touching_its_bottom_border_does_not_hide_it():
    image = tiled_dialog()
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    outline = [r for r in closed_regions(edge_map(gray), 30, 14) if iou(r, DIALOG) >= 0.9]
    assert not outline  # the text joins the outline to itself: no closed region is the dialog
    region = find_modal(image)
    assert region is not None and "buttons" in region.evidence, region
    assert iou(region.bbox, DIALOG) >= 0.9 and len(region.buttons) == len(LABELS)


def test_cells_with_text_from_their_left_end_are_a_status_bar_not_buttons():
    region = find_modal(tiled_dialog(left_aligned=True))
    assert region is None or iou(region.bbox, DIALOG) < 0.5, region
