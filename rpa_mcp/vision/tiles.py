"""Reading a region larger than the text detector's input at its own scale: whole, or in overlapping tiles.

The detector scales an image whose longer side exceeds `DETECT_SIDE` down to it: a whole 1920x1080
screen is read at half scale, where an 11 px table cell's text may vanish, and even at 0.94 (a
1024x768 window) the cells of a dense grid's column (rows 15 px apart) run together into one box two
rows high that reads nothing. A region of at most `OWN_SCALE_PIXELS` (a window, the wide search
region) is read whole at its own scale (`read_region`, by an engine that can: `OwnScaleReader`): its
detection costs up to twice the scaled one, where a scaled read that missed was followed by two tiles
or more. When that read misses, the region is read scaled as before (`read_at_other_scale`: a dense
grid read at one scale may lose a line the other keeps). A larger one (the whole screen) is read
scaled, then, when that misses, `read_tiled` reads it in tiles of `DETECT_SIDE`, each overlapping the
next by half a tile (a line shorter than half a tile is whole in one of them), and keeps each line
once: lines read twice (the same text, boxes overlapping) are one, the one with the wider box (the
other may be its part cut by a tile's edge).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from rpa_mcp.vision.ocr import DETECT_SIDE, OcrLine, normalize_text

OWN_SCALE_PIXELS = 1280 * 1024  # px of area: a region up to this is detected at its own scale


class Reader(Protocol):
    def read(self, image: np.ndarray) -> list[OcrLine]: ...


@runtime_checkable
class OwnScaleReader(Protocol):
    def read(self, image: np.ndarray) -> list[OcrLine]: ...

    def read_own_scale(self, image: np.ndarray) -> list[OcrLine]:
        """`read` without the detector's scaling down (vision.ocr.RapidOcrEngine)."""
        ...


def needs_tiles(width: int, height: int) -> bool:
    return max(width, height) > DETECT_SIDE


def read_whole_at_own_scale(ocr: Reader, width: int, height: int) -> bool:
    """Does `read_region` read a region of this size whole at its own scale?"""
    return needs_tiles(width, height) and width * height <= OWN_SCALE_PIXELS and isinstance(ocr, OwnScaleReader)


def read_region(ocr: Reader, image: np.ndarray) -> list[OcrLine]:
    """The lines of a region: at its own scale when it is at most `OWN_SCALE_PIXELS` and the engine can,
    else as the engine reads it (scaled down beyond `DETECT_SIDE`)."""
    height, width = image.shape[:2]
    if isinstance(ocr, OwnScaleReader) and read_whole_at_own_scale(ocr, width, height):
        return ocr.read_own_scale(image)
    return ocr.read(image)


def read_at_other_scale(ocr: Reader, image: np.ndarray) -> list[OcrLine]:
    """The lines of a region larger than the detector's input, read at the scale `read_region` did not read
    it at: scaled down when it read it whole at its own scale, else at its own scale in tiles. A dense grid
    read at one scale may lose a line the other keeps."""
    height, width = image.shape[:2]
    return ocr.read(image) if read_whole_at_own_scale(ocr, width, height) else read_tiled(ocr, image)


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
