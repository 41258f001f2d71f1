"""Is a blocking dialog on screen after the action that the action was not made on?

Worked on the dialog's own box (from the injected DialogLocator when there is one, else from local
evidence: a modal overlay dimming the page) — never on a global similarity of the whole frame.
The AFTER frame is searched for a dialog whatever the change map looks like: a browser's confirm()
that dims the page, or a dialog that was already there and swallowed the click, must never let the
action read as done.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate.geometry import iou
from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.checkers.outcome import WORDS_KINDS
from rpa_mcp.validation.context import CELL, CheckContext
from rpa_mcp.validation.locate import click_point
from rpa_mcp.validation.model import CheckResult, CropRef
from rpa_mcp.validation.ports import DialogHit
from rpa_mcp.validation.regions import around, contains
from rpa_mcp.validation.text import own_window, text_contains, text_line_boxes, words_written
from rpa_mcp.vision.images import BBox, clamp_bbox

DIM_LEVEL = 12  # grey levels an overlay takes off the page behind a modal
MIN_DIMMED_SHARE = 0.30
NEW_LEVEL = 16  # grey levels off the dimmed page that make a cell new content
MIN_HOLE_SHARE = 0.004
# A tenth of a dialog's box changed: it is not the dialog that was there before, unchanged in place
# (a focus ring, a hover, a caret change far less), so the BEFORE frame need not be classified.
APPEARED_MIN_CHANGE = 0.10
STAYED_MAX_CHANGE = 0.01  # ... and at most a hundredth changed: the same dialog, where it was
MODAL_MIN_W, MODAL_MIN_H = 120, 50  # smallest dialog (as the dialogs area's locator)
CHOOSERS = frozenset({"file-open", "file-save-as"})
# prompts a file chooser raises about the file it was given: answered, the chooser is back
CHOOSER_PROMPTS = frozenset({"app-file-overwrite", "app-error"})


def find_modal_overlay(ctx: CheckContext) -> BBox | None:
    """A modal over a dimmed page: much of the frame got darker, and one box in it is new content
    that is not darker (the dialog). The browser's own bars, not dimmed and unchanged, are no box."""
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
            changed = (np.abs(before - after) > 4)[top:bottom]
            # An overlay scales the page's brightness: what is not the page dimmed by that factor is
            # new content on top of it, as bright (a light dialog) or as dark (a dark one) as it likes.
            factor = float(np.median(after[dimmed] / np.maximum(before[dimmed], 1)))
            new = (np.abs(after - before * factor) > NEW_LEVEL)[top:bottom]
            holes = ((~page | new) & changed).astype(np.uint8)
            count, _, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
            rows, cols = holes.shape
            best = 0
            for x, y, w, h, area in stats[1:count]:
                touches = x == 0 or x + w >= cols or w >= 0.9 * cols or (y == 0 and top == 0) or y + h >= rows
                small = w * CELL < MODAL_MIN_W or h * CELL < MODAL_MIN_H
                if touches or small or area < MIN_HOLE_SHARE * rows * cols or area < 0.5 * w * h:
                    continue
                if area > best:
                    best = int(area)
                    found = (int(x) * CELL, (int(y) + top) * CELL, int(w) * CELL, int(h) * CELL)
    ctx.memo[memo_key] = found
    return found


