"""Reading a located dialog: its buttons and first text lines, recognition only on each box.

Never a full-frame OCR: OpenCV finds the boxes (the region's buttons, the text lines of its area),
then each box is recognised alone. The layout of a region is found once and serves both reads:
the first lines, then (only when those did not identify the dialog) the lines after them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rpa_mcp.dialogs.classification import ReadButton
from rpa_mcp.dialogs.locate import ModalRegion, text_lines
from rpa_mcp.dialogs.locate.icons import has_error_icon
from rpa_mcp.vision.images import BBox, crop
from rpa_mcp.vision.lines import ink_box
from rpa_mcp.vision.ocr import OcrEngine, OcrLine

MAX_LINES = 5  # text lines read per dialog (title + first body lines); each costs one recognition
FIRST_LINES = 3  # read first; the other lines only when these leave the dialog unidentified
MAX_BUTTONS = 5
MIN_LINE_W = 14
GLYPH_MAX_W = 40  # a box narrower than this and than twice its height is a close cross or an icon: not read
ROW_SLACK = 8  # px: a text this close to the buttons' middle row sits on their row
TITLE_BAR_H = 24  # px: the strip above a box where a window manager draws its title bar


@dataclass(frozen=True)
class Layout:
    """Where a region's words are: its button boxes (frame coordinates), the texts on the button
    row (a button whose frame the locator missed) and the other text lines (region coordinates)."""

    buttons: tuple[BBox, ...]
    on_row: tuple[BBox, ...]
    text: tuple[BBox, ...]


def layout(image: np.ndarray, region: ModalRegion) -> Layout:
    x, y, _, _ = region.bbox
    area = crop(image, region.bbox)
    local_buttons = [(b[0] - x, b[1] - y, b[2], b[3]) for b in region.buttons]
    boxes = [b for b in text_lines(area, exclude=local_buttons) if b[2] >= MIN_LINE_W]
    # a text on the button row is a button whose frame we missed (focus ring, occluder)
    row_y = [b[1] + b[3] / 2 - y for b in region.buttons]
    on_row = [b for b in boxes if row_y and any(abs(b[1] + b[3] / 2 - r) <= ROW_SLACK for r in row_y)]
    on_row = on_row[: max(0, MAX_BUTTONS - min(len(region.buttons), MAX_BUTTONS))]
    text = [b for b in boxes if b not in on_row and not (b[2] < GLYPH_MAX_W and b[2] < 2 * b[3])][:MAX_LINES]
    return Layout(tuple(region.buttons[:MAX_BUTTONS]), tuple(on_row), tuple(text))


def read_region(
    ocr: OcrEngine, image: np.ndarray, region: ModalRegion, found: Layout, *, max_lines: int = MAX_LINES
) -> tuple[list[ReadButton], list[str]]:
    """The region's buttons and first `max_lines` text lines, read in one batched recognition."""
    x, y, _, _ = region.bbox
    area = crop(image, region.bbox)
    text = found.text[:max_lines]
    crops = [ink_box(crop(image, (b[0] + 2, b[1] + 2, b[2] - 4, b[3] - 4))) for b in found.buttons]
    crops += [_line(area, b) for b in (*found.on_row, *text)]
    reads = ocr.read_lines(crops)
    buttons: list[ReadButton] = []
    for bbox, line in zip(found.buttons, reads, strict=False):
        if line is not None and line.text.strip():
            buttons.append(ReadButton(line.text.strip(), bbox))
    for box, line in zip(found.on_row, reads[len(found.buttons) :], strict=False):
        if line is not None and line.text.strip():
            buttons.append(ReadButton(line.text.strip(), (box[0] + x, box[1] + y, box[2], box[3])))
    if any(b[1] != region.buttons[0][1] for b in region.buttons):  # a stack: top down
        buttons.sort(key=lambda b: (b.bbox[1], b.bbox[0]))
    else:
        buttons.sort(key=lambda b: b.bbox[0])
    lines = [
        line.text.strip()
        for line in reads[len(found.buttons) + len(found.on_row) :]
        if line is not None and line.text.strip()
    ]
    return buttons, lines


def read_lines_after(ocr: OcrEngine, image: np.ndarray, region: ModalRegion, found: Layout, first: int) -> list[str]:
    """The text lines after the `first` ones (read only when those did not identify the dialog)."""
    area = crop(image, region.bbox)
    reads = ocr.read_lines([_line(area, b) for b in found.text[first:]])
    return [line.text.strip() for line in reads if line is not None and line.text.strip()]


def icon_check(image: np.ndarray, bbox: BBox) -> Callable[[], bool]:
    """Looks for an error icon in the box only when asked (most dialogs never need it)."""
    return lambda: has_error_icon(crop(image, bbox))


def _line(area: np.ndarray, box: BBox) -> np.ndarray:
    """A text line's crop with a margin of 3 px around its ink."""
    return crop(area, (box[0] - 3, box[1] - 3, box[2] + 6, box[3] + 6))


def title_bars(ocr: OcrEngine, image: np.ndarray, regions: Sequence[ModalRegion]) -> list[OcrLine]:
    """The strip just above each box with buttons, read as one line: the title bar a window manager
    draws over a dialog whose face the locator found ("Save To:"), often too faint for a full-frame
    read. A box found with its title bar gives the line above it instead: a few words of what lies
    behind, told apart by what reads them (a chooser's title words)."""
    boxes = [r.bbox for r in regions if r.buttons and r.bbox[1] >= TITLE_BAR_H]
    strips = [(x, y - TITLE_BAR_H, w, TITLE_BAR_H - 1) for x, y, w, _ in boxes]
    reads = ocr.read_lines([crop(image, strip) for strip in strips])
    return [
        OcrLine(line.text.strip(), strip, line.score)
        for strip, line in zip(strips, reads, strict=True)
        if line is not None and line.text.strip()
    ]


def title_above(ocr: OcrEngine, image: np.ndarray, box: BBox) -> str | None:
    """The strip just above `box`, read as one line: the title bar a window manager draws over a dialog
    whose face alone was located (None: no room above it, or nothing read)."""
    x, y, w, _ = box
    if y < TITLE_BAR_H:
        return None
    read = ocr.read_lines([crop(image, (x, y - TITLE_BAR_H, w, TITLE_BAR_H - 1))])
    line = read[0] if read else None
    return line.text.strip() if line is not None and line.text.strip() else None
