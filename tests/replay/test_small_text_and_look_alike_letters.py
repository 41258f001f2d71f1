"""Resolution of what a person reads easily and the OCR may not: small text on a whole large screen (read
in tiles at its own scale), a capital I read as a small l, a record's row by the edge of a moved window."""

from __future__ import annotations

from typing import Any

import numpy as np

from rpa_mcp.replay import identity
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from rpa_mcp.testing import FakeOcr
from rpa_mcp.validation.text import text_line_boxes
from rpa_mcp.vision.ocr import DETECT_SIDE, OcrLine
from rpa_mcp.vision.tiles import read_tiled, tile_starts

MARK = (0, 0, 255)  # where the small text is drawn on the synthetic screen


class SmallTextOcr:
    """A detector that loses small text in an image it must scale down (longer side over DETECT_SIDE), and
    reads it (`text`, at the marked pixels) in an image it reads at its own scale."""

    def __init__(self, text: str) -> None:
        self.text, self.shapes = text, []

    def read(self, image: np.ndarray) -> list[OcrLine]:
        self.shapes.append(image.shape[:2])
        if max(image.shape[:2]) > DETECT_SIDE:
            return []
        ys, xs = np.nonzero((image == MARK).all(axis=2))
        if xs.size == 0:
            return []
        box = (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
        return [OcrLine(self.text, box, 0.97)]

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        lines = self.read(image)
        return lines[0] if lines else None


def screen_with_mark(x: int, y: int, w: int = 36, h: int = 10) -> np.ndarray:
    screen = np.full((1080, 1920, 3), 230, np.uint8)
    screen[y : y + h, x : x + w] = MARK
    return screen


def resolver(ocr: Any) -> TargetResolver:
    thresholds = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    return TargetResolver(ocr=ocr, memory=None, thresholds=thresholds, vlm=NoVlmLocator())


def test_small_text_on_a_whole_screen_is_read_in_tiles_at_its_own_scale() -> None:
    # a record's cell with no recorded position (its place changes with the run): the whole screen is searched
    ocr = SmallTextOcr("Marie")
    res = resolver(ocr).resolve(screen_with_mark(1500, 700), {"label": "Marie", "resolve_order": ["ocr"]})
    assert res.resolved and res.method == "hybrid_text_direct", res.tried
    assert 1500 <= (res.x or 0) <= 1536 and 700 <= (res.y or 0) <= 710
    assert all(max(shape) <= DETECT_SIDE for shape in ocr.shapes[1:])  # after the scaled-down read, tiles only


def test_tiles_overlap_by_half_and_a_line_read_in_several_is_kept_once() -> None:
    assert tile_starts(1920) == [0, 480, 960] and tile_starts(1080) == [0, 120] and tile_starts(800) == [0]
    lines = read_tiled(SmallTextOcr("Marie"), screen_with_mark(700, 500))  # in four tiles
    assert [(line.text, line.bbox) for line in lines] == [("Marie", (700, 500, 36, 10))]


def test_a_capital_i_read_as_a_small_l_still_shows_the_label() -> None:
    ocr = FakeOcr(lines=[OcrLine("lonogramme sanguin", (20, 40, 120, 16), 0.99)])
    spec = {"label": "Ionogramme sanguin", "rel_x": 0.1, "rel_y": 0.3, "resolve_order": ["ocr"]}
    res = resolver(ocr).resolve(np.full((1080, 1920, 3), 230, np.uint8), spec)
    assert res.resolved, res.tried
    lower = FakeOcr(lines=[OcrLine("ionogramme sanguin", (20, 40, 120, 16), 0.99)])  # read in small letters
    assert resolver(lower).resolve(np.full((1080, 1920, 3), 230, np.uint8), spec).resolved


def test_a_row_read_across_the_edge_of_a_moved_window_is_the_rows_own_text() -> None:
    # the band read across a record's row reaches past the window's left edge onto the dark desktop, and
    # crosses the grid's frame: neither is text, neither joins the row's cells into one run
    band = np.full((30, 900, 3), 235, np.uint8)
    band[:, :300] = 0  # the desktop beyond the window
    band[0, 320:880] = band[-1, 320:880] = 90  # the grid's frame, above and below the row
    band[:, 320] = band[:, 879] = 90
    for x in (340, 460, 600):  # three cells' text
        band[11:19, x : x + 60 : 3] = 20
    runs = text_line_boxes(band, max_lines=48, across=True)
    assert runs and all(x >= 330 for x, _y, _w, _h in runs), runs
    assert all(h < 30 for _x, _y, _w, h in runs)


def test_the_rows_identity_is_read_from_its_cells_only() -> None:
    class Cells:
        def read_line(self, image: np.ndarray) -> OcrLine | None:
            h, w = image.shape[:2]
            return OcrLine("Marie" if w < 120 and h < 20 else "Mane###", (0, 0, w, h), 0.9)

    image = np.full((200, 1400, 3), 235, np.uint8)
    image[:, :300] = 0
    image[100:108, 640:700:3] = 20
    assert identity.row_text(Cells(), image, 660, 104, height=22) == "Marie"
