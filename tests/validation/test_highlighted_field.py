"""A drop-down just chosen in, still focused, draws its option in light text on a dark highlight filling it
(Qt's Windows style): the option must read as chosen. Its box, cut inside the drop-down's frame, holds the
line with no margin, and the recognizer misread such a tight crop of light-on-dark text ("chgrn" for
"Echographie abdominale"). The fixture is that drop-down cut from a real desktop's screen, after the choice
(before: the same with the drop-down painted white).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from rpa_mcp.validation.checkers.text import OcrRoiChecker
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Expected, Observed, Target
from rpa_mcp.vision.ocr import RapidOcrEngine

FIXTURES = Path(__file__).parent / "fixtures"
WHOLE = {"frame": "after", "what": "expected_text", "match": "whole"}
DROP_DOWN = (128, 12, 622, 20)  # the drop-down's box in the fixture, as the replay gives it to the checker


def _screen(name: str) -> np.ndarray:
    image = cv2.imread(str(FIXTURES / f"focused_drop_down_{name}.png"), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def _score(expected: str, ocr: RapidOcrEngine) -> float | None:
    ctx = CheckContext(
        "select_option",
        _screen("before"),
        _screen("after"),
        Target("Examen :", DROP_DOWN),
        Expected(text=expected),
        Observed(),
        ocr,
    )
    return OcrRoiChecker().run(ctx, "shown", WHOLE).score


def test_an_option_shown_in_light_text_on_a_dark_highlight_reads_as_chosen(engine: RapidOcrEngine) -> None:
    assert _score("Échographie abdominale", engine) == 1.0


def test_another_option_is_still_a_mismatch(engine: RapidOcrEngine) -> None:
    for other in ("Échographie cardiaque", "Radiographie du bassin", "Échographie"):
        assert _score(other, engine) == 0.0
