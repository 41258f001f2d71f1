"""The OCR adapter: each crop recognised at its own width, and a crop's reading remembered by its pixels."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.ocr import OcrLine, RapidOcrEngine, normalize_text


def label(text: str, width: int = 220) -> np.ndarray:
    image = np.full((40, width, 3), 250, np.uint8)
    cv2.putText(image, text, (8, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2, cv2.LINE_AA)
    return image


def test_a_short_label_reads_without_padding_to_a_wide_input(shared_ocr: RapidOcrEngine) -> None:
    (ok,) = shared_ocr.read_lines([label("OK", width=60)])
    assert ok is not None and normalize_text(ok.text) == "ok"


def test_the_same_pixels_are_recognised_once(shared_ocr: RapidOcrEngine) -> None:
    crop = label("Enregistrer")
    shared_ocr.clear_cache()
    before = shared_ocr.recognitions
    first, again = shared_ocr.read_lines([crop, crop.copy()])
    assert first is not None and again is not None and first.text == again.text
    assert normalize_text(first.text) == "enregistrer"
    assert shared_ocr.recognitions == before + 1  # the copy has the same pixels: read from memory
    shared_ocr.clear_cache()
    shared_ocr.read_line(crop)
    assert shared_ocr.recognitions == before + 2  # forgotten: recognised again


def test_different_pixels_are_never_taken_for_a_remembered_crop(shared_ocr: RapidOcrEngine) -> None:
    yes, no = shared_ocr.read_lines([label("Oui"), label("Non")])
    assert yes is not None and no is not None
    assert (normalize_text(yes.text), normalize_text(no.text)) == ("oui", "non")


def test_the_memory_of_read_crops_is_bounded() -> None:
    engine = RapidOcrEngine(cache_entries=1)
    one, two = label("Annuler"), label("Fermer")
    engine.read_line(one)
    engine.read_line(two)  # pushes the first one out
    engine.read_line(one)
    assert engine.recognitions == 3 and engine.cache_hits == 0
    engine.read_line(one)
    assert engine.cache_hits == 1


def region(*words: str) -> np.ndarray:
    image = np.full((60 * len(words) + 20, 360, 3), 250, np.uint8)
    for n, word in enumerate(words):
        cv2.putText(image, word, (12, 50 + 60 * n), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2, cv2.LINE_AA)
    return image


def test_a_region_with_the_same_pixels_is_read_once_and_answers_the_same_lines() -> None:
    engine = RapidOcrEngine()
    form = region("Service", "Enregistrer")
    first = engine.read(form)
    first.append(OcrLine("not the engine's", (0, 0, 1, 1), 1.0))  # a caller's list is its own
    again = engine.read(form.copy())
    assert engine.regions_read == 1 and engine.region_hits == 1
    assert again == first[:-1]
    assert [normalize_text(line.text) for line in again] == ["service", "enregistrer"]


def test_a_region_whose_pixels_differ_is_read_again() -> None:
    engine = RapidOcrEngine()
    engine.read(region("Service", "Enregistrer"))
    other = engine.read(region("Service", "Annuler"))
    assert engine.regions_read == 2 and engine.region_hits == 0
    assert [normalize_text(line.text) for line in other] == ["service", "annuler"]


def test_without_a_memory_every_region_is_read_afresh() -> None:
    engine = RapidOcrEngine(cache_entries=0)
    form = region("Service")
    assert engine.read(form) == engine.read(form)
    assert engine.regions_read == 2 and engine.region_hits == 0


def test_a_region_s_lines_recognised_one_by_one_read_what_the_library_reads() -> None:
    library, alone = RapidOcrEngine(cache_entries=0), RapidOcrEngine(cache_entries=0, lines_alone=True)
    form = region("Service", "Enregistrer et fermer", "Annuler")
    expected = library.read(form)
    lines = alone.read(form)
    assert [normalize_text(line.text) for line in lines] == ["service", "enregistrer et fermer", "annuler"]
    assert [normalize_text(line.text) for line in lines] == [normalize_text(line.text) for line in expected]
    for mine, theirs in zip(lines, expected, strict=True):  # the same detected boxes, in the region's pixels
        assert mine.bbox == theirs.bbox
    assert alone.recognitions == 3  # each line through this engine's own recognizer, remembered by its pixels


def test_a_region_without_text_reads_no_line_one_by_one() -> None:
    engine = RapidOcrEngine(cache_entries=0, lines_alone=True)
    assert engine.read(np.full((120, 360, 3), 250, np.uint8)) == []
    assert engine.recognitions == 0
