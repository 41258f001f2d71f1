"""A message that appeared after a step ("Enregistré", "Observation enregistrée"), read on the screen.

The frames before and after the step are compared; the regions that changed are grouped
into boxes; a small box (a toast, a banner, a status line — not a new page) is read by
OCR. Its text is kept only when it reads like a success ("enregistré", "saved", "créé",
...) and not like an error: it becomes the step's expected evidence, which the validator
checks when the workflow is replayed. OCR runs on the changed boxes only, never on the
whole frame, and at most on `MAX_BOXES` of them.

`read_opened` finds a box the step opened over a screen that otherwise stayed as it was (a form, a
dialog the application shows by design: larger than a message, smaller than a page) and reads its
title, its first line: the step's expected outcome, a dialog expected at replay.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

from rpa_mcp.vision.images import BBox, clamp_bbox
from rpa_mcp.vision.ocr import OcrEngine, normalize_text

PIXEL_THRESHOLD = 24
MIN_BOX_PIXELS = 150  # changed pixels in a box: fewer is a cursor or a blink
MAX_BOX_SHARE = 0.2  # a box larger than this share of the frame is a new page, not a message
MAX_BOXES = 3
BOTTOM_BAND = 0.05  # the taskbar clock changes on its own: no box starts in this band ...
CLOCK_RIGHT = 240  # ... and a box reaching it is followed down it, but for the clock's corner (px from the right)
MAX_TEXT = 80
SUCCESS = re.compile(
    r"enregistr|sauvegard|\bsaved?\b|succes|reussi|\bvalide|envoye|\bcree|ajoute|mis a jour|modifie|"
    r"transmis|signe|\bupdated\b|\bcreated\b|\bsent\b|\bdone\b|\bsuccess"
)
FAILURE = re.compile(r"erreur|error|echec|echoue|failed|invalide|invalid|impossible|refuse|denied|obligatoire|required")


def changed_boxes(before: np.ndarray, after: np.ndarray, *, exclude: BBox | None = None) -> list[BBox]:
    """Boxes of the regions that changed between two frames of the same size, largest first."""
    if before.shape != after.shape:
        return []
    diff = cv2.absdiff(before, after)
    mask = (diff.max(axis=2) if diff.ndim == 3 else diff) > PIXEL_THRESHOLD
    if exclude is not None:
        x, y, bw, bh = clamp_bbox(exclude, mask.shape)
        mask[y : y + bh, x : x + bw] = False
    band_top = int(mask.shape[0] * (1 - BOTTOM_BAND))
    band = mask[band_top:].copy()
    band[:, max(0, mask.shape[1] - CLOCK_RIGHT) :] = False
    mask[band_top:, :] = False
    if int(mask.sum()) < MIN_BOX_PIXELS:
        return []
    grown = cv2.dilate(mask.astype(np.uint8), np.ones((9, 25), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    boxes = []
    for i in range(1, count):
        x, y, bw, bh, _area = (int(v) for v in stats[i])
        if int(mask[y : y + bh, x : x + bw].sum()) < MIN_BOX_PIXELS:
            continue
        if y + bh >= band_top and (rows := np.flatnonzero(band[:, x : x + bw].any(axis=1))).size:
            bh = band_top + int(rows[-1]) + 1 - y  # a banner at a window's bottom edge: its lower part too
        boxes.append((x, y, bw, bh))
    return sorted(boxes, key=lambda b: b[2] * b[3], reverse=True)


def read_toast(before: np.ndarray, after: np.ndarray, ocr: OcrEngine, *, exclude: BBox | None = None) -> str | None:
    """The success message that appeared between the two frames, if any."""
    h, w = after.shape[:2]
    small = [b for b in changed_boxes(before, after, exclude=exclude) if b[2] * b[3] <= MAX_BOX_SHARE * w * h]
    for x, y, bw, bh in small[:MAX_BOXES]:
        x0, y0, cw, ch = clamp_bbox((x - 4, y - 4, bw + 8, bh + 8), after.shape)
        lines = [line for line in ocr.read(after[y0 : y0 + ch, x0 : x0 + cw]) if line.score >= 0.5]
        lines.sort(key=lambda ln: (ln.bbox[1], ln.bbox[0]))
        # the step's own target (its face pressed or focused: "Enregistrer") is never the message
        own = exclude is not None and _holds((x0, y0, cw, ch), exclude)
        texts = [
            " ".join(ln.text.split())
            for ln in lines
            if not (own and exclude is not None and _holds(_moved(ln.bbox, x0, y0), exclude))
        ]
        # the box's text together, else a line of it alone: a banner at a window's edge moves the status line
        # above it and shows a close button beside it, both in its box
        whole = [] if own else [" ".join(texts)]
        for text in [*whole, *(texts if len(texts) > 1 or own else [])]:
            if _success(text):
                return text
    return None


def _moved(box: BBox, dx: int, dy: int) -> BBox:
    return (box[0] + dx, box[1] + dy, box[2], box[3])


def _holds(box: BBox, inner: BBox) -> bool:
    """`box` holds the centre of `inner`."""
    cx, cy = inner[0] + inner[2] / 2, inner[1] + inner[3] / 2
    return box[0] <= cx <= box[0] + box[2] and box[1] <= cy <= box[1] + box[3]


def _success(text: str) -> bool:
    folded = normalize_text(text)
    return bool(text) and len(text) <= MAX_TEXT and bool(SUCCESS.search(folded)) and not FAILURE.search(folded)


OPENED_MIN_SHARE = 0.03  # an opened box covers at least this share of the frame ...
OPENED_MAX_SHARE = 0.6  # ... and at most this one (more is a new page)
OPENED_MAX_OUTSIDE = 0.1  # share of the changed pixels allowed outside it (the screen behind stayed)
TITLE_BAND = 90  # px at the top of the box where its title is read
TITLE_MIN_SCORE = 0.9
BLANK_STD = 2.0  # grey-level spread under which a region shows nothing (no title to read there before)


def read_opened(before: np.ndarray, after: np.ndarray, ocr: OcrEngine, *, exclude: BBox | None = None) -> str | None:
    """The title of a box (a form, a dialog) that opened between the two frames over an unchanged screen."""
    boxes = changed_boxes(before, after, exclude=exclude)
    if not boxes:
        return None
    h, w = after.shape[:2]
    x, y, bw, bh = boxes[0]
    if not OPENED_MIN_SHARE * w * h <= bw * bh <= OPENED_MAX_SHARE * w * h:
        return None
    diff = cv2.absdiff(before, after).max(axis=2) > PIXEL_THRESHOLD
    inside = int(diff[y : y + bh, x : x + bw].sum())
    if diff.sum() - inside > OPENED_MAX_OUTSIDE * max(1, int(diff.sum())):
        return None
    top = after[y : y + min(bh, TITLE_BAND), x : x + bw]
    lines = sorted((ln for ln in ocr.read(top) if ln.score >= TITLE_MIN_SCORE), key=lambda ln: (ln.bbox[1], ln.bbox[0]))
    text = " ".join(lines[0].text.split()) if lines else ""
    if not 3 <= len(text) <= MAX_TEXT or FAILURE.search(normalize_text(text)):
        return None
    # a title already written there before is the window's own content moved or redrawn (a panel widened
    # by the message it shows), not a form that opened
    under = before[y : y + min(bh, TITLE_BAND), x : x + bw]
    was = {normalize_text(ln.text) for ln in ocr.read(under)} if float(under.std()) > BLANK_STD else set()
    return None if normalize_text(text) in was else text
