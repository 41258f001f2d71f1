"""The resolver reads a small region around the recorded point before its search regions, and takes its
answer only when a line wholly inside it reads the label alone: anything less leaves the search as it was."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from rpa_mcp.replay import identity
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrLine

W, H = 1920, 1080
SCREEN = np.full((H, W, 3), 240, np.uint8)


@dataclass
class ScreenOcr:
    """Lines placed on SCREEN (absolute boxes): a crop reads those inside it; a line its edge cuts reads
    only the characters inside (as a detector reads a cut line), and the crops read are kept."""

    lines: list[tuple[str, BBox, float]]
    shapes: list[tuple[int, int]] = field(default_factory=list)

    def read(self, image: np.ndarray) -> list[OcrLine]:
        offset = image.ctypes.data - SCREEN.ctypes.data
        y0, x0 = offset // SCREEN.strides[0], (offset % SCREEN.strides[0]) // SCREEN.strides[1]
        height, width = image.shape[:2]
        self.shapes.append((height, width))
        out = []
        for text, (x, y, w, h), score in self.lines:
            if y < y0 or y + h > y0 + height:
                continue
            step = w / len(text)  # the characters wholly inside the crop are read, boxed by their ink
            inside = [i for i in range(len(text)) if x + i * step >= x0 and x + (i + 1) * step <= x0 + width]
            read = text[inside[0] : inside[-1] + 1].strip() if inside else ""
            if read:
                left = round(x + (inside[0] + len(text[inside[0] :]) - len(text[inside[0] :].lstrip())) * step)
                right = round(x + (inside[-1] + 1) * step)
                out.append(OcrLine(read, (left - x0, y - y0, right - left, h), score))
        return out

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        raise AssertionError("no line is recognised alone here")

    def read_lines(self, images: list[np.ndarray]) -> list[OcrLine | None]:
        raise AssertionError("no line is recognised alone here")


def resolver(ocr: ScreenOcr) -> TargetResolver:
    thresholds = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    return TargetResolver(ocr=ocr, memory=None, thresholds=thresholds, vlm=NoVlmLocator())


BUTTON = {"label": "Enregistrer", "rel_x": 1000 / W, "rel_y": 600 / H, "resolve_order": ["ocr"]}
FIRST, REGION = (120, 360), (320, 640)


def test_a_label_alone_beside_the_recorded_point_is_found_in_the_small_region_only() -> None:
    ocr = ScreenOcr([("Enregistrer", (960, 590, 88, 20), 0.97), ("Annuler", (1100, 590, 60, 20), 0.98)])
    res = resolver(ocr).resolve(SCREEN, BUTTON)
    assert res.resolved and (res.x, res.y) == (1004, 600)
    assert ocr.shapes == [FIRST]  # not the 640 x 320 region
    assert res.tried[-1].get("first_look") is True


def test_a_line_the_small_regions_edge_cuts_is_not_taken_for_the_label_alone() -> None:
    # "Enregistrer et fermer" starts inside the small region and ends beyond it: cut, it reads
    # "Enregistrer" alone. The search region reads it whole, and the label alone stands farther down.
    # A small region around the cut line reads it whole ("Enregistrer et fermer"): longer than the label, not taken.
    ocr = ScreenOcr([("Enregistrer et fermer", (960, 590, 270, 20), 0.97), ("Enregistrer", (900, 700, 88, 20), 0.9)])
    res = resolver(ocr).resolve(SCREEN, BUTTON)
    assert ocr.shapes == [FIRST, FIRST, REGION]
    assert res.resolved and (res.x, res.y) == (944, 710)  # the label alone, as the region search decides
    assert "first_look" not in res.tried[-1]


def test_a_label_the_small_regions_edge_cuts_is_read_whole_in_a_small_region_around_it() -> None:
    # the button's text ends 1 px from the small region's right edge (not wholly inside: never taken there);
    # a small region centred on that line holds it whole and reads the label alone: the 640 x 320 region is
    # not read, and the place is the one the region search finds (fails on the code before: [FIRST, REGION])
    ocr = ScreenOcr([("Enregistrer", (1091, 590, 88, 20), 0.97)])
    res = resolver(ocr).resolve(SCREEN, BUTTON)
    assert ocr.shapes == [FIRST, FIRST]
    assert res.resolved and (res.x, res.y) == (1135, 600)
    assert res.tried[-1].get("first_look") is True


def test_a_label_cut_there_and_too_far_for_the_guard_is_left_to_the_search() -> None:
    # the line the edge cuts is read whole around it, but the guard refuses it where it is: the search decides
    ocr = ScreenOcr([("Enregistrer", (1091, 590, 88, 20), 0.97)])
    shipped = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    strict = shipped.model_copy(update={"drift": shipped.drift.model_copy(update={"max_fraction": 0.05})})
    res = TargetResolver(ocr=ocr, memory=None, thresholds=strict, vlm=NoVlmLocator()).resolve(SCREEN, BUTTON)
    assert ocr.shapes[:3] == [FIRST, FIRST, REGION]  # the line 135 px (0.07 of the screen) from the point
    assert not res.resolved


def test_a_line_that_shows_the_label_inside_longer_text_leaves_the_search_to_decide() -> None:
    ocr = ScreenOcr([("Enregistrer brouillon", (940, 590, 160, 20), 0.99), ("Enregistrer", (900, 700, 88, 20), 0.95)])
    res = resolver(ocr).resolve(SCREEN, BUTTON)
    assert ocr.shapes == [FIRST, REGION]
    assert res.resolved and (res.x, res.y) == (944, 710)


def test_a_label_alone_read_with_a_score_the_guard_refuses_leaves_the_search_to_decide() -> None:
    ocr = ScreenOcr([("Enregistrer", (960, 590, 88, 20), 0.5)])
    res = resolver(ocr).resolve(SCREEN, BUTTON)
    assert ocr.shapes[:2] == [FIRST, REGION] and not res.resolved


def test_the_small_region_holds_the_label_of_a_field_that_stands_beside_it() -> None:
    # the field clicked at (1000, 600); its label's line starts 300 px left and 8 px up of the click
    label = "Motif d'admission"
    ocr = ScreenOcr([(label, (700, 592, 170, 20), 0.96)])
    spec = {**BUTTON, "label": label, "label_offset": [300, 8], "frame_size": [W, H]}
    res = resolver(ocr).resolve(SCREEN, spec)
    assert len(ocr.shapes) == 1 and ocr.shapes[0][1] > FIRST[1]  # one read, grown to hold the label
    assert res.resolved and (res.x, res.y) == (1000, 600)  # in the field, at the offset from its label


ROWS = [("MARTIN Céline 1987", (930, 590, 160, 20), 0.97), ("FAURE Céline 1950", (930, 700, 160, 20), 0.97)]
RECORD = {**BUTTON, "label": "Céline", "identity": "FAURE Céline"}


@pytest.fixture
def rows_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row's text is the line through its point (the identity check reads the row, not the region)."""

    def row_text(ocr: ScreenOcr, image: np.ndarray, x: int, y: int, *, height: int = 0) -> str:
        return next((t for t, (_, ly, _, lh), _ in ocr.lines if ly <= y <= ly + lh), "")

    monkeypatch.setattr(identity, "row_text", row_text)


