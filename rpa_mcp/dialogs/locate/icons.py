"""The error icon every toolkit draws beside an error message: a red disc with a white mark.

Windows (a white cross), GTK's Adwaita and Tk (a white bar), Qt's critical icon, macOS' stop sign:
a roughly round blob of saturated red, icon-sized, with white inside it. Nothing here reads text.
"""

from __future__ import annotations

import cv2
import numpy as np

ICON_PX = (14, 96)  # side of the icon, from a 16 px list icon to a 64 px icon at 150 %
ROUND = (0.7, 1.4)  # width / height
RED_FILL = (0.35, 0.9)  # share of the icon's box that is red (a disc with a white mark fills ~0.55-0.75)
WHITE_INSIDE = 0.04  # share of the icon's box that is white (the mark)


def _red(hsv: np.ndarray) -> np.ndarray:
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    return ((hue <= 8) | (hue >= 170)) & (sat >= 110) & (val >= 90)


def has_error_icon(area: np.ndarray) -> bool:
    """A red disc with a white mark inside, of icon size, somewhere in `area` (a dialog's box, BGR)."""
    if area.size == 0 or area.ndim != 3:
        return False
    hsv = cv2.cvtColor(area, cv2.COLOR_BGR2HSV)
    red = _red(hsv).astype(np.uint8)
    count, _labels, stats, _ = cv2.connectedComponentsWithStats(red, connectivity=8)
    white = (hsv[..., 1] <= 40) & (hsv[..., 2] >= 200)
    for i in range(1, count):
        x, y, w, h, _n = (int(v) for v in stats[i])
        if not (ICON_PX[0] <= w <= ICON_PX[1] and ICON_PX[0] <= h <= ICON_PX[1]):
            continue
        if not ROUND[0] <= w / h <= ROUND[1]:
            continue
        box = w * h
        fill = float(red[y : y + h, x : x + w].sum()) / box
        mark = float(white[y : y + h, x : x + w].sum()) / box
        if RED_FILL[0] <= fill <= RED_FILL[1] and mark >= WHITE_INSIDE:
            return True
    return False
