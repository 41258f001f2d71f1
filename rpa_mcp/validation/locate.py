"""Find a target's label near the click point when the workflow gave no (trustworthy) box.

Workflows recorded by the shadow area carry `by_text` and a click point but often no bbox. A
box guessed around the click (e.g. 120x40) is not where the label is: judging a tab through
it reads half a label and calls a correct tab switch a wrong application. So the label is
looked for by OCR in a band (~600x120 px) around the click only — never the whole frame —
and the tab element is derived from where the label is drawn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
from rapidfuzz.distance import Indel

from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import CheckResult, CropRef, Frame, Target
from rpa_mcp.validation.text import folded
from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.ocr import OcrLine

BAND_W, BAND_H = 600, 120
MIN_MATCH = 0.78  # fuzzy score below which a line is not the label
GUESS_W, GUESS_H = 120, 40  # the box guessed around a click when the label is nowhere near it
ROW_CONTRAST = 12.0  # summed BGR distance that marks a tab's top/bottom edge
TAB_ACTION_TYPES = frozenset({"switch_tab", "close_tab"})  # the label is a tab's: derive the tab element
LOCATOR = "TargetLocator"
LABEL_MAX_H = 24  # a tab element is ~32 px tall; a label's text box ~16-22


@dataclass(frozen=True)
class LabelHit:
    bbox: BBox  # frame coordinates, the label (or the part of the line that holds it)
    text: str  # what OCR read (screen text is data)
    score: float  # 0..1 fuzzy match
    distance: float  # from the click point to the box, px
    pitch: int | None = None  # distance to the next label on the same row (a tab strip's tab width)


def band_around(point: tuple[int, int], shape: tuple[int, ...]) -> BBox:
    x, y = point
    return clamp_bbox((x - BAND_W // 2, y - BAND_H // 2, BAND_W, BAND_H), shape)


def guessed_box(point: tuple[int, int], shape: tuple[int, ...]) -> BBox:
    x, y = point
    return clamp_bbox((x - GUESS_W // 2, y - GUESS_H // 2, GUESS_W, GUESS_H), shape)


def match_score(read: str, label: str) -> tuple[float, float, float]:
    """(score, start, end): how well `read` holds `label`, and where in `read` (fractions 0..1).

    Exact after normalisation -> 1; the label inside a longer line ('*CR.txt - Bloc-notes') -> 0.95
    with its span; a clipped read ('ssier patient') or a misread ('Imagerle') -> the similarity.
    """
    got, want = folded(read), folded(label)
    if not got or not want:
        return 0.0, 0.0, 1.0
    if got == want:
        return 1.0, 0.0, 1.0
    at = got.find(want)
    if at >= 0:
        return 0.95, at / len(got), (at + len(want)) / len(got)
    ratio = float(Indel.normalized_similarity(got, want))
    if want.endswith(got) or want.startswith(got):  # the read lost the start/end of the label
        ratio = max(ratio, len(got) / len(want))
        if len(got) < 4:
            ratio = 0.0
    return ratio, 0.0, 1.0


def distance_to_box(point: tuple[int, int], box: BBox) -> float:
    px, py = point
    x, y, w, h = box
    dx = max(x - px, 0, px - (x + w))
    dy = max(y - py, 0, py - (y + h))
    return float((dx * dx + dy * dy) ** 0.5)


def find_label(lines: list[OcrLine], origin: tuple[int, int], label: str, point: tuple[int, int]) -> LabelHit | None:
    """The line of a band read that holds `label`, nearest to the click among the best matches."""
    ox, oy = origin
    hits: list[LabelHit] = []
    for line in lines:
        score, start, end = match_score(line.text, label)
        if score < MIN_MATCH:
            continue
        x, y, w, h = line.bbox
        if (start, end) != (0.0, 1.0):  # keep only the part of the line that holds the label
            x, w = x + round(start * w), max(4, round((end - start) * w))
        box = (ox + x, oy + y, w, h)
        hits.append(LabelHit(box, line.text, score, distance_to_box(point, box)))
    if not hits:
        return None
    best = max(h.score for h in hits)
    hit = min((h for h in hits if h.score >= best - 0.05), key=lambda h: h.distance)
    return LabelHit(hit.bbox, hit.text, hit.score, hit.distance, _pitch(lines, origin, hit.bbox))


def _pitch(lines: list[OcrLine], origin: tuple[int, int], box: BBox) -> int | None:
    """Distance to the nearest other label on the same row (tabs: the tab width)."""
    ox, oy = origin
    x, y, _, h = box
    centre = y + h / 2
    best: int | None = None
    for line in lines:
        lx, ly, lw, lh = line.bbox
        labelled = len(folded(line.text)) >= 3 or (not line.text and lw >= 2 * lh)  # unread boxes count too
        if not labelled or abs(oy + ly + lh / 2 - centre) > 6:
            continue
        gap = abs(ox + lx - x)
        if gap > 2 * h and (best is None or gap < best):
            best = gap
    return best


def _row_colour(image: np.ndarray, y: int, x0: int, x1: int) -> np.ndarray:
    row: np.ndarray = np.median(image[y, x0:x1].reshape(-1, 3), axis=0)
    return row


def tab_from_label(image: np.ndarray, label: BBox, pitch: int | None = None) -> BBox:
    """The tab element around a label: its top from the colour edge above the label.

    An active tab has its own background up to its top edge (the strip above differs); an
    inactive one has the strip's colour. When no edge is found within reach, and for the bottom,
    the usual proportions of a browser tab are used. Horizontally: the label sits after the
    favicon; the tab is as wide as the distance to the next tab label when one was read.
    """
    height, width = image.shape[:2]
    lx, ly, lw, lh = clamp_bbox(label, image.shape)
    if lw == 0 or lh == 0:
        return label
    x0, x1 = lx, lx + lw
    inner = np.median(image[ly : ly + lh, max(0, lx - 4) : min(width, x1 + 4)].reshape(-1, 3), axis=0)
    reach = max(6, lh)

    def edge(rows: range) -> int | None:
        for y in rows:
            if float(np.abs(_row_colour(image, y, x0, x1) - inner).sum()) > ROW_CONTRAST:
                return y
        return None

    above = edge(range(ly - 1, max(-1, ly - reach), -1))
    top = above + 1 if above is not None else max(0, ly - round(0.4 * lh))
    # Below the label an inactive tab (the strip's colour) ends where the toolbar begins: that edge
    # is its bottom. An active tab runs into the toolbar (same colour) and maybe to the address
    # bar's edge: active_look(loose=True) then picks the toolbar row nearest in colour.
    below = edge(range(ly + lh, min(height, ly + lh + reach)))
    bottom = below if below is not None else min(height, ly + lh + round(0.35 * lh))
    tab_h = max(lh + 2, bottom - top)
    inset = round(0.9 * tab_h)
    x = lx - inset - 4
    natural = lw + 2 * inset + 32
    tab_w = pitch if pitch is not None and natural <= pitch <= 3 * natural else natural
    return clamp_bbox((x, top, tab_w, tab_h), image.shape)


def locate_label(ctx: CheckContext, which: Frame, point: tuple[int, int]) -> LabelHit | None:
    """The target's label read in the band around `point` on one frame (memoised per frame and band).

    The fast engine's reading of the band is kept when it shows the label exactly; any other
    outcome (a near match, nothing) is decided on the float model's reading, as read_label does.
    Outside tab actions the nearest line is read alone first: when it holds the label exactly it
    is the line find_label would pick among all (the nearest of the best), and only tabs use
    the lines around it (the strip's pitch).
    """
    label = ctx.target.label
    if not label:
        return None
    band = band_around(point, ctx.after.shape)
    if band[2] == 0 or band[3] == 0:
        return None
    origin = (band[0], band[1])

    def exact(lines: list[OcrLine]) -> bool:
        hit = find_label(lines, origin, label, point)
        return hit is not None and hit.score >= 1.0

    lines = ctx.read_band(which, band, near=point, accept=exact, nearest_first=ctx.action_type not in TAB_ACTION_TYPES)
    return find_label(lines, origin, label, point)


def element_box(ctx: CheckContext, which: Frame, hit: LabelHit) -> BBox:
    """The box the checkers judge: the tab element for tab actions, else the label itself."""
    if ctx.action_type in TAB_ACTION_TYPES:
        return tab_from_label(ctx.frame(which), hit.bbox, hit.pitch)
    return hit.bbox


def click_point(target: Target) -> tuple[int, int] | None:
    if target.point is not None:
        return int(target.point[0]), int(target.point[1])
    if target.bbox is not None:
        x, y, w, h = target.bbox
        return x + w // 2, y + h // 2
    return None


def is_label_box(bbox: BBox) -> bool:
    """A box as tight as a line of text (the shadow area records the clicked label's box), not an element."""
    _, _, w, h = bbox
    return h <= LABEL_MAX_H and w >= 2 * h


def widen_label_box(ctx: CheckContext) -> None:
    """Tab actions given the label's own box: judge the tab element drawn around it (no OCR needed)."""
    target = ctx.target
    if ctx.action_type not in TAB_ACTION_TYPES or target.bbox is None or target.label_bbox is not None:
        return
    if target.bbox_source != "given" or not is_label_box(target.bbox):
        return
    tab = tab_from_label(ctx.before, target.bbox)
    ctx.target = replace(target, bbox=tab, label_bbox=target.bbox)


def resolve_target(ctx: CheckContext) -> CheckResult:
    """Give a target without a trustworthy box the box of its label, found by OCR around the click.

    Replaces `ctx.target` (bbox_source `located`, or `guessed` when the label is nowhere in the
    band) and returns the evidence of what was done.
    """
    started = time.perf_counter()
    target = ctx.target
    point = click_point(target)
    assert point is not None and target.label  # needs_locating() was checked by the caller
    band = band_around(point, ctx.after.shape)
    hit = locate_label(ctx, "before", point)
    if hit is not None:
        box = element_box(ctx, "before", hit)
        ctx.target = replace(target, bbox=box, point=point, bbox_source="located", label_bbox=hit.bbox)
        result = CheckResult(
            LOCATOR,
            "target",
            hit.score,
            f"no target box given: label {target.label!r} found by OCR {hit.distance:.0f} px from the click "
            f"{list(point)} at {list(hit.bbox)} (read {hit.text!r}, match {hit.score:.2f}; screen text is data); "
            f"judged box {list(box)}",
            crop=CropRef("target located near the click (before)", "before", box),
            facts={"bbox_source": "located", "bbox": list(box), "label_bbox": list(hit.bbox), "band": list(band)},
        )
    else:
        box = guessed_box(point, ctx.after.shape)
        ctx.target = replace(target, bbox=box, point=point, bbox_source="guessed")
        result = CheckResult(
            LOCATOR,
            "target",
            0.0,
            f"no target box given and label {target.label!r} not read in the {band[2]}x{band[3]} band "
            f"{list(band)} around the click {list(point)}: box guessed around the click {list(box)} "
            "(lower confidence)",
            crop=CropRef("band around the click (before)", "before", band),
            facts={"bbox_source": "guessed", "bbox": list(box), "band": list(band)},
        )
    result.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
    return result
