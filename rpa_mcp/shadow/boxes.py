"""The clicked element's box in the frame before the click (`target.bbox`, [x, y, w, h]).

Replay validation and target resolution look for the target there, in the pixels of the
screenshot the agent sent (which may be downscaled from the screen). Sources, strongest
first: the UI Automation rectangle of the element, else the OCR line under (or right
beside) the click in the region read for the intent, else none — a box is never guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rpa_mcp.vision.ocr import normalize_text

OCR_BOX_MAX_DISTANCE = 40.0  # px in the frame: an OCR line further from the click is not its target
UIA_POINT_TOLERANCE = 8.0  # screen px: a UIA rectangle that does not hold the click is another element

Box = list[int]


def uia_rect(element: Mapping[str, Any] | None) -> tuple[float, float, float, float] | None:
    """The element's rectangle as sent (`bbox` [x, y, w, h] or `rect` edges), screen pixels; None if empty."""
    if not element:
        return None
    bbox, rect = element.get("bbox"), element.get("rect")
    if isinstance(bbox, list | tuple) and len(bbox) == 4:
        x, y, w, h = (float(v) for v in bbox)
    elif isinstance(rect, Mapping) and all(
        isinstance(rect.get(k), int | float) for k in ("left", "top", "right", "bottom")
    ):
        x, y = float(rect["left"]), float(rect["top"])
        w, h = float(rect["right"]) - x, float(rect["bottom"]) - y
    else:
        return None
    if not all(math.isfinite(v) for v in (x, y, w, h)) or w <= 0 or h <= 0:
        return None
    return x, y, w, h


def element_box(
    element: Mapping[str, Any] | None,
    *,
    point: tuple[float, float],
    screen: tuple[int, int],
    frame: tuple[int, int],
) -> Box | None:
    """The UIA rectangle mapped from screen to frame pixels (enclosing), clipped to the frame.

    None when there is no usable rectangle, when it does not hold the click (the agent sent
    another element's, e.g. the focused one), or when nothing of it is inside the frame.
    """
    found = uia_rect(element)
    if found is None:
        return None
    x, y, w, h = found
    px, py = point
    tol = UIA_POINT_TOLERANCE
    if not (x - tol <= px <= x + w + tol and y - tol <= py <= y + h + tol):
        return None
    (sw, sh), (fw, fh) = screen, frame
    sx, sy = fw / sw, fh / sh
    x0, y0 = max(0, math.floor(x * sx)), max(0, math.floor(y * sy))
    x1, y1 = min(fw, math.ceil((x + w) * sx)), min(fh, math.ceil((y + h) * sy))
    if x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return [x0, y0, x1 - x0, y1 - y0]


def distance_to_box(box: Any, x: float, y: float) -> float:
    """Euclidean distance from a point to a box (0 inside)."""
    bx, by, bw, bh = box
    dx = max(bx - x, 0, x - (bx + bw))
    dy = max(by - y, 0, y - (by + bh))
    return float(math.hypot(dx, dy))


def same_text(a: str | None, b: str | None) -> bool:
    """Whether OCR text and a UIA name are the same label (accent-, case-, space-insensitive; OCR may cut it).
    Spaces are left out entirely: a screen read drops or adds them ("Examen:" for the label "Examen :")."""
    na, nb = normalize_text(a or "").replace(" ", ""), normalize_text(b or "").replace(" ", "")
    if not na or not nb:
        return False
    return na == nb or (min(len(na), len(nb)) >= 3 and (na in nb or nb in na))


def iou(a: Any, b: Any) -> float:
    """Intersection over union of two [x, y, w, h] boxes."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    iw = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    ih = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = iw * ih
    union = aw * ah + bw * bh - inter
    return float(inter / union) if union > 0 else 0.0


def screen_box(value: Any) -> list[int] | None:
    """A box [x, y, w, h] in screen pixels as an agent reports it (a window's), None when it is not one."""
    if not isinstance(value, list | tuple) or len(value) != 4:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        return None
    x, y, w, h = (round(v) for v in value)
    return [x, y, w, h] if w > 0 and h > 0 else None
