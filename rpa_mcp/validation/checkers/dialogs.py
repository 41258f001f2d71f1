"""Dialog checkers: did a blocking dialog appear; did the dialog we answered really close.

Both work on the dialog's own box (from the injected DialogLocator when there is one, else
from local evidence) — never on a global similarity of the whole frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.context import CELL, CheckContext
from rpa_mcp.validation.model import CheckResult, CropRef
from rpa_mcp.validation.ports import DialogHit
from rpa_mcp.validation.regions import around, contains
from rpa_mcp.validation.text import label_matches
from rpa_mcp.vision.images import BBox

DIM_LEVEL = 12  # grey levels an overlay takes off the page behind a modal
MIN_DIMMED_SHARE = 0.30
MIN_HOLE_SHARE = 0.004
MODAL_MIN_W, MODAL_MIN_H = 120, 50  # smallest dialog (as the dialogs area's locator)
MAX_BLOBS = 8  # changed regions looked at, largest first
SIDE_SLACK = 10  # the outline is searched from this far outside a changed region ...
SIDE_DEPTH = 32  # ... to this far inside it (8-px cells, drop shadows)
PAGE_CHANGE_SHARE = 0.10  # changed share of the frame outside a candidate that makes it a page change
EDGE_STEP = 16  # grey-level step across an outline
EDGE_SHARE = 0.75  # share of a side's length that must be an edge


def _iou(a: BBox, b: BBox) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union else 0.0


def find_modal_overlay(ctx: CheckContext) -> BBox | None:
    """A modal over a dimmed page: most of the frame got darker except one box (the dialog)."""
    memo_key = "modal_overlay"
    if memo_key in ctx.memo:
        return ctx.memo[memo_key]  # type: ignore[no-any-return]  # memo holds BBox | None for this key
    found: BBox | None = None
    change = ctx.change()
    height, width = ctx.shape
    if change.changed_pixels >= MIN_DIMMED_SHARE * height * width * 0.5:
        before = ctx.gray_cells("before").astype(np.int16)
        after = ctx.gray_cells("after").astype(np.int16)
        dimmed = (before - after) > DIM_LEVEL
        # Rows the overlay does not cover at all (a browser's tab strip and toolbar, a taskbar) are not
        # the page: a dialog attached under the toolbar must not merge with them into a border region.
        page_rows = np.flatnonzero(dimmed.mean(axis=1) >= 0.5)
        top = int(page_rows[0]) if page_rows.size else 0
        bottom = int(page_rows[-1]) + 1 if page_rows.size else dimmed.shape[0]
        page = dimmed[top:bottom]
        if dimmed.mean() >= MIN_DIMMED_SHARE and page.size:
            holes = (~page).astype(np.uint8)
            count, _, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
            rows, cols = holes.shape
            best = 0
            for x, y, w, h, area in stats[1:count]:
                touches = x == 0 or x + w >= cols or w >= 0.9 * cols or (y == 0 and top == 0) or y + h >= rows
                if touches or area < MIN_HOLE_SHARE * rows * cols or area < 0.5 * w * h:
                    continue
                if area > best:
                    best = int(area)
                    found = (int(x) * CELL, (int(y) + top) * CELL, int(w) * CELL, int(h) * CELL)
    ctx.memo[memo_key] = found
    return found


def _side_lines(gray: np.ndarray, slack: int, depth: int) -> list[np.ndarray]:
    """Per side (top, bottom, left, right): the share of each candidate line that is a contrast edge.

    Each side is searched from `slack` px outside the box to `depth` px inside it (the change map
    is made of 8-px cells and a dialog's shadow widens the changed region).
    """
    height, width = gray.shape
    inner_w, inner_h = width - 2 * slack, height - 2 * slack
    if inner_w <= 2 * depth + 4 or inner_h <= 2 * depth + 4:
        return [np.zeros(0)] * 4
    g = gray.astype(np.int16)
    cols = slice(slack + depth, slack + inner_w - depth)
    rows = slice(slack + depth, slack + inner_h - depth)
    reach = slack + depth
    step = EDGE_STEP
    top = [(np.abs(g[r, cols] - g[r - 2, cols]) > step).mean() for r in range(2, reach)]
    bottom = [(np.abs(g[r, cols] - g[r + 2, cols]) > step).mean() for r in range(height - reach, height - 2)]
    left = [(np.abs(g[rows, c] - g[rows, c - 2]) > step).mean() for c in range(2, reach)]
    right = [(np.abs(g[rows, c] - g[rows, c + 2]) > step).mean() for c in range(width - reach, width - 2)]
    return [np.asarray(side, dtype=np.float64) for side in (top, bottom, left, right)]


def new_outline_sides(before: np.ndarray, after: np.ndarray, slack: int, depth: int) -> int:
    """Sides of a box outlined in AFTER by a straight edge that was not at that line in BEFORE."""
    count = 0
    for seen, was in zip(_side_lines(after, slack, depth), _side_lines(before, slack, depth), strict=True):
        if seen.size == 0:
            continue
        line = int(seen.argmax())
        if seen[line] >= EDGE_SHARE and was[max(0, line - 1) : line + 2].max() < EDGE_SHARE:
            count += 1
    return count


def modal_candidate(ctx: CheckContext) -> str | None:
    """Why the AFTER frame may hold a new modal (None: no reason to run the dialogs classifier).

    Reads the change map PixelDiff already computed: a page dimmed around one box, or a compact
    changed rectangle of dialog size whose outline is a NEW straight contrast edge on at least three
    sides (a window drawn on top) — not a page change (too wide or tall, the rest of the page changed
    too, or an outline that was already there: a card whose content changed). A dialog that opens
    together with a page change is only caught when the action asks for the classifier (`always`).
    """
    memo_key = "modal_candidate"
    if memo_key in ctx.memo:
        return ctx.memo[memo_key]  # type: ignore[no-any-return]  # memo holds str | None for this key
    reason: str | None = None
    change = ctx.change()
    height, width = ctx.shape
    if change.changed_pixels >= ctx.diff_settings.min_changed_pixels:
        overlay = find_modal_overlay(ctx)
        if overlay is not None:
            reason = f"the page was dimmed around {list(overlay)}"
        for blob in change.blobs[:MAX_BLOBS]:
            if reason is not None:
                break
            x, y, w, h = blob.bbox
            if w < MODAL_MIN_W or h < MODAL_MIN_H or w > 0.8 * width or h > 0.85 * height:
                continue
            if w * h > 0.45 * width * height or w < 0.6 * h:
                continue
            if change.changed_pixels - blob.pixels > PAGE_CHANGE_SHARE * width * height:
                continue  # the page itself changed around it: a new card of the page, not a modal on top
            x0, y0 = max(0, x - SIDE_SLACK), max(0, y - SIDE_SLACK)
            x1, y1 = min(width, x + w + SIDE_SLACK), min(height, y + h + SIDE_SLACK)
            gray_after = cv2.cvtColor(ctx.after[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
            gray_before = cv2.cvtColor(ctx.before[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
            # a card whose content changed keeps its outline: only an outline that is new counts
            new = new_outline_sides(gray_before, gray_after, SIDE_SLACK, SIDE_DEPTH)
            if new >= 3:
                reason = f"a compact changed rectangle {list(blob.bbox)} with a new straight outline on {new} sides"
    ctx.memo[memo_key] = reason
    return reason


class DialogPresenceChecker(BaseChecker):
    """Did a blocking dialog appear after the action? (score 1 = yes; the bbox goes to the resolver)

    The dialogs classifier (slow: edges of the whole frame, then OCR of the dialog) is asked only
    when there is a reason: params `classifier: always` (actions that expect a dialog: save,
    dialog_button, ...), or a modal-like region in the change map (see modal_candidate).
    """

    name = "DialogPresenceChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        skipped = ""
        if ctx.dialog_locator is not None:
            why = "the action may open a dialog" if params.get("classifier") == "always" else modal_candidate(ctx)
            if why is None:
                skipped = "no modal-like region in the change map, dialogs classifier not run; "
        hit = ctx.dialog("after") if ctx.dialog_locator is not None and not skipped else None
        if hit is not None:
            previous = ctx.dialog("before")
            if previous is not None and previous.dialog_id == hit.dialog_id and _iou(previous.bbox, hit.bbox) > 0.8:
                return self.result(signal, 0.0, f"dialog {hit.dialog_id!r} was already there before the action")
            crop = CropRef(f"dialog {hit.dialog_id or ''} (after)".replace("  ", " "), "after", hit.bbox)
            facts = _facts(hit, "dialogs classifier")
            if hit.policy == "skip":
                return self.result(
                    signal, 0.0, f"non-blocking dialog {hit.dialog_id!r} (policy skip)", crop=crop, **facts
                )
            return self.result(
                signal,
                hit.confidence,
                f"dialog {hit.dialog_id!r} ({hit.title!r}) appeared at {list(hit.bbox)}",
                crop=crop,
                **facts,
            )
        overlay = find_modal_overlay(ctx)
        if overlay is not None:
            return self.result(
                signal,
                0.9,
                f"a modal appeared at {list(overlay)} over a dimmed page",
                crop=CropRef("modal dialog (after)", "after", overlay),
                bbox=list(overlay),
                source="overlay heuristic",
            )
        source = "no dialog classifier wired; " if ctx.dialog_locator is None else skipped
        return self.result(signal, 0.0, f"{source}no modal overlay detected")


def _facts(hit: DialogHit, source: str) -> dict[str, object]:
    return {
        "bbox": list(hit.bbox),
        "dialog_id": hit.dialog_id,
        "category": hit.category,
        "policy": hit.policy,
        "title": hit.title,
        "source": source,
    }


class DialogClosedChecker(BaseChecker):
    """Is the answered dialog gone? Judged inside the dialog's box (or around the clicked button).

    Evidence, cheapest first: the classifier's dialog box still there after; the button label
    still written at the button; the share of changed pixels inside the dialog region.
    """

    name = "DialogClosedChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        if ctx.target.bbox is None:
            return self.not_applicable(signal, "no button/dialog bbox")
        shape = ctx.after.shape
        button = ctx.target.bbox
        dialog = ctx.dialog("before")
        if dialog is not None and contains(dialog.bbox, button):
            region, source = dialog.bbox, "dialog bbox from the classifier"
        else:
            margin = max(2 * button[3], int(params.get("margin", 24)))
            region, source = around(button, shape, margin), "region around the clicked button"
        crop = CropRef("dialog region (after)", "after", region)
        still = ctx.dialog("after")
        if dialog is not None and still is not None and _iou(dialog.bbox, still.bbox) > 0.6:
            return self.result(signal, 0.0, f"dialog {still.dialog_id!r} still at {list(still.bbox)}", crop=crop)
        fraction = ctx.change().fraction_in(region)
        closed_share = float(params.get("closed_fraction", 0.15))
        if ctx.target.label:
            line = ctx.read_line("after", around(button, shape, 3))
            read = line.text if line else ""
            if label_matches(read, ctx.target.label):
                return self.result(
                    signal,
                    0.0,
                    f"button {ctx.target.label!r} still on screen at {list(button)}; "
                    f"{fraction:.1%} of the {source} changed",
                    crop=crop,
                    read=read,
                )
            if fraction >= closed_share:
                return self.result(
                    signal,
                    1.0,
                    f"button {ctx.target.label!r} gone (reads {read!r}) and {fraction:.1%} of the {source} changed",
                    crop=crop,
                )
            if dialog is not None and still is None and fraction > 0:
                return self.result(
                    signal,
                    0.9,
                    f"the classifier found dialog {dialog.dialog_id!r} before and no dialog after; button "
                    f"{ctx.target.label!r} not read any more ({read!r}); {fraction:.1%} of the {source} changed",
                    crop=crop,
                )
            return self.result(
                signal, 0.4, f"button label unreadable but only {fraction:.1%} of the {source} changed", crop=crop
            )
        return self.result(
            signal, min(1.0, fraction / (2 * closed_share)), f"{fraction:.1%} of the {source} changed", crop=crop
        )
