"""The OCR engines' models are loaded as the server starts (`bootstrap.prepare_ocr`), not inside the first
replay's validation: a model made at the first use (the dialog engine's int8 copy, a Latin head) costs
2–4 s on a new data folder."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rpa_mcp.bootstrap import prepare_ocr
from rpa_mcp.vision.ocr import RapidOcrEngine


def test_an_engine_prepared_has_made_its_recognizer_before_any_read() -> None:
    made: list[str] = []

    def recognizer() -> Path | None:
        made.append("recognizer")
        return None  # the wheel's model

    engine = RapidOcrEngine(recognizer=recognizer)
    engine.prepare()
    assert made == ["recognizer"]
    assert engine.regions_read == 0 and engine.recognitions == 0  # nothing was read
    engine.prepare()
    assert made == ["recognizer"]  # once


class Engine:
    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.prepared = 0

    def prepare(self) -> None:
        self.prepared += 1
        if self.fails:
            raise RuntimeError("no model")


def services(ocr: Any, fast_ocr: Any) -> Any:
    return SimpleNamespace(ocr=ocr, validator=SimpleNamespace(fast_ocr=fast_ocr))


def test_the_checkers_and_the_dialog_engines_are_prepared_in_the_background() -> None:
    checkers, dialogs = Engine(), Engine()
    prepare_ocr(services(checkers, dialogs)).join()
    assert (checkers.prepared, dialogs.prepared) == (1, 1)


def test_an_engine_that_fails_to_prepare_leaves_the_others_prepared() -> None:
    checkers, dialogs = Engine(fails=True), Engine()
    prepare_ocr(services(checkers, dialogs)).join()
    assert dialogs.prepared == 1


def test_an_engine_without_prepare_and_one_engine_for_both_are_left_as_they_are() -> None:
    prepare_ocr(services(object(), None)).join()  # a test's fake engine: nothing to load
