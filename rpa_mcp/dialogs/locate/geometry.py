"""Boxes `(x, y, w, h)`: area, containment, overlap."""

from __future__ import annotations

from rpa_mcp.vision.images import BBox


def area(b: BBox) -> int:
    return b[2] * b[3]


def inside(inner: BBox, outer: BBox, tol: int = 2) -> bool:
    return (
        inner[0] >= outer[0] - tol
        and inner[1] >= outer[1] - tol
        and inner[0] + inner[2] <= outer[0] + outer[2] + tol
        and inner[1] + inner[3] <= outer[1] + outer[3] + tol
    )


def flush(inner: BBox, outer: BBox, tol: int = 8) -> bool:
    """Inner shares the left or the right edge of outer: a band of the same panel."""
    return abs(inner[0] - outer[0]) <= tol or abs(inner[0] + inner[2] - outer[0] - outer[2]) <= tol


def same_box(a: BBox, b: BBox, tol: int) -> bool:
    """Every side of `a` within `tol` px of the same side of `b` (an outline and its inset)."""
    return (
        abs(a[0] - b[0]) <= tol
        and abs(a[1] - b[1]) <= tol
        and abs(a[0] + a[2] - b[0] - b[2]) <= tol
        and abs(a[1] + a[3] - b[1] - b[3]) <= tol
    )


def iou(a: BBox, b: BBox) -> float:
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    inter = max(0, x1 - x0) * max(0, y1 - y0)
    union = area(a) + area(b) - inter
    return inter / union if union else 0.0
