"""Where a target's label is looked for: around the point the person clicked, in the frame as it is now.

The recorded point is a share of the frame (`rel_x`/`rel_y`, or percentages); a placeholder point (the
thresholds' `drift.placeholders`) is no point at all. Around a point, OCR reads a small first region
(`first_look_region`), then a local and a wide region (`search_regions`) — and, in a window resized since the
demonstration, the same around the point kept from the window's top-left corner, and after its agent scrolled
to bring the target into view, around the points moved with the content; without a point, a box
recorded for the target (three times its size), else the target's window as it stands now, else the
whole frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rpa_mcp.vision.images import BBox, clamp_bbox

Point = tuple[float, float]  # shares of the frame's width and height
SCALED_KEY = "scaled_rel"  # the recorded point at the same share of its window's new frame (`window_frame`)
# the recorded point at the same distance from its window's top-left corner in its new frame (`window_frame`)
ANCHORED_KEY = "top_left_rel"
# the recorded point (and its top-left-anchored one) moved with the content its agent scrolled (`window_frame`)
SCROLLED_KEY = "scrolled_rel"
WINDOW_KEY = "window_now"  # the target's window's box on the screen now, as its agent reports it (`window_frame`)
OPENED_KEY = "opened_list"  # the list a drop-down opened at replay (shares of the frame, as its agent saw it change)
OPENED_PAD = 6  # px around the opened list a hit may lie in (its border, a line the list's edge cuts)


def recorded_position(spec: Mapping[str, Any]) -> Point | None:
    """The point the person clicked, as shares of the frame (given as shares or as percentages)."""
    rx = spec.get("rel_x", spec.get("x_pct", spec.get("fallback_x_pct")))
    ry = spec.get("rel_y", spec.get("y_pct", spec.get("fallback_y_pct")))
    if not isinstance(rx, int | float) or not isinstance(ry, int | float):
        return None
    rx, ry = float(rx), float(ry)
    if rx > 1.0 or ry > 1.0:  # given in percent
        rx, ry = rx / 100.0, ry / 100.0
    return rx, ry


def anchored_point(spec: Mapping[str, Any]) -> Point | None:
    """The recorded point kept at its distance from its window's top-left corner (a page or a form laid out
    from the top left, in a window resized since the demonstration); None when the window did not change."""
    value = spec.get(ANCHORED_KEY)
    if isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int | float) for v in value):
        return float(value[0]), float(value[1])
    return None


def scrolled_points(spec: Mapping[str, Any]) -> tuple[Point, ...]:
    """The recorded point and its top-left-anchored one moved with the content its agent scrolled (none when
    it did not scroll)."""
    value = spec.get(SCROLLED_KEY)
    if not isinstance(value, list | tuple):
        return ()
    return tuple(
        (float(p[0]), float(p[1]))
        for p in value[:4]
        if isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(v, int | float) for v in p)
    )


def other_points(spec: Mapping[str, Any]) -> tuple[Point, ...]:
    """Where else than the recorded point the target may stand: top-left anchored, moved by a scroll."""
    anchored = anchored_point(spec)
    return (*((anchored,) if anchored else ()), *scrolled_points(spec))


def top_left_anchored(
    spec: Mapping[str, Any], pos: Point, shape: tuple[int, ...], size: tuple[int, int]
) -> tuple[Point, ...]:
    """The other points (`other_points`) that lie apart from `pos` and from each other (a quarter of a region
    or more)."""
    h, w = shape[:2]
    kept: list[Point] = []
    for point in other_points(spec):
        if all(
            abs(point[0] - seen[0]) * w >= size[0] / 4 or abs(point[1] - seen[1]) * h >= size[1] / 4
            for seen in (pos, *kept)
        ):
            kept.append(point)
    return tuple(kept)


def search_regions(
    shape: tuple[int, ...], pos: Point | None, spec: Mapping[str, Any], size: tuple[int, int]
) -> list[BBox]:
    """The regions OCR reads in turn (`size`: the local region's width and height; the wide one is twice it)."""
    h, w = shape[:2]
    rw, rh = size
    if pos is not None:
        regions = []
        for point in (pos, *top_left_anchored(spec, pos, shape, size)):
            cx, cy = int(point[0] * w), int(point[1] * h)
            local = clamp_bbox((cx - rw // 2, cy - rh // 2, rw, rh), shape)
            wide = clamp_bbox((cx - rw, cy - rh, 2 * rw, 2 * rh), shape)
            regions += [local, wide]
        return regions
    bbox = spec.get("bbox")
    if isinstance(bbox, list | tuple) and len(bbox) == 4:
        x, y, bw, bh = (int(v) for v in bbox)
        return [clamp_bbox((x - bw, y - bh, 3 * bw, 3 * bh), shape)]
    window = spec.get(WINDOW_KEY)
    if isinstance(window, list | tuple) and len(window) == 4:  # no point, no box: its whole window
        x, y, ww, wh = (int(v) for v in window)
        region = clamp_bbox((x, y, ww, wh), shape)
        if region[2] > 0 and region[3] > 0:
            return [region]
    return [(0, 0, w, h)]  # no recorded position, no window known: the only place to look is everywhere


def opened_list(spec: Mapping[str, Any], shape: tuple[int, ...]) -> BBox | None:
    """The box (pixels of this frame, padded by OPENED_PAD) of the list the step's drop-down opened, as its agent
    saw the screen change after clicking the drop-down; None when the spec does not give one."""
    box = spec.get(OPENED_KEY)
    if not isinstance(box, list | tuple) or len(box) != 4 or not all(isinstance(v, int | float) for v in box):
        return None
    h, w = shape[:2]
    x, y, bw, bh = (float(v) for v in box)
    if bw <= 0 or bh <= 0:
        return None
    region = clamp_bbox(
        (
            round(x * w) - OPENED_PAD,
            round(y * h) - OPENED_PAD,
            round(bw * w) + 2 * OPENED_PAD,
            round(bh * h) + 2 * OPENED_PAD,
        ),
        shape,
    )
    return region if region[2] > 0 and region[3] > 0 else None


def record_regions(shape: tuple[int, ...], spec: Mapping[str, Any]) -> list[BBox]:
    """Where a record is looked for: its whole window as the agent reports it, else the whole screen —
    every row that could be it is read, never only those near where the demonstrated one was."""
    return search_regions(shape, None, {k: v for k, v in spec.items() if k != "bbox"}, (0, 0))


def first_look_region(
    shape: tuple[int, ...], pos: Point | None, spec: Mapping[str, Any], size: tuple[int, int]
) -> BBox | None:
    """The small region read before the search regions: `size` centred on the recorded point, grown to hold
    the label's expected place for a field named by a label beside it (`label_offset`, the label's line
    starting that far up-left of the click). None without a recorded point."""
    if pos is None:
        return None
    h, w = shape[:2]
    fw, fh = size
    px, py = int(pos[0] * w), int(pos[1] * h)
    x0, y0, x1, y1 = px - fw // 2, py - fh // 2, px + fw // 2, py + fh // 2
    offset, frame = spec.get("label_offset"), spec.get("frame_size")
    if isinstance(offset, list | tuple) and len(offset) == 2 and all(isinstance(v, int | float) for v in offset):
        scale = w / frame[0] if isinstance(frame, list | tuple) and frame and frame[0] else 1.0
        lx, ly = round(px - float(offset[0]) * scale), round(py - float(offset[1]) * scale)
        x0, y0 = min(x0, lx - fw // 4), min(y0, ly - fh // 2)
        x1, y1 = max(x1, lx + fw * 3 // 4), max(y1, ly + fh // 2)
    return clamp_bbox((x0, y0, x1 - x0, y1 - y0), shape)
