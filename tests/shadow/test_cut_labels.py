"""A label the region read around a click cut at its edge is read again whole on the frame."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.shadow.test_target_box import frame_b64


@dataclass
class CutOcr:
    """The crop around the click (400, 300) cuts the label's first letter; a wider region reads it whole."""

    def read(self, image: np.ndarray) -> list[OcrLine]:
        if image.shape[:2] == (80, 300):  # the crop kept around the click starts at (250, 260)
            return [OcrLine("atient name :", (0, 30, 130, 20), 0.96)]
        if image.shape[0] < 40:  # its row read again, across a strip from the frame's left edge, from y = 286
            return [OcrLine("Patient name :", (270, 4, 110, 20), 0.97)]
        return []

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        return None

    def read_lines(self, images: Any) -> list[OcrLine | None]:
        return [None for _ in images]


def test_a_label_cut_by_the_region_around_the_click_is_read_whole(make_service: Any) -> None:
    service = make_service(ocr=CutOcr())
    at = {"window_title": "Pharmacy", "screen_width": 960, "screen_height": 540, "screenshot": frame_b64()}
    service.ingest([ev("click", 1.0, x=400, y=300, **at), ev("type", 2.0, text="DUBOIS", **at)])
    step = service.understanding("s1")["steps"][0]
    assert step["target"]["by_text"] == "Patient name :" and step["target"]["bbox"] == [270, 290, 110, 20]
    assert step["target"]["label_offset"] == [130, 10] and step["target"]["label_width"] == 110
