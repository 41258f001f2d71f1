"""A point between two rows of a dense grid is on neither record: its line reads nothing, never both rows.

Seen on the web desk's grid (rows 15 px apart): the detector, scaled down, boxed the first-name column's
two cells as one line two rows high; the row read through its middle held both patients' cells, so it
showed the identity of either, and a click there may select the other. Drawn here, read with the real OCR."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.replay import identity
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir

PITCH = 15
FIRST_BASELINE = 200
ROWS = (("700115", "MARTIN", "Hugo", "02/11/1967"), ("700116", "MARTINEZ", "Lina", "19/05/1990"))
COLUMNS = (40, 160, 320, 440)
MARIE = {"identity": "MARTINEZ Lina", "identity_values": ["MARTINEZ", "Lina"]}


def grid() -> np.ndarray:
    image = np.full((400, 800, 3), 250, np.uint8)
    for r, row in enumerate(ROWS):
        for x, cell in zip(COLUMNS, row, strict=True):
            baseline = FIRST_BASELINE + r * PITCH
            cv2.putText(image, cell, (x, baseline), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (30, 30, 30), 1, cv2.LINE_AA)
    return image


def test_a_point_on_a_row_reads_that_row_and_a_point_between_two_rows_reads_nothing(shared_ocr: object) -> None:
    image = grid()
    on_lina = identity.row_text(shared_ocr, image, 340, FIRST_BASELINE + PITCH - 4, height=12)  # type: ignore[arg-type]
    assert identity.check(on_lina, MARIE).ok, on_lina
    between = identity.row_text(shared_ocr, image, 340, FIRST_BASELINE + 3, height=24)  # type: ignore[arg-type]
    assert between == ""  # was: both rows' cells, "700115 700116 MARTIN MARTINEZ Hugo Lina ..."
    assert not identity.check(between, MARIE).ok


def test_two_lines_beside_the_row_one_above_the_other_leave_the_row_read(shared_ocr: object) -> None:
    # a form beside the grid (Qt desk): its two fields' lines straddle the row's middle, far from the point
    image = grid()
    lina = FIRST_BASELINE + PITCH
    for text, baseline in (("Examen :", lina - 7), ("Date du RDV :", lina + 7)):
        cv2.putText(image, text, (600, baseline), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (30, 30, 30), 1, cv2.LINE_AA)
    read = identity.row_text(shared_ocr, image, 340, lina - 4, height=12)  # type: ignore[arg-type]
    assert identity.check(read, MARIE).ok, read


def test_a_hit_between_two_rows_is_never_the_record_and_the_search_finds_its_row(shared_ocr: object) -> None:
    resolver = TargetResolver(
        ocr=shared_ocr,  # type: ignore[arg-type]  # the suite's RapidOCR engine
        memory=None,
        thresholds=load_thresholds(shipped_dir("catalog") / "thresholds.yaml"),
        vlm=NoVlmLocator(),
    )
    spec = {**MARIE, "label": "Lina", "resolve_order": ["uia", "ocr"], "uia": {"x": 340, "y": FIRST_BASELINE + 3}}
    res = resolver.resolve(grid(), spec)
    assert res.tried[0] == {"method": "uia", "found": False}  # a position never chooses a record
    assert res.resolved and res.method == "hybrid_text_direct"
    assert FIRST_BASELINE + 2 < (res.y or 0) <= FIRST_BASELINE + PITCH  # on Lina's row, below the one between
