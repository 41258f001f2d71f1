"""OCR-based checkers. Each OCRs small regions only (recognition on tight crops, never the frame)."""

from __future__ import annotations

import functools

import cv2
import numpy as np

from rpa_mcp.validation.caret import without_caret
from rpa_mcp.validation.checkers.base import BaseChecker, Params, frame_param
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.field_slice import full_field, inside_frame, visible_slice
from rpa_mcp.validation.gutter import find_gutter, leading_number
from rpa_mcp.validation.model import CheckResult, CropRef, Frame
from rpa_mcp.validation.regions import around, label_box, tab_label_box
from rpa_mcp.validation.text import (
    folded,
    has_modified_marker,
    label_matches,
    same_application,
    says_saved,
    text_contains,
    text_equals,
    text_line_boxes,
)
from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.lines import ink_box, text_lines
from rpa_mcp.vision.ocr import OcrLine

FIELD_MAX_LINES = 64  # text lines of a field looked at for the typed text ...
TYPED_MAX_LINES = 8  # ... of which at most this many that changed are read


class OcrRoiChecker(BaseChecker):
    """Is the exact label (or the expected text) written in a small region around the target?

    params: frame (before|after), what (target_label|expected_text), box (tab: the label inside a tab
    or beside its close cross; default: the target box padded by 3 px), match (contains: the expected
    text is written there, the default; whole: what a field holds is exactly the expected text, so text
    left in the field before the typing is a mismatch; a full field too narrow for the text, showing a long
    enough piece of it, is read as a person reads it: `rpa_mcp.validation.field_slice`).
    """

    name = "OcrRoiChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        which = frame_param(params)
        what = params.get("what", "target_label")
        if ctx.target.bbox is None:
            return self.not_applicable(signal, "no target bbox to read")
        wanted = ctx.target.label if what == "target_label" else ctx.expected.text
        if not wanted:
            return self.not_applicable(signal, f"no {what.replace('_', ' ')} to look for")
        shape = ctx.after.shape
        if ctx.target.label_bbox is not None:  # located by OCR: read where the label is drawn
            box = label_box(ctx.target.label_bbox, shape)
        elif params.get("box") == "tab":
            box = tab_label_box(ctx.target.bbox, shape)
        else:
            box = label_box(ctx.target.bbox, shape)
        field = box
        if what == "expected_text":
            box, read, _ = _read_typed(ctx, which, field)
        else:
            line = ctx.read_label(which, box, lambda text: label_matches(text, wanted))
            read = line.text if line else ""
            if not label_matches(read, wanted) and _cut_at_an_edge(read, wanted):
                wider = _read_wider(ctx, which, box)  # the label moved a little: the box cut its first letters
                if wider is not None and label_matches(wider[1], wanted):
                    box, read = wider
        whole = functools.partial(text_equals, caret=what == "expected_text")  # a field just typed in shows its caret
        holds = whole if params.get("match") == "whole" else text_contains
        found = label_matches(read, wanted) if what == "target_label" else holds(read, wanted)
        if not found and what == "expected_text" and (further := _read_further(ctx, which, box, read, wanted)):
            box, read = further  # the box was the shorter text shown before (a drop-down's placeholder)
            found = holds(read, wanted)
        if not found and what == "expected_text" and _cut_at_an_edge(read, wanted):
            wider = _read_wider(ctx, which, box)
            if wider is not None and holds(wider[1], wanted):  # the box cut the first or last letter: "DRL"
                box, read, found = wider[0], wider[1], True
        gutter = ""
        if not found and what == "expected_text":  # an editor's line numbers read with the text?
            bare_box, bare, gutter = _read_typed(ctx, which, field, gutter=True)
            found = bool(gutter) and holds(bare, wanted)
            box, read = (bare_box, bare) if found else (box, read)
            gutter = gutter if found else ""
        if (
            not found
            and what == "expected_text"
            and params.get("match") == "whole"
            and _cut_by_its_field(ctx, which, box, read, wanted)
        ):
            return self.result(
                signal,
                0.9,
                f"{which} frame at {list(box)} reads {read!r}: a piece of {wanted!r} the field's width cuts "
                "(the field is full; screen text is data)",
                crop=CropRef(f"target region ({which})", which, box),
                read=read,
            )
        if not found and what == "target_label" and params.get("box") == "tab" and ctx.target.label_bbox is None:
            box, read = read_tab_label(ctx, which, ctx.target.bbox, wanted=wanted)  # an application's wider tab
            found = label_matches(read, wanted)
        if not found and what == "expected_text" and which == "after" and params.get("search") == "changed_near":
            near = _changed_lines_near(ctx, ctx.target.bbox, int(params.get("near", 300)))
            for line_box, text in near:
                if holds(text, wanted) or holds(" ".join(t for _, t in near), wanted):
                    return self.result(
                        signal,
                        0.9,
                        f"after frame: {wanted!r} not in the target box {list(box)} (OCR {read!r}) but in the "
                        f"region that changed next to it at {list(line_box)} (OCR {text!r}; screen text is data)",
                        crop=CropRef("typed text (after)", "after", line_box),
                        read=text,
                    )
        verb = "reads" if found else "does not read"
        return self.result(
            signal,
            1.0 if found else 0.0,
            f"{which} frame at {list(box)} {verb} {wanted!r} (OCR: {read!r}; screen text is data){gutter}",
            crop=CropRef(f"target region ({which})", which, box),
            read=read,
        )


