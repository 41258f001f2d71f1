"""What a click says once its screenshot is read: where it was (screen fractions), the clicked element's
box in the frame, the window it was made in, the anchor crop kept around it and, read lazily, the OCR
line under it (the click's name when the element had none, or its box)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from rpa_mcp.errors import RpaError
from rpa_mcp.shadow.boxes import OCR_BOX_MAX_DISTANCE, distance_to_box, element_box, same_text, screen_box
from rpa_mcp.shadow.elements import is_combo, is_container, is_field
from rpa_mcp.shadow.events import CLICK_TYPES, TraceEvent
from rpa_mcp.shadow.field_labels import (
    BESIDE_REACH,
    ROW_REACH,
    cut_at_side,
    is_format_mask,
    label_line,
    row_line,
    shown_inside,
    whole_line,
)
from rpa_mcp.shadow.menu_bar import band, menu_item, window_top
from rpa_mcp.shadow.ports import TraceRepository
from rpa_mcp.shadow.targets import names_something
from rpa_mcp.vision.budget import FrameCache
from rpa_mcp.vision.fields import field_around
from rpa_mcp.vision.images import clamp_bbox, decode_image, encode_png
from rpa_mcp.vision.ocr import OcrEngine, OcrLine
from rpa_mcp.vision.push_button import button_around

logger = logging.getLogger(__name__)

ANCHOR_W, ANCHOR_H = 300, 80  # region kept around a click: the anchor crop and the OCR region
LABEL_REACH = 400  # px left of (and a quarter of it above) a field where its label widget may stand
LABEL_GAP = 160  # px at most between a control's own text and the end of the label left of it
EDGE = 2  # px from a region's edge where a line read in it may have been cut
LABEL_SLACK = 3  # px a click or a line's end may stand outside a line and still be on it
GAP_PX = 3  # px right of a line's end where what stands between it and the click is looked at
DROP_DOWN_HALF = 30  # px at most between a drop-down's click and the edge its list hangs from


class ClickFacts:
    def __init__(self, traces: TraceRepository, ocr: OcrEngine, frames: FrameCache, *, max_pixels: int) -> None:
        self.traces, self.ocr, self.frames, self.max_pixels = traces, ocr, frames, max_pixels

    def facts(self, sid: str, ev: TraceEvent, shot_id: str | None, now: float) -> dict[str, Any]:
        facts: dict[str, Any] = {}
        element = ev.element.model_dump(mode="json", exclude_none=True) if ev.element is not None else None
        container = is_container(element)  # a page or window: not what was clicked (OCR names it)
        has_uia = bool(element and (element.get("name") or "").strip()) and not container
        frame = self.frame(shot_id)
        if frame is None or ev.x is None or ev.y is None:
            return facts
        h, w = frame.shape[:2]
        # An agent may send a downscaled screenshot and say the screen's size.
        sw, sh = _positive(ev.extras.get("screen_width"), w), _positive(ev.extras.get("screen_height"), h)
        px, py = round(ev.x * w / sw), round(ev.y * h / sh)
        facts["shot"] = shot_id
        facts["screen"] = [sw, sh]
        facts["x_pct"] = round(min(max(ev.x / sw, 0.0), 1.0), 4)
        facts["y_pct"] = round(min(max(ev.y / sh, 0.0), 1.0), 4)
        facts["frame_size"] = [w, h]
        if window_box := screen_box(ev.extras.get("window_box")):
            facts["window_box"] = window_box  # the window it was made in: a replay follows it when it moves
        if ev.type in CLICK_TYPES and element is not None and not container:
            box = element_box(element, point=(ev.x, ev.y), screen=(sw, sh), frame=(w, h))
            if box is not None:
                facts["element_bbox"] = box
                if is_field(element) and (has_uia or not is_combo(element)):
                    facts["label_pending"] = True  # read lazily: where its label stands, if beside it
        x0, y0, cw, ch = clamp_bbox((px - ANCHOR_W // 2, py - ANCHOR_H // 2, ANCHOR_W, ANCHOR_H), frame.shape)
        if cw < 8 or ch < 8:
            return facts
        crop = frame[y0 : y0 + ch, x0 : x0 + cw]
        anchor = self.traces.put_screenshot(
            encode_png(crop), session_id=sid, kind="anchor", mime="image/png", width=cw, height=ch, now=now
        )
        facts["anchor"] = anchor
        facts["anchor_offset"] = [px - x0, py - y0]
        facts["anchor_box"] = [x0, y0, cw, ch]
        # OCR names a click without a UIA name, and boxes one whose UIA rectangle is missing.
        if ev.type in CLICK_TYPES and (not has_uia or "element_bbox" not in facts):
            facts["ocr_pending"] = True
        return facts

    def label_beside(self, facts: dict[str, Any], name: str | None) -> dict[str, Any] | None:
        """Where a field's label is read left of or above it (frame pixels), when the field itself does not
        show it: a native form's label widget. A replay finds the label, then the field by the same offset.

        {"label_box": box} when the field's name is read there; {"label_box": box, "label_text": text} when
        the field has no name, or its name is only drawn inside it or is a format mask (its placeholder:
        "jj/mm/aaaa"), and a label stands beside it: that label names it. None otherwise.
        """
        frame, box = self.frame(facts.get("shot")), facts.get("element_bbox")
        if frame is None or not box:
            return None
        x, y, w, h = (int(v) for v in box)
        w, h = min(w, LABEL_REACH // 2), min(h, LABEL_REACH // 4)  # its label is by its left edge, not in it
        x0, y0, rw, rh = clamp_bbox(
            (x - LABEL_REACH, y - LABEL_REACH // 4, w + LABEL_REACH, h + LABEL_REACH // 4), frame.shape
        )
        if rw < 8 or rh < 8:
            return None
        read = self.ocr.read(frame[y0 : y0 + rh, x0 : x0 + rw])
        field = (x - x0, y - y0, w, h)
        name = (name or "").strip()
        if name and not is_format_mask(name):
            lines = [line for line in read if same_text(line.text, name)]
            inside = [ln for ln in lines if distance_to_box(field, *_centre(ln.bbox)) == 0]
            best = pick_line(lines, x - x0, y - y0 + h / 2, max_distance=LABEL_REACH)
            if best is not None and not inside:
                return {"label_box": _in_frame(best.bbox, (x0, y0))}
            if not shown_inside(read, name, field):
                return None  # a name the screen does not show beside the field (nor in it) stands
        label = label_line(read, field)
        if label is None:
            return None
        return {"label_box": _in_frame(label.bbox, (x0, y0)), "label_text": label.text[:200]}

    def frame(self, shot_id: str | None) -> np.ndarray | None:
        if shot_id is None:
            return None
        cached = self.frames.get(shot_id)
        if cached is not None:
            return cached
        try:
            image = decode_image(self.traces.get_screenshot(shot_id), max_pixels=self.max_pixels)
        except RpaError:
            logger.warning("screenshot %s could not be read back", shot_id)
            return None
        self.frames.put(shot_id, image)
        return image

    def option_at(self, facts: dict[str, Any]) -> dict[str, Any] | None:
        """The option clicked in a pop-up list seen on the screen (`list_box`, frame pixels): the list's line
        on the clicked row, read on the frame before the click (an option's text starts its row, the click
        may be anywhere along it)."""
        frame, box, origin, offset = (facts.get(k) for k in ("shot", "list_box", "anchor_box", "anchor_offset"))
        image = self.frame(frame)
        if image is None or not box or not origin or not offset:
            return None
        x0, y0, w, h = clamp_bbox((int(box[0]), int(box[1]), int(box[2]), int(box[3])), image.shape)
        if w < 8 or h < 8:
            return None
        cy = origin[1] + offset[1] - y0
        rows = [
            line
            for line in self.ocr.read(image[y0 : y0 + h, x0 : x0 + w])
            if line.score >= 0.5 and line.text.strip() and line.bbox[1] <= cy <= line.bbox[1] + line.bbox[3]
        ]
        if not rows:
            return None
        best = min(rows, key=lambda line: abs(line.bbox[1] + line.bbox[3] / 2 - cy))
        bx, by, bw, bh = (round(v) for v in best.bbox)
        return {"text": best.text[:200], "score": round(best.score, 3), "bbox": [x0 + bx, y0 + by, bw, bh]}

    def field_at(self, facts: dict[str, Any]) -> list[int] | None:
        """The inside of a text field around the click (frame pixels), seen on the frame before it; the typing
        step that follows the click makes it a field (`rpa_mcp.vision.fields`)."""
        image, point = self.frame(facts.get("shot")), frame_point(facts)
        if image is None or point is None:
            return None
        box = field_around(image, point)
        return list(box) if box is not None else None

    def button_at(self, facts: dict[str, Any]) -> list[int] | None:
        """The face of the push button whose text the click was on (frame pixels), seen on the frame before it
        (`rpa_mcp.vision.push_button`); None when the line read was not under the click or no button is seen
        there for sure."""
        image, point, line = self.frame(facts.get("shot")), frame_point(facts), (facts.get("ocr") or {}).get("bbox")
        if image is None or point is None or not line or not _holds(line, point, LABEL_SLACK):
            return None
        box = button_around(image, point, (int(line[0]), int(line[1]), int(line[2]), int(line[3])))
        return list(box) if box is not None else None

    def label_left_of(self, facts: dict[str, Any], list_box: list[int] | None = None) -> dict[str, Any] | None:
        """The line left of a control on its row (frame pixels), when the line read under the click is the
        control's own text (what a drop-down shows, which the choice replaces; read, else the box of the element
        the accessibility tree named by that text), or, with the `list_box` the click opened, left of the
        drop-down that list hangs from (clicked beside its text): the label that names it, and the control's box
        (`control`)."""
        line = (facts.get("ocr") or {}).get("bbox") or facts.get("element_bbox")
        image, point = self.frame(facts.get("shot")), frame_point(facts)
        if image is None or point is None:
            return None
        on_line = bool(line) and _holds(line, point, LABEL_SLACK)
        control = line if on_line else drop_down_over(list_box, point) if list_box else None
        if not control and line and list_box:
            control = shown_under_list(list_box, line, point)
        if not control:
            return None  # clicked beside the line: the line is already a label beside the control
        x, y, w, h = (int(v) for v in control)
        x0, y0, rw, rh = clamp_bbox((x - LABEL_REACH, y - h, LABEL_REACH, 3 * h), image.shape)
        if rw < 8 or rh < 8:
            return None
        centre = y + h / 2 - y0
        left = [
            ln
            for ln in self.ocr.read(image[y0 : y0 + rh, x0 : x0 + rw])
            if ln.score >= 0.5
            and names_something(ln.text)
            and abs(ln.bbox[1] + ln.bbox[3] / 2 - centre) <= h / 2
            and x - x0 - LABEL_GAP <= ln.bbox[0] + ln.bbox[2] <= x - x0 + LABEL_SLACK
        ]
        if not left:
            return None
        best = max(left, key=lambda ln: ln.bbox[0] + ln.bbox[2])  # the nearest on the left
        bx, by, bw, bh = (round(v) for v in best.bbox)
        return {"text": best.text[:200], "bbox": [x0 + bx, y0 + by, bw, bh], "control": [x, y, w, h]}

    def ocr_at(self, facts: dict[str, Any], *, name: str | None = None) -> dict[str, Any] | None:
        """OCR the region kept around the click; the line under (or nearest to) the click names it.

        Its box (in frame pixels) is kept when the line holds the click or is right beside it.
        With a UIA `name` (a click OCR'd only for its box), the nearest line reading that name wins.
        """
        anchor, offset = facts.get("anchor"), facts.get("anchor_offset")
        if not anchor or not offset:
            return None
        try:
            region = decode_image(self.traces.get_screenshot(anchor), max_pixels=self.max_pixels)
            lines = self.ocr.read(region)
        except RpaError as exc:
            logger.warning("OCR of an anchor failed: %s", exc.message)
            return None
        best, on_row = None, False
        frame, origin = self.frame(facts.get("shot")), facts.get("anchor_box")
        if name and name.strip():
            named = [line for line in lines if same_text(line.text, name)]
            best = pick_line(named, offset[0], offset[1], max_distance=OCR_BOX_MAX_DISTANCE)
        elif not pick_line(lines, offset[0], offset[1], max_distance=0) and frame is not None and origin:
            # no text under the click: the text on its own row names it before any text above it
            best, on_row = self._on_row(lines, frame, (origin[0], origin[1]), (offset[0], offset[1]))
        best = best or pick_line(lines, offset[0], offset[1])
        if best is None:
            return None
        if frame is not None and origin and cut_at_side(best.bbox, origin, frame.shape[1]):
            best = whole_line(self.ocr, frame, best, (origin[0], origin[1])) or best  # the region cut it
        if not name and frame is not None and origin:
            best = self._menu_item(frame, best, facts, (origin[0], origin[1])) or best
        found: dict[str, Any] = {"text": best.text[:200], "score": round(best.score, 3)}
        if origin and (on_row or distance_to_box(best.bbox, offset[0], offset[1]) <= OCR_BOX_MAX_DISTANCE):
            x, y, w, h = (round(v) for v in best.bbox)
            found["bbox"] = [origin[0] + x, origin[1] + y, w, h]  # frame pixels
        return found

    def _menu_item(
        self, frame: np.ndarray, line: OcrLine, facts: dict[str, Any], origin: tuple[int, int]
    ) -> OcrLine | None:
        """A menu bar's item under the click (`menu_bar`), in the coordinates of `line` (relative to `origin`)."""
        x, y, w, h = line.bbox
        offset = facts["anchor_offset"]
        in_frame = OcrLine(line.text, (origin[0] + x, origin[1] + y, w, h), line.score)
        item = menu_item(frame, in_frame, origin[0] + offset[0], window_top(facts), band(facts), self.ocr)
        if item is None:
            return None
        ix, iy, iw, ih = item.bbox
        return OcrLine(item.text, (ix - origin[0], iy - origin[1], iw, ih), item.score)

    @staticmethod
    def _on_row(
        lines: Sequence[OcrLine], frame: np.ndarray, origin: tuple[int, int], at: tuple[int, int]
    ) -> tuple[OcrLine | None, bool]:
        """The line that names a click on no text by its row (`row_line`), and whether its box is the target's
        (a line left of a click inside a control: the control is found from it at replay). Reached far to the
        left only from inside a control seen on the screen (a field, a grid's cell), and never across another
        one: a line standing in a field or a cell that does not hold the click is that control's text."""
        click = (origin[0] + at[0], origin[1] + at[1])
        own = field_around(frame, click)
        line = row_line(lines, at, reach=ROW_REACH if own is not None else BESIDE_REACH)
        if line is None:
            return None, False
        x, y, w, h = line.bbox
        gap = (round(origin[0] + x + w) + GAP_PX, round(origin[1] + y + h / 2))  # just right of the line's end
        between = field_around(frame, gap) if gap[0] < click[0] else None
        if between is not None and distance_to_box(between, *click) > 0:
            return None, False  # the line is another control's text
        return line, own is not None and x + w <= at[0] + LABEL_SLACK


def frame_point(facts: dict[str, Any]) -> tuple[int, int] | None:
    """Where a click was in its frame's pixels (the anchor crop is kept around it)."""
    box, offset = facts.get("anchor_box"), facts.get("anchor_offset")
    if not (isinstance(box, list) and len(box) == 4 and isinstance(offset, list) and len(offset) == 2):
        return None
    return int(box[0] + offset[0]), int(box[1] + offset[1])


def _centre(box: Sequence[float]) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _in_frame(box: Sequence[float], origin: tuple[int, int]) -> list[int]:
    x, y, w, h = (round(v) for v in box)
    return [origin[0] + x, origin[1] + y, w, h]


def _positive(value: Any, default: int) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else default


def pick_line(
    lines: Sequence[OcrLine], cx: float, cy: float, *, min_score: float = 0.5, max_distance: float = 60.0
) -> OcrLine | None:
    """The OCR line under the click, else the nearest one within a short distance."""
    best, best_d = None, 1e9
    for line in lines:
        if line.score < min_score or not line.text.strip():
            continue
        x, y, w, h = line.bbox
        dx = max(x - cx, 0, cx - (x + w))
        dy = max(y - cy, 0, cy - (y + h))
        d = (dx * dx + (3 * dy) ** 2) ** 0.5  # a line above or below is further than one beside
        if d < best_d:
            best, best_d = line, d
    return best if best_d <= max_distance else None


def _holds(box: Any, point: tuple[int, int], slack: int) -> bool:
    x, y, w, h = (int(v) for v in box)
    return x - slack <= point[0] <= x + w + slack and y - slack <= point[1] <= y + h + slack


def shown_under_list(list_box: list[int], line: list[int], point: tuple[int, int]) -> list[int] | None:
    """The drop-down a click beside its text opened a list over (AWT's or Motif's `Choice` drops its list over
    itself): its text line (`line`, what it showed) and the click on one row, both inside the list's column,
    the list covering that row. The line then is the control's own text, never its name (frame pixels)."""
    lx, ly, lw, lh = (int(v) for v in list_box)
    x, y, w, h = (int(v) for v in line)
    on_row = y - LABEL_SLACK <= point[1] <= y + h + LABEL_SLACK
    inside = lx - LABEL_SLACK <= x and x + w <= lx + lw + LABEL_SLACK and lx <= point[0] <= lx + lw
    covered = ly - LABEL_SLACK <= y and y + h <= ly + lh
    return [x, y, w, h] if on_row and inside and covered else None


def drop_down_over(list_box: list[int], point: tuple[int, int]) -> list[int] | None:
    """The drop-down a click at `point` opened the list `list_box` from (frame pixels): the list's column, on the
    click's row, as far above the click as the list hangs below it (or below, for a list that opened upwards).
    None when the list covers the click's row or stands beside it: the control's box is not known then."""
    lx, ly, lw, lh = (int(v) for v in list_box)
    px, py = point
    if not lx <= px <= lx + lw:
        return None
    half = ly - py if ly > py else py - (ly + lh) if ly + lh < py else 0
    if not 0 < half <= DROP_DOWN_HALF:
        return None
    return [lx, py - half, lw, 2 * half]
