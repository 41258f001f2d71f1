"""Regions derived from a target box: the label inside a tab, the content under a tab strip, ..."""

from __future__ import annotations

from rpa_mcp.vision.images import BBox, clamp_bbox

LABEL_PAD = 3


def is_close_button(bbox: BBox) -> bool:
    """A small square box (a tab's x) rather than a tab or a label."""
    _, _, w, h = bbox
    return w <= 40 and h <= 40 and 0.6 <= w / max(h, 1) <= 1.6


def tab_label_box(bbox: BBox, shape: tuple[int, ...]) -> BBox:
    """The tight box where a tab's label is rendered.

    Tab box (wide): skip the favicon on the left and the close cross on the right.
    Close-button box: the label sits to its left, in a ~180 px slot.
    Otherwise (already a label box): pad a little.
    """
    x, y, w, h = bbox
    if is_close_button(bbox):
        slot = max(130, 9 * h)
        return clamp_bbox((x - slot - 4, y - 2, slot, h + 4), shape)
    if w >= 3 * h:
        inset = round(0.9 * h)
        return clamp_bbox((x + inset, y, w - 2 * inset, h), shape)
    return clamp_bbox((x - LABEL_PAD, y - LABEL_PAD, w + 2 * LABEL_PAD, h + 2 * LABEL_PAD), shape)


def label_box(bbox: BBox, shape: tuple[int, ...]) -> BBox:
    """A button's or a field's label: its box, padded a little."""
    x, y, w, h = bbox
    return clamp_bbox((x - LABEL_PAD, y - LABEL_PAD, w + 2 * LABEL_PAD, h + 2 * LABEL_PAD), shape)


def tab_box(bbox: BBox, shape: tuple[int, ...]) -> BBox:
    """The whole tab element (for its background colour)."""
    x, y, w, h = bbox
    if is_close_button(bbox):
        slot = max(160, 9 * h)
        return clamp_bbox((x + w + 6 - slot, y - 6, slot, h + 12), shape)
    return clamp_bbox(bbox, shape)


def content_below(bbox: BBox, shape: tuple[int, ...], *, skip: int = 40, taskbar: int = 64) -> BBox:
    """The page content under a tab strip: what a tab switch must change (never the whole frame)."""
    height, width = shape[:2]
    _, y, _, h = bbox
    top = y + h + skip
    return clamp_bbox((0, top, width, height - taskbar - top), shape)


def around(bbox: BBox, shape: tuple[int, ...], margin: int) -> BBox:
    x, y, w, h = bbox
    return clamp_bbox((x - margin, y - margin, w + 2 * margin, h + 2 * margin), shape)


def contains(outer: BBox, inner: BBox) -> bool:
    ox, oy, ow, oh = outer
    ix, iy, iw, ih = inner
    cx, cy = ix + iw / 2, iy + ih / 2
    return ox <= cx <= ox + ow and oy <= cy <= oy + oh
