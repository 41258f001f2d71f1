"""Find a dialog in a frame with OpenCV only (no OCR): rectangles, buttons, floating panels, text lines.

A dialog is a rectangle made of stacked bands (header, body, footer) with a group of
button-like rectangles near its bottom (a row, or Chromium's stack of full-width buttons),
sitting on top of larger windows; a toast or a bubble is a small floating panel. We find
closed regions of an edge map, merge vertically stacked bands of the same width, complete
rectangles whose corner is hidden by another window or whose footer alone is closed, rebuild those
whose outline ink outside touches from their body over a row of buttons tiling its width, and score
the candidates. When the previous frame is given, what changed between the two frames weighs in.
"""

from rpa_mcp.dialogs.locate.candidates import (
    MIN_DIALOG_H,
    MIN_DIALOG_W,
    ModalRegion,
    find_modal,
    score_candidates,
    thin_framed,
)
from rpa_mcp.dialogs.locate.geometry import iou
from rpa_mcp.vision.lines import text_lines

__all__ = [
    "MIN_DIALOG_H",
    "MIN_DIALOG_W",
    "ModalRegion",
    "find_modal",
    "iou",
    "score_candidates",
    "text_lines",
    "thin_framed",
]
