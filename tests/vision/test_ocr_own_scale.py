"""`RapidOcrEngine.read_own_scale`: a region wider than the detector's 960 px is detected at its own size
(a dense grid's rows run together when scaled down), for that call only; `read` still scales it down."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.vision.ocr import DETECT_SIDE, RapidOcrEngine
from rpa_mcp.vision.tiles import OWN_SCALE_PIXELS, OwnScaleReader, read_region


def window(width: int, height: int) -> np.ndarray:
    image = np.full((height, width, 3), 240, np.uint8)
    for i, text in enumerate(("MARTIN Hugo 02/11/1967", "MARTINEZ Lina 19/05/1990")):
        cv2.putText(image, text, (40, 200 + 15 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (30, 30, 30), 1, cv2.LINE_AA)
    return image


@pytest.fixture
def detector_inputs(shared_ocr: RapidOcrEngine, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(height, width) of each image the library's detector is given."""
    detector = shared_ocr._get()._load_det_model()
    session, seen = detector.session, []

    def run(batch: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        seen.append(tuple(batch.shape[2:]))
        return session(batch, *args, **kwargs)

    monkeypatch.setattr(detector, "session", run)
    return seen


def test_a_window_is_detected_at_its_own_size_and_read_scaled_down_otherwise(
    shared_ocr: RapidOcrEngine, detector_inputs: list[tuple[int, int]]
) -> None:
    image = window(1024, 768)
    own = [line.text for line in shared_ocr.read_own_scale(image)]
    scaled = [line.text for line in shared_ocr.read(image)]  # the same pixels: not the answer remembered above
    assert detector_inputs == [(768, 1024), (704, 960)]  # 720 rounded to 32s: 0.92 high, 0.94 wide
    assert any("Hugo" in text for text in own) and any("Hugo" in text for text in scaled)
    assert shared_ocr._get()._load_det_model().limit_side_len == DETECT_SIDE  # for that call only


def test_only_a_region_up_to_the_budget_is_read_at_its_own_scale(
    shared_ocr: RapidOcrEngine, detector_inputs: list[tuple[int, int]]
) -> None:
    assert isinstance(shared_ocr, OwnScaleReader)
    assert 1280 * 800 <= OWN_SCALE_PIXELS < 1920 * 1080
    read_region(shared_ocr, window(1280, 800))
    read_region(shared_ocr, window(1920, 1080))
    assert detector_inputs == [(800, 1280), (544, 960)]
