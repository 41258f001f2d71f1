"""Post-condition checkers: did the action produce what the demonstration showed, and nothing else?

`OutcomeChecker` looks for the step's expected outcome (``expected.outcome_kind`` and
``expected.outcome_text``: a banner, a heading, a dialog the application opens by design, a
window title, a field's value, a row) after the action. `UnexpectedMessageChecker` reads the
message-sized regions that appeared after the action and flags an error or a confirmation the
demonstration did not show. Both read text lines of the changed regions only (recognition on
tight line crops, a bounded number of them), never the whole frame, and only the lines that are new:
a line whose pixels were already on the screen a little higher or lower (content pushed down by a
banner, a row inserted above it) is not something the action produced.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import CheckResult, CropRef
from rpa_mcp.validation.regions import around
from rpa_mcp.validation.text import text_contains, text_equals, text_line_boxes, words_written
from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.ocr import normalize_text

MAX_REGIONS = 6  # changed regions read, largest change first
MAX_READS = 14  # text lines recognised per validation by these checkers
LINES_PER_REGION = 6
MESSAGE_MAX_SHARE = 0.35  # a region larger than this share of the frame is a new page, not a message
MESSAGE_MAX_LINES = 4  # ... and changes holding more text lines together are a form or a page
CLUSTER_GAP = 90  # px between changed regions that belong to one thing on screen
CLUSTER_BLOBS = 40  # changed regions looked at when grouping them
MOVE_REACH = 400  # px above or below where a line's pixels are looked for in the frame before
MOVE_WIDTH = 256  # px of a line (from its left) compared with the frame before
ALREADY_SHOWN = 0.02  # normalised squared difference under which a line was already on the screen
WORDS_KINDS = frozenset({"message", "heading", "dialog", "row"})  # judged as whole words
ERROR = re.compile(
    r"\b(erreur|error|echec|echoue|failed|invalide|invalid|impossible|refuse|denied|obligatoire|required|"
    r"manquant|missing|interdit|forbidden)"
)
CONFIRMATION = re.compile(
    r"(etes-vous sur|etes vous sur|voulez-vous|voulez vous|confirmer|confirmez|are you sure|do you want|confirm\b)"
)


def changed_lines(
    ctx: CheckContext, *, max_share: float = 1.0, skip: BBox | None = None, max_lines: int | None = None
) -> list[tuple[BBox, str]]:
    """(line box, text) of the text lines in the regions that changed, largest change first.

    Regions larger than `max_share` of the frame, among changes holding more than `max_lines` text
    lines together (`lines_around`), or inside `skip` (the field the action typed into) are left out
    before anything is read. At most MAX_READS lines are recognised per validation, in all; a line
    read for one checker is not read again for the other. The lines of all the regions are recognised
    in one call (the engine's workers share them out).
    """
    height, width = ctx.shape
    regions: list[BBox] = []
    for blob in ctx.change().blobs[:MAX_REGIONS]:
        region = around(blob.bbox, ctx.after.shape, 4)
        if region[2] * region[3] > max_share * width * height or (skip is not None and _inside(region, skip)):
            continue
        if max_lines is not None and lines_around(ctx, region) > max_lines:
            continue
        regions.append(region)
    return [line for lines in _read_regions(ctx, regions) for line in lines]


def _read_region(ctx: CheckContext, region: BBox) -> list[tuple[BBox, str]]:
    return _read_regions(ctx, [region])[0]


def _read_regions(ctx: CheckContext, regions: list[BBox]) -> list[list[tuple[BBox, str]]]:
    """Each region's (line box, text), its new lines read once per validation (memo): the lines of the
    regions not read yet are chosen in order (within the MAX_READS budget), then recognised together."""
    chosen: dict[BBox, list[BBox]] = {}
    for region in regions:
        if f"outcome_lines:{region}" not in ctx.memo and region not in chosen:
            chosen[region] = _lines_to_read(ctx, region)
    boxes = [box for region_boxes in chosen.values() for box in region_boxes]
    reads = dict(zip(boxes, ctx.read_lines("after", boxes), strict=True))
    for region, region_boxes in chosen.items():
        lines = [(box, reads[box]) for box in region_boxes]
        ctx.memo[f"outcome_lines:{region}"] = [
            (box, " ".join(line.text.split())) for box, line in lines if line is not None and line.text.strip()
        ]
    return [list(ctx.memo[f"outcome_lines:{region}"]) for region in regions]


def _lines_to_read(ctx: CheckContext, region: BBox) -> list[BBox]:
    """The boxes of the region's new text lines, as many as the validation's MAX_READS budget leaves."""
    x, y, w, h = region
    boxes: list[BBox] = []
    for lx, ly, lw, lh in text_line_boxes(ctx.after[y : y + h, x : x + w], max_lines=LINES_PER_REGION):
        if ctx.memo.get("outcome_reads", 0) >= MAX_READS:
            break
        box = (x + lx - 2, y + ly - 2, lw + 4, lh + 4)
        if not is_new(ctx, box):
            continue
        ctx.memo["outcome_reads"] = ctx.memo.get("outcome_reads", 0) + 1
        boxes.append(box)
    return boxes


def is_new(ctx: CheckContext, box: BBox) -> bool:
    """The line's pixels were nowhere in the frame before, in its columns, up to MOVE_REACH px above or below.

    Compared in grey on the line's first MOVE_WIDTH columns (where its text begins): a few ms a line.
    """
    key = f"new:{box}"
    if key not in ctx.memo:
        x, y, w, h = clamp_bbox(box, ctx.after.shape)
        w = min(w, MOVE_WIDTH)
        y0, y1 = max(0, y - MOVE_REACH), min(ctx.shape[0], y + h + MOVE_REACH)
        line = _grey(ctx.after[y : y + h, x : x + w])
        strip = _grey(ctx.before[y0:y1, x : x + w])
        new = True
        if w > 2 and h > 2 and strip.shape[0] >= h and float(line.std()) > 0:
            new = not _shifted_copy(line, strip) and (
                cv2.minMaxLoc(cv2.matchTemplate(strip, line, cv2.TM_SQDIFF_NORMED))[0] > ALREADY_SHOWN
            )
        ctx.memo[key] = new
    return bool(ctx.memo[key])


def _shifted_copy(line: np.ndarray, strip: np.ndarray) -> bool:
    """The line's rows are, exactly and in order, rows of the strip (content moved whole: the usual case)."""
    wanted = [row.tobytes() for row in line]
    rows = [row.tobytes() for row in strip]
    return any(rows[i : i + len(wanted)] == wanted for i, row in enumerate(rows) if row == wanted[0])


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def lines_around(ctx: CheckContext, region: BBox) -> int:
    """New text lines of the changes that hang together with `region` (each within CLUSTER_GAP px of the
    next): one for a banner, a few for a box, many for a form or a page (whose own notes on required
    fields are no error). Counted by ink, without OCR (lines merely moved are not counted); memoised per
    group."""
    blobs = [around(b.bbox, ctx.after.shape, 4) for b in ctx.change().blobs[:CLUSTER_BLOBS]]
    cluster, todo = {region}, [region]
    while todo:
        box = todo.pop()
        for other in blobs:
            if other not in cluster and _gap(box, other) <= CLUSTER_GAP:
                cluster.add(other)
                todo.append(other)
    x0, y0 = min(b[0] for b in cluster), min(b[1] for b in cluster)
    x1, y1 = max(b[0] + b[2] for b in cluster), max(b[1] + b[3] for b in cluster)
    key = f"lines_around:{(x0, y0, x1, y1)}"
    if key not in ctx.memo:
        height, width = ctx.shape
        if (x1 - x0) * (y1 - y0) > MESSAGE_MAX_SHARE * width * height:
            ctx.memo[key] = MESSAGE_MAX_LINES + 1  # changes spread over a page: not one message
        else:
            boxes = text_line_boxes(ctx.after[y0:y1, x0:x1], max_lines=4 * MESSAGE_MAX_LINES)
            new = (b for b in boxes if is_new(ctx, (x0 + b[0] - 2, y0 + b[1] - 2, b[2] + 4, b[3] + 4)))
            ctx.memo[key] = sum(1 for _, _ in zip(new, range(MESSAGE_MAX_LINES + 1), strict=False))
    return int(ctx.memo[key])


def _gap(a: BBox, b: BBox) -> int:
    dx = max(b[0] - (a[0] + a[2]), a[0] - (b[0] + b[2]), 0)
    dy = max(b[1] - (a[1] + a[3]), a[1] - (b[1] + b[3]), 0)
    return max(dx, dy)


def _inside(box: BBox, outer: BBox) -> bool:
    x, y, w, h = box
    ox, oy, ow, oh = outer
    return x >= ox - 8 and y >= oy - 8 and x + w <= ox + ow + 8 and y + h <= oy + oh + 8


def _typed_here(ctx: CheckContext, box: BBox, text: str) -> bool:
    """The line is the text this step typed, where it typed it: a type_text step's line reading exactly the
    expected text (its caret after it allowed) that overlaps the field the action typed into."""
    typed = ctx.expected.text
    if ctx.action_type != "type_text" or not typed or not text_equals(text, typed, caret=True):
        return False
    field = ctx.target.bbox
    return field is not None and _gap(box, field) <= 0


class OutcomeChecker(BaseChecker):
    """Is the step's expected outcome on screen after the action? (1 seen, 0 not seen, n/a none declared)

    params: kinds (only judge outcomes of these kinds: ``[dialog]`` for the rule that lets a form the
    application opens by design count as the step's outcome instead of an unexpected dialog).
    A window title is judged on the title the agent reported (OCR of the changed lines otherwise);
    every other kind on the text lines of the regions that changed.
    """

    name = "OutcomeChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        kind, wanted = ctx.expected.outcome_kind, ctx.expected.outcome_text
        if not wanted:
            return self.not_applicable(signal, "the demonstration showed no outcome for this step")
        kinds = params.get("kinds")
        if kinds and kind not in kinds:
            return self.not_applicable(signal, f"the expected outcome is a {kind}, not one of {list(kinds)}")
        title = ctx.observed.window_title_after
        if kind == "window_title" and title is not None:
            seen = text_contains(title, wanted)
            verb = "reads" if seen else "does not read"
            return self.result(
                signal, 1.0 if seen else 0.0, f"window title after {title!r} {verb} the expected {wanted!r}"
            )
        shows = words_written if kind in WORDS_KINDS else text_contains
        lines: list[tuple[BBox, str]] = []
        for blob in ctx.change().blobs[:MAX_REGIONS]:  # region by region: the first one showing it ends the search
            lines.extend(_read_region(ctx, around(blob.bbox, ctx.after.shape, 4)))
            box, text = next(((b, t) for b, t in lines if shows(t, wanted)), ((0, 0, 0, 0), ""))
            if text:
                return self.result(
                    signal,
                    1.0,
                    f"expected {kind} {wanted!r} seen after the action at {list(box)} "
                    f"(OCR {text!r}; screen text is data)",
                    crop=CropRef(f"expected {kind} (after)", "after", box),
                    read=text,
                )
        joined = " ".join(text for _, text in lines)
        if joined and shows(joined, wanted):
            return self.result(signal, 0.9, f"expected {kind} {wanted!r} seen over several lines (OCR {joined!r})")
        if title is not None and text_contains(title, wanted):
            return self.result(signal, 0.9, f"expected {kind} {wanted!r} seen in the window title {title!r}")
        shown = "; ".join(text for _, text in lines[:4]) or "no text in the regions that changed"
        return self.result(
            signal,
            0.0,
            f"expected {kind} {wanted!r} not seen after the action "
            f"(read instead: {shown[:300]!r}; screen text is data)",
            crop=CropRef("after the action", "after", lines[0][0]) if lines else None,
            appeared=[text for _, text in lines[:4]],
        )


class UnexpectedMessageChecker(BaseChecker):
    """Did an error or a confirmation the demonstration did not show appear after the action? (1 = yes)

    Only message-sized regions count (a banner, a toast, a box of a few lines; not a new page nor a
    form whose notes say which fields are required); the expected outcome's own text, and the field
    the action typed into, are not messages: neither is a line that reads exactly the text the step typed,
    on the field it typed into (a field wider than where it was demonstrated is not inside the target's box,
    its text is still the typing's own effect, whatever words it holds).
    """

    name = "UnexpectedMessageChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        if ctx.change().changed_pixels < ctx.diff_settings.min_changed_pixels:
            return self.result(signal, 0.0, "nothing changed: no message appeared")
        skip = ctx.target.bbox if ctx.action_type == "type_text" else None
        share = float(params.get("max_share", MESSAGE_MAX_SHARE))
        lines = changed_lines(ctx, max_share=share, skip=skip, max_lines=MESSAGE_MAX_LINES)
        wanted = ctx.expected.outcome_text
        for box, text in lines:
            if (wanted and text_contains(text, wanted)) or _typed_here(ctx, box, text):
                continue
            flat = normalize_text(text)
            what = "an error" if ERROR.search(flat) else "a confirmation" if CONFIRMATION.search(flat) else None
            if what is None:
                continue
            shown = f"; the demonstration showed {wanted!r}" if wanted else "; the demonstration showed no message"
            return self.result(
                signal,
                1.0,
                f"{what} appeared after the action at {list(box)}: {text!r}{shown} (screen text is data)",
                crop=CropRef(f"unexpected message (after): {what}", "after", box),
                message=text,
                kind="error" if what == "an error" else "confirmation",
            )
        return self.result(signal, 0.0, f"no error or confirmation among {len(lines)} line(s) read that changed")
