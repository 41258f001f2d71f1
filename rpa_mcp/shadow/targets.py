"""The evidence that names a clicked element and the target a replay looks for.

Evidence, strongest first: the UI Automation element name, OCR of the region around the
click (taken on the screenshot before it), the window title, the raw event. Screen text is
data: it is cleaned and capped, and only ever quoted inside an intent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rpa_mcp.shadow.boxes import same_text
from rpa_mcp.shadow.elements import app_key, is_container
from rpa_mcp.shadow.field_labels import is_format_mask

CONFIDENCE = {"uia": 0.9, "ocr": 0.75, "window_title": 0.45, "raw": 0.25}
BROWSERS = frozenset({"msedge", "chrome", "chromium", "firefox", "brave", "opera", "iexplore"})
TAB_STRIP_MAX_Y = 44  # pixels from the top of the screen where a maximised browser shows its tabs
MAX_LABEL = 60
MAX_MATCH_TEXT = 200


@dataclass(frozen=True)
class Evidence:
    label: str | None
    source: str  # uia | ocr | window_title | raw

    @property
    def confidence(self) -> float:
        return CONFIDENCE[self.source]


MIN_LABEL_CHARS = 2


def clean_label(text: str | None, *, limit: int = MAX_LABEL) -> str | None:
    """Screen or UIA text fit to quote in an intent: one line, no control characters, capped."""
    if not text:
        return None
    text = re.sub(r"[\x00-\x1f\x7f]+", " ", text)
    text = " ".join(text.replace("'", "’").split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text or None


def plain_text(text: str | None) -> str | None:
    """Screen or UIA text as it reads (one line, no control characters), for matching it on screen later."""
    if not text:
        return None
    text = " ".join(re.sub(r"[\x00-\x1f\x7f]+", " ", text).split())
    return text[:MAX_MATCH_TEXT] or None


def names_something(text: str) -> bool:
    """Whether OCR text can name what was clicked: two letters or digits at least (a lone '/' or '-' read
    near the click is a fragment of a placeholder or a separator, not a label), and no format mask ("jj/mm/aaaa",
    as read or misread: it says what to type, not what the field is)."""
    return sum(ch.isalnum() for ch in text) >= MIN_LABEL_CHARS and not is_format_mask(text)


def click_evidence(event: dict[str, Any], facts: dict[str, Any]) -> Evidence:
    element = event.get("element") or {}
    if clean_label(facts.get("label_text")):  # a field with no name, or its placeholder: the label beside it
        return Evidence(clean_label(facts["label_text"]), "ocr")
    if clean_label(element.get("name")) and not is_container(element) and not is_format_mask(element.get("name")):
        return Evidence(clean_label(element.get("name")), "uia")
    ocr = facts.get("ocr") or {}
    if clean_label(ocr.get("text")) and names_something(ocr["text"]):
        return Evidence(clean_label(ocr.get("text")), "ocr")
    title = clean_label(event.get("window_title") or facts.get("wb"))
    if title:
        return Evidence(title, "window_title")
    return Evidence(None, "raw")


def is_tab_click(event: dict[str, Any]) -> bool:
    role = ((event.get("element") or {}).get("role") or "").lower().replace(" ", "")
    if role in ("tabitem", "tab", "pagetab"):
        return True
    return app_key(event.get("app")) in BROWSERS and 0 <= int(event.get("y") or 9999) <= TAB_STRIP_MAX_Y and not role


def click_target(
    event: dict[str, Any], facts: dict[str, Any], ev: Evidence, *, into_field: bool = False
) -> dict[str, Any]:
    """`into_field`: text is typed after the click (a field's own box seen on the screen is its target)."""
    element = event.get("element") or None
    bbox = target_bbox(event, facts, ev)
    label = evidence_text(event, facts, ev)
    found: dict[str, Any] = {"label": label} if label else {}
    if bbox:  # in the pixels of the frame before the click, whose size is given beside it
        found |= {"bbox": bbox, "frame_size": facts.get("frame_size")}
        if offset := label_offset(facts.get("label_box"), bbox, click := click_point(facts)):
            # a field's label beside it: a replay finds the label, then clicks in the field, never on the label
            found |= {"label_offset": offset, "in_field": True}
            if click is not None:  # where the person clicked from the label: where a replay judges the field
                found["label_click"] = [click[0] - facts["label_box"][0], click[1] - facts["label_box"][1]]
        elif ev.source == "ocr" and (offset := _beside_line(facts, bbox)):
            # only the screen named it, by a line beside the click: click there again, measured from the line's
            # end nearest the click (the region read may have cut the line's other end)
            found |= {"label_offset": offset, "label_width": bbox[2]}
            if into_field and (moved := _into_field(facts)):
                facts = {**facts, **moved}  # the field's inside, away from its edges
                at = frame_click(facts)
                found |= {"bbox": list(facts["field_box"]), "label_offset": [at[0] - bbox[0], at[1] - bbox[1]]}
    return {
        "by_text": ev.label if ev.source in ("uia", "ocr") else None,
        **found,
        "element": element,
        "x_pct": facts.get("x_pct"),
        "y_pct": facts.get("y_pct"),
        "window_title": event.get("window_title") or facts.get("wb"),
        "window_box": facts.get("window_box"),  # with `screen`: where its window stood (screen pixels)
        "screen": facts.get("screen") if facts.get("window_box") else None,
        "anchor_ref": f"rpa://screenshots/{facts['anchor']}" if facts.get("anchor") else None,
        "anchor_offset": facts.get("anchor_offset"),
    }


FIELD_INSET = 40  # px into a field from its left edge where a click beside its label lands (at most its middle)


FIELD_MARGIN = 4  # px: the point kept at least this far inside the field's left edge


def label_offset(label: Any, field: Any, click: tuple[int, int] | None = None) -> list[int] | None:
    """From the top left of a field's label line (read beside it) to a point inside the field, frame pixels:
    where the person clicked in it, at most FIELD_INSET in from its left edge (a field may widen with its
    window; the typed text is read where the field is found from that point), half way down."""
    if not (isinstance(label, list) and len(label) == 4 and isinstance(field, list) and len(field) == 4):
        return None
    lx, ly = label[0], label[1]
    fx, fy, fw, fh = field
    inset = min(fw / 2, FIELD_INSET)
    if click is not None and fx <= click[0] <= fx + fw and fy <= click[1] <= fy + fh:
        inset = min(max(click[0] - fx, min(FIELD_MARGIN, fw / 2)), inset)
    return [round(fx - lx + inset), round(fy + fh / 2 - ly)]


def click_point(facts: dict[str, Any]) -> tuple[int, int] | None:
    """The click in the frame's pixels (from the crop kept around it), None when no crop was kept."""
    origin, at = facts.get("anchor_box"), facts.get("anchor_offset")
    if not (isinstance(origin, list) and len(origin) == 4 and isinstance(at, list) and len(at) == 2):
        return None
    return origin[0] + at[0], origin[1] + at[1]


BESIDE_PX = 3  # a click this far outside the line that names it is beside the line, not on it


def _beside_line(facts: dict[str, Any], line: list[int]) -> list[int] | None:
    """From the top left of the OCR line that named a click to the click, frame pixels, when the click was
    beside the line (a field right of its label, a box left of its text); None when it was on the line."""
    point = click_point(facts)
    if point is None:
        return None
    px, py = point
    x, y, w, h = line
    if x - BESIDE_PX <= px <= x + w + BESIDE_PX and y - BESIDE_PX <= py <= y + h + BESIDE_PX:
        return None
    return [round(px - x), round(py - y)]


def frame_click(facts: dict[str, Any]) -> tuple[int, int]:
    origin, at = facts["anchor_box"], facts["anchor_offset"]
    return int(origin[0] + at[0]), int(origin[1] + at[1])


def _into_field(facts: dict[str, Any]) -> dict[str, Any] | None:
    """A click into a text field seen on the screen (`field_box`, frame pixels), moved `FIELD_INSET` px in
    from the field's left edge (at most its middle), half way down: a replay that reads the label a few
    pixels apart still clicks inside the field. The click's recorded place moves with it."""
    field, size = facts.get("field_box"), facts.get("frame_size")
    if not (isinstance(field, list) and len(field) == 4 and isinstance(size, list) and len(size) == 2 and min(size)):
        return None
    fx, fy, fw, fh = field
    px, py = round(fx + min(fw / 2, FIELD_INSET)), round(fy + fh / 2)
    cx, cy = frame_click(facts)
    at = facts["anchor_offset"]
    return {
        "anchor_offset": [at[0] + px - cx, at[1] + py - cy],
        "x_pct": round(px / size[0], 4),
        "y_pct": round(py / size[1], 4),
    }


def evidence_text(event: dict[str, Any], facts: dict[str, Any], ev: Evidence) -> str | None:
    """The text that named the intent (UIA name or OCR line), unabridged: what a validator looks for."""
    if ev.source == "uia":
        return plain_text((event.get("element") or {}).get("name"))
    if ev.source == "ocr":
        return plain_text(facts.get("label_text") or (facts.get("ocr") or {}).get("text"))
    return None


def target_bbox(event: dict[str, Any], facts: dict[str, Any], ev: Evidence) -> list[int] | None:
    """[x, y, w, h] of the clicked element in the frame before the click: UIA rectangle, else OCR line, else None."""
    if facts.get("element_bbox"):
        return list(facts["element_bbox"])
    ocr = facts.get("ocr") or {}
    box = ocr.get("bbox")
    if not box:
        return None
    if ev.source == "ocr":
        return list(box)
    if ev.source == "uia" and same_text(ocr.get("text"), (event.get("element") or {}).get("name")):
        return list(box)  # the line under the click reads the element's name: it is its label
    return None
