"""Evidence for people and models: client-sized crops, checker texts, validator/dialog argument shapes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rpa_mcp.dialogs import DeclaredModal
from rpa_mcp.errors import RpaError
from rpa_mcp.validation.model import Expected, Observed, Target
from rpa_mcp.vision.images import BBox, encode_png_base64, legible_box

EVIDENCE_BOX = (360, 200)  # w, h of an evidence crop around the action point
CLICK_BOX = (240, 140)  # w, h of the crop kept for every verified action: where it was clicked
CLICK_LABEL = "where it was clicked (screen after the action)"


def upper_name(value: Any) -> str | None:
    """Enum or str -> upper-case str."""
    if value is None:
        return None
    value = getattr(value, "value", value)
    return str(value).upper()


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def checker_evidence(evidence: Any) -> list[Any] | None:
    if not evidence:
        return None
    out = []
    for item in evidence:
        if hasattr(item, "checker") and hasattr(item, "score"):
            read = (getattr(item, "facts", None) or {}).get("read")  # the text read back (evidence bundle)
            item = {k: getattr(item, k, None) for k in ("checker", "signal", "score", "detail", "duration_ms")}
            if isinstance(read, str) and read:
                item["read"] = read[:500]
        elif hasattr(item, "model_dump"):
            item = item.model_dump(mode="json")
        elif not isinstance(item, dict | str | int | float):
            item = str(item)
        if isinstance(item, dict):
            item = {k: v for k, v in item.items() if not (isinstance(v, str) and len(v) > 2000)}
        out.append(item)
    return out


def crops_around(
    image: np.ndarray,
    point: Sequence[int] | None,
    bbox: Sequence[int] | None,
    *,
    box_size: tuple[int, int] = EVIDENCE_BOX,
    label: str = "screen after the action, around the target",
) -> list[dict[str, Any]]:
    """One client-sized PNG crop of the region that matters (action point or bbox); widened (and
    marked `widened`) when that region alone is a plain rectangle."""
    if bbox:
        x, y, bw, bh = (int(v) for v in bbox[:4])
        box = (x - 20, y - 20, bw + 40, bh + 40)
    elif point:
        bw, bh = box_size
        box = (int(point[0]) - bw // 2, int(point[1]) - bh // 2, bw, bh)
    else:
        return []
    # a plain region (a dark desktop where the window was, an empty page) is shown with its surroundings
    (x0, y0, cw, ch), widened = legible_box(image, box)
    if cw == 0 or ch == 0:
        return []
    try:
        data = encode_png_base64(image[y0 : y0 + ch, x0 : x0 + cw])
    except RpaError:
        return []
    crop = {"label": label, "bbox": [x0, y0, cw, ch], "mime_type": "image/png", "data_base64": data}
    return [crop | {"widened": True}] if widened else [crop]


# Actions whose click lands on the target itself (typing clicks a field's label, beside its box).
CLICKED_ON_TARGET = frozenset(
    {"click_anchor", "double_click_anchor", "right_click_anchor", "switch_tab", "close_tab", "dialog_button",
     "select_option", "toggle_checkbox", "set_checked"}
)  # fmt: skip


def box_where_acted(target: Mapping[str, Any], point: Sequence[int] | None) -> list[int] | None:
    """The target's box around the point the agent clicked, for actions in CLICKED_ON_TARGET.

    The agent clicks the target where it finds it now, which is not where it was recorded when a
    window moved or resized or a page scrolled. The checkers must read the element that was clicked,
    not whatever now lies where it used to be: the recorded box is centred on the point clicked
    (its size kept), joined with the recorded box when the two overlap (a target that barely moved
    keeps its whole recorded box, widened to where its label now is).
    """
    bbox = target.get("bbox")
    if not (isinstance(bbox, list | tuple) and len(bbox) == 4):
        return None
    x, y, w, h = (int(v) for v in bbox)
    if not point or len(point) != 2:
        return [x, y, w, h]
    cx, cy = int(point[0]) - w // 2, int(point[1]) - h // 2
    if cx < x + w and x < cx + w and cy < y + h and y < cy + h:  # overlapping: join them
        x0, y0 = min(x, cx), min(y, cy)
        return [x0, y0, max(x, cx) + w - x0, max(y, cy) + h - y0]
    return [cx, cy, w, h]


def field_where_typed(
    target: Mapping[str, Any], point: Sequence[int] | None, size: tuple[int, int]
) -> list[int] | None:
    """The typed field's box where the agent found it now (by its label or anchor), not where it was recorded.

    The recorded box moves with the click: shifted by the offset between the point the agent clicked and
    the recorded click position (a window moved, resized or scrolled). Without a recorded position, a
    click outside the recorded box centres the box on it. Without a click point, the recorded box.
    """
    bbox = target.get("bbox")
    if not (isinstance(bbox, list | tuple) and len(bbox) == 4):
        return None
    x, y, w, h = (int(v) for v in bbox)
    if not point or len(point) != 2:
        return [x, y, w, h]
    recorded = recorded_point(dict(target), size)
    if recorded is None:
        inside = x <= int(point[0]) < x + w and y <= int(point[1]) < y + h
        return [x, y, w, h] if inside else [int(point[0]) - w // 2, int(point[1]) - h // 2, w, h]
    dx, dy = int(point[0]) - recorded[0], int(point[1]) - recorded[1]
    return [x + dx, y + dy, w, h]


SHOWS_ITS_VALUE = frozenset({"type_text"})  # a field: its text is read in it


def box_to_read(
    action_type: str, target: Mapping[str, Any], point: Sequence[int] | None, size: tuple[int, int]
) -> list[int] | None:
    """Where the checkers read the step's effect: a field typed into moves its recorded box with the click
    (`field_where_typed`); a target clicked, a drop-down included, is read around the click, joined with its
    recorded box when they overlap (`box_where_acted`; a drop-down the accessibility tree names after the choice
    is checked on that name too, `tree-shows`); else the recorded box."""
    if action_type in SHOWS_ITS_VALUE:
        return field_where_typed(target, point, size)
    if action_type in CLICKED_ON_TARGET:
        return box_where_acted(target, point)
    bbox = target.get("bbox")
    return list(bbox) if isinstance(bbox, list | tuple) else None


def validator_args(
    *,
    label: str | None,
    bbox: Sequence[int] | None,
    after_shape: tuple[int, ...],
    point: tuple[int, int] | None = None,
    window_title: str | None,
    text: str | None,
    observed: dict[str, Any],
    recorded: dict[str, Any] | None = None,
    outcome: dict[str, Any] | None = None,
    own_windows: Sequence[str] = (),
) -> tuple[Target, Expected, Observed]:
    """Target/Expected/Observed of the validation area.

    `recorded`: the step's target as recorded (`rel_x`/`rel_y` or `x_pct`/`y_pct` fractions, `x`/`y`
    pixels, `window_title`). Without a box and without the agent's `actual_position`, the recorded
    position is where the validator looks for the label itself; the recorded window title is the
    application that must be in front after the action. `outcome`: the step's post-condition from the
    demonstration ({kind, text}, its parameters already filled in). `own_windows`: the titles of the
    workflow's own windows (templated), which are never taken for a dialog.
    """
    h, w = after_shape[:2]
    box: BBox | None = None  # the recorded box clamped to the AFTER frame
    if bbox:
        x, y, bw, bh = (int(v) for v in bbox[:4])
        x0, y0 = max(0, min(x, w - 1)), max(0, min(y, h - 1))
        bbox = box = (x0, y0, max(1, min(bw, w - x0)), max(1, min(bh, h - y0)))
    rec = recorded or {}
    if point is None and box is None:
        point = recorded_point(rec, (w, h))
    application = rec.get("window_title") if isinstance(rec.get("window_title"), str) else None
    # Without a recorded box the validator locates the label around the click point itself.
    return (
        Target(label=label, bbox=box, point=point),
        Expected(
            window_title=window_title,
            text=text,
            application_title=application,
            outcome_kind=str(outcome.get("kind") or "message") if outcome and outcome.get("text") else None,
            outcome_text=str(outcome["text"]) if outcome and outcome.get("text") else None,
            own_windows=tuple(own_windows),
        ),
        Observed(**observed),
    )


def recorded_point(recorded: dict[str, Any], size: tuple[int, int]) -> tuple[int, int] | None:
    """The recorded click position in the frame's pixels (fractions first: the screen may differ)."""
    w, h = size
    rx = recorded.get("rel_x", recorded.get("x_pct"))
    ry = recorded.get("rel_y", recorded.get("y_pct"))
    if isinstance(rx, int | float) and isinstance(ry, int | float) and rx >= 0 and ry >= 0:
        if rx > 1.0 or ry > 1.0:  # given in percent (as the resolution guard reads them)
            rx, ry = rx / 100.0, ry / 100.0
        if rx <= 1.0 and ry <= 1.0:
            return round(rx * (w - 1)), round(ry * (h - 1))
    x, y = recorded.get("x"), recorded.get("y")
    if isinstance(x, int | float) and isinstance(y, int | float) and 0 <= x < w and 0 <= y < h:
        return int(x), int(y)
    return None


def verdict_crops(verdict: Any) -> list[dict[str, Any]]:
    out = []
    for c in field_of(verdict, "crops") or []:
        data = field_of(c, "data_base64")
        if data:
            bbox = field_of(c, "bbox")
            out.append(
                {
                    "label": field_of(c, "label", "evidence"),
                    "bbox": list(bbox) if bbox else None,
                    "mime_type": field_of(c, "mime_type", "image/png"),
                    "data_base64": data,
                }
                | ({"widened": True} if field_of(c, "widened") else {})
            )
    return out


def declared_modals(items: Any) -> list[DeclaredModal]:
    """Workflow `expected_modals` -> the dialog area's DeclaredModal objects (bare ids carry no policy)."""
    out: list[DeclaredModal] = []
    for item in items or []:
        if isinstance(item, dict):
            try:
                out.append(DeclaredModal.model_validate(item))
            except (ValueError, RpaError):
                continue  # an invalid declaration is ignored here (it can only make things less strict)
    return out


def button_entry(button: Any) -> dict[str, Any]:
    x, y, w, h = (int(v) for v in field_of(button, "bbox"))
    return {"label": field_of(button, "label"), "click_at": [x + w // 2, y + h // 2]}
