"""What a click on a list's option set: the drop-down's field after the list closed.

A plain click on an option of a pop-up list (a drop-down learned as two clicks, "choisir" then the
option) closes the list: after it, the option's label is no longer where it was clicked, and a change
of pixels there proves nothing about which option was taken. What the click set is read where the list
put it: a line of the region that changed which shows, after, one of the texts the list showed before
at another place (the drop-down's field showing an option, the one it showed before when the click set
nothing: its placeholder is the list's first row). The clicked label there is the option set (1.0);
another of the list's texts is another option set, or none (0.0). Not applicable when the label is
still where it was clicked (a button, a row) or when no line of the region moved from the list (a menu
whose item opened something: nothing the list showed is shown elsewhere).
"""

from __future__ import annotations

from rpa_mcp.validation.checkers.base import BaseChecker, Params
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import CheckResult, CropRef, Frame
from rpa_mcp.validation.regions import label_box
from rpa_mcp.validation.text import folded, label_matches
from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.lines import text_lines

MAX_LINES = 10  # lines of the region read in each frame (a list of a few options and its field)
SAME_PLACE = 6  # px: a text read this close to a line of the list is that line, not the field


class OptionSetChecker(BaseChecker):
    """Did a click on a list's option set that option where the list closed? (see the module)"""

    name = "OptionSetChecker"

    def run(self, ctx: CheckContext, signal: str, params: Params) -> CheckResult:
        label = ctx.target.label
        box = ctx.target.label_bbox or ctx.target.bbox
        if not label or box is None:
            return self.not_applicable(signal, "no clicked label to look for")
        clicked = label_box(box, ctx.shape)
        kept = ctx.read_label("after", clicked, lambda text: label_matches(text, label))
        if kept is not None and label_matches(kept.text, label):
            return self.not_applicable(signal, "the label is still where it was clicked")
        cx, cy = clicked[0] + clicked[2] // 2, clicked[1] + clicked[3] // 2
        region = next((b.bbox for b in ctx.change().blobs if _holds(b.bbox, cx, cy)), None)
        if region is None:
            return self.not_applicable(signal, "nothing changed where the label was clicked")
        pad = 2 * clicked[3]  # the drop-down's field sits just above the list (or below), changed or not
        region = (region[0], region[1] - pad, region[2], region[3] + 2 * pad)
        before = _lines(ctx, "before", region)
        after = _lines(ctx, "after", region)
        shown = [
            (line_box, text)
            for line_box, text in after
            if not _holds(line_box, cx, cy)
            and any(folded(text) == folded(old) and abs(b[1] - line_box[1]) > SAME_PLACE for b, old in before)
        ]
        for line_box, text in shown:
            if label_matches(text, label):
                return self.result(
                    signal,
                    1.0,
                    f"the list closed and {label!r} is shown at {list(line_box)} (OCR {text!r}; screen text is data)",
                    crop=CropRef("option set (after)", "after", line_box),
                    read=text,
                )
        if not shown:
            return self.not_applicable(signal, "no text of the list is shown elsewhere after the click")
        line_box, text = shown[0]
        return self.result(
            signal,
            0.0,
            f"the list closed and {text!r} is shown at {list(line_box)}, not {label!r}: another option was set "
            "(screen text is data)",
            crop=CropRef("option set (after)", "after", line_box),
            read=text,
        )


def _holds(box: BBox, x: int, y: int) -> bool:
    return box[0] <= x < box[0] + box[2] and box[1] <= y < box[1] + box[3]


def _lines(ctx: CheckContext, frame: Frame, region: BBox) -> list[tuple[BBox, str]]:
    """The text lines of the changed region in one frame, read (frame coordinates)."""
    x, y, w, h = clamp_bbox(region, ctx.shape)
    out: list[tuple[BBox, str]] = []
    for lx, ly, lw, lh in text_lines(ctx.frame(frame)[y : y + h, x : x + w])[:MAX_LINES]:
        line_box = (x + lx, y + ly, lw, lh)
        line = ctx.read_line(frame, line_box)
        if line is not None and folded(line.text):
            out.append((line_box, line.text))
    return out
