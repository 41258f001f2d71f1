"""A text field's own box around a point, seen on the screen (for applications without an accessibility tree).

A click into a text field lands on its inside: one flat colour (the text written on it, the caret,
are holes in it) bounded by the field's border. The connected stretch of that colour around the
point, when it has a field's shape (wider than tall, a line or a few high, far smaller than the
window, most of its box filled), is the field. A point on the window's background or on a square
check box gives no field. A button or a drop-down has that shape too: only the caller knows that
text was typed after the click (a typing step), which makes the stretch a field.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox

SAME = 6  # a channel this close to the point's colour is the field's inside
MIN_HEIGHT, MAX_HEIGHT = 10, 80  # px: a line of text, a few at most
MIN_ASPECT = 2.5  # a field is this much wider than tall at least (a check box is square)
MAX_WIDTH = 0.6  # share of the frame's width: wider is a page's or a panel's background
FILLED = 0.5  # share of the box its inside covers (text written in it leaves holes)
REACH = 2  # px the point may stand from the inside (on a glyph of the text already typed)


def field_around(image: np.ndarray, point: tuple[int, int]) -> BBox | None:
    """The inside of the text field at `point` (x, y, w, h, image pixels), None when no field is there."""
    height, width = image.shape[:2]
    x, y = point
    if not (0 <= x < width and 0 <= y < height):
        return None
    seed = _background_near(image, x, y)
    if seed is None:
        return None
    mask = np.zeros((height + 2, width + 2), np.uint8)
    flags = 8 | cv2.FLOODFILL_MASK_ONLY | cv2.FLOODFILL_FIXED_RANGE | (255 << 8)
    same = (SAME,) * 3 if image.ndim == 3 else SAME
    filled, _img, _mask, rect = cv2.floodFill(image.copy(), mask, seed, 0, same, same, flags)
    fx, fy, fw, fh = (int(v) for v in rect)
    if not (MIN_HEIGHT <= fh <= MAX_HEIGHT) or fw < MIN_ASPECT * fh or fw > MAX_WIDTH * width:
        return None
    if int(filled) < FILLED * fw * fh:
        return None
    return fx, fy, fw, fh


def _background_near(image: np.ndarray, x: int, y: int) -> tuple[int, int] | None:
    """The point itself, or the nearest pixel within `REACH` of the most common colour around it."""
    x0, y0 = max(0, x - REACH), max(0, y - REACH)
    patch = image[y0 : y + REACH + 1, x0 : x + REACH + 1]
    patch = patch if patch.ndim == 3 else patch[..., None]
    colours, counts = np.unique(patch.reshape(-1, patch.shape[2]), axis=0, return_counts=True)
    spots = np.argwhere(np.all(patch == colours[int(np.argmax(counts))], axis=2))
    if spots.size == 0:
        return None
    dy, dx = min(spots.tolist(), key=lambda s: (s[0] + y0 - y) ** 2 + (s[1] + x0 - x) ** 2)
    return x0 + int(dx), y0 + int(dy)
