"""RPA_OCR_THREADS: onnxruntime threads per recognition, the same readings on any count."""

from __future__ import annotations

from pathlib import Path

from rpa_mcp.bootstrap import build_dialog_ocr, build_ocr
from rpa_mcp.settings import Settings
from rpa_mcp.vision.ocr import RapidOcrEngine

from .test_int8 import label


def test_both_engines_recognise_on_the_configured_threads_and_read_the_same(tmp_path: Path) -> None:
    crop = label("Enregistrer")
    read: dict[int, tuple[str | None, ...]] = {}
    for threads in (1, 2):
        settings = Settings(data_dir=tmp_path, ocr_threads=threads, dialog_ocr_int8=True)
        checkers, dialogs = build_ocr(settings), build_dialog_ocr(settings, build_ocr(settings))
        assert isinstance(dialogs, RapidOcrEngine)
        lines = checkers.read_line(crop), dialogs.read_line(crop)
        read[threads] = tuple(line.text if line is not None else None for line in lines)
        for engine in (checkers, dialogs):
            assert engine._session.get_session_options().intra_op_num_threads == threads
    assert read[1] == read[2]
    assert read[1] == ("Enregistrer", "Enregistrer")