class DialogPresenceChecker(BaseChecker):
    """Is a dialog on screen after the action that the action was not made on? (score 1 = yes)

    The AFTER frame always goes to the injected dialogs locator (it finds candidates with OpenCV
    first and reads text only when there is one). A dialog found counts when it appeared, and also
    when it was already there: a modal on screen before and after swallowed the click, unless the
    click landed inside it there (the action was on the dialog; a dialog that opened where the click
    landed is its effect, not its target). A non-blocking one (policy `skip`: a
    "saved" toast) does not count. Without a locator, a dimmed page around a new box does.
    A box titled as one of the workflow's own windows (`expected.own_windows`) is that window, never a
    dialog. With `beneath` (a dialog's button clicked), a dialog away from the click whose box barely
    changed was there under the answered one (a file chooser under its message box): no new dialog.
    A dialog under the click that is not the one clicked there (another kind, or another place), nor one
    it lay over, took its place: it appeared (an error drawn where the answered prompt stood). A file
    chooser after a prompt about its file (it exists, it could not be saved) is the chooser that asked.
    The dialog's facts (box, id, policy) go to the dialog resolver.
    """

    name = "DialogPresenceChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        hit = ctx.dialog("after") if ctx.dialog_locator is not None else None
        if hit is not None:
            crop = CropRef(f"dialog {hit.dialog_id or ''} (after)".replace("  ", " "), "after", hit.bbox)
            facts = _facts(hit, "dialogs classifier")
            if hit.policy == "skip":
                return self.result(
                    signal, 0.0, f"non-blocking dialog {hit.dialog_id!r} (policy skip)", crop=crop, **facts
                )
            own = own_window(hit.title, ctx.expected.own_windows)
            if own is not None:  # the application's own window, moved or raised: known by its title
                return self.result(
                    signal,
                    0.0,
                    f"the box titled {hit.title!r} is the workflow's own window {own!r}",
                    crop=crop,
                    **facts,
                )
            point = click_point(ctx.target)
            on_it = point is not None and contains(hit.bbox, (point[0], point[1], 1, 1))
            shown = _expected_outcome_shown(ctx, hit)
            if shown is not None:  # what the demonstration showed after this step: its success, not a dialog
                return self.result(
                    signal,
                    0.0,
                    f"the box at {list(hit.bbox)} shows the step's expected {ctx.expected.outcome_kind} "
                    f"{ctx.expected.outcome_text!r} (read {shown!r}): the outcome, not an unexpected dialog",
                    crop=crop,
                    **facts,
                )
            if on_it and point is not None and (untouched := _untouched_around_action(ctx, hit.bbox, point)):
                return self.result(
                    signal,
                    0.0,
                    f"the box at {list(hit.bbox)} ({hit.title!r}) was on screen before the action: the action was "
                    f"made inside it and {untouched:.0%} of it, away from what the action changed, stayed as it was",
                    crop=crop,
                    **facts,
                )
            if params.get("beneath") and hit.dialog_id in CHOOSERS and _back_from_prompt(ctx, point):
                return self.result(
                    signal,
                    0.0,
                    f"dialog {hit.dialog_id!r} is the chooser the answered prompt came from, shown again",
                    crop=crop,
                    **facts,
                )
            if not on_it and hit.dialog_id:
                # the pixels of its box decide when they can, instead of classifying the frame before
                changed = ctx.changed_share(hit.bbox)
                if params.get("beneath") and changed < APPEARED_MIN_CHANGE:
                    # the answered box closed over another dialog, already on screen (a message box over
                    # its file chooser): its title bar turning active or a focus ring is all that changed
                    return self.result(
                        signal,
                        0.0,
                        f"dialog {hit.dialog_id!r} at {list(hit.bbox)} was on screen before, beneath the one "
                        f"answered ({changed:.1%} of its box changed)",
                        crop=crop,
                        **facts,
                    )
                if changed >= APPEARED_MIN_CHANGE:
                    return self._appeared(signal, hit, crop, facts)
                if changed <= STAYED_MAX_CHANGE:
                    return self._stayed(signal, hit, crop, facts)
            # only a dialog that was there before can have been acted on: one that opened where the
            # click landed (a leave-site prompt over the link that asked for it) is the click's effect
            previous = ctx.dialog("before")
            same = previous is not None and previous.dialog_id == hit.dialog_id and iou(previous.bbox, hit.bbox) > 0.8
            if on_it and previous is not None and point is not None and contains(previous.bbox, (*point, 1, 1)):
                if same or (params.get("beneath") and _was_beneath(ctx, previous, hit)):
                    return self.result(
                        signal, 0.0, f"the action was on dialog {previous.dialog_id!r} ({list(previous.bbox)})",
                        crop=crop, **facts,
                    )  # fmt: skip
                return self._appeared(signal, hit, crop, facts)  # another dialog took the place of the one acted on
            if same:
                return self._stayed(signal, hit, crop, facts)
            return self._appeared(signal, hit, crop, facts)
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
        source = "no dialog classifier wired; " if ctx.dialog_locator is None else "no dialog found by the classifier; "
        return self.result(signal, 0.0, f"{source}no modal overlay detected")

    def _stayed(self, signal: str, hit: DialogHit, crop: CropRef, facts: dict[str, object]) -> CheckResult:
        return self.result(
            signal,
            max(0.9, hit.confidence),
            f"dialog {hit.dialog_id!r} was on screen before the action and still is at {list(hit.bbox)}: "
            "the action could not reach what is behind it",
            crop=crop,
            blocking=True,
            **facts,
        )

    def _appeared(self, signal: str, hit: DialogHit, crop: CropRef, facts: dict[str, object]) -> CheckResult:
        return self.result(
            signal,
            max(hit.confidence, 0.8) if hit.dialog_id else hit.confidence,
            f"dialog {hit.dialog_id!r} ({hit.title!r}) appeared at {list(hit.bbox)}",
            crop=crop,
            **facts,
        )


