"""Measure the int8 recognizer's activation ranges on the TUNING set; writes `rpa_mcp/vision/rec_int8_ranges.json`.

    python -m rpa_mcp.bench.ocr_calibration [--salt 2] [--cache DIR] [--samples 200] [--out PATH]

The crops are those the dialog classifier reads on the tuning set's frames (the set rules are
fitted to; the evaluation set is never looked at), each once (by its pixels); `--samples` of them,
drawn with a fixed seed, go through the recognizer's preprocessing and onnxruntime's MinMax
calibration of the prepared float model (rpa_mcp/vision/int8.py). The same set and options give
the same file. Run it again when rapidocr ships another recognizer (the server then keeps the
float model and says so in its log).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rpa_mcp.bench.cases import frame_cases
from rpa_mcp.dialogs import DialogService, load_dialog_catalog
from rpa_mcp.screens.corpus import ensure_sampled_set
from rpa_mcp.screens.truth import ScreenSet
from rpa_mcp.settings import Settings, shipped_dir
from rpa_mcp.vision import int8
from rpa_mcp.vision.ocr import OcrEngine, OcrLine, RapidOcrEngine, rec_input

SOURCE_MODEL = "PP-OCRv6_rec_small.onnx"  # rapidocr 3.x's recognizer (its wheel's default)
SEED = 14


class RecordingOcr:
    """An OcrEngine that keeps every crop sent to recognition (distinct pixels only)."""

    def __init__(self, inner: RapidOcrEngine) -> None:
        self.inner = inner
        self.crops: dict[bytes, np.ndarray] = {}

    def read(self, image: np.ndarray) -> list[OcrLine]:
        return self.inner.read(image)

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        return self.read_lines([image])[0]

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        for image in images:
            if image.size and min(image.shape[:2]) >= 4:
                self.crops.setdefault(_key(image), np.ascontiguousarray(image).copy())
        return self.inner.read_lines(images)


def _key(image: np.ndarray) -> bytes:
    return bytes(str(image.shape), "ascii") + np.ascontiguousarray(image).tobytes()


def classifier_crops(screens: ScreenSet) -> list[np.ndarray]:
    """What the dialog classifier reads on every frame of `screens`, in the order it reads it."""
    ocr = RecordingOcr(RapidOcrEngine())
    engine: OcrEngine = ocr
    service = DialogService(load_dialog_catalog(shipped_dir("catalog") / "dialogs.yaml"), engine)
    for case in frame_cases(screens):
        service.classify(image=case.image, previous=case.previous)
    return list(ocr.crops.values())


class _Inputs:
    """onnxruntime's CalibrationDataReader protocol (`get_next`) over preprocessed crops."""

    def __init__(self, crops: Sequence[np.ndarray]) -> None:
        self._it: Iterator[dict[str, np.ndarray]] = iter([{"x": rec_input(c)} for c in crops])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._it, None)


def calibrate(crops: Sequence[np.ndarray], *, samples: int, source: Path) -> dict[str, Any]:
    chosen = random.Random(SEED).sample(list(crops), min(samples, len(crops)))
    with tempfile.TemporaryDirectory(prefix="rec-calibration-") as tmp:
        work = Path(tmp)
        prepared = int8.prepare(source, work)
        cache = work / "ranges.json"
        int8.quantize(prepared, work / "int8.onnx", cache, _Inputs(chosen))
        tensors = int8.compact_ranges(cache)
    return {"source_model": source.name, "source_sha256": int8.file_digest(source), "crops": len(chosen),
            "tensors": tensors}  # fmt: skip


def _dumps(result: dict[str, Any]) -> str:
    """One key a line, one tensor a line (a diff of two calibrations stays readable)."""
    head = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in result.items() if k != "tensors"]
    tensors = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in result["tensors"].items()]
    return "{\n" + ",\n".join(head) + ',\n  "tensors": {\n' + ",\n".join(tensors) + "\n  }\n}\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rpa_mcp.bench.ocr_calibration")
    parser.add_argument("--salt", default="2", help="the tuning set's salt")
    parser.add_argument("--cache", type=Path, default=None, help="where rendered sets are kept")
    parser.add_argument("--samples", type=int, default=200, help="crops drawn for the calibration")
    parser.add_argument("--out", type=Path, default=int8.RANGES_FILE)
    args = parser.parse_args(argv)
    cache = args.cache or Settings().data_dir / "bench" / "screens"
    screens = ScreenSet(ensure_sampled_set(cache, "tuning", salt=args.salt))
    crops = classifier_crops(screens)
    result = calibrate(crops, samples=args.samples, source=int8.wheel_model(SOURCE_MODEL))
    result = {"tuning_salt": args.salt, **result}
    args.out.write_text(_dumps(result), encoding="utf-8")
    print(f"{len(crops)} distinct crops read on the tuning set; {result['crops']} calibrated; wrote {args.out}")


if __name__ == "__main__":
    main()
