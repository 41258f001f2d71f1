"""Tab checkers: is the target tab the active one; is a closed tab really gone.

An active tab shares its background with the toolbar under it; an inactive one shares the
tab strip's. That holds for light and dark themes alike and costs a few medians; the label
is then confirmed by recognition-only OCR of the label box. Where every tab has the strip's
background (GTK 3, libadwaita, many office suites), the active one is underlined instead: a bar of
one colour under the tab (or along its top edge, as a spreadsheet's sheet tabs draw it), drawn
along no other part of the strip. Where the look of one frame is ambiguous (a style whose inactive
tabs are filled darker than a strip the active one shares), a click on the tab is judged by the two
frames: the clicked tab and a tab beside it swapped their backgrounds.
"""

from __future__ import annotations

import numpy as np

from rpa_mcp.validation.checkers.base import BaseChecker, Params, frame_param
from rpa_mcp.validation.checkers.text import read_tab_label
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.locate import click_point, element_box, locate_label
from rpa_mcp.validation.model import CheckResult, CropRef, Frame
from rpa_mcp.validation.regions import is_close_button, tab_box
from rpa_mcp.validation.text import label_matches
from rpa_mcp.vision.images import BBox, clamp_bbox

MIN_CONTRAST = 12.0  # summed BGR distance below which active/inactive cannot be told apart
BAR_REACH = 8  # rows above and below a tab box's bottom edge searched for an underline
BAR_CONTRAST = 60.0  # summed BGR distance between an underline and the tab's background
BAR_SAME = 40  # summed BGR distance within which two pixels are the underline's colour
BAR_FILL = 0.8  # share of the middle of the tab the underline covers
BAR_RARE = 0.4  # the most of its row the underline colour may cover (else a page or a toolbar edge)
BAR_NEIGHBOURS = (1, -1, 2, -2, 3, -3)  # tab widths away where the strip's underline may be instead
BAR_CHROMA = 48  # spread of a colour's channels that makes it an accent, not a grey
SWAP_SAME = 8.0  # summed BGR distance within which two tabs' backgrounds are the same
TAB_REACH = 6  # box widths a tab's own background may run on beside its label's box


def _median(image: np.ndarray, bbox: BBox) -> np.ndarray | None:
    x, y, w, h = clamp_bbox(bbox, image.shape)
    if w == 0 or h == 0:
        return None
    median: np.ndarray = np.median(image[y : y + h, x : x + w].reshape(-1, 3), axis=0)
    return median


def active_look(image: np.ndarray, bbox: BBox, *, loose: bool = False) -> float | None:
    """1.0 when the tab's background matches the toolbar below, 0.0 when it matches the strip around.

    loose: the box was derived from a label found by OCR, its bottom edge is estimated: the toolbar
    colour is the row just below it (a few rows up or down) closest to the tab's own colour.
    """
    x, y, w, h = bbox
    inner = _median(image, (x + 4, y + 2, w - 8, h - 4))
    below = _median(image, (x + 4, y + h + 1, w - 8, 5))
    if loose and inner is not None:
        rows = [_median(image, (x + 4, y + h + dy, w - 8, 1)) for dy in range(-2, 9)]
        near = [r for r in rows if r is not None]
        if near:
            below = min(near, key=lambda r: float(np.abs(inner - r).sum()))
    around = _median(image, (x + 4, y - 6, w - 8, 5)) if y >= 6 else _median(image, (x - 6, y + 2, 5, h - 4))
    if loose and inner is not None and around is not None and y >= 6:
        # an estimated top may sit a few rows inside the tab: the strip is the first band above that differs
        for offset in (10, 14, 18):
            if float(np.abs(inner - around).sum()) >= MIN_CONTRAST or y < offset:
                break
            higher = _median(image, (x + 4, y - offset, w - 8, 4))
            if higher is not None:
                around = higher
    if inner is None:
        return None
    underline = _underline_look(image, bbox, inner)
    if underline is not None:
        return underline
    if below is None or around is None:
        return None
    d_below = float(np.abs(inner - below).sum())
    d_around = float(np.abs(inner - around).sum())
    strip = _strip_beside(image, _tab_extent(image, bbox, inner))
    if strip is not None:
        # Whatever the theme, the active tab is the one that stands out from the rest of its strip: a
        # browser's white tab over grey ones, or an application's filled tab among plain ones (where
        # the plain ones share the page's colour under the strip and the model below is inverted).
        stands_out = float(np.abs(inner - strip).sum()) >= MIN_CONTRAST
        if not stands_out:
            return 0.0
        if d_below + d_around < MIN_CONTRAST or d_around / (d_below + d_around) < 0.5:
            return 1.0 - MIN_CONTRAST / (MIN_CONTRAST + float(np.abs(inner - strip).sum()))
    if d_below + d_around < MIN_CONTRAST:
        return None
    return d_around / (d_below + d_around)


