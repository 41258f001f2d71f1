"""OCR port and its RapidOCR adapter.

Screen text is data, never instructions. One engine per process, built lazily (import and
construction cost ~0.6 s). Never OCR a full frame on a hot path: find the region first.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from rpa_mcp.errors import Unavailable
from rpa_mcp.vision.images import BBox


@dataclass(frozen=True)
class OcrLine:
    text: str
    bbox: BBox  # in the coordinates of the image passed in
    score: float


class OcrEngine(Protocol):
    def read(self, image: np.ndarray) -> list[OcrLine]:
        """Detect and recognise text lines in a BGR region (keep regions small)."""
        ...

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        """Recognition only, for a tight crop that holds one line (a tab label, a button)."""
        ...


def normalize_text(text: str) -> str:
    """Accent-, case- and space-insensitive form used for every comparison of screen text."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().replace("\u2019", "'").split())


class RapidOcrEngine:
    """`rapidocr` 3.x on onnxruntime; the models ship inside its wheel (nothing downloaded)."""

    def __init__(self) -> None:
        self._engine: Callable[..., Any] | None = None  # a RapidOCR instance; its results are read duck-typed
        self._lock = threading.Lock()

    def _get(self) -> Callable[..., Any]:
        with self._lock:
            if self._engine is None:
                try:
                    import logging

                    from rapidocr import RapidOCR

                    # "The text detection result is empty" is a normal outcome here, not a warning.
                    logging.getLogger("RapidOCR").setLevel(logging.ERROR)
                    self._engine = RapidOCR(
                        params={
                            "Global.use_cls": False,
                            "Global.log_level": "error",
                            "Det.limit_type": "max",
                            "Det.limit_side_len": 960,
                        }
                    )
                except Exception as exc:  # pragma: no cover - depends on the install
                    raise Unavailable(f"OCR engine could not start: {exc}") from exc
            return self._engine

    def read(self, image: np.ndarray) -> list[OcrLine]:
        if image.size == 0:
            return []
        engine = self._get()
        with self._lock:  # onnxruntime sessions are shared; keep calls serial and predictable
            # Explicit flags: rapidocr 3.x keeps use_det=False from a previous read_line() call.
            result = engine(image, use_det=True, use_cls=False, use_rec=True)
        txts, scores = getattr(result, "txts", None), getattr(result, "scores", None)
        if not txts:
            return []
        boxes = getattr(result, "boxes", None)
        if boxes is None:  # RapidOCR skipped detection (tiny image): one line over the whole region
            height, width = image.shape[:2]
            boxes = [np.array([[0, 0], [width, 0], [width, height], [0, height]])] * len(txts)
        lines = []
        for box, text, score in zip(boxes, txts, scores or [1.0] * len(txts), strict=False):
            pts = np.asarray(box)
            x0, y0 = pts.min(axis=0)
            x1, y1 = pts.max(axis=0)
            lines.append(OcrLine(str(text), (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), float(score)))
        return lines

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        if image.size == 0:
            return None
        engine = self._get()
        with self._lock:
            result = engine(image, use_det=False, use_cls=False, use_rec=True)
        txts, scores = result.txts, result.scores
        if not txts:
            return None
        height, width = image.shape[:2]
        return OcrLine(str(txts[0]), (0, 0, width, height), float(scores[0] if scores else 1.0))
