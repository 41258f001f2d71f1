"""A target found by its anchor image (`anchor_png_base64`): template matching, near the recorded point first.

The anchor is looked for in a local window around the recorded point, then a wider one (the thresholds'
`search.template_*_factor` times the anchor's size), then the whole frame; the first window whose best match
reaches the method's minimum score answers, else the best match seen (the guard then refuses it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np

from rpa_mcp.replay.candidates import Candidate
from rpa_mcp.replay.search_regions import Point
from rpa_mcp.replay.thresholds import Thresholds
from rpa_mcp.vision.images import BBox, clamp_bbox, decode_base64, decode_image


def anchor_match(
    image: np.ndarray, spec: Mapping[str, Any], pos: Point | None, thresholds: Thresholds
) -> Candidate | None:
    """The best place of the spec's anchor image on `image` (None: no anchor, or one larger than the frame)."""
    anchor_b64 = spec.get("anchor_png_base64")
    if not anchor_b64:
        return None
    anchor = decode_image(decode_base64(str(anchor_b64), field="anchor_png_base64"), field="anchor")
    h, w = image.shape[:2]
    ah, aw = anchor.shape[:2]
    if ah > h or aw > w:
        return None
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    tmpl = cv2.cvtColor(anchor, cv2.COLOR_BGR2GRAY)
    windows: list[BBox] = []
    if pos is not None:
        cx, cy = int(pos[0] * w), int(pos[1] * h)
        for factor in (thresholds.search.template_local_factor, thresholds.search.template_wide_factor):
            ww, wh = aw * factor, ah * factor
            windows.append(clamp_bbox((cx - ww // 2, cy - wh // 2, ww, wh), image.shape))
    windows.append((0, 0, w, h))
    best: Candidate | None = None
    minimum = thresholds.min_score("template_matching")[1] or 0.0
    for x0, y0, ww, wh in windows:
        if ww < aw or wh < ah:
            continue
        res = cv2.matchTemplate(gray[y0 : y0 + wh, x0 : x0 + ww], tmpl, cv2.TM_CCOEFF_NORMED)
        _, score, _, loc = cv2.minMaxLoc(res)
        cand = Candidate(x0 + loc[0] + aw // 2, y0 + loc[1] + ah // 2, float(score), "template_matching")
        if best is None or cand.score > best.score:
            best = cand
        if best.score >= minimum:
            break
    return best