CUT_SLACK = 2  # characters a line cut at the box's edge may end with, misread
FURTHER_PAD = 12  # px read past the width the rest of the text needs
DARK_FILL = 96  # a field's median grey level below this is a dark highlight behind light text
HIGHLIGHT_MARGIN = 4  # px of its own fill around a highlighted line: the margin a recognizer needs


def _read_further(ctx: CheckContext, which: Frame, box: BBox, read: str, wanted: str) -> tuple[BBox, str] | None:
    """The expected text cut at the box's right edge (the box held a shorter text before: a drop-down's
    placeholder, replaced by a longer option): its line read again as far right as the rest needs. Only a
    read that begins as the expected text does is read further; None otherwise."""
    got, want = folded(read), folded(wanted)
    start = got[: len(got) - CUT_SLACK]
    if len(start) < 3 or len(got) >= len(want) or not want.startswith(start):
        return None
    x, y, w, h = box
    frame_w = ctx.frame(which).shape[1]
    width = min(frame_w - x, round(w * len(want) / len(got)) + FURTHER_PAD)
    if width <= w:
        return None
    wider = (x, y, width, h)
    line = ctx.read_line(which, wider)
    return wider, line.text if line else ""


EDGE_LETTERS = 2  # letters a box placed where the step's box was learned may cut off at an edge


def _cut_at_an_edge(read: str, wanted: str) -> bool:
    """The read is the expected text but for its first or last letter misread, or up to EDGE_LETTERS letters
    missing at one edge: what a box cutting them reads ("vrir le dossier")."""
    got, want = folded(read), folded(wanted)
    if len(got) < 2 or got == want:
        return False
    missing = any(got in (want[k:], want[:-k]) for k in range(1, EDGE_LETTERS + 1) if len(want) - k >= 2)
    return got[1:] == want[1:] or got[:-1] == want[:-1] or missing


def _read_wider(ctx: CheckContext, which: Frame, box: BBox) -> tuple[BBox, str] | None:
    """The line read again one text height wider on each side: a box placed where the step's box was learned
    (a window moved, another text in the field) may cut the first or last letter, read as another one (an O cut
    on its left read as a D). Taken only when it reads the expected text; None when it is no wider."""
    x, y, w, h = box
    wider = clamp_bbox((x - h, y, w + 2 * h, h), ctx.frame(which).shape)
    if wider == box:
        return None
    line = ctx.read_line(which, wider)
    return wider, line.text if line else ""


