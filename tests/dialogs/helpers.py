"""Helpers for the dialog tests: a synthetic dialog drawn with OpenCV."""

from __future__ import annotations

import cv2
import numpy as np


def synthetic_dialog(n_buttons: int = 2) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """A 1000x700 desktop with a window and a dialog on top: title, body line, buttons in the footer."""
    img = np.full((700, 1000, 3), (120, 80, 30), np.uint8)
    cv2.rectangle(img, (60, 40), (940, 640), (245, 245, 245), -1)  # window behind
    cv2.rectangle(img, (60, 40), (940, 640), (90, 90, 90), 1)
    x, y, w, h = 300, 220, 400, 190
    cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (60, 60, 60), 1)
    cv2.putText(img, "Dialog title", (x + 16, y + 30), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(img, "Some body text here", (x + 16, y + 80), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    buttons = []
    for i in range(n_buttons):
        bx, by, bw, bh = x + w - (i + 1) * 110, y + h - 46, 96, 30
        cv2.rectangle(img, (bx, by), (bx + bw, by + bh), (225, 225, 225), -1)
        cv2.rectangle(img, (bx, by), (bx + bw, by + bh), (100, 100, 100), 1)
        cv2.putText(img, "Btn", (bx + 30, by + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        buttons.append((bx, by, bw + 1, bh + 1))
    return img, sorted(buttons)
