"""A person's correction of what a step acts on: another element of the step's screenshot.

The person names the element by its visible text (`target_label`) or points at it on the step's
screenshot (`target_point`, pixels of that screenshot, as `screenshot` in the understanding shows
it). Either way the element is looked up on that screenshot by OCR, so the new target carries
where it stood (box, position) as the demonstration's own targets do; a label not seen there, or a
point with no text near it, is refused (nothing changes) rather than guessed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rpa_mcp.shadow.feedback import FeedbackRejected
from rpa_mcp.validation.locate import distance_to_box, find_label
from rpa_mcp.vision.ocr import OcrLine

POINT_REACH = 24  # px: a point this close to a text's box designates it
MAX_LABEL = 200


def retarget_spec(
    frame: np.ndarray,
    lines: list[OcrLine],
    *,
    step_index: int,
    label: str | None,
    point: tuple[int, int] | None,
    near: tuple[int, int] | None,
) -> dict[str, Any]:
    """The new target of step `step_index`: {label, bbox, frame_size, x_pct, y_pct, source}."""
    h, w = frame.shape[:2]
    if point is not None:
        x, y = point
        if not (0 <= x < w and 0 <= y < h):
            raise FeedbackRejected(
                f"target_point ({x}, {y}) is outside step {step_index}'s screenshot ({w}x{h} pixels)"
            )
        line = _line_at(lines, point)
        if line is None:
            raise FeedbackRejected(
                f"no text within {POINT_REACH} px of ({x}, {y}) on step {step_index}'s screenshot: point at the "
                "element's label, or give target_label"
            )
        text, box = " ".join(line.text.split()), line.bbox
        if label is not None:  # both: the label names the part of the line pointed at
            hit = find_label([line], (0, 0), label, point)
            if hit is None:
                raise FeedbackRejected(f"the text at ({x}, {y}) reads {text!r}, not {label!r}")
            text, box = " ".join(label.split()), hit.bbox
    else:
        assert label is not None
        hit = find_label(lines, (0, 0), label, near or (w // 2, h // 2))
        if hit is None:
            raise FeedbackRejected(
                f"{label!r} is not on step {step_index}'s screenshot: give a text visible there, or target_point"
            )
        text, box = " ".join(label.split()), hit.bbox
    bx, by, bw, bh = (int(v) for v in box)
    cx, cy = bx + bw / 2, by + bh / 2
    return {
        "label": text[:MAX_LABEL],
        "bbox": [bx, by, bw, bh],
        "frame_size": [w, h],
        "x_pct": round(cx / w, 4),
        "y_pct": round(cy / h, 4),
        "source": "person",
    }


def _line_at(lines: list[OcrLine], point: tuple[int, int]) -> OcrLine | None:
    near = [(distance_to_box(point, line.bbox), line) for line in lines if line.text.strip()]
    near = [(d, line) for d, line in near if d <= POINT_REACH]
    return min(near, key=lambda pair: pair[0])[1] if near else None


# Target keys that describe the demonstrated element: they go when a person names another one.
DEMONSTRATED_KEYS = (
    "element", "anchor_ref", "anchor_offset", "label_offset", "label_width", "by_text", "uia", "x_pct", "y_pct", "bbox",
    "in_field", "label_click",
)  # fmt: skip


def retargeted(target: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """The step's target once a person named another element (`spec` from `retarget_spec`)."""
    kept = {k: v for k, v in target.items() if k not in DEMONSTRATED_KEYS}
    return kept | {
        "label": spec["label"],
        "by_text": spec["label"],
        "bbox": list(spec["bbox"]),
        "frame_size": list(spec["frame_size"]),
        "x_pct": spec["x_pct"],
        "y_pct": spec["y_pct"],
    }
