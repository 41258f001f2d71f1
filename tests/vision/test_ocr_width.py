"""RPA_DIALOG_OCR_WIDTH: the dialog classifier's engine recognises crops narrowed to a share of their
width (fewer input columns, less CPU) and still reads the words of a dialog; the checkers' engine does not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pydantic
import pytest

from rpa_mcp.bootstrap import build_dialog_ocr, build_ocr
from rpa_mcp.settings import Settings
from rpa_mcp.vision.ocr import REC_HEIGHT, RapidOcrEngine, normalize_text, rec_input

from .test_int8 import LABELS, label


def test_the_input_is_narrowed_by_the_share_given_and_keeps_its_height() -> None:
    crop = np.zeros((30, 300, 3), np.uint8)
    assert rec_input(crop).shape == (1, 3, REC_HEIGHT, 480)
    assert rec_input(crop, 0.8).shape == (1, 3, REC_HEIGHT, 384)


@pytest.mark.parametrize("value", ["0.4", "1.1", "narrow"])
def test_a_width_out_of_range_is_refused_with_the_setting_named(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("RPA_DIALOG_OCR_WIDTH", value)
    with pytest.raises(pydantic.ValidationError, match="dialog_ocr_width"):
        Settings()


def test_the_engine_refuses_a_width_it_cannot_read_at() -> None:
    with pytest.raises(ValueError, match=r"width must be from 0\.5 to 1, not 0\.3"):
        RapidOcrEngine(width=0.3)


def test_only_the_dialog_engine_reads_narrowed(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, dialog_ocr_int8=True, dialog_ocr_width=0.7)
    checkers, dialogs = build_ocr(settings), build_dialog_ocr(settings, build_ocr(settings))
    assert isinstance(dialogs, RapidOcrEngine)
    assert (checkers.width, dialogs.width) == (1.0, 0.7)
    assert Settings().dialog_ocr_width == 0.8


def test_a_narrowed_engine_reads_the_words_of_a_dialog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dialogs = build_dialog_ocr(Settings(data_dir=tmp_path, dialog_ocr_int8=True), build_ocr(Settings()))
    assert isinstance(dialogs, RapidOcrEngine)
    seen: list[int] = []
    recognize = dialogs._recognize

    def counted(engine: object, image: np.ndarray) -> tuple[str, float]:
        seen.append(rec_input(image, dialogs.width).shape[3])
        return recognize(engine, image)

    monkeypatch.setattr(dialogs, "_recognize", counted)
    crops = [label(text) for text in LABELS]
    reads = dialogs.read_lines(crops)
    assert [normalize_text(r.text) if r else "" for r in reads] == [normalize_text(t) for t in LABELS]
    full = [rec_input(c).shape[3] for c in crops]
    assert sum(seen) < 0.85 * sum(full)
