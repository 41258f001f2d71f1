"""Dialog checkers: is a blocking dialog on screen after the action; did the dialog we answered close.

Both work on the dialog's own box (from the injected DialogLocator when there is one, else
from local evidence) — never on a global similarity of the whole frame.

After any action the AFTER frame is searched for a dialog, whatever the change map looks like:
a browser's confirm() that dims the page, or a dialog that was already there and swallowed the
click, must never let the action read as done.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.checkers.kept_buttons import clicked_face_kept, kept_button
from rpa_mcp.validation.checkers.outcome import WORDS_KINDS
from rpa_mcp.validation.context import CELL, CheckContext
from rpa_mcp.validation.locate import click_point
from rpa_mcp.validation.model import CheckResult, CropRef
from rpa_mcp.validation.ports import DialogHit
from rpa_mcp.validation.regions import around, contains
from rpa_mcp.validation.text import label_matches, own_window, text_contains, text_line_boxes, words_written
from rpa_mcp.vision.images import BBox, clamp_bbox

DIM_LEVEL = 12  # grey levels an overlay takes off the page behind a modal
MIN_DIMMED_SHARE = 0.30
NEW_LEVEL = 16  # grey levels off the dimmed page that make a cell new content
MIN_HOLE_SHARE = 0.004
# A tenth of a dialog's box changed: it is not the dialog that was there before, unchanged in place
# (a focus ring, a hover, a caret change far less), so the BEFORE frame need not be classified.
APPEARED_MIN_CHANGE = 0.10
STAYED_MAX_CHANGE = 0.01  # ... and at most a hundredth changed: the same dialog, where it was
GONE_MIN_CHANGE = 0.05  # of an answered dialog's box changed at least when another dialog now stands there
MODAL_MIN_W, MODAL_MIN_H = 120, 50  # smallest dialog (as the dialogs area's locator)
JUDGED_CLOSED = 0.4  # a "closed" score from which the judge may read the dialog closed (the matrix's rule)
CHOOSERS = frozenset({"file-open", "file-save-as"})
# prompts a file chooser raises about the file it was given: answered, the chooser is back
CHOOSER_PROMPTS = frozenset({"app-file-overwrite", "app-error"})


def _iou(a: BBox, b: BBox) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union else 0.0


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
            same = previous is not None and previous.dialog_id == hit.dialog_id and _iou(previous.bbox, hit.bbox) > 0.8
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


def _another_in_front(
    ctx: CheckContext, answered: DialogHit | None, found: DialogHit | None, changed: float
) -> str | None:
    """Why the answered dialog is closed though another dialog covers its place (the file chooser that
    asked, shown again over it), or None: the classifier names another dialog there, none of the
    buttons read on the answered one (the clicked one among them) is read at its place any more, and
    its box changed. A dialog still open keeps its buttons where they were: it never reads closed here."""
    if answered is None or found is None or changed < GONE_MIN_CHANGE:
        return None
    known = {answered.dialog_id, found.dialog_id}.isdisjoint({None, "", "unknown"})
    clicked = ctx.target.bbox
    if not known or found.dialog_id == answered.dialog_id or clicked is None:
        return None
    if not any(contains(box, clicked) or contains(clicked, box) for _label, box in answered.buttons):
        return None  # the buttons read are not those of the box clicked: nothing to compare
    for label, box in answered.buttons:
        if _still_written(ctx, label, box):
            return None
    names = ", ".join(repr(label) for label, _box in answered.buttons)
    return (
        f"dialog {answered.dialog_id!r} answered: none of its buttons ({names}) is on screen where it was, "
        f"{changed:.1%} of its box changed, and the dialog in front is another one, {found.dialog_id!r} "
        f"at {list(found.bbox)}"
    )


def _still_written(ctx: CheckContext, label: str, box: BBox) -> bool:
    """`label` is read on the AFTER frame where the button stood."""

    def shows(text: str) -> bool:
        return label_matches(text, label)

    line = ctx.read_label("after", around(box, ctx.shape, 3), shows)
    return line is not None and shows(line.text)


def _facts(hit: DialogHit, source: str) -> dict[str, object]:
    return {
        "bbox": list(hit.bbox),
        "dialog_id": hit.dialog_id,
        "category": hit.category,
        "policy": hit.policy,
        "title": hit.title,
        "source": source,
    }


OUTLINE_MIN_SIDE = 0.8  # of each side of a closed box changed: its border line went (not text behind it)


def _any_kept(ctx: CheckContext, button: BBox) -> bool:
    return kept_button(ctx, button, None) is not None or clicked_face_kept(ctx, button) is not None


def _outline_gone(ctx: CheckContext, button: BBox) -> BBox | None:
    """The box whose four border lines changed all along, holding the clicked button: a dialog drawn over
    a window of its own colours closed (little inside it changed, its frame did), or None."""
    mask = ctx.change().mask
    cx, cy = button[0] + button[2] // 2, button[1] + button[3] // 2
    blob = next((b for b in ctx.change().blobs if contains(b.bbox, (cx, cy, 1, 1))), None)
    if blob is None:
        return None
    # the blob's box is cut on the change map's (rounded) cells: its changed pixels' own box, near it
    x0, y0, w0, h0 = around(blob.bbox, ctx.shape, 2 * CELL)
    ys, xs = np.nonzero(mask[y0 : y0 + h0, x0 : x0 + w0])
    if not len(xs):
        return None
    x, y, w, h = x0 + int(xs.min()), y0 + int(ys.min()), int(xs.max() - xs.min()) + 1, int(ys.max() - ys.min()) + 1
    if w < MODAL_MIN_W or h < MODAL_MIN_H or w * h < WINDOW_MIN_RATIO * button[2] * button[3]:
        return None
    if w >= 0.95 * mask.shape[1] and h >= 0.95 * mask.shape[0]:
        return None  # the whole screen changed: no box of its own
    box = mask[y : y + h, x : x + w] > 0
    sides = (box[:CELL].any(axis=0), box[-CELL:].any(axis=0), box[:, :CELL].any(axis=1), box[:, -CELL:].any(axis=1))
    return (x, y, w, h) if all(side.mean() >= OUTLINE_MIN_SIDE for side in sides) else None


BAR_ROW_CHANGE = 0.5  # share of the clicked button's row, across the frame, that changes when a bar closes
WINDOW_MIN_RATIO = 3.0  # the changed region around a closed dialog this many times its area ...
WINDOW_MIN_DENSITY = 0.5  # ... and mostly changed pixels (not a focus ring across a window): its window went too


def _window_closed_with(ctx: CheckContext, button: BBox, dialog: BBox) -> BBox | None:
    """The changed region holding the dialog when it is far wider than the dialog: the document or
    window the dialog belonged to closed with it (a save-changes prompt answered "don't save")."""
    cx, cy = button[0] + button[2] // 2, button[1] + button[3] // 2
    for blob in ctx.change().blobs:
        if contains(blob.bbox, dialog) and contains(blob.bbox, (cx, cy, 1, 1)):
            wide = blob.bbox[2] * blob.bbox[3] >= WINDOW_MIN_RATIO * max(1, dialog[2] * dialog[3])
            dense = ctx.change().fraction_in(blob.bbox) >= WINDOW_MIN_DENSITY
            return blob.bbox if wide and dense else None
    return None


class DialogClosedChecker(BaseChecker):
    """Is the answered dialog gone? Judged inside the dialog's box (or around the clicked button).

    Evidence, cheapest first: no dialog after, the button label gone and its surroundings changed
    (the dialog before then need not be found), or the frame of a box around the button vanished on all
    four sides (a dialog of its window's own colours); the classifier's dialog box still there after; the
    button label still written at the button; the share of changed pixels inside the dialog region;
    another dialog in front where none of the answered one's buttons is written any more (the file
    chooser that asked, shown again over its prompt).

    None of these reads the dialog closed while another button of the clicked one's row (or the clicked
    one's own face) stands where it stood (`kept_buttons`: button faces found by their shapes in the frame
    before, checked after): a dialog still open but changed — its button relabelled, a wizard's next page,
    an error drawn in it — that the locator misses after is open (score 0, the button named), never
    closed. The first rule then leaves it to the dialog's box before (one classification, only then).
    """

    name = "DialogClosedChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        if ctx.target.bbox is None:
            return self.not_applicable(signal, "no button/dialog bbox")
        if params.get("with_window"):
            return self._with_window(ctx, signal)
        shape = ctx.after.shape
        button = ctx.target.bbox
        margin = max(2 * button[3], int(params.get("margin", 24)))
        closed_share = float(params.get("closed_fraction", 0.15))
        label = ctx.target.label or ""
        still = ctx.dialog("after")

        def read_button() -> str:  # memoised by the context: read at most once
            line = ctx.read_label("after", around(button, shape, 3), lambda text: label_matches(text, label))
            return line.text if line else ""

        if still is None and label and not label_matches(read := read_button(), label):
            # No dialog after and the button gone: when its surroundings changed as a closing dialog's
            # do, where the dialog stood before adds nothing (finding it costs a classification) —
            # unless a button of its row still stands where it stood: the dialog may be open, changed
            # (a wizard's next page), and the locator missed it; its box before decides, below.
            nearby = around(button, shape, margin)
            fraction = ctx.change().fraction_in(nearby)
            # ... or, when less changed, the frame of a box around it vanished (a dialog of its window's colours)
            outline = None if fraction >= closed_share else _outline_gone(ctx, button)
            if (fraction >= closed_share or outline is not None) and not _any_kept(ctx, button):
                if outline is not None:
                    return self.result(
                        signal,
                        1.0,
                        f"no dialog after, button {label!r} gone (reads {read!r}) and the outline of the box "
                        f"around it, {list(outline)}, vanished on all four sides",
                        crop=CropRef("dialog region (after)", "after", outline),
                    )
                return self.result(
                    signal,
                    1.0,
                    f"no dialog after, button {label!r} gone (reads {read!r}) and {fraction:.1%} of the "
                    "region around the clicked button changed",
                    crop=CropRef("dialog region (after)", "after", nearby),
                )
        dialog = ctx.dialog("before")
        box = dialog.bbox if dialog is not None and contains(dialog.bbox, button) else None
        if box is not None:
            region, source = box, "dialog bbox from the classifier"
        else:
            region, source = around(button, shape, margin), "region around the clicked button"
        crop = CropRef("dialog region (after)", "after", region)
        if dialog is not None and still is not None and _iou(dialog.bbox, still.bbox) > 0.6:
            return self.result(signal, 0.0, f"dialog {still.dialog_id!r} still at {list(still.bbox)}", crop=crop)
        fraction = ctx.change().fraction_in(region)

        def kept() -> CheckResult | None:
            """Every reading below that the dialog closed holds only if no other button of it stands where it
            stood: a dialog still open, changed (its button relabelled, an error drawn in it), keeps them."""
            return self._kept(ctx, signal, button, box, f"{fraction:.1%} of the {source} changed")

        if label:
            read = read_button()
            if label_matches(read, label):
                return self.result(
                    signal,
                    0.0,
                    f"button {label!r} still on screen at {list(button)}; {fraction:.1%} of the {source} changed",
                    crop=crop,
                    read=read,
                )
            if (open_ := kept()) is not None:
                return open_
            if fraction >= closed_share:
                return self.result(
                    signal,
                    1.0,
                    f"button {label!r} gone (reads {read!r}) and {fraction:.1%} of the {source} changed",
                    crop=crop,
                )
            # Gone: no dialog after, or only one elsewhere (the toast a save shows is not the answered dialog).
            elsewhere = still is None or (dialog is not None and _iou(dialog.bbox, still.bbox) < 0.1)
            if dialog is not None and elsewhere and fraction > 0:
                return self.result(
                    signal,
                    0.9,
                    f"the classifier found dialog {dialog.dialog_id!r} before and "
                    f"{'no dialog' if still is None else repr(still.dialog_id) + ' elsewhere'} after; button "
                    f"{label!r} not read any more ({read!r}); {fraction:.1%} of the {source} changed",
                    crop=crop,
                )
            window = _window_closed_with(ctx, button, region)
            if window is not None:
                return self.result(
                    signal,
                    1.0,
                    f"button {label!r} gone (reads {read!r}) and the window around the dialog closed with it: "
                    f"{list(window)} changed, far wider than the dialog",
                    crop=CropRef("closed window (after)", "after", window),
                    window_closed=list(window),
                )
            in_front = _another_in_front(ctx, dialog, still, fraction)
            if in_front is not None:
                return self.result(signal, 0.9, in_front, crop=crop)
            row = (0, button[1], shape[1], button[3])
            across = ctx.change().fraction_in(row)
            if still is None and across >= BAR_ROW_CHANGE:
                # a bar across the window (a site's permission request) closed: its text at the far end
                # of the button's row went and what was under the bar moved up, while around the
                # button itself there is only blank page
                return self.result(
                    signal,
                    0.9,
                    f"no dialog after, button {label!r} gone (reads {read!r}) and {across:.1%} of its row "
                    "across the window changed: a bar closed",
                    crop=CropRef("the button's row (after)", "after", row),
                )
            return self.result(
                signal, 0.4, f"button label unreadable but only {fraction:.1%} of the {source} changed", crop=crop
            )
        score = min(1.0, fraction / (2 * closed_share))
        if score >= JUDGED_CLOSED and (open_ := kept()) is not None:
            return open_
        return self.result(signal, score, f"{fraction:.1%} of the {source} changed", crop=crop)

    def _kept(self, ctx: CheckContext, signal: str, button: BBox, box: BBox | None, changed: str) -> CheckResult | None:
        """Score 0 when another button of the clicked one's dialog, or the clicked one's own face, is still
        where it stood (None when none is): the dialog is open. A label read there names it (one read, on
        this path only)."""
        face = kept_button(ctx, button, box)
        own = face is None and (face := clicked_face_kept(ctx, button)) is not None
        if face is None:
            return None
        line = ctx.read_line("after", face)
        read = line.text.strip() if line is not None else ""
        if own:
            name = f"the clicked button's face (reads {read!r})" if read else "the clicked button's face"
        else:
            name = f"button {read!r}" if read else "another button"
        clicked = f"; button {ctx.target.label!r} not read there any more" if ctx.target.label else ""
        return self.result(
            signal,
            0.0,
            f"{name} of the answered dialog is still at {list(face)}, as before the click: the dialog is still "
            f"open ({changed}{clicked})",
            crop=CropRef("button still there (after)", "after", face),
            kept_button=list(face),
        )

    def _with_window(self, ctx: CheckContext, signal: str) -> CheckResult:
        """score 1: the answered dialog and its window closed, and what the classifier finds there after
        is no dialog it knows (a window that was behind, uncovered), not a new prompt."""
        button = ctx.target.bbox
        assert button is not None
        label = ctx.target.label or ""
        line = ctx.read_label("after", around(button, ctx.after.shape, 3), lambda text: label_matches(text, label))
        if not label or (line is not None and label_matches(line.text, label)):
            return self.result(signal, 0.0, "the clicked button is still on screen (or has no label)")
        before = ctx.dialog("before")
        dialog = before.bbox if before is not None and contains(before.bbox, button) else around(button, ctx.shape, 48)
        window = _window_closed_with(ctx, button, dialog)
        if window is None:
            return self.result(signal, 0.0, "the change stays within the dialog: its window did not close with it")
        after = ctx.dialog("after")
        if after is not None and (after.dialog_id not in ("", "unknown") or not contains(window, after.bbox)):
            return self.result(
                signal,
                0.0,
                f"a dialog the classifier knows ({after.dialog_id!r}) is on screen after",
                bbox=list(after.bbox),
            )
        return self.result(
            signal,
            1.0,
            f"dialog and window closed together ({list(window)} changed); "
            f"{'nothing the classifier knows' if after is None else 'an unknown window uncovered'} where they stood",
            crop=CropRef("closed window (after)", "after", window),
        )
