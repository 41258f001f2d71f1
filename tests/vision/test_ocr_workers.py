"""RPA_OCR_WORKERS: a call's crops recognised at once, the same readings in order; engine counts bounded."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pydantic
import pytest

from rpa_mcp.bootstrap import build_dialog_ocr, build_ocr, ocr_workers
from rpa_mcp.settings import Settings
from rpa_mcp.vision import ocr
from rpa_mcp.vision.ocr import RapidOcrEngine, normalize_text

from .test_int8 import label

WORDS = ["Enregistrer", "Annuler", "Oui", "Non", "Fermer la fenêtre"]


@pytest.mark.parametrize(
    ("setting", "value"),
    [("ocr_workers", "-1"), ("ocr_workers", "17"), ("ocr_workers", "many"),
     ("ocr_threads", "0"), ("ocr_threads", "17"), ("ocr_threads", "two")],
)  # fmt: skip
def test_an_engine_setting_out_of_range_is_refused_with_the_setting_named(
    monkeypatch: pytest.MonkeyPatch, setting: str, value: str
) -> None:
    monkeypatch.setenv(f"RPA_{setting.upper()}", value)
    with pytest.raises(pydantic.ValidationError, match=setting):
        Settings()


@pytest.mark.parametrize(("argument", "message"), [("workers", "workers must be from 1 to 16, not 0"),
                                                   ("threads", "threads must be from 1 to 16, not 0")])  # fmt: skip
def test_the_engine_refuses_a_count_it_cannot_run(argument: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RapidOcrEngine(**{argument: 0})


@pytest.mark.parametrize(("cpus", "expected"), [(1, 1), (2, 2), (8, 4)])
def test_zero_means_the_cpus_this_process_may_use_at_most_four(
    monkeypatch: pytest.MonkeyPatch, cpus: int, expected: int
) -> None:
    monkeypatch.setattr(ocr.os, "sched_getaffinity", lambda _pid: set(range(cpus)))
    assert ocr_workers(Settings()) == expected
    assert ocr_workers(Settings(ocr_workers=3)) == 3  # a count given is kept


def test_both_engines_share_out_their_crops_between_the_configured_workers(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, ocr_workers=3, dialog_ocr_int8=True)
    checkers, dialogs = build_ocr(settings), build_dialog_ocr(settings, build_ocr(settings))
    assert isinstance(dialogs, RapidOcrEngine)
    assert checkers.workers == dialogs.workers == 3


def test_several_workers_read_what_one_reads_in_the_callers_order() -> None:
    crops = [label(word) for word in WORDS]
    one, four = RapidOcrEngine(cache_entries=0), RapidOcrEngine(cache_entries=0, workers=4)
    serial, shared = one.read_lines(crops), four.read_lines(crops)
    assert [line.text if line else None for line in shared] == [line.text if line else None for line in serial]
    assert [normalize_text(line.text) for line in shared if line] == [normalize_text(w) for w in WORDS]


def test_crops_are_recognised_concurrently_and_each_once(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = RapidOcrEngine(workers=2)
    engine.read_line(label("Oui"))  # the engine built and its recognizer loaded
    both_running = threading.Barrier(2, timeout=30)  # broken unless two crops are recognised at the same time
    threads: set[str] = set()
    recognize = RapidOcrEngine._recognize

    def meeting(self: RapidOcrEngine, inner: Any, image: Any) -> tuple[str, float]:
        threads.add(threading.current_thread().name)
        both_running.wait()
        return recognize(self, inner, image)

    monkeypatch.setattr(RapidOcrEngine, "_recognize", meeting)
    annuler, fermer = label("Annuler"), label("Fermer")
    before = engine.recognitions
    lines = engine.read_lines([annuler, fermer, annuler.copy()])  # the same pixels twice: one recognition
    assert [normalize_text(line.text) for line in lines if line] == ["annuler", "fermer", "annuler"]
    assert engine.recognitions == before + 2 and len(threads) == 2
    engine.read_lines([fermer])  # remembered: no worker, no barrier
    assert engine.recognitions == before + 2
