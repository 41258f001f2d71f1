"""The answered dialog's other buttons, by their shapes: is one still on screen where it stood?

A dialog still open keeps its buttons: a wizard whose "Next" became "Finish" keeps "Back" and "Cancel",
a button relabelled "Please wait…" keeps "Cancel" beside it. When the dialog locator misses the dialog
after the click, the clicked button's label gone and its surroundings changed would read as a closed
dialog; a button face of its row, still standing where it stood, says it is not.

The faces are found in the BEFORE frame on the clicked button's row (a band three buttons high across
the frame: one edge map, a few milliseconds), never through the classifier's list of read buttons (it
may hold lines of the window behind the dialog). A face is of the dialog when it lies inside the
dialog's box, or, without that box, when it is linked to the clicked button by the short gaps of a row
of buttons (a toolbar of the window behind, farther along the same line, is no button of the dialog).
Each is checked in the AFTER frame: its pixels nearly unchanged (beside what is drawn on it), or a face
of the same box found there (a focus ring moved onto it changes a few pixels, not its outline).

A dialog with one button has no other to keep: the clicked button's own face found again at its box
(relabelled "Please wait…", greyed out while the program works) says the dialog is open. A face standing
exactly where the clicked one stood is not what a closed dialog uncovers (none on the real closed pairs).
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs.locate.buttons import faces_in
from rpa_mcp.dialogs.locate.geometry import same_box
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Frame
from rpa_mcp.validation.regions import contains
from rpa_mcp.vision.images import BBox, clamp_bbox

ROW_TOLERANCE = 8  # px between the middles (and the heights) of two buttons of one row
ROW_GAP = 2.0  # a row's neighbouring buttons stand at most this many button heights apart
SAME_BOX = 3  # px each side of a face found after may stand off the face before
INK_LEVEL = 24  # channel levels off the face's colour that make a pixel drawn on it (as the change map's)
NEARLY_UNCHANGED = 0.1  # changed pixels, as a share of what is drawn on the face (label, outline), at most


def kept_button(ctx: CheckContext, button: BBox, dialog: BBox | None) -> BBox | None:
    """A face of another button of the clicked button's dialog still where it stood on the AFTER frame,
    or None. `button`: the clicked button's box; `dialog`: the dialog's box before, when known."""
    row = _row_faces(ctx, button, dialog)
    after = None
    for face in row:
        if _nearly_unchanged(ctx, face):
            return face
        if after is None:
            after = _band_faces(ctx, "after", button)
        if any(same_box(face, other, SAME_BOX) for other in after):
            return face
    return None


def clicked_face_kept(ctx: CheckContext, button: BBox) -> BBox | None:
    """The clicked button's own face, found again at the same box on the AFTER frame, or None."""
    clicked = [
        f
        for f in _clicked_faces(_band_faces(ctx, "before", button), button)
        if f[3] <= 2 * button[3]  # the button's face (a wide one too), not a box holding its row
    ]
    if not clicked:
        return None
    face = min(clicked, key=lambda f: f[2] * f[3])
    for other in _band_faces(ctx, "after", button):
        if same_box(face, other, SAME_BOX) or (_inside(face, other) and _inside(other, button, SAME_BOX)):
            return other  # the same face, or the button's outer face where only an inner one was found before
    return None


def _clicked_faces(faces: list[BBox], button: BBox) -> list[BBox]:
    return [f for f in faces if contains(f, button)]  # its face (and a footer band holding the row)


def _band(ctx: CheckContext, button: BBox) -> BBox:
    height, width = ctx.shape
    _x, y, _w, h = button
    return clamp_bbox((0, y - h, width, 3 * h), (height, width))


def _band_faces(ctx: CheckContext, which: Frame, button: BBox) -> list[BBox]:
    """The faces across the frame on the clicked button's line (its own, and those its row may hold)."""
    key = f"button_faces_{which}"
    if key not in ctx.memo:
        middle, reach = button[1] + button[3] / 2, button[3] / 2 + ROW_TOLERANCE

        def on_the_line(box: BBox) -> bool:
            return abs(box[1] + box[3] / 2 - middle) <= reach

        ctx.memo[key] = faces_in(ctx.frame(which), _band(ctx, button), on_the_line)
    found: list[BBox] = ctx.memo[key]
    return found


def _row_faces(ctx: CheckContext, button: BBox, dialog: BBox | None) -> list[BBox]:
    """The faces of the other buttons of the clicked one's row, in the BEFORE frame."""
    faces = _band_faces(ctx, "before", button)
    clicked = _clicked_faces(faces, button)
    ref = min(clicked, key=lambda f: f[2] * f[3]) if clicked else button
    middle = ref[1] + ref[3] / 2
    row = [
        f
        for f in faces
        if abs(f[1] + f[3] / 2 - middle) <= ROW_TOLERANCE
        and abs(f[3] - ref[3]) <= ROW_TOLERANCE
        and (f[0] >= ref[0] + ref[2] - SAME_BOX or f[0] + f[2] <= ref[0] + SAME_BOX)  # beside it, not on it
    ]
    if dialog is not None:
        return [f for f in row if _inside(f, dialog)]
    return _linked(ref, row)


def _linked(ref: BBox, row: list[BBox]) -> list[BBox]:
    """The faces reached from the clicked one along the row by gaps a row of buttons leaves."""
    gap = ROW_GAP * ref[3]
    linked: list[BBox] = []
    left, right = ref[0], ref[0] + ref[2]
    for face in sorted((f for f in row if f[0] >= right - SAME_BOX), key=lambda f: f[0]):
        if face[0] - right > gap:
            break
        linked.append(face)
        right = max(right, face[0] + face[2])
    for face in sorted((f for f in row if f[0] + f[2] <= left + SAME_BOX), key=lambda f: -(f[0] + f[2])):
        if left - (face[0] + face[2]) > gap:
            break
        linked.append(face)
        left = min(left, face[0])
    return linked


def _inside(inner: BBox, outer: BBox, tol: int = 2) -> bool:
    return (
        inner[0] >= outer[0] - tol
        and inner[1] >= outer[1] - tol
        and inner[0] + inner[2] <= outer[0] + outer[2] + tol
        and inner[1] + inner[3] <= outer[1] + outer[3] + tol
    )


def _nearly_unchanged(ctx: CheckContext, face: BBox) -> bool:
    """Few of the face's pixels changed, beside what is drawn on it before (its label, its outline): a
    face over a blank page of its colour that went changes no more than its label, and that is all."""
    x, y, w, h = face
    image = ctx.before if ctx.before.ndim == 3 else ctx.before[:, :, None]
    pixels = image[y : y + h, x : x + w].reshape(-1, image.shape[2]).astype(np.int16)
    if pixels.size == 0:
        return False
    colour = np.median(pixels, axis=0)
    ink = int(np.count_nonzero(np.abs(pixels - colour).max(axis=1) > INK_LEVEL))
    return _changed_pixels(ctx, face) <= NEARLY_UNCHANGED * max(ink, 1)


def _changed_pixels(ctx: CheckContext, face: BBox) -> int:
    """The face's pixels that differ between the frames, from the frames themselves: the change map leaves
    out the taskbar clock's corner, where a dialog's last button may stand on a screen without a taskbar."""
    x, y, w, h = clamp_bbox(face, ctx.after.shape)
    diff = cv2.absdiff(ctx.before[y : y + h, x : x + w], ctx.after[y : y + h, x : x + w])
    diff = diff.max(axis=2) if diff.ndim == 3 else diff
    return int(np.count_nonzero(diff > ctx.diff_settings.pixel_threshold))
