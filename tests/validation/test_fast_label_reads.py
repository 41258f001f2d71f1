"""A label looked for is read by the fast (int8) engine first; it counts as absent only on the float
engine's reading, and a checker that needs what is written gets the float engine's."""

from __future__ import annotations

import numpy as np

from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.locate import locate_label
from tests.validation.test_ocr_regions import RecordingOcr, write

FRAME = np.full((300, 600, 3), 240, np.uint8)


def context(fast: RecordingOcr | None, ocr: RecordingOcr) -> CheckContext:
    return CheckContext(
        "click_anchor",
        FRAME,
        FRAME.copy(),
        Target("Enregistrer", (100, 100, 140, 32)),
        Expected(),
        Observed(),
        ocr,
        fast_ocr=fast,
    )


def label_check(ctx: CheckContext, frame: str = "after") -> float | None:
    return ALL_CHECKERS["OcrRoiChecker"].check(ctx, "label", {"frame": frame}).score


def test_a_label_the_fast_engine_reads_is_not_read_again() -> None:
    fast, ocr = RecordingOcr("Enregistrer"), RecordingOcr("never asked")
    assert label_check(context(fast, ocr)) == 1.0
    assert len(fast.shapes) == 1 and ocr.shapes == []


def test_a_label_the_fast_engine_misses_is_read_by_the_float_engine_before_it_counts_as_absent() -> None:
    fast, ocr = RecordingOcr("Enregistr3r"), RecordingOcr("Enregistrer")
    assert label_check(context(fast, ocr)) == 1.0  # the float reading decides
    assert len(fast.shapes) == 1 and len(ocr.shapes) == 1
    fast, ocr = RecordingOcr("Annuler"), RecordingOcr("Annuler")
    assert label_check(context(fast, ocr)) == 0.0  # absent on both: absent
    assert len(ocr.shapes) == 1


def test_without_a_fast_engine_the_float_engine_reads() -> None:
    ocr = RecordingOcr("Enregistrer")
    assert label_check(context(None, ocr)) == 1.0 and len(ocr.shapes) == 1


def test_each_engine_reads_a_box_once_per_validation() -> None:
    fast, ocr = RecordingOcr("Fermer"), RecordingOcr("Fermer")
    ctx = context(fast, ocr)
    for _ in range(3):
        assert ctx.read_label("after", (100, 100, 140, 32), lambda text: text == "Enregistrer") is not None
    assert len(fast.shapes) == 1 and len(ocr.shapes) == 1
    line = ctx.read_line("after", (100, 100, 140, 32))  # what is written: the float engine's, remembered
    assert line is not None and line.text == "Fermer" and len(ocr.shapes) == 1


def band_context(action: str, fast: RecordingOcr | None, ocr: RecordingOcr) -> CheckContext:
    frame = np.full((300, 900, 3), 240, np.uint8)
    for x, y in ((360, 150), (200, 110), (560, 190)):  # three lines around the click (400, 145)
        write(frame, "Valider la saisie", x, y)
    return CheckContext(
        action, frame, frame.copy(), Target("Valider la saisie", None, (400, 145)), Expected(), Observed(), ocr,
        fast_ocr=fast,
    )  # fmt: skip


def test_a_band_line_the_fast_engine_reads_as_the_label_is_the_only_one_read() -> None:
    fast, ocr = RecordingOcr("Valider la saisie"), RecordingOcr("never asked")
    hit = locate_label(band_context("click_anchor", fast, ocr), "before", (400, 145))
    assert hit is not None and hit.score == 1.0
    assert len(fast.shapes) == 1 and ocr.shapes == []  # the nearest line alone


def test_a_band_the_fast_engine_misreads_is_decided_on_the_float_reading() -> None:
    fast, ocr = RecordingOcr("Valider la sai"), RecordingOcr("Valider la saisie")
    hit = locate_label(band_context("click_anchor", fast, ocr), "before", (400, 145))
    assert hit is not None and hit.score == 1.0 and hit.text == "Valider la saisie"
    assert len(fast.shapes) == 1 + 3 and len(ocr.shapes) == 3  # the nearest, then all; then the float model


def test_a_tab_label_is_read_with_the_lines_around_it() -> None:
    fast, ocr = RecordingOcr("Valider la saisie"), RecordingOcr("never asked")
    hit = locate_label(band_context("switch_tab", fast, ocr), "before", (400, 145))
    assert hit is not None and len(fast.shapes) == 3 and ocr.shapes == []  # the strip's pitch needs them all
