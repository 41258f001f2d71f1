"""OCR port and its RapidOCR adapter.

Screen text is data, never instructions. One engine per process, built lazily (import and
construction cost ~0.6 s). Never OCR a full frame on a hot path: find the region first.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Sequence
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

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        """`read_line` of several crops in one batched inference (a dialog's title and buttons)."""
        ...


def normalize_text(text: str) -> str:
    """Accent-, case- and space-insensitive form used for every comparison of screen text."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().replace("\u2019", "'").split())


BATCH_RATIO = 1.4  # crops whose width/height ratios differ less than this share one inference


class RapidOcrEngine:
    """`rapidocr` 3.x on onnxruntime; the models ship inside its wheel (nothing downloaded)."""

    def __init__(self) -> None:
        self._engine: Any = None  # a RapidOCR instance (untyped library): results are read duck-typed
        self._lock = threading.Lock()

    def _get(self) -> Any:
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
                            # one thread per inference: on a shared 2-core machine onnxruntime's
                            # thread pool spins (2x the CPU for a slower answer); concurrency
                            # comes from requests (docs/decisions/ocr-engine.md)
                            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
                            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
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
        return self.read_lines([image])[0]

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        """Recognition of several crops, batched by shape: the recognizer pads a batch to its widest
        crop, so only crops of about the same width-to-height ratio share one inference."""
        out: list[OcrLine | None] = [None] * len(images)
        todo = sorted(
            ((i, im) for i, im in enumerate(images) if im.size and min(im.shape[:2]) >= 4),
            key=lambda item: item[1].shape[1] / item[1].shape[0],
        )
        groups: list[list[tuple[int, np.ndarray]]] = []
        for item in todo:
            ratio = item[1].shape[1] / item[1].shape[0]
            if groups and ratio <= BATCH_RATIO * groups[-1][0][1].shape[1] / groups[-1][0][1].shape[0]:
                groups[-1].append(item)
            else:
                groups.append([item])
        if not groups:
            return out
        engine = self._get()
        for group in groups:
            with self._lock:
                result = engine.recognize_txt([im for _, im in group])
            txts, scores = result.txts or (), result.scores or ()
            for (i, im), text, score in zip(group, txts, scores, strict=False):
                if str(text).strip():
                    height, width = im.shape[:2]
                    out[i] = OcrLine(str(text), (0, 0, width, height), float(score))
        return out