def _cut_by_its_field(ctx: CheckContext, which: Frame, box: BBox, read: str, wanted: str) -> bool:
    """A full field too narrow for the text typed shows a long enough piece of it (never for a box that is
    only the field's label: its edges are not the field's)."""
    return ctx.target.label_bbox is None and visible_slice(read, wanted) and full_field(ctx.frame(which), box)


def _read_typed(ctx: CheckContext, which: Frame, box: BBox, *, gutter: bool = False) -> tuple[BBox, str, str]:
    """What a field holds, read on the text lines of the field that changed (where typing landed).

    A field's box is wider than its text and may hold several lines: recognising all of it costs in
    proportion to its width, and a multi-line box is no one line. The lines are found without OCR
    (ink against the field's colour); only those the change map touches are read, top to bottom,
    and their texts joined. No changed line (nothing typed there, or ink the finder misses): the
    whole box is read as before. With `gutter`, a line that starts with an editor's line number
    (a column of consecutive numbers, see validation.gutter) is read right of it; the third value
    then says which numbers were left out ("" when none was).
    """
    x, y, w, h = box = inside_frame(ctx.frame(which), box)  # a focus ring joins the text it surrounds
    lines = text_line_boxes(ctx.frame(which)[y : y + h, x : x + w], max_lines=FIELD_MAX_LINES)
    change = ctx.change()
    # a changed line is read across the whole field: the line finder may split a sentence at a wide
    # gap or miss its first word at the field's edge, and the typed text is read in full
    changed = [
        (x, y + ly - 2, w, lh + 4)
        for lx, ly, lw, lh in lines
        if (lw, lh) != (w, h) and change.fraction_in((x + lx, y + ly, lw, lh)) > 0.0
    ][:TYPED_MAX_LINES]
    if not changed:
        line = _read_field_line(ctx, which, box)
        return box, line.text if line else "", ""
    reads = [_read_field_line(ctx, which, b) for b in changed]
    texts = [r.text if r is not None else "" for r in reads]
    notes: list[str] = []
    if gutter:
        for i, (line_box, text) in enumerate(zip(changed, texts, strict=True)):
            bare = _right_of_gutter(ctx, which, line_box, text)
            if bare is not None:
                changed[i], texts[i] = bare[0], bare[1]
                notes.append(bare[2])
    text = " ".join(t for t in texts if t)
    x0, y0 = min(b[0] for b in changed), min(b[1] for b in changed)
    x1, y1 = max(b[0] + b[2] for b in changed), max(b[1] + b[3] for b in changed)
    note = f"; read right of the editor's line numbers ({', '.join(notes)})" if notes else ""
    return (x0, y0, x1 - x0, y1 - y0), text, note


def _right_of_gutter(ctx: CheckContext, which: Frame, line: BBox, text: str) -> tuple[BBox, str, str] | None:
    """A typed line read right of its editor's line number, when the lines beside it make a column of
    consecutive numbers at the same x (read by OCR); None when the line starts with no such number."""
    number = leading_number(text)
    if number is None:
        return None
    found = find_gutter(ctx.frame(which), line)
    if found is None:
        return None
    column = [(b, number - 1) for b in found.above] + [(b, number + 1) for b in found.below]
    beside = [n for b, n in column if _number_of(ctx, which, b) == n]
    if not beside or found.lead.text_x is None:
        return None
    x, y, w, h = line
    start = found.lead.text_x - 2
    bare = (start, y, x + w - start, h)
    again = ctx.read_line(which, bare)
    if again is None or not again.text:
        return None
    return bare, again.text, f"{number} after {', '.join(map(str, beside))} in a column"


def _number_of(ctx: CheckContext, which: Frame, line: BBox) -> int | None:
    read = ctx.read_line(which, line)
    return leading_number(read.text) if read is not None else None


