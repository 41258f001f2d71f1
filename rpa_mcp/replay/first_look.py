"""The first look: the target's label read in a small region around the point the person clicked.

Its answer is taken only when beyond doubt — a line wholly inside the region that reads the label alone
at a score the guard accepts, or holds it as its own part set apart by a wide gap and read alone
(`label_runs`: two controls' texts the detector ran together); otherwise the resolver reads its wider
search regions: a partial or cut line never stops the search. A line showing the label that a small
region's edge cuts is read once more, whole, in a small region centred on it (`around_line`), under the
same rule and the guard: the 640x320 region is then not read for a label that stood just past the edge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from rpa_mcp.replay.candidates import Candidate, showing, within
from rpa_mcp.replay.label_runs import label_part_candidate
from rpa_mcp.replay.ports import TextReader
from rpa_mcp.replay.search_regions import ANCHORED_KEY, SCALED_KEY, Point, first_look_region, scrolled_points
from rpa_mcp.replay.thresholds import Thresholds
from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.tiles import read_region

SAME_PLACE = 4  # the point's share of the window closer than a quarter of a small region: read there already
AROUND_MARGIN = 8  # px kept around a cut line in the small region read around it


class FirstLook:
    def __init__(
        self,
        ocr: TextReader,
        thresholds: Thresholds,
        *,
        recorded: Callable[[Mapping[str, Any]], Point | None],
        guard: Callable[[Candidate, Mapping[str, Any], tuple[int, ...]], tuple[bool, str, str]],
    ) -> None:
        self.ocr = ocr
        self.thresholds = thresholds
        self.recorded = recorded  # the point the person clicked, as the resolver reads it from a spec
        self.guard = guard

    def _lines_showing(self, image: np.ndarray, region: BBox, wanted: str) -> list[Candidate]:
        """The lines of `region` that show the label, as candidates, best first (reading order among equals)."""
        x0, y0, rw, rh = region
        return showing(read_region(self.ocr, image[y0 : y0 + rh, x0 : x0 + rw]), wanted, (x0, y0))

    def find(self, image: np.ndarray, spec: Mapping[str, Any], wanted: str) -> Candidate | None:
        """The label read in the small region around the recorded point (`first_look_region`), then, for a
        window resized since the demonstration, around the point at the same share of its new frame
        (`window_frame.SCALED_KEY`: a layout that shares the window out) and at the same distance from its
        top-left corner (`ANCHORED_KEY`: a page laid out from there), where a scroll its agent made took the
        recorded point (`scrolled_points`), then around a line showing the label
        that the edge of a region read cut (`around_line`); the last two taken only when the guard accepts
        them where they are. None: the search regions are read."""
        size = self.thresholds.search.ocr_first_look
        recorded = self.recorded(spec)
        region = first_look_region(image.shape, recorded, spec, size)
        near, cut = self._in(image, spec, wanted, region)
        if near is not None:
            return near
        read = [region]
        others = [spec.get(SCALED_KEY), spec.get(ANCHORED_KEY), *scrolled_points(spec)]
        for other in others:
            if recorded is None or not isinstance(other, list | tuple) or len(other) != 2:
                continue
            h, w = image.shape[:2]
            dx, dy = abs(other[0] - recorded[0]) * w, abs(other[1] - recorded[1]) * h
            if dx >= size[0] / SAME_PLACE or dy >= size[1] / SAME_PLACE:  # else mostly read already
                region = first_look_region(image.shape, (float(other[0]), float(other[1])), spec, size)
                there, cut_there = self._in(image, spec, wanted, region)
                if there is not None and self.guard(there, spec, image.shape)[0]:
                    return there
                read.append(region)
                cut = cut or cut_there
        if cut is None or cut.line_box is None:
            return None
        region = around_line(cut.line_box, size, image.shape)
        if region is None or region in read:
            return None
        there, _ = self._in(image, spec, wanted, region)
        return there if there is not None and self.guard(there, spec, image.shape)[0] else None

    def _in(
        self, image: np.ndarray, spec: Mapping[str, Any], wanted: str, region: BBox | None
    ) -> tuple[Candidate | None, Candidate | None]:
        """The label read in one small region, taken only when it is beyond doubt: a line wholly inside the
        region (a line its edge cuts may read as the label alone and be longer: "Enregistrer et fermer")
        that reads the label alone at a score the guard accepts. Second: the best line showing the label
        that the region's edge cuts (None when there is none), never taken from this region."""
        if region is None or region[2] <= 4 or region[3] <= 4:
            return None, None
        found = self._lines_showing(image, region, wanted)
        whole = [c for c in found if c.line_box is not None and within(c.line_box, region, image)]
        cut = next((c for c in found if c.line_box is not None and c not in whole), None)
        minimum = self.thresholds.min_score("hybrid_text_direct")[1] or 0.0
        for cand in whole:
            if cand.read_score is not None and cand.score == cand.read_score and cand.score >= minimum:
                return replace(cand, first_look=True), cut
        for cand in whole:  # the label run together with a neighbouring control's text: its own part, read alone
            part = label_part_candidate(image, cand, wanted, self.ocr)
            if part is not None and part.score >= minimum:
                return part, cut
        return None, cut


def around_line(line: BBox, size: tuple[int, int], shape: tuple[int, ...]) -> BBox | None:
    """A small region (`size`, wider when the line is) centred on a line a region's edge cut, so that the
    line lies wholly inside it unless the frame's own edge cuts it; None when it cannot hold the line."""
    x, y, w, h = line
    fw, fh = max(size[0], w + 2 * AROUND_MARGIN), size[1]
    if h + 2 * AROUND_MARGIN > fh:
        return None
    region = clamp_bbox((x + w // 2 - fw // 2, y + h // 2 - fh // 2, fw, fh), shape)
    return region if region[2] > 4 and region[3] > 4 else None
