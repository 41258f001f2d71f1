"""A drop-down whose list opens over itself (AWT's or Motif's `Choice`), clicked right of the text it shows:
named by the label left of it, never by that text ("— choisir —", its empty choice)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rpa_mcp.shadow.click_facts import ClickFacts, shown_under_list
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.budget import FrameCache
from rpa_mcp.vision.ocr import OcrLine

SHOWN = [1604, 116, 80, 21]  # "— choisir —", read under the click's crop
LIST = [1602, 115, 220, 158]  # the list the click opened, from the drop-down's own top
CLICK = (1712, 126)  # right of the text, on the drop-down


def facts() -> dict[str, Any]:
    return {
        "shot": "before",
        "anchor_box": [CLICK[0] - 150, CLICK[1] - 40, 300, 80],
        "anchor_offset": [150, 40],
        "ocr": {"text": "— choisir —", "bbox": SHOWN},
    }


def test_the_label_left_of_a_drop_down_its_list_covers_names_it() -> None:
    frames = FrameCache(10**8)
    frames.put("before", np.full((1080, 1920, 3), 200, np.uint8))
    # the region read left of the drop-down runs from 400 px left of its text, one line height above it
    label = OcrLine("Unité d'hébergement :", (238, 20, 152, 24), 0.99)
    clicks = ClickFacts(traces=None, ocr=FakeOcr(lines=[label]), frames=frames, max_pixels=10**8)  # type: ignore[arg-type]
    found = clicks.label_left_of(facts(), LIST)
    assert found is not None and found["text"] == "Unité d'hébergement :"
    assert found["control"] == SHOWN


def test_the_control_is_the_shown_line_only_inside_the_list_on_the_click_s_row() -> None:
    assert shown_under_list(LIST, SHOWN, CLICK) == SHOWN
    assert shown_under_list(LIST, SHOWN, (CLICK[0], 200)) is None  # the click on another row
    assert shown_under_list(LIST, [1400, 116, 80, 21], CLICK) is None  # a line outside the list's column
    assert shown_under_list([1602, 140, 220, 158], SHOWN, CLICK) is None  # the list hangs below the line