UNKNOWN_IDS = frozenset({None, "", "unknown"})
UNTOUCHED_MIN_SHARE = 0.25  # of a box away from what the action changed, for its staying as it was to count
ACTED_MARGIN = 2  # px around the target's box and the change holding the action's point
LINES_LOOKED_AT = 8  # text lines of a box looked at for its first one


def _expected_outcome_shown(ctx: CheckContext, hit: DialogHit) -> str | None:
    """The text of a box no catalog names that shows the step's expected outcome (a message bar saying the
    record was saved, as in the demonstration), or None. A dialog the catalog knows is judged as such."""
    wanted, kind = ctx.expected.outcome_text, ctx.expected.outcome_kind
    if not wanted or kind == "window_title" or hit.dialog_id not in UNKNOWN_IDS:
        return None
    shows = words_written if kind in WORDS_KINDS else text_contains
    texts = [hit.title or "", *(label for label, _box in hit.buttons)]
    return next((text for text in texts if text and shows(text, wanted)), None)


def _untouched_around_action(ctx: CheckContext, box: BBox, point: tuple[int, int]) -> float | None:
    """The share of `box` away from what the action changed, when the box was on screen before: its first
    text line (where a dialog has its title) stood there unchanged and little else changed away from the
    action (a focus ring leaving another control): a part of the window holding the field typed into, not a
    dialog that appeared. None otherwise: a dialog that opened is new pixels, its title first, far beyond
    the change the action made itself (the text typed, the target's own box); and when the action changed
    nothing in the box, the locator's reading of the frame before decides (the caller's rules)."""
    mask = ctx.change().mask
    x, y, w, h = clamp_bbox(box, mask.shape)
    if not w or not h:
        return None
    acted = np.zeros((h, w), bool)
    target = ctx.target.bbox if ctx.target.bbox_source != "guessed" else None
    if target is not None and contains(target, (*point, 1, 1)):
        regions = [target]  # the field typed into, the control clicked: its own box
    else:  # else what changed where the action was made
        regions = [b.bbox for b in ctx.change().blobs if contains(b.bbox, (*point, 1, 1))]
    for rx, ry, rw, rh in (around(r, ctx.shape, ACTED_MARGIN) for r in regions):
        acted[max(0, ry - y) : max(0, ry + rh - y), max(0, rx - x) : max(0, rx + rw - x)] = True
    away = ~acted
    changed = mask[y : y + h, x : x + w] > 0
    if away.sum() < UNTOUCHED_MIN_SHARE * w * h or not changed[acted].any():
        return None  # too little of it away from the action, or the action changed nothing in it: not judged here
    if changed[away].sum() >= APPEARED_MIN_CHANGE * away.sum():
        return None
    lines = [
        (lx, ly, lw, lh)
        for lx, ly, lw, lh in text_line_boxes(ctx.after[y : y + h, x : x + w], max_lines=LINES_LOOKED_AT)
        if not acted[ly : ly + lh, lx : lx + lw].any()
    ]
    if not lines:
        return None
    lx, ly, lw, lh = min(lines, key=lambda line: (line[1], line[0]))
    if changed[ly : ly + lh, lx : lx + lw].mean() > STAYED_MAX_CHANGE:
        return None  # its first line is new: a title that appeared
    return float(away.sum()) / (w * h)


def _back_from_prompt(ctx: CheckContext, point: tuple[int, int] | None) -> bool:
    """The click answered a prompt a file chooser raises (the file exists, it could not be saved): the
    chooser found after is the one that raised it (a program may hide it while it asks)."""
    answered = ctx.dialog("before")
    return (
        answered is not None
        and point is not None
        and answered.dialog_id in CHOOSER_PROMPTS
        and contains(answered.bbox, (*point, 1, 1))
    )


def _was_beneath(ctx: CheckContext, answered: DialogHit, found: DialogHit) -> bool:
    """The dialog found after answering one was under it (a file chooser under its message box): it holds
    the answered box, and little more of it changed than what the answered box covered."""
    ax, ay, aw, ah = answered.bbox
    fx, fy, fw, fh = found.bbox
    inside = max(0, min(ax + aw, fx + fw) - max(ax, fx)) * max(0, min(ay + ah, fy + fh) - max(ay, fy))
    if not aw * ah or inside < 0.9 * aw * ah or fw * fh <= aw * ah:
        return False
    return ctx.changed_share(found.bbox) < inside / (fw * fh) + APPEARED_MIN_CHANGE


def _facts(hit: DialogHit, source: str) -> dict[str, object]:
    return {
        "bbox": list(hit.bbox),
        "dialog_id": hit.dialog_id,
        "category": hit.category,
        "policy": hit.policy,
        "title": hit.title,
        "source": source,
    }
