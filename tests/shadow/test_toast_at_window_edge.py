"""A confirmation bar at a maximised window's bottom edge is read as the step's message.

Seen on a native desk: after the save, a message bar slid in at the window's bottom (within the screen's
bottom band, left out for the taskbar clock) and moved the status line above it; its box was cut at the band
(no text in it) or read with the status line and its close button (too long): the save learned no outcome.
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.shadow.toasts import changed_boxes, read_opened, read_toast
from rpa_mcp.vision.ocr import OcrLine

SAVED = "Rendez-vous enregistré : BERTIN Solène — Cardiologie — le 05/12/2026."


class CropOcr:
    """Reads the status line, the message and "Close" when the crop reaches the message's row (the crop's
    height tells: the bar's lower half is under the bottom band)."""

    def __init__(self) -> None:
        self.heights: list[int] = []

    def read(self, image: np.ndarray) -> list[OcrLine]:
        self.heights.append(image.shape[0])
        if image.shape[0] < 60:
            return []
        return [
            OcrLine("2 patient(s) trouvé(s) pour « BERTIN ».", (6, 0, 262, 30), 0.98),
            OcrLine(SAVED, (4, 44, 476, 27), 0.98),
            OcrLine("Close", (1840, 42, 56, 32), 0.98),
        ]


def frames() -> tuple[np.ndarray, np.ndarray]:
    before = np.full((1080, 1920, 3), 240, np.uint8)
    before[1030:1045, 10:400:3] = 20  # the status line, at the window's bottom
    after = np.full((1080, 1920, 3), 240, np.uint8)
    after[1000:1015, 10:400:3] = 20  # ... moved up by the bar
    after[1020:1061, :] = 200  # the bar, its message at its middle (under the bottom band)
    after[1045:1058, 10:480:3] = 20
    after[1040:1060, 1800:1890] = 160  # its close button
    after[1062:, 1700:] = 30  # the clock's corner, ignored
    return before, after


def test_a_box_reaching_the_bottom_band_is_followed_down_it_but_for_the_clock_corner() -> None:
    before, after = frames()
    top = changed_boxes(before, after)[0]
    assert top[1] < 1026 and top[1] + top[3] >= 1058  # down to the bar's message
    assert top[1] + top[3] <= 1061  # not into the clock's corner below the window


def test_the_message_line_of_a_bar_read_with_its_neighbours_is_the_toast() -> None:
    before, after = frames()
    assert read_toast(before, after, CropOcr()) == SAVED


class FaceOcr:
    """Reads the clicked button's own label on any crop."""

    def read(self, image: np.ndarray) -> list[OcrLine]:
        return [OcrLine("Enregistrer le rendez-vous", (0, 0, image.shape[1], image.shape[0]), 0.99)]


def test_the_clicked_button_s_own_face_changing_is_no_message() -> None:
    before = np.full((1080, 1920, 3), 240, np.uint8)
    after = before.copy()
    label = (1579, 304, 177, 21)
    after[296:300, 1555:1779] = after[330:334, 1555:1779] = 90  # its focus ring drawn round it
    after[296:334, 1555:1559] = after[296:334, 1775:1779] = 90
    assert read_toast(before, after, FaceOcr(), exclude=label) is None


class SameTitleOcr:
    """Reads "Rechercher" at the top of any crop, before and after alike."""

    def read(self, image: np.ndarray) -> list[OcrLine]:
        return [OcrLine("Rechercher", (0, 0, 80, 20), 0.99)]


def test_a_panel_redrawn_wider_whose_title_was_already_there_is_no_form_that_opened() -> None:
    before = np.full((1080, 1920, 3), 240, np.uint8)
    before[80:1060, 1500:1900] = 200
    after = np.full((1080, 1920, 3), 240, np.uint8)
    after[80:1060, 1320:1900] = 190  # the panel widened by the message it shows, its content moved
    assert read_opened(before, after, SameTitleOcr()) is None