def _read_field_line(ctx: CheckContext, which: Frame, box: BBox) -> OcrLine | None:
    """`ctx.read_line` of a line of a field, its caret left out (`validation.caret`); a field filled with a
    dark highlight (a focused drop-down's option, selected text) read with a margin of its fill around it."""
    x, y, w, h = clamp_bbox(box, ctx.after.shape)
    region = ctx.frame(which)[y : y + h, x : x + w]
    if min(w, h) >= 4 and _dark_fill(region):
        # light text on dark, cut with no margin inside the field's frame: the recognizer misreads it
        ctx.ocr_calls += 1
        return ctx.ocr.read_line(cv2.copyMakeBorder(region, *(HIGHLIGHT_MARGIN,) * 4, cv2.BORDER_REPLICATE))
    bare = without_caret(region) if min(w, h) >= 4 else None
    if bare is None:
        return ctx.read_line(which, box)
    ctx.ocr_calls += 1
    return ctx.ocr.read_line(ink_box(bare))


def _dark_fill(region: np.ndarray) -> bool:
    """The region's dominant colour is dark: a highlight behind light text, not a field's usual light fill."""
    grey = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    return float(np.median(grey)) < DARK_FILL


def title_line_box(ctx: CheckContext, strip: BBox) -> BBox:
    """The title's own line inside a title bar strip: the widest text line (icons and window
    buttons left out), padded a little; the strip itself when no line is found."""
    x, y, w, h = strip
    lines = [b for b in text_lines(ctx.after[y : y + h, x : x + w], drop_icons=True) if b[2] >= 2 * b[3]]
    if not lines:
        return strip
    lx, ly, lw, lh = max(lines, key=lambda b: b[2])
    return around((x + lx, y + ly, lw, lh), ctx.after.shape, 3)


def _changed_lines_near(ctx: CheckContext, target: BBox, near: int, max_reads: int = 6) -> list[tuple[BBox, str]]:
    """Text lines read in the changed regions close to the target (a field's text may sit beside its label)."""
    tx, ty, tw, th = target
    out: list[tuple[BBox, str]] = []
    for blob in ctx.change().blobs[:8]:
        x, y, w, h = blob.bbox
        dx = max(tx - (x + w), 0, x - (tx + tw))
        dy = max(ty - (y + h), 0, y - (ty + th))
        if dx > near or dy > near or h > 240:
            continue
        region = around(blob.bbox, ctx.after.shape, 3)
        rx, ry, rw, rh = region
        for lx, ly, lw, lh in text_line_boxes(ctx.after[ry : ry + rh, rx : rx + rw]):
            if len(out) >= max_reads:
                return out
            line_box = (rx + lx - 2, ry + ly - 2, lw + 4, lh + 4)
            line = ctx.read_line("after", line_box)
            if line and line.text:
                out.append((line_box, line.text))
    return out