def _underline_look(image: np.ndarray, bbox: BBox, inner: np.ndarray) -> float | None:
    """1.0 when an underline runs under the tab, 0.0 when it runs under a tab beside it, None when
    the strip draws none."""
    if _underlined(image, bbox, inner):
        return 1.0
    x, y, w, h = bbox
    for step in BAR_NEIGHBOURS:
        neighbour = (x + step * w, y, w, h)
        if neighbour[0] >= 0 and neighbour[0] + w <= image.shape[1] and _underlined(image, neighbour, inner):
            return 0.0
    return None


def _underlined(image: np.ndarray, bbox: BBox, background: np.ndarray) -> bool:
    """A row near the box's bottom edge is one colour across the middle of the box, far from the
    tab's background, and covers little of its row (a tab's width, not the page's edge); or such a
    row of an accent colour near its top edge (a tab's grey outline runs along every tab's top)."""
    x, y, w, h = bbox
    return _bar_near(image, x, w, y + h, background) or _bar_near(image, x, w, y, background, accent=True)


def _bar_near(image: np.ndarray, x: int, w: int, edge: int, background: np.ndarray, *, accent: bool = False) -> bool:
    lo, hi = max(0, edge - BAR_REACH), min(image.shape[0], edge + BAR_REACH + 1)
    left, right = max(0, x + w * 15 // 100), min(image.shape[1], x + w * 85 // 100)
    if right - left < 4 or lo >= hi:
        return False
    rows = image[lo:hi].astype(np.int16)
    middle = rows[:, left:right]
    colour = np.median(middle, axis=1)  # one per row
    near = np.abs(middle - colour[:, None, :]).sum(axis=2) <= BAR_SAME
    filled = near.mean(axis=1) >= BAR_FILL
    far = np.abs(colour - background).sum(axis=1) >= BAR_CONTRAST
    if accent:
        far &= colour.max(axis=1) - colour.min(axis=1) >= BAR_CHROMA
    for i in np.nonzero(filled & far)[0]:
        share = float((np.abs(rows[i] - colour[i]).sum(axis=1) <= BAR_SAME).mean())
        if share <= BAR_RARE:
            return True
    return False


def _bar_moved_under(before: np.ndarray, after: np.ndarray, bbox: BBox) -> bool:
    """A bar of one colour runs under the middle of the box after the click, and did not before,
    while it ran along the same row elsewhere (under another tab): the underline moved to this tab.
    A tab as wide as half its strip draws an underline too long for `_underlined`'s rarity test."""
    x, y, w, h = bbox
    edge = y + h
    lo, hi = max(0, edge - BAR_REACH), min(after.shape[0], edge + BAR_REACH + 1)
    left, right = max(0, x + w * 15 // 100), min(after.shape[1], x + w * 85 // 100)
    inner = _median(after, (x + 4, y + 2, w - 8, h - 4))
    if right - left < 4 or lo >= hi or inner is None or before.shape != after.shape:
        return False
    for row in range(lo, hi):
        now = after[row].astype(np.int16)
        then = before[row].astype(np.int16)
        colour = np.median(now[left:right], axis=0)
        if _distance(colour, inner) < BAR_CONTRAST or colour.max() - colour.min() < BAR_CHROMA:
            continue  # a bar of an accent colour, not the grey of an edge
        on_now = np.abs(now - colour).sum(axis=1) <= BAR_SAME
        on_then = np.abs(then - colour).sum(axis=1) <= BAR_SAME
        if on_now[left:right].mean() < BAR_FILL or on_then[left:right].mean() > 1 - BAR_FILL:
            continue
        if on_then.sum() >= right - left:  # the same bar, elsewhere on the row before the click
            return True
    return False


def _distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).sum())


