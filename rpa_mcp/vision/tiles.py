"""Reading a region larger than the text detector's input at its own scale, in overlapping tiles.

The detector scales an image whose longer side exceeds `DETECT_SIDE` down to it: a whole 1920x1080
screen is read at half scale, where an 11 px table cell's text may vanish. `read_tiled` reads such a
region in tiles of that side, each overlapping the next by half a tile (a line shorter than half a
tile is whole in one of them), and keeps each line once: lines read twice (the same text, boxes
overlapping) are one, the one with the wider box (the other may be its part cut by a tile's edge).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from rpa_mcp.vision.ocr import DETECT_SIDE, OcrLine, normalize_text


class Reader(Protocol):
    def read(self, image: np.ndarray) -> list[OcrLine]: ...


def needs_tiles(width: int, height: int) -> bool:
    return max(width, height) > DETECT_SIDE


def tile_starts(length: int, side: int = DETECT_SIDE) -> list[int]:
    """Where tiles of `side` start along `length`, half a tile apart, the last one ending at its end."""
    if length <= side:
        return [0]
    step = side // 2
    starts = list(range(0, length - side, step))
    return [*starts, length - side]


def read_tiled(ocr: Reader, image: np.ndarray, side: int = DETECT_SIDE) -> list[OcrLine]:
    """The lines of `image` (its coordinates), each read once, at the image's own scale."""
    height, width = image.shape[:2]
    kept: list[OcrLine] = []
    for y0 in tile_starts(height, side):
        for x0 in tile_starts(width, side):
            for line in ocr.read(image[y0 : y0 + side, x0 : x0 + side]):
                bx, by, bw, bh = line.bbox
                placed = OcrLine(line.text, (x0 + bx, y0 + by, bw, bh), line.score)
                twin = next((i for i, k in enumerate(kept) if _same_line(k, placed)), None)
                if twin is None:
                    kept.append(placed)
                elif placed.bbox[2] > kept[twin].bbox[2]:
                    kept[twin] = placed
    return kept


def _same_line(a: OcrLine, b: OcrLine) -> bool:
    ax, ay, aw, ah = a.bbox
    bx, by, bw, bh = b.bbox
    overlaps = ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah
    if not overlaps:
        return False
    ta, tb = normalize_text(a.text), normalize_text(b.text)
    return bool(ta and tb) and (ta in tb or tb in ta)
