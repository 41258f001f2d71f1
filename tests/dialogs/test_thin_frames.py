"""A dialog whose buttons only an undilated edge map closes: thin (1-px) frames a pixel or two from their
labels, from their neighbour's frame and from the window's outline join them once the map is dilated."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs import DialogService
from rpa_mcp.dialogs.locate import find_modal, iou, thin_framed
from rpa_mcp.testing import ScriptedOcr

FACE, OUTLINE, INK, PANE = 236, 40, 0, (230, 240, 250)
DIALOG = (200, 150, 420, 200)
LABELS = ("Dismiss", "Clear")


def thin_dialog(*, inset: int = 4, pad: int = 2, gap: int = 3) -> np.ndarray:
    """A message window: a 1-px outline, a log pane framed `inset` px inside its sides, a row of buttons
    in 1-px frames `gap` px apart, their bold labels `pad` px inside, `inset` px above its bottom."""
    img = np.full((600, 900, 3), FACE, np.uint8)
    x, y, w, h = DIALOG
    cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), (OUTLINE,) * 3, 1)
    cv2.rectangle(img, (x + 1, y + 1), (x + w - 2, y + 20), (180, 120, 60), -1)  # the title bar
    cv2.putText(img, "Error", (x + 180, y + 15), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
    cv2.rectangle(img, (x + inset, y + 24), (x + w - 1 - inset, y + h - 48), (INK,) * 3, 1)
    cv2.rectangle(img, (x + inset + 1, y + 25), (x + w - 2 - inset, y + h - 49), PANE, -1)
    cv2.putText(img, "Read access to the file is blocked.", (x + 12, y + 50), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (INK,) * 3)
    left = x + inset + 1
    for label in LABELS:
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.7, 2)
        bw, bh = tw + 2 * pad + 2, th + base + 2 * pad + 2
        top = y + h - 1 - inset - bh
        cv2.rectangle(img, (left, top), (left + bw - 1, top + bh - 1), (INK,) * 3, 1)
        at = (left + pad + 1, top + pad + 1 + th)
        cv2.putText(img, label, at, cv2.FONT_HERSHEY_SIMPLEX, 0.7, (INK,) * 3, 2)
        left += bw + gap
    return img


def test_buttons_in_thin_frames_close_only_on_the_undilated_map() -> None:
    image = thin_dialog()
    region = find_modal(image)
    assert region is None or iou(region.bbox, DIALOG) < 0.5, region  # the dilated map joins them: no dialog
    found = thin_framed(image)
    assert found and iou(found[0].bbox, DIALOG) >= 0.85, found
    assert len(found[0].buttons) == len(LABELS) and "buttons" in found[0].evidence


def test_a_dialog_the_dilated_map_finds_is_not_found_again() -> None:
    # buttons framed well apart from their labels and from each other: faces of the dilated map already
    image = thin_dialog(pad=8, gap=12, inset=10)
    region = find_modal(image)
    assert region is not None and "buttons" in region.evidence and iou(region.bbox, DIALOG) >= 0.85, region
    assert thin_framed(image) == []


def test_the_thorough_path_reads_the_thin_framed_box_before_the_whole_frame(catalog) -> None:
    # the box's buttons are read left to right, then its lines (the frame read whole reads nothing here)
    service = DialogService(catalog, ScriptedOcr(["OK", "Clear", "An error occurred"]))
    found = service.classify(thin_dialog(), thorough=True)
    assert found.dialog_id == "app-error" and found.path == "thorough", found.notes
    assert found.bbox is not None and iou(found.bbox, DIALOG) >= 0.85
    assert any("undilated" in note for note in found.notes)
    assert service.resolve(thin_dialog(), thorough=True).decision == "pause"


def test_the_fast_path_never_reads_the_undilated_map(catalog) -> None:
    ocr = ScriptedOcr(["OK", "Clear", "An error occurred"])
    assert not DialogService(catalog, ocr).classify(thin_dialog()).found
    assert ocr.calls == 0