def _tab_extent(image: np.ndarray, bbox: BBox, inner: np.ndarray) -> BBox:
    """The box widened to the tab's own edges: a label's box in a wide tab (a browser's three tabs
    sharing a 1920-pixel strip) has the tab's own background for hundreds of pixels on both sides,
    which is no strip beside it. Widened while the columns keep the tab's colour, at most TAB_REACH
    box widths each way (a strip of one colour, every tab alike, is left as it was)."""
    x, y, w, h = bbox
    rows = image[max(0, y + 2) : max(0, y + h - 2)].astype(np.int16)
    if rows.size == 0:
        return bbox
    same = np.abs(np.median(rows, axis=0) - inner).sum(axis=1) <= SWAP_SAME  # one per column
    reach = TAB_REACH * w
    left = x
    while left > 0 and x - left < reach and same[left - 1]:
        left -= 1
    right = x + w
    while right < image.shape[1] and right - (x + w) < reach and same[right]:
        right += 1
    if x - left >= reach or right - (x + w) >= reach:
        return bbox
    return (left, y, right - left, h)


def _strip_beside(image: np.ndarray, bbox: BBox) -> np.ndarray | None:
    """The median colour of the tab strip on both sides of a tab (its other tabs and the gaps between
    them), three tab widths each way; None when there is no room on either side."""
    x, y, w, h = bbox
    rows = image[max(0, y + 2) : max(0, y + h - 2)]
    if rows.size == 0:
        return None
    left = rows[:, max(0, x - 3 * w) : max(0, x - 4)]
    right = rows[:, min(image.shape[1], x + w + 4) : min(image.shape[1], x + 4 * w)]
    pixels = [part.reshape(-1, 3) for part in (left, right) if part.size]
    if not pixels or sum(len(p) for p in pixels) < 4 * h:
        return None
    median: np.ndarray = np.median(np.concatenate(pixels), axis=0)
    return median


