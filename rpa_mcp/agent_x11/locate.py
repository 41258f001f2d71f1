"""Where to act: the server's resolution, this agent's own OCR, or the recorded position.

Order: coordinates the server already put on the action; then `POST /api/v1/resolve_target`
(memory, OCR, template, behind the server's quality guard) or, with `--resolve local`, OCR of
this agent's own screenshot around the recorded position; the recorded position alone only for
a target that has nothing to look for (no label). A target with a label that cannot be found is
not clicked: the agent reports `target_not_resolved` and the replay pauses. A record-selecting
target (``identity`` in its spec) is clicked only where its line reads that record, never at the
recorded position alone.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import httpx2
import numpy as np

from rpa_mcp.replay import identity
from rpa_mcp.replay.wire import NextAction
from rpa_mcp.vision.ocr import OcrEngine, normalize_text

RESOLVE_PATH = "/api/v1/resolve_target"
LOCAL_REGION = (900, 500)  # half-width, half-height searched around the recorded position


@dataclass(frozen=True)
class Located:
    x: int | None
    y: int | None
    method: str
    reason: str | None = None

    @property
    def found(self) -> bool:
        return self.x is not None and self.y is not None


def recorded_point(action: NextAction, size: tuple[int, int]) -> tuple[int, int] | None:
    target = action.target
    if target is None or target.rel_x is None or target.rel_y is None:
        return None
    rx, ry = (v / 100.0 if v > 1.0 else v for v in (target.rel_x, target.rel_y))
    return round(rx * (size[0] - 1)), round(ry * (size[1] - 1))


def spec_of(action: NextAction) -> dict[str, Any]:
    target = action.target
    if target is None:
        return {}
    spec = dict(target.spec)
    if target.label and not (spec.get("label") or spec.get("by_text")):
        spec["label"] = target.label
    return spec


def locate_on_server(
    client: httpx2.Client,
    headers: dict[str, str],
    action: NextAction,
    png: bytes,
    window_title: str | None,
    machine_id: str | None = None,
    windows: list[dict[str, Any]] | None = None,
) -> Located:
    body = {
        "image": {"png_base64": base64.b64encode(png).decode("ascii")},
        "target_spec": spec_of(action),
        "window_title": window_title,
        "machine_id": machine_id,  # the target memory read is this workstation's own
        "windows": windows or [],  # top-most first, with boxes: a moved window, a covered target
    }
    response = client.post(RESOLVE_PATH, json=body, headers=headers)
    if response.status_code >= 400:
        return Located(None, None, "server_error", f"resolve_target answered HTTP {response.status_code}")
    data = response.json()
    if not data.get("resolved"):
        return Located(None, None, str(data.get("method") or "not_found"), data.get("reason") or "not found")
    return Located(int(data["x"]), int(data["y"]), str(data.get("method") or "server"))


def locate_locally(ocr: OcrEngine, action: NextAction, frame: np.ndarray) -> Located:
    """OCR around the recorded position (or the whole screen) for the target's label."""
    spec = spec_of(action)
    label = spec.get("label") or spec.get("by_text")
    height, width = frame.shape[:2]
    if not label:
        return Located(None, None, "no_label", "the target has no label to look for")
    point = recorded_point(action, (width, height))
    x0, y0, x1, y1 = 0, 0, width, height
    if point is not None:
        hw, hh = LOCAL_REGION
        x0, y0 = max(0, point[0] - hw), max(0, point[1] - hh)
        x1, y1 = min(width, point[0] + hw), min(height, point[1] + hh)
    wanted = normalize_text(str(label))
    best: tuple[float, int, int] | None = None
    for line in ocr.read(frame[y0:y1, x0:x1]):
        if normalize_text(line.text) != wanted or line.score < 0.8:
            continue
        bx, by, bw, bh = line.bbox
        cx, cy = x0 + bx + bw // 2, y0 + by + bh // 2
        distance = float(np.hypot(cx - point[0], cy - point[1])) if point else 0.0
        if best is None or distance < best[0]:
            best = (distance, cx, cy)
    if best is None:
        return Located(None, None, "ocr_not_found", f"{label!r} is not on the screen")
    if identity.identity_of(spec) is not None:  # a record: its line must read the one the person chose
        seen = identity.check(identity.row_text(ocr, frame, best[1], best[2]), spec)
        if not seen.ok:
            return Located(None, None, "identity_mismatch", seen.reason)
    return Located(best[1], best[2], "agent_ocr")