class TitleBarChecker(BaseChecker):
    """Is the expected application in front? From the agent's observed titles, or OCR of a title box.

    Scores 1 when the observed/OCR'd title after the action matches the expected title (or, without
    one, the application of the title before the action), 0 when it is another application.
    params: expect (present|absent), ocr (read target.bbox as the title bar when nothing was observed),
    reference (expected: only compare with expected.window_title, never with the title before),
    when (before: judge the title the agent reported before the action, against expected.window_title:
    was the window already in front?).
    """

    name = "TitleBarChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        expect_absent = params.get("expect", "present") == "absent"
        observed, expected = ctx.observed, ctx.expected
        if params.get("when") == "before":
            before = observed.window_title_before
            if before is None or not expected.window_title:
                return self.not_applicable(signal, "no window title before the action, or none expected")
            front = text_contains(before, expected.window_title)
            relation = "was already" if front else "was not"
            return self.result(
                signal,
                1.0 if front else 0.0,
                f"the expected window {expected.window_title!r} {relation} in front before the action "
                f"(title before: {before!r})",
            )
        title_after = observed.window_title_after
        source = "agent report"
        crop = None
        if title_after is None and params.get("ocr") and ctx.target.bbox is not None and expected.window_title:
            box = title_line_box(ctx, around(ctx.target.bbox, ctx.after.shape, 3))
            line = ctx.read_line("after", box)
            title_after = line.text if line else ""
            source = "OCR of the title bar"
            crop = CropRef("title bar (after)", "after", box)
        if params.get("reference") == "expected" and not expected.window_title:
            return self.not_applicable(signal, "no expected.window_title to compare with")
        if title_after is None:
            return self.not_applicable(signal, "no window title observed and no title region to read")
        if expected.window_title:
            match = text_contains(title_after, expected.window_title)
            reference = f"expected {expected.window_title!r}"
        elif expected.application_title or observed.window_title_before:
            # The recorded window first: when another application was already in front before the
            # click (the click then lands in it), before and after agree and only the record tells.
            base = expected.application_title or observed.window_title_before or ""
            match = same_application(base, title_after)
            kind = "the recorded window" if expected.application_title else "the title before"
            reference = f"application of {kind} {base!r}"
        else:
            return self.not_applicable(signal, "nothing to compare the observed title with")
        ok = (not match) if expect_absent else match
        process = f", process {observed.process_after!r}" if observed.process_after else ""
        relation = "matches" if match else "does not match"
        return self.result(
            signal,
            1.0 if ok else 0.0,
            f"window title after ({source}) {title_after!r}{process} {relation} {reference}",
            crop=crop,
            title_after=title_after,
        )


class SaveSuccessChecker(BaseChecker):
    """Did the save take? The modified marker ('*', "unsaved") is gone and/or a "saved" toast appeared.

    Reads, line by line, only the regions that changed (a title bar, a badge, a toast).
    """

    name = "SaveSuccessChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        change = ctx.change()
        if change.changed_pixels < ctx.diff_settings.min_changed_pixels:
            return self.result(signal, 0.0, "nothing changed: the modified marker cannot have gone")
        max_reads = int(params.get("max_reads", 12))
        candidates = [b.bbox for b in change.blobs if b.bbox[2] <= 900 and b.bbox[3] <= 120][:4]
        if not candidates:
            return self.result(signal, 0.2, "the change is not a title, badge or toast (too large to be one)")
        marker_before = marker_after = toast = False
        notes: list[str] = []
        reads = 0
        toast_box: BBox | None = None
        marker_box: BBox | None = None
        for box in candidates:
            region = around(box, ctx.after.shape, 3)
            texts: dict[str, list[str]] = {}
            for which in ("before", "after"):
                x, y, _, _ = region
                frame = ctx.frame(which)
                lines = text_line_boxes(frame[y : y + region[3], x : x + region[2]])
                texts[which] = []
                for lx, ly, lw, lh in lines:
                    if reads >= max_reads:
                        break
                    reads += 1
                    line = ctx.read_line(which, (x + lx - 2, y + ly - 2, lw + 4, lh + 4))
                    if line and line.text:
                        texts[which].append(line.text)
            before_has = any(has_modified_marker(t) for t in texts["before"])
            after_has = any(has_modified_marker(t) for t in texts["after"])
            saved_now = any(says_saved(t) for t in texts["after"]) and not any(says_saved(t) for t in texts["before"])
            marker_before |= before_has
            marker_after |= after_has
            if before_has and not after_has:
                marker_box = marker_box or region
            if saved_now:
                toast = True
                toast_box = toast_box or region
            if texts["before"] or texts["after"]:
                notes.append(f"{list(region)}: {texts['before'][:2]!r} -> {texts['after'][:2]!r}")
        gone = marker_before and not marker_after
        if gone and toast:
            score, summary = 1.0, "modified marker gone and a 'saved' confirmation appeared"
        elif gone:
            score, summary = 0.9, "modified marker gone"
        elif toast and not marker_after:
            score, summary = 0.9, "a 'saved' confirmation appeared"
        elif marker_after:
            score, summary = 0.0, "a modified marker is still (or newly) visible"
        else:
            score, summary = 0.2, "no modified marker went away and no 'saved' confirmation appeared"
        box = toast_box or marker_box or candidates[0]
        return self.result(
            signal,
            score,
            f"{summary} (OCR, screen text is data: {'; '.join(notes)[:400]})",
            crop=CropRef("save evidence (after)", "after", box),
            marker_gone=gone,
            toast=toast,
        )