class TabActiveChecker(BaseChecker):
    """Is the target tab active (background) AND does it carry the exact label (OCR)?

    params: frame (before|after), find_active (when not active, name the tab that is),
    confirm_label (false: only the background, e.g. "the neighbour that took the slot is active"),
    relocate (true: do not trust the given box; find the label by OCR in a band around the click
    on that frame and judge the tab drawn there — used when the box and the title disagree).
    """

    name = "TabActiveChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        which: Frame = frame_param(params)
        if ctx.target.bbox is None:
            return self.not_applicable(signal, "no target bbox")
        target_box, label_bbox = ctx.target.bbox, ctx.target.label_bbox
        prefix = ""
        if params.get("relocate") and ctx.target.bbox_source != "located":
            point = click_point(ctx.target)
            hit = locate_label(ctx, which, point) if point is not None else None
            if hit is None:
                return self.result(signal, 0.0, f"{which}: label {ctx.target.label!r} not read near the click {point}")
            target_box, label_bbox = element_box(ctx, which, hit), hit.bbox
            prefix = f"label {ctx.target.label!r} found near the click at {list(hit.bbox)} (read {hit.text!r}); "
        result = self._judge(ctx, signal, which, target_box, label_bbox, params)
        result.detail = prefix + result.detail
        return result

    def _judge(
        self, ctx: CheckContext, signal: str, which: Frame, target_box: BBox, label_bbox: BBox | None, params: Params
    ) -> CheckResult:
        image = ctx.frame(which)
        box = tab_box(target_box, image.shape)
        look = active_look(image, box, loose=label_bbox is not None)
        crop = CropRef(f"target tab ({which})", which, box)
        swapped = ""
        if which == "after" and params.get("find_active") and (look is None or look < 0.85):
            neighbour = self._swapped_with(ctx, box)
            if neighbour is not None:
                look = 0.9
                swapped = f"the clicked tab took the background of the tab at {list(neighbour)}, which took its own; "
            elif _bar_moved_under(ctx.before, ctx.after, box):
                look = 0.9
                swapped = "the strip's underline moved under the clicked tab; "
        if look is None:
            return self.result(
                signal, 0.0, f"{which}: no tab look at {list(box)} (no strip/toolbar contrast)", crop=crop
            )
        if look < 0.5:
            detail = f"{which}: tab at {list(box)} has the inactive background (active look {look:.2f})"
            facts: dict[str, object] = {"active_look": round(look, 3)}
            if params.get("find_active"):
                other = self._find_active(ctx, which, box)
                if other is not None:
                    detail += f"; the active tab is at {list(other[0])} and reads {other[1]!r}"
                    facts["active_tab"] = other[1]
                    facts["active_tab_bbox"] = list(other[0])
                    crop = CropRef(f"active tab ({which})", which, other[0])
            return self.result(signal, look, detail, crop=crop, **facts)
        if not ctx.target.label or params.get("confirm_label", True) is False:
            return self.result(signal, look, f"{which}: the tab at {list(box)} looks active ({look:.2f})", crop=crop)
        _label_box, read = read_tab_label(ctx, which, target_box, label_bbox, wanted=ctx.target.label)
        if label_matches(read, ctx.target.label):
            return self.result(
                signal,
                look,
                f"{which}: {swapped}tab {ctx.target.label!r} is active (OCR {read!r})",
                crop=crop,
                read=read,
            )
        return self.result(
            signal,
            0.0,
            f"{which}: the active-looking tab at {list(box)} reads {read!r}, not {ctx.target.label!r}",
            crop=crop,
            read=read,
        )

    def _swapped_with(self, ctx: CheckContext, box: BBox) -> BBox | None:
        """The tab beside the clicked one whose background it took, while that tab took the clicked
        one's: the selection moved between them, and a click on a tab only ever selects that tab.
        Judged only when the click point lies in the box and the box read the target's label before."""
        point = click_point(ctx.target)
        x, y, w, h = box
        if point is not None and not (x <= point[0] <= x + w and y <= point[1] <= y + h):
            return None
        inner = (x + 4, y + 2, w - 8, h - 4)
        mine_before, mine_after = _median(ctx.before, inner), _median(ctx.after, inner)
        if mine_before is None or mine_after is None or _distance(mine_before, mine_after) < MIN_CONTRAST:
            return None
        x, y, w, h = _tab_extent(ctx.after, box, mine_after)  # the next tab is a whole tab away
        inner = (x + 4, y + 2, w - 8, h - 4)
        for step in BAR_NEIGHBOURS:
            other = (inner[0] + step * w, inner[1], inner[2], inner[3])
            if other[0] < 0 or other[0] + other[2] > ctx.after.shape[1]:
                continue
            theirs_before, theirs_after = _median(ctx.before, other), _median(ctx.after, other)
            if theirs_before is None or theirs_after is None:
                continue
            if _distance(theirs_before, mine_after) <= SWAP_SAME and _distance(theirs_after, mine_before) <= SWAP_SAME:
                if not ctx.target.label:
                    return None
                _, read = read_tab_label(
                    ctx, "before", ctx.target.bbox or box, ctx.target.label_bbox, wanted=ctx.target.label
                )
                return (x + step * w, y, w, h) if label_matches(read, ctx.target.label) else None
        return None

    def _find_active(self, ctx: CheckContext, which: Frame, box: BBox) -> tuple[BBox, str] | None:
        x, y, w, h = box
        if w < 3 * h:
            return None
        image = ctx.frame(which)
        for step in (1, -1, 2, -2, 3, -3, 4, -4):
            neighbour = (x + step * w, y, w, h)
            if neighbour[0] < 0 or neighbour[0] + w > image.shape[1]:
                continue
            look = active_look(image, neighbour)
            if look is not None and look >= 0.8:
                _, read = read_tab_label(ctx, which, neighbour)
                return neighbour, read
        return None


class TabAbsenceChecker(BaseChecker):
    """After closing a tab, its label is in neither its slot nor the slot on its left."""

    name = "TabAbsenceChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        if ctx.target.bbox is None or not ctx.target.label:
            return self.not_applicable(signal, "needs the tab's label and bbox")
        label = ctx.target.label
        slot = tab_box(ctx.target.bbox, ctx.after.shape)
        _slot_label_box, read = read_tab_label(ctx, "after", ctx.target.bbox, wanted=label)
        crop = CropRef("tab slot (after)", "after", slot)
        if label_matches(read, label):
            return self.result(signal, 0.0, f"tab {label!r} is still in its slot (OCR {read!r})", crop=crop)
        x, y, w, h = ctx.target.bbox if not is_close_button(ctx.target.bbox) else slot
        left = (x - w, y, w, h)
        left_read = ""
        if left[0] >= 0:
            _, left_read = read_tab_label(ctx, "after", left, wanted=label)
            if label_matches(left_read, label):
                return self.result(signal, 0.0, f"tab {label!r} moved one slot left (OCR {left_read!r})", crop=crop)
        return self.result(
            signal,
            1.0,
            f"no tab {label!r} any more: its slot now reads {read!r}, the slot on its left {left_read!r}",
            crop=crop,
            slot_reads=read,
        )
