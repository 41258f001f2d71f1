"""Did the dialog we answered close? Judged inside the dialog's box (or around the clicked button).

A dialog is never read closed while a button of it still stands where it stood (kept_buttons).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rpa_mcp.dialogs.locate.geometry import iou
from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.checkers.dialog_frame import frame_gone
from rpa_mcp.validation.checkers.dialog_presence import MODAL_MIN_H, MODAL_MIN_W
from rpa_mcp.validation.checkers.kept_buttons import clicked_face_kept, kept_button
from rpa_mcp.validation.checkers.uncovered import sides_changed, uncovered_window
from rpa_mcp.validation.context import CELL, CheckContext
from rpa_mcp.validation.model import CheckResult, CropRef
from rpa_mcp.validation.ports import DialogHit
from rpa_mcp.validation.regions import around, contains
from rpa_mcp.validation.text import label_matches
from rpa_mcp.vision.images import BBox

GONE_MIN_CHANGE = 0.05  # of an answered dialog's box changed at least when another dialog now stands there
JUDGED_CLOSED = 0.4  # a "closed" score from which the judge may read the dialog closed (the matrix's rule)


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
    return (x, y, w, h) if sides_changed(mask, (x, y, w, h)) else None


BAR_ROW_CHANGE = 0.5  # share of the clicked button's row, across the frame, that changes when a bar closes
WINDOW_MIN_RATIO = 3.0  # the changed region around a closed dialog this many times its area ...
WINDOW_MIN_DENSITY = 0.5  # ... and mostly changed pixels (not a focus ring across a window): its window went too


BAR_TINT = 8  # a colour step, under the change map's threshold, between a pale bar and the page under it ...
BAR_TINT_SHARE = 0.8  # ... in this share of a row's columns: the bar's background went all across the window


def _tint_across(ctx: CheckContext, row: BBox) -> float:
    """The share of `row`'s columns whose middle colour changed by BAR_TINT at least: a pale bar across the
    window (light grey on a white page) gone, which the change map, blind to so small a step, misses."""
    x, y, w, h = row
    before = np.median(ctx.before[y : y + h, x : x + w], axis=0)
    after = np.median(ctx.after[y : y + h, x : x + w], axis=0)
    return float((np.abs(before - after).max(axis=1) >= BAR_TINT).mean()) if w and h else 0.0


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
    four sides (a dialog of its window's own colours), or the side borders rising from the dialog's
    footer are drawn no more (a dialog window too large for the classifier, `dialog_frame`); the
    classifier's dialog box still there after; the button label still written at the button; the share
    of changed pixels inside the dialog region;
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
            # ... or the side borders rising from its footer are drawn no more (a dialog window too large
            # for the classifier, over a window of its colours: GTK's file chooser on a small screen)
            sides = None if fraction >= closed_share or outline is not None else frame_gone(ctx, button)
            if (fraction >= closed_share or outline is not None or sides is not None) and not _any_kept(ctx, button):
                if outline is not None:
                    return self.result(
                        signal,
                        1.0,
                        f"no dialog after, button {label!r} gone (reads {read!r}) and the outline of the box "
                        f"around it, {list(outline)}, vanished on all four sides",
                        crop=CropRef("dialog region (after)", "after", outline),
                    )
                if sides is not None:
                    return self.result(
                        signal,
                        1.0,
                        f"no dialog after, button {label!r} gone (reads {read!r}) and the side borders of the "
                        f"dialog's frame around it, {list(sides)}, rising from its footer, are drawn no more",
                        crop=CropRef("dialog region (after)", "after", sides),
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
        if dialog is not None and still is not None and iou(dialog.bbox, still.bbox) > 0.6:
            uncovered = self._uncovered(ctx, signal, button, dialog, still, read_button)
            if uncovered is not None:
                return uncovered
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
            elsewhere = still is None or (dialog is not None and iou(dialog.bbox, still.bbox) < 0.1)
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
            if still is None and (across >= BAR_ROW_CHANGE or _tint_across(ctx, row) >= BAR_TINT_SHARE):
                # a bar across the window (a site's permission request) closed: its text at the far end
                # of the button's row went and what was under the bar moved up, while around the
                # button itself there is only blank page (or a pale bar's background, fainter than a
                # change, gave way to the page's all along the row)
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

    def _uncovered(
        self,
        ctx: CheckContext,
        signal: str,
        button: BBox,
        answered: DialogHit,
        found: DialogHit,
        read_button: Callable[[], str],
    ) -> CheckResult | None:
        """Score 1 when the box found again after is the window that was under the answered dialog
        (`uncovered`): the dialog's own box vanished inside it, the clicked label is not read at its place
        and no button face of the dialog stands where it stood. None otherwise (the box decides: open)."""
        label = ctx.target.label or ""
        gone = uncovered_window(ctx, button, answered, found)
        if gone is None or not label or label_matches(read := read_button(), label):
            return None
        if _any_kept(ctx, button):
            return None
        return self.result(
            signal,
            1.0,
            f"button {label!r} gone (reads {read!r}); the answered dialog's box {list(gone)} vanished on all four "
            f"sides inside {list(found.bbox)}, a window that stood there before (its borders unchanged) and "
            "shows no dialog where it stood: the window under the dialog, uncovered",
            crop=CropRef("dialog region (after)", "after", gone),
        )

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
