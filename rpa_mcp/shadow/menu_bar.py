"""A click on a menu bar no accessibility tree names: the item under the click, not the whole bar.

A text detector reads a menu bar ("Fichier  Édition  Affichage  Aide") as one line; the click then showed a
person "Cliquer sur 'Fichier Édition Affichage Aide'". The bar is told by where and what it is: a line at
the top of the window the click was made in, cut by wide gaps into three or more parts (separate controls,
`vision.line_parts`), each a few words with no digit. The part under the click, recognised alone, names the
click when it reads whole words of the bar. A grid's row (dates, identifiers), a sentence (no wide gap) or a
line further down the window is never cut here: a record is named by its whole line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.line_parts import line_parts
from rpa_mcp.vision.ocr import OcrEngine, OcrLine, normalize_text

MENU_BAND = 80  # screen px below a window's top where its menu bar's text stands (its title bar included)
MIN_ITEMS = 3  # parts of a bar: fewer is two controls side by side, not a menu bar
MAX_ITEM_WORDS = 3
# between two items, in heights of the bar's ink (accents and descenders included, so a word space is under
# 0.35 of it): narrower than between two controls elsewhere (`line_parts.WIDE_GAP`), a bar's items being
# words of one kind in a row at its top, told apart by the checks around
ITEM_GAP = 0.55


def window_top(facts: dict[str, Any]) -> int | None:
    """The top of the window the click was made in, in its frame's pixels (None: no window reported)."""
    box, screen, size = facts.get("window_box"), facts.get("screen"), facts.get("frame_size")
    if not (isinstance(box, list) and len(box) == 4 and isinstance(screen, list) and isinstance(size, list)):
        return None
    return round(float(box[1]) * float(size[1]) / max(1.0, float(screen[1])))


def band(facts: dict[str, Any]) -> int:
    screen, size = facts.get("screen"), facts.get("frame_size")
    scale = size[1] / max(1, screen[1]) if isinstance(screen, list) and isinstance(size, list) else 1.0
    return round(MENU_BAND * scale)


def menu_item(
    frame: np.ndarray, line: OcrLine, click_x: int, top: int | None, reach: int, reader: OcrEngine
) -> OcrLine | None:
    """The menu bar's item under a click (`line` and the result in frame pixels); None when `line` is no
    menu bar (not within `reach` below the window's `top`, a digit in it, fewer than MIN_ITEMS parts) or the
    part under the click does not read a few whole words of it."""
    x0, y0 = round(line.bbox[0]), round(line.bbox[1])
    if top is None or not top - 4 <= y0 <= top + reach or any(c.isdigit() for c in line.text):
        return None
    box: BBox = (x0, y0, round(line.bbox[2]), round(line.bbox[3]))
    (x, y, _w, h), parts = line_parts(frame, box, wide=ITEM_GAP)
    if len(parts) < MIN_ITEMS:
        return None
    part = next((p for p in parts if x + p.crop_left <= click_x < x + p.crop_right), None)
    if part is None:
        return None
    read = reader.read_line(frame[y : y + h, x + part.crop_left : x + part.crop_right])
    if read is None or not _an_item_of(read.text, line.text):
        return None
    return OcrLine(read.text.strip(), (x + part.left, y, part.right - part.left, h), float(read.score))


def _an_item_of(item: str, bar: str) -> bool:
    """A few capitalised whole words of the bar, not all of it."""
    words, bar_words = normalize_text(item), normalize_text(bar)
    if not words or len(words.split()) > MAX_ITEM_WORDS or not item.strip()[:1].isupper() or words == bar_words:
        return False
    return f" {words} " in f" {bar_words} "
