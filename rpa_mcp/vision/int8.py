"""An int8 copy of the text recognizer, made from the model in rapidocr's wheel at first use.

The dialog classifier's reads are most of a classification's time, and most of a recognition is
the recognizer's convolutions; with int8 weights and activations (static quantization, QDQ form,
per-channel weights) onnxruntime runs them in ~0.6x the CPU time of the float model on one
thread. The activation ranges were measured once on crops the classifier read in the tuning set
(`python -m rpa_mcp.bench.ocr_calibration`) and ship beside this module (`rec_int8_ranges.json`,
with the digest of the float model they belong to): making the int8 model needs no screen, no
download and no calibration run, and gives the same bytes on every install of the same versions.
docs/decisions/ocr-engine.md has the measurements.

The model is written once under a cache folder (`<data_dir>/models`), named by the float model's
and the ranges' digests, through a temporary file and an atomic rename (two processes starting at
once both write a whole file). Any failure — another rapidocr model, no `onnx` package, a
quantizer that refuses the ranges — answers None: the caller keeps the float model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

RANGES_FILE = Path(__file__).with_name("rec_int8_ranges.json")
OPSET = 13  # per-channel QuantizeLinear/DequantizeLinear (the wheel's model is opset 11)
_build_lock = threading.Lock()


def wheel_model(name: str) -> Path:
    """A model file shipped in rapidocr's wheel."""
    import rapidocr

    return Path(rapidocr.__file__).resolve().parent / "models" / name


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_ranges(ranges: Path = RANGES_FILE) -> dict[str, Any]:
    """The shipped calibration: the float model it belongs to, how it was quantized, the ranges."""
    data: dict[str, Any] = json.loads(ranges.read_text(encoding="utf-8"))
    for key in ("source_model", "source_sha256", "tensors"):
        if key not in data:
            raise ValueError(f"{ranges.name}: missing {key!r}")
    return data


def int8_recognizer(cache_dir: Path, *, ranges: Path = RANGES_FILE, source: Path | None = None) -> Path | None:
    """The int8 recognizer under `cache_dir` (made on first call), or None to keep the float model."""
    try:
        calibration = load_ranges(ranges)
        source = source or wheel_model(str(calibration["source_model"]))
        digest = file_digest(source)
        if digest != calibration["source_sha256"]:
            log.warning(
                "int8 recognizer not made: %s is not the model its ranges were measured on (sha256 %s, expected %s); "
                "the float model is used",
                source.name,
                digest[:12],
                str(calibration["source_sha256"])[:12],
            )
            return None
        ranges_digest = hashlib.sha256(ranges.read_bytes()).hexdigest()
        target = cache_dir / f"{source.stem}-int8-{digest[:12]}-{ranges_digest[:12]}.onnx"
        with _build_lock:
            if not target.is_file():
                _build(source, target, calibration)
        return target
    except Exception as exc:  # any failure keeps the float model: slower, never wrong
        log.warning("int8 recognizer not made (%s: %s); the float model is used", type(exc).__name__, exc)
        return None


def _ort_cache(tensors: dict[str, list[float]]) -> dict[str, Any]:
    """onnxruntime's calibration-cache JSON for `{tensor: [lowest, highest]}` (float32 values)."""

    def array(value: float) -> dict[str, Any]:
        return {"data": [value], "dtype": "float32", "CLS": "numpy.array"}

    return {
        "CLS": "TensorsData",
        "calibration_method": {"CLS": "CalibrationMethod", "value": "CalibrationMethod.MinMax"},
        "smooth_quant": False,
        "data": {
            name: {"lowest": array(low), "highest": array(high), "CLS": "TensorData"}
            for name, (low, high) in tensors.items()
        },
    }


def _build(source: Path, target: Path, calibration: dict[str, Any]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rec-int8-", dir=target.parent) as tmp:
        work = Path(tmp)
        prepared = prepare(source, work)
        names = tensor_names(prepared)
        unknown = sorted(set(calibration["tensors"]) - names)
        if unknown:
            raise ValueError(f"the ranges name {len(unknown)} tensors the prepared model lacks (e.g. {unknown[0]!r})")
        cache = work / "ranges.json"  # onnxruntime's calibration-cache format
        cache.write_text(json.dumps(_ort_cache(calibration["tensors"])), encoding="utf-8")
        out = work / "int8.onnx"
        quantize(prepared, out, cache)
        os.replace(out, target)
    log.info("int8 recognizer written to %s", target)


def prepare(source: Path, work: Path) -> Path:
    """The graph the ranges are measured on: shapes inferred, constants folded, opset 13."""
    import onnx
    from onnx import version_converter
    from onnxruntime.quantization.shape_inference import quant_pre_process

    pre, prepared = work / "pre.onnx", work / "prepared.onnx"
    quant_pre_process(str(source), str(pre), skip_symbolic_shape=True)
    onnx.save(version_converter.convert_version(onnx.load(str(pre)), OPSET), str(prepared))
    return prepared


def tensor_names(model: Path) -> set[str]:
    import onnx

    return {v for node in onnx.load(str(model)).graph.node for v in (*node.input, *node.output)}


def quantize(prepared: Path, out: Path, cache: Path, reader: Any = None) -> None:
    """Static QDQ quantization; with `reader` (calibration inputs) the ranges are measured into
    `cache`, without it they are read from `cache`."""
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    quantize_static(
        str(prepared),
        str(out),
        reader,
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        calibrate_method=CalibrationMethod.MinMax,
        calibration_cache_path=str(cache),
    )


def compact_ranges(cache: Path) -> dict[str, list[float]]:
    """`{tensor: [lowest, highest]}` from onnxruntime's calibration-cache JSON."""
    data = json.loads(cache.read_text(encoding="utf-8"))["data"]
    return {name: [float(v["lowest"]["data"][0]), float(v["highest"]["data"][0])] for name, v in sorted(data.items())}
