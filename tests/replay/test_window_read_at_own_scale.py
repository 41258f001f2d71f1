"""A record chosen by who it is, with no recorded point, is looked for in its window: a window up to
1280x1024 is read whole at its own scale, not scaled down to the detector's 960 px.

Seen on the web desk: its 1024x768 window read at 0.94 lost the grid's first-name column (two rows 15 px
apart ran together into one box that read nothing), then two tiles found it: three reads, 1-4 s for the
step. The grid is drawn here; the OCR is a stand-in that reads the cells drawn inside a crop and loses the
dense column at the scale the test says (a real detector's loss depends on the pixels around it)."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import DETECT_SIDE, OcrLine

W, H = 1920, 1080
WINDOW = (300, 160, 1024, 768)
COLUMNS = (20, 145, 305, 430)  # in the window: IPP, name, first name, birth date
FIRST_NAME = 2
PITCH = 15
ROWS = (
    ("IPP", "Nom", "Prenom", "Ne(e) le"),
    ("700114", "PETIT", "Hugo", "14/02/1971"),
    ("700115", "MARTIN", "Hugo", "02/11/1967"),
    ("700116", "MARTINEZ", "Lina", "19/05/1990"),
)
RECORD = {
    "label": "Hugo",
    "resolve_order": ["ocr"],
    "identity": "MARTIN Hugo",
    "identity_values": ["MARTIN", "Hugo"],
    "window_now": list(WINDOW),
}


def drawn_grid() -> tuple[np.ndarray, list[tuple[str, BBox, int, int]]]:
    """The screen with the window's grid drawn on it, and each cell's text, box (screen px), row and column."""
    screen = np.full((H, W, 3), 200, np.uint8)
    wx, wy, ww, wh = WINDOW
    screen[wy : wy + wh, wx : wx + ww] = 240
    cells = []
    for r, row in enumerate(ROWS):
        baseline = wy + 200 + r * PITCH
        for c, text in enumerate(row):
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.4, 1)
            x = wx + COLUMNS[c]
            cv2.putText(screen, text, (x, baseline), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (30, 30, 30), 1, cv2.LINE_AA)
            cells.append((text, (x, baseline - th, tw, th + 2), r, c))
    return screen, cells


SCREEN, CELLS = drawn_grid()


@dataclass
class GridOcr:
    """Reads the cells drawn inside a crop of SCREEN; a region read scaled down (longer side beyond the
    detector's input) loses the first-name column when `lost` says "scaled", one read at its own scale when
    it says "own". Every region read is kept: (how, height, width)."""

    lost: str = "scaled"
    reads: list[tuple[str, int, int]] = field(default_factory=list)

    def read(self, image: np.ndarray) -> list[OcrLine]:
        scaled = max(image.shape[:2]) > DETECT_SIDE
        self.reads.append(("scaled" if scaled else "own", *image.shape[:2]))
        return self._cells(image, drop=scaled and self.lost == "scaled")

    def read_own_scale(self, image: np.ndarray) -> list[OcrLine]:
        self.reads.append(("own", *image.shape[:2]))
        return self._cells(image, drop=self.lost == "own")

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        """A run of the record's row (the identity check): the cells whose middle is inside the crop."""
        x0, y0 = _origin(image)
        height, width = image.shape[:2]
        texts = [
            t for t, (x, y, w, h), _, _ in CELLS if x0 <= x + w // 2 < x0 + width and y0 <= y + h // 2 < y0 + height
        ]
        return OcrLine(" ".join(texts), (0, 0, width, height), 0.99) if texts else None

    def _cells(self, image: np.ndarray, *, drop: bool) -> list[OcrLine]:
        x0, y0 = _origin(image)
        height, width = image.shape[:2]
        return [
            OcrLine(text, (x - x0, y - y0, w, h), 0.99)
            for text, (x, y, w, h), row, column in CELLS
            if x0 <= x and x + w <= x0 + width and y0 <= y and y + h <= y0 + height
            if not (drop and column == FIRST_NAME and row > 0)
        ]


def _origin(image: np.ndarray) -> tuple[int, int]:
    offset = image.ctypes.data - SCREEN.ctypes.data
    return (offset % SCREEN.strides[0]) // SCREEN.strides[1], offset // SCREEN.strides[0]


def resolver(ocr: GridOcr) -> TargetResolver:
    thresholds = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    return TargetResolver(ocr=ocr, memory=None, thresholds=thresholds, vlm=NoVlmLocator())  # type: ignore[arg-type]


def first_name_of(family: str) -> BBox:
    row = next(r for r, cells in enumerate(ROWS) if cells[1] == family)
    return next(box for _, box, r, column in CELLS if (r, column) == (row, FIRST_NAME))


def test_the_record_in_its_window_is_found_by_one_read_at_the_windows_own_scale() -> None:
    ocr = GridOcr()
    res = resolver(ocr).resolve(SCREEN, RECORD)
    x, y, w, h = first_name_of("MARTIN")
    assert res.resolved, res.tried
    assert abs((res.x or 0) - (x + w // 2)) <= 2 and y <= (res.y or 0) <= y + h  # MARTIN's Hugo, not PETIT's
    assert "MARTIN Hugo" in res.tried[-1]["identity_read"]
    assert ocr.reads == [("own", 768, 1024)]  # was: scaled (the column lost), then two tiles


def test_a_window_whose_read_at_its_own_scale_misses_the_record_is_read_scaled_as_before() -> None:
    ocr = GridOcr(lost="own")
    res = resolver(ocr).resolve(SCREEN, RECORD)
    assert res.resolved and "MARTIN Hugo" in res.tried[-1]["identity_read"]
    assert ocr.reads == [("own", 768, 1024), ("scaled", 768, 1024)]


def test_the_whole_screen_is_still_read_scaled_then_in_tiles() -> None:
    ocr = GridOcr()
    res = resolver(ocr).resolve(SCREEN, {k: v for k, v in RECORD.items() if k != "window_now"})
    assert res.resolved and "MARTIN Hugo" in res.tried[-1]["identity_read"]
    assert ocr.reads[0] == ("scaled", H, W)  # larger than a window: its detection would cost 4 times
    assert all(max(height, width) <= DETECT_SIDE for _, height, width in ocr.reads[1:])  # the tiles


def test_the_row_still_has_to_show_every_identifying_value() -> None:
    ocr = GridOcr()
    res = resolver(ocr).resolve(SCREEN, {**RECORD, "identity": "DURAND Hugo", "identity_values": ["DURAND", "Hugo"]})
    assert not res.resolved and res.method == "identity_mismatch"