@pytest.mark.usefixtures("rows_read")
def test_a_record_is_never_taken_in_the_small_region_its_whole_window_is_read() -> None:
    # the chosen record where it was, another Céline below it: a row near the point is no proof it is the only one
    ocr = ScreenOcr(
        [("FAURE Céline 1950", (930, 590, 160, 20), 0.97), ("MARTIN Céline 1987", (930, 700, 160, 20), 0.97)]
    )
    res = resolver(ocr).resolve(SCREEN, RECORD)
    assert res.resolved and res.y == 600 and ocr.shapes == [(H, W)]


@pytest.mark.usefixtures("rows_read")
def test_another_record_beside_the_recorded_point_leaves_the_search_to_find_the_chosen_one() -> None:
    ocr = ScreenOcr(list(ROWS))  # the list's order changed: another Céline where the chosen one was
    res = resolver(ocr).resolve(SCREEN, RECORD)
    assert ocr.shapes == [(H, W)]
    assert res.resolved and res.y == 710  # on the chosen record's line, never the other one


def test_a_window_shared_out_in_proportion_is_read_first_at_the_point_s_share_of_it_too() -> None:
    # the window grew: the button kept its distance from no edge but its share of the window (columns in
    # proportion); the second small region, at that share, finds it before the search regions are read
    ocr = ScreenOcr([("Enregistrer", (1160, 590, 88, 20), 0.97)])
    spec = BUTTON | {"scaled_rel": [1200 / W, 600 / H]}
    res = resolver(ocr).resolve(SCREEN, spec)
    assert res.resolved and (res.x, res.y) == (1204, 600)
    assert ocr.shapes == [FIRST, FIRST]
    assert res.tried[-1].get("first_look") is True


def test_the_point_s_share_of_the_window_a_third_of_a_small_region_away_is_read() -> None:
    # 100 px right of the recorded point (the old rule skipped it as the same place, closer than 180 px): the
    # near region cuts the button, the region at the point's share holds it whole (fails on the code before)
    ocr = ScreenOcr([("Enregistrer", (1160, 590, 88, 20), 0.97)])
    res = resolver(ocr).resolve(SCREEN, BUTTON | {"scaled_rel": [1100 / W, 600 / H]})
    assert ocr.shapes == [FIRST, FIRST]
    assert res.resolved and (res.x, res.y) == (1204, 600)
    assert res.tried[-1].get("first_look") is True


def test_the_point_s_share_of_the_window_is_not_read_again_when_it_is_the_same_place() -> None:
    ocr = ScreenOcr([("Enregistrer", (1160, 590, 88, 20), 0.97)])
    res = resolver(ocr).resolve(SCREEN, BUTTON | {"scaled_rel": [1010 / W, 600 / H]})
    assert ocr.shapes[:2] == [FIRST, REGION]  # the search regions next, as before
    assert res.resolved and (res.x, res.y) == (1204, 600)


def test_a_label_at_the_point_s_share_of_the_window_too_far_for_the_guard_is_left_to_the_search() -> None:
    ocr = ScreenOcr([("Enregistrer", (1760, 1000, 88, 20), 0.97)])
    resolver(ocr).resolve(SCREEN, BUTTON | {"scaled_rel": [1800 / W, 1010 / H]})
    assert ocr.shapes[1][0] == FIRST[0] and len(ocr.shapes) > 2  # read there, refused: the search goes on
