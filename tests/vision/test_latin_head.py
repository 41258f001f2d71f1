"""The Latin-head recognizer: a copy of the float or int8 recognizer whose head keeps the classes of
Latin-script text, made once, read exactly as its source reads Latin text, and never used when it
cannot be made or checked."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np
import onnx
import pytest
from PIL import Image, ImageDraw, ImageFont

from rpa_mcp.bootstrap import REC_MODEL, build_dialog_ocr, build_ocr
from rpa_mcp.settings import Settings
from rpa_mcp.vision import int8, latin_head
from rpa_mcp.vision.ocr import RapidOcrEngine

from .test_int8 import label

TEXTS = (
    "Enregistrer les modifications ?",
    "Ne pas enregistrer",
    "Annuler",
    "Voulez-vous quitter cette page ?",
    "Fichier introuvable : rapport_2024.pdf",
    "Save changes to Document1?",
    "Total : 1 250,00 €",
    "Élève, cœur, garçon, où",
    "Do you want to allow notifications (3)?",
    "Supprimer l'élément « Brouillon » ?",
)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for candidate in (
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",  # installed by .ci/run
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    ):
        if Path(candidate).is_file():
            return ImageFont.truetype(candidate, size)
    return ImageFont.load_default(size)


def rendered(text: str, size: int = 22) -> np.ndarray:
    """A tight crop of one line of dark text on a light ground (BGR), drawn with PIL."""
    font = _font(size)
    x0, y0, x1, y1 = ImageDraw.Draw(Image.new("RGB", (1, 1))).textbbox((0, 0), text, font=font)
    image = Image.new("RGB", (x1 - x0 + 16, y1 - y0 + 12), (246, 246, 246))
    ImageDraw.Draw(image).text((8 - x0, 6 - y0), text, font=font, fill=(30, 30, 30))
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)


def crops() -> list[np.ndarray]:
    out = [rendered(t) for t in TEXTS]
    out += [label(text) for text in ("OK", "Cancel", "Autoriser")]  # cv2's own font, as a button label
    return out


@pytest.fixture(scope="module")
def float_latin(models: Path) -> Path:
    model = latin_head.latin_recognizer(int8.wheel_model(REC_MODEL), models)
    assert model is not None and model.is_file() and "latin" in model.name
    return model


def test_the_rule_keeps_latin_text_and_drops_other_scripts() -> None:
    for char in "Aaz09éÈçœŒßæ€£’«»…–—°©±×≤✓▼•":
        assert latin_head.kept_character(char), char
    for char in "中文あア한？Ａ가ع":  # Chinese, Japanese, Korean, full-width forms, Arabic
        assert not latin_head.kept_character(char), char


def test_the_kept_classes_are_the_blank_the_kept_characters_in_order_and_the_space() -> None:
    dictionary = ["中", "a", "é", "あ", "1", "€"]
    assert latin_head.kept_classes(dictionary) == [0, 2, 3, 5, 6, 7]


def test_the_copy_keeps_the_head_of_latin_text_only(float_latin: Path) -> None:
    source, copy = onnx.load(str(int8.wheel_model(REC_MODEL))), onnx.load(str(float_latin))
    full = {p.key: p.value for p in source.metadata_props}["character"].splitlines()
    kept = {p.key: p.value for p in copy.metadata_props}["character"].splitlines()
    assert kept == [c for c in full if latin_head.kept_character(c)]
    assert 500 < len(kept) < len(full) // 8
    heads = [i for i in copy.graph.initializer if i.dims[-1:] == [len(kept) + 2]]
    assert len(heads) == 2  # the weight (120 x classes) and the bias
    assert not [i for i in copy.graph.initializer if i.dims[-1:] == [len(full) + 2]]


@pytest.mark.parametrize("which", ["float", "int8"])
def test_the_copy_reads_latin_text_exactly_as_its_source(
    which: str, float_latin: Path, int8_model: Path, models: Path
) -> None:
    source = int8.wheel_model(REC_MODEL) if which == "float" else int8_model
    copy = float_latin if which == "float" else latin_head.latin_recognizer(int8_model, models)
    assert copy is not None and copy != source
    full = RapidOcrEngine(cache_entries=0, recognizer=lambda: source if which == "int8" else None)
    cut = RapidOcrEngine(cache_entries=0, recognizer=lambda: copy)
    images = crops()
    reference, reads = full.read_lines(images), cut.read_lines(images)
    assert cut.recognizer_model == copy
    for a, b in zip(reference, reads, strict=True):
        assert a is not None and b is not None
        assert b.text == a.text
        # the same characters, their probabilities no longer shared with the dropped classes
        assert a.score - 1e-3 <= b.score <= 1.0


def test_the_copy_is_made_once_then_found(float_latin: Path, models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = float_latin.stat().st_mtime_ns

    def never(*_args: object) -> None:
        raise AssertionError("rebuilt a copy that is already there")

    monkeypatch.setattr(latin_head, "_build", never)
    assert latin_head.latin_recognizer(int8.wheel_model(REC_MODEL), models) == float_latin
    assert float_latin.stat().st_mtime_ns == written
    assert not [p for p in models.iterdir() if p.is_dir() or p.suffix != ".onnx"]  # no temporary left behind


def test_an_interrupted_write_leaves_no_copy_and_keeps_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def interrupted(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(latin_head.os, "replace", interrupted)
    source = int8.wheel_model(REC_MODEL)
    with caplog.at_level(logging.WARNING, logger="rpa_mcp.vision.latin_head"):
        assert latin_head.latin_recognizer(source, tmp_path) == source
    assert "disk full" in caplog.text
    assert list(tmp_path.iterdir()) == []  # neither a partial copy nor its temporary folder


def test_a_copy_that_answers_other_classes_than_its_source_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real_prune = latin_head.prune

    def wrong_dictionary(model: onnx.ModelProto, keep: list[int], dictionary: list[str]) -> onnx.ModelProto:
        return real_prune(model, [keep[0], *reversed(keep[1:-1]), keep[-1]], dictionary)  # columns misordered

    monkeypatch.setattr(latin_head, "prune", wrong_dictionary)
    source = int8.wheel_model(REC_MODEL)
    with caplog.at_level(logging.WARNING, logger="rpa_mcp.vision.latin_head"):
        assert latin_head.latin_recognizer(source, tmp_path) == source
    assert "differ from its source" in caplog.text
    assert not list(tmp_path.glob("*.onnx"))


def test_a_model_without_such_a_head_is_kept_as_it_is(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    detector = int8.wheel_model("PP-OCRv6_det_small.onnx")
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(b"\x00" * 64)
    with caplog.at_level(logging.WARNING, logger="rpa_mcp.vision.latin_head"):
        assert latin_head.latin_recognizer(detector, tmp_path / "a") == detector
        assert latin_head.latin_recognizer(damaged, tmp_path / "b") == damaged
        assert latin_head.latin_recognizer(None, tmp_path / "c") is None
    assert caplog.text.count("Latin-head recognizer not made") == 2
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_engines_use_the_latin_head_unless_switched_off(tmp_path: Path) -> None:
    on = Settings(data_dir=tmp_path / "on", dialog_ocr_int8=True)
    checkers, dialogs = build_ocr(on), build_dialog_ocr(on, build_ocr(on))
    assert isinstance(dialogs, RapidOcrEngine)
    assert checkers.read_line(crops()[2]) is not None and dialogs.read_line(crops()[2]) is not None
    assert checkers.recognizer_model is not None and "latin" in checkers.recognizer_model.name
    assert dialogs.recognizer_model is not None and "int8" in dialogs.recognizer_model.name
    assert "latin" in dialogs.recognizer_model.name
    off = Settings(data_dir=tmp_path / "off", ocr_latin_head=False, dialog_ocr_int8=True)
    plain, fast = build_ocr(off), build_dialog_ocr(off, build_ocr(off))
    assert isinstance(fast, RapidOcrEngine)
    assert plain.read_line(crops()[2]) is not None and fast.read_line(crops()[2]) is not None
    assert plain.recognizer_model is None
    assert fast.recognizer_model is not None and "latin" not in fast.recognizer_model.name
