"""An evidence crop of a plain region (a dark desktop where a window was) shows its surroundings."""

from __future__ import annotations

import base64

import cv2
import numpy as np

from rpa_mcp.console.views.replays import click_view
from rpa_mcp.ops.common import Crop
from rpa_mcp.replay.service.evidence import CLICK_BOX, CLICK_LABEL, crops_around
from rpa_mcp.vision.images import legible_box

DESKTOP = (110, 40, 14)  # BGR: a dark blue desktop background


def _screen() -> np.ndarray:
    """1920x1080 dark desktop, a dark-themed window at (700, 300)-(1300, 700) with a white title text."""
    screen = np.zeros((1080, 1920, 3), np.uint8)
    screen[:] = DESKTOP
    screen[300:700, 700:1300] = (48, 48, 48)
    cv2.putText(screen, "Dossier patient", (720, 340), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (235, 235, 235), 2)
    return screen


def _decoded(crop: dict[str, object]) -> np.ndarray:
    data = base64.b64decode(str(crop["data_base64"]))
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)


def test_a_click_on_the_plain_desktop_is_shown_with_the_window_beside_it():
    point = (560, 420)  # where the tab was recorded: the window is not there any more
    [crop] = crops_around(_screen(), point, None, box_size=CLICK_BOX, label=CLICK_LABEL)
    x, y, w, h = crop["bbox"]
    assert crop["widened"] is True and (w, h) != CLICK_BOX
    assert x <= point[0] < x + w and y <= point[1] < y + h  # the point is still in the picture
    assert (_decoded(crop) > 200).sum() > 100  # the window's title is in the picture: not a plain dark rectangle
    view = click_view({"point": list(point), "evidence": [crop]})
    assert view is not None and view["widened"] and (view["px"], view["py"]) == (point[0] - x, point[1] - y)
    assert view["r"] > 9  # the marker keeps its size once the wider picture is scaled down
    assert Crop.model_validate(crop).widened  # what get_replay_status answers with


def test_a_crop_with_something_to_read_is_left_as_it_was():
    screen = _screen()
    [crop] = crops_around(screen, (800, 330), None, box_size=CLICK_BOX, label=CLICK_LABEL)
    assert "widened" not in crop and crop["bbox"] == [680, 260, *CLICK_BOX]
    assert legible_box(screen, (680, 260, *CLICK_BOX)) == ((680, 260, *CLICK_BOX), False)


def test_a_plain_screen_everywhere_is_widened_at_most_four_times():
    screen = np.full((1080, 1920, 3), DESKTOP, np.uint8)
    box, widened = legible_box(screen, (900, 500, 100, 50))
    assert widened and box == (750, 425, 400, 200)  # centred on the region, 4x, nothing more to find