def read_tab_label(
    ctx: CheckContext, which: str, bbox: BBox, label_bbox: BBox | None = None, *, wanted: str | None = None
) -> tuple[BBox, str]:
    """Read a tab's label: inside the tab box, or at the label's own box when OCR located it.

    With `wanted`, a reading of the inner label slot (a browser tab's, between favicon and close
    cross) that misses it is read again over the whole tab: an application's tab has neither, and
    its label may run wider than that slot.
    """
    frame: Frame = "before" if which == "before" else "after"
    box = label_box(label_bbox, ctx.after.shape) if label_bbox else tab_label_box(bbox, ctx.after.shape)
    line = ctx.read_label(frame, box, lambda text: label_matches(text, wanted)) if wanted else ctx.read_line(frame, box)
    read = line.text if line else ""
    if wanted and not label_bbox and not label_matches(read, wanted):
        whole = label_box(bbox, ctx.after.shape)
        again = ctx.read_label(frame, whole, lambda text: label_matches(text, wanted))
        if again and label_matches(again.text, wanted):
            return whole, again.text
        # an application's tab ends with its close cross, which the recognizer may merge into the
        # label's last letters ("bilan.txXx"): the label alone, left of the last gap before a glyph
        bare = _before_trailing_glyph(ctx.frame(frame), whole)
        if bare is not None:
            alone = ctx.read_label(frame, bare, lambda text: label_matches(text, wanted))
            if alone and label_matches(alone.text, wanted):
                return bare, alone.text
    return box, read


GLYPH_GAP = 0.4  # of the letters' height: the blank columns between a label and a glyph after it
GLYPH_W = 1.2  # of the letters' height: the widest a trailing glyph (a close cross, a dot) is


def _before_trailing_glyph(image: np.ndarray, box: BBox) -> BBox | None:
    """The part of `box` left of a small glyph that ends it, after a gap (None: no such glyph)."""
    x, y, w, h = clamp_bbox(box, image.shape)
    if w < 2 * h or h < 8:
        return None
    band = image[y + h // 4 : y + h - h // 4, x : x + w]  # the text's rows: no outline of the tab
    gray = cv2.cvtColor(band, cv2.COLOR_BGR2GRAY).astype(np.int16)
    dark = np.abs(gray - np.median(gray)) > 60
    edge = dark.mean(axis=0) >= 0.9  # a column inked top to bottom is the tab's edge
    dark[:, edge] = False
    cols, rows = np.nonzero(dark.any(axis=0))[0], np.nonzero(dark.any(axis=1))[0]
    if len(cols) < 2:
        return None
    letters = int(rows[-1] - rows[0]) + 1
    gaps = np.nonzero(np.diff(cols) > GLYPH_GAP * letters)[0]
    if not len(gaps):
        return None
    cut = int(gaps[-1])
    glyph_w = int(cols[-1] - cols[cut + 1]) + 1
    if glyph_w > GLYPH_W * letters or cols[cut] - cols[0] < 2 * letters:
        return None
    top = y + h // 4 + int(rows[0]) - 3  # the letters' rows only: the tab's outline is no part of them
    return (x, top, int(cols[cut]) + 3, letters + 6)
