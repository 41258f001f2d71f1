"""The int8 recognizer: made once from the wheel's model with the shipped ranges, read like the float one,
and never used when it cannot be trusted (another model, ranges for another graph, a damaged file)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from rpa_mcp.bench.ocr_calibration import SOURCE_MODEL, _dumps, calibrate
from rpa_mcp.bootstrap import build_dialog_ocr
from rpa_mcp.settings import Settings
from rpa_mcp.vision import int8
from rpa_mcp.vision.ocr import RapidOcrEngine, normalize_text

LABELS = ("Annuler", "Enregistrer", "OK", "Autoriser", "Ne pas enregistrer", "Cancel", "Quitter la page")


def label(text: str) -> np.ndarray:
    width = 24 + 17 * len(text)
    image = np.full((40, width, 3), 245, np.uint8)
    cv2.putText(image, text, (8, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (25, 25, 25), 2, cv2.LINE_AA)
    return image


def test_the_shipped_ranges_belong_to_the_installed_recognizer() -> None:
    calibration = int8.load_ranges()
    source = int8.wheel_model(SOURCE_MODEL)
    assert calibration["source_model"] == SOURCE_MODEL
    assert calibration["source_sha256"] == int8.file_digest(source)
    assert len(calibration["tensors"]) > 100
    assert all(low <= high for low, high in calibration["tensors"].values())


def test_the_int8_model_is_made_once_and_then_found(
    models: Path, int8_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert int8_model.parent == models and "int8" in int8_model.name
    written = int8_model.stat().st_mtime_ns

    def never(*_args: object) -> None:
        raise AssertionError("rebuilt a model that is already there")

    monkeypatch.setattr(int8, "_build", never)
    assert int8.int8_recognizer(models) == int8_model
    assert int8_model.stat().st_mtime_ns == written
    assert not [p for p in models.iterdir() if p != int8_model]  # no temporary file left behind


def test_the_int8_model_reads_labels_as_the_float_model(int8_model: Path, shared_ocr: RapidOcrEngine) -> None:
    engine = RapidOcrEngine(recognizer=lambda: int8_model)
    crops = [label(t) for t in LABELS]
    fast, reference = engine.read_lines(crops), shared_ocr.read_lines(crops)
    assert engine.recognizer_model == int8_model
    for text, a, b in zip(LABELS, fast, reference, strict=True):
        assert a is not None and b is not None
        assert normalize_text(a.text) == normalize_text(b.text) == normalize_text(text)


def test_ranges_of_another_model_keep_the_float_model(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    other = tmp_path / "other.onnx"
    other.write_bytes(b"not the recognizer the ranges were measured on")
    with caplog.at_level(logging.WARNING, logger="rpa_mcp.vision.int8"):
        assert int8.int8_recognizer(tmp_path / "models", source=other) is None
    assert "not the model its ranges were measured on" in caplog.text
    assert not (tmp_path / "models").exists()


def test_ranges_naming_tensors_the_graph_lacks_keep_the_float_model(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    calibration = int8.load_ranges()
    calibration["tensors"]["no.such.tensor"] = [-1.0, 1.0]
    ranges = tmp_path / "ranges.json"
    ranges.write_text(json.dumps(calibration), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="rpa_mcp.vision.int8"):
        assert int8.int8_recognizer(tmp_path / "models", ranges=ranges) is None
    assert "no.such.tensor" in caplog.text
    assert not list((tmp_path / "models").glob("*.onnx"))


def test_a_damaged_model_file_falls_back_to_the_wheel_model(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(b"\x00" * 64)
    engine = RapidOcrEngine(recognizer=lambda: damaged)
    with caplog.at_level(logging.WARNING, logger="rpa_mcp.vision.ocr"):
        read = engine.read_line(label("Annuler"))
    assert read is not None and normalize_text(read.text) == "annuler"
    assert engine.recognizer_model is None
    assert "the wheel's model is used" in caplog.text


def test_no_recognizer_given_reads_with_the_wheel_model() -> None:
    engine = RapidOcrEngine(recognizer=lambda: None)
    read = engine.read_line(label("Fermer"))
    assert read is not None and normalize_text(read.text) == "fermer"
    assert engine.recognizer_model is None


def test_the_dialog_engine_is_int8_unless_switched_off(tmp_path: Path, shared_ocr: RapidOcrEngine) -> None:
    on = build_dialog_ocr(Settings(data_dir=tmp_path, dialog_ocr_int8=True), shared_ocr)
    assert isinstance(on, RapidOcrEngine) and on is not shared_ocr
    assert build_dialog_ocr(Settings(data_dir=tmp_path, dialog_ocr_int8=False), shared_ocr) is shared_ocr


def test_calibration_measures_every_tensor_the_shipped_ranges_name() -> None:
    crops = [label(t) for t in LABELS]
    result = calibrate(crops, samples=len(crops), source=int8.wheel_model(SOURCE_MODEL))
    shipped = int8.load_ranges()
    assert set(result["tensors"]) == set(shipped["tensors"])
    assert result["source_sha256"] == shipped["source_sha256"] and result["crops"] == len(crops)
    assert json.loads(_dumps(result)) == result


def test_the_server_gives_the_dialogs_the_int8_engine_and_the_validator_both(tmp_path: Path) -> None:
    from rpa_mcp.bootstrap import build_services

    services = build_services(Settings(data_dir=tmp_path / "on", jwt_secret="s" * 40, dialog_ocr_int8=True))
    dialog_engine = services.dialogs.classifier.ocr
    assert dialog_engine is not services.ocr and services.validator.ocr is services.ocr
    assert services.validator.fast_ocr is dialog_engine  # labels looked for: int8 first, float to say absent
    off = build_services(Settings(data_dir=tmp_path / "off", jwt_secret="s" * 40, dialog_ocr_int8=False))
    assert off.dialogs.classifier.ocr is off.ocr and off.validator.fast_ocr is None
