"""Score the rectangles of a frame as dialogs: buttons in a footer, a drop shadow, what changed.

Evidence a candidate may carry:
- `buttons`: a button group in its footer (the strongest sign of a dialog);
- `new`: with the previous frame, a compact changed rectangle on an otherwise unchanged screen;
- `panel`: a small floating box without buttons (a toast, a notification, a bubble) — shadowed,
  or anchored at the right edge near the top or bottom; the classifier keeps it only when its
  text names a catalog entry, because page cards look the same;
- `clipped`: a framed panel with a title cut by the bottom of the screen or by the taskbar (a
  dialog dragged low, its buttons hidden): kept by the classifier on the same terms as a panel;
- `shadow` and `backdrop` (bonus: a box with buttons much brighter than the page around it, a
  modal over a dimmed page) and `band` (penalty: its side borders run on, a band of a larger panel).

A box whose title bar ends with minimize, maximize and close is an application's main window, never
a candidate: its status bar cells would read as a row of buttons. A button-sized box beside another
button, flat on the page, is one of a row of buttons (a form's footer that appeared), never a
candidate either (a toast floats: it casts a shadow). A frame cut by the screen is the weakest
evidence: it ranks after every other kind of candidate.

With the previous frame, the regions that changed (nearby changes joined) are candidates too: a
bubble drawn white on a white page has no outline to find. A box inside a larger new box with
its own buttons is that box's content, demoted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np

from rpa_mcp.dialogs.locate.buttons import button_group, dedupe, faces, in_a_row
from rpa_mcp.dialogs.locate.edges import (
    casts_shadow,
    closed_regions,
    complete_occluded,
    edge_map,
    grow_up,
    merge_bands,
    over_backdrop,
    runs_on,
)
from rpa_mcp.dialogs.locate.footer import box_above_footer
from rpa_mcp.dialogs.locate.frames import caption_buttons, clipped_below
from rpa_mcp.dialogs.locate.geometry import area, flush, inside, same_box
from rpa_mcp.dialogs.locate.tiled import box_over_tiled_row
from rpa_mcp.vision.images import BBox

MIN_DIALOG_W, MIN_DIALOG_H = 120, 50
REFERENCE_AREA, REFERENCE_H = 1920 * 1080, 1080  # a dialog's size limits, in pixels of a 1080p screen
MIN_SCORE = 2.0  # below: nothing dialog-like on the frame (dialogs score >= 2.4, page cards <= 1.5)
FOOTER_MIN_GAP = 4  # px between the lowest buttons and the bottom edge (status bars sit flush)
SHADOW_BONUS = 1.0
NEW_RING_MAX = 0.2  # changed share allowed around a "new rectangle"
PAGE_CHANGE_MAX = 0.08  # changed share of the frame outside a "new rectangle": more is a page change
BAND_PENALTY = 1.5
PANEL_MAX_SHARE = 0.06
PANEL_SCORE = 2.2
EDGE_NEAR = 48  # px from the right edge for a toast
CORNER_NEAR = 220  # px from the top or the bottom for a toast
BLOB_JOIN = 41  # px: changes this close belong to one changed region
CONTENT_PENALTY = 2.0
TRIM_SHARE = 0.08  # a changed region's side column with less change than this share of its height is cut
CLIPPED_SCORE = MIN_SCORE  # the weakest evidence: read after every other kind of candidate
CLIPPED_MAX_SHARE = 0.2
FACE_SAME = 0.5  # IoU of a button on the undilated map with a face of the dilated one: the same button
TWIN_GAP = 10  # px: two candidates with the same buttons whose sides are all this close are one box
BEHIND_PENALTY = 1.5  # a box whose outline another box's covers is a window behind it
HIDDEN_OUTLINE, DRAWN_OUTLINE = 0.5, 0.9  # shares of an outline drawn inside the other box: hidden, drawn
CROSS_MARGIN = 6  # px: a corner this far inside another box lies under it
MIN_STRETCH = 12  # px: a shorter stretch of a side inside another box tells nothing
BUTTON_MAX_ASPECT = 6  # a stacked button is at most this many times as wide as high (a field is wider)
BAR_MAX_H = 2 * MIN_DIALOG_H  # a box this short flush with the frame's bottom is a bar (a clipped dialog shows more)


@dataclass(frozen=True)
class ModalRegion:
    bbox: BBox  # visible part of the dialog, frame coordinates
    buttons: tuple[BBox, ...]  # its buttons, frame coordinates: a row left to right, a stack top down
    score: float
    evidence: tuple[str, ...] = ()  # buttons | new | panel | clipped | shadow | backdrop | band

    @property
    def buttonless(self) -> bool:
        return "buttons" not in self.evidence


def find_modal(image: np.ndarray, previous: np.ndarray | None = None) -> ModalRegion | None:
    """The most dialog-like rectangle of the frame, or None."""
    return max(score_candidates(image, previous), key=lambda m: (m.score, area(m.bbox)), default=None)


def score_candidates(image: np.ndarray, previous: np.ndarray | None = None) -> list[ModalRegion]:
    """Every rectangle with modal evidence and a score >= MIN_SCORE, best first."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    edges = edge_map(gray)
    regions = closed_regions(edges, 30, 14)
    # a focused button whose ring is drawn tight round its label fills its face with edges: kept by the ring
    return _ranked(gray, edges, regions, faces(gray, edges, regions), previous)


def thin_framed(image: np.ndarray) -> list[ModalRegion]:
    """Dialogs whose buttons only an edge map left undilated closes, best first: a button framed by a
    thin line a pixel or two from its label and from its neighbour's frame (a toolkit drawing 1-px
    frames) joins them once the map is dilated, and no face closes. Only the faces the dilated map
    does not close are buttons here, and only candidates with a footer of them are kept: undilated,
    many more boxes close (the fields, panes and cells of every window), found on the dilated map
    already or no dialog."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    coarse = edge_map(gray)
    closed = np.array(faces(gray, coarse, closed_regions(coarse, 30, 14)), dtype=np.float64).reshape(-1, 4)
    edges = edge_map(gray, dilate=False)
    regions = closed_regions(edges, 30, 14)
    fine = faces(gray, edges, regions)
    thin = [b for b in fine if _best_iou(b, closed) <= FACE_SAME]
    if not thin:
        return []
    # a footer whose row, among every face the undilated map closes, holds one the dilated map closes
    # too was found there already (the cells of a grid close on both: only the thin ones are scored)
    return [
        m
        for m in _ranked(gray, edges, regions, thin, None)
        if "buttons" in m.evidence and tuple(button_group(m.bbox, [b for b in fine if inside(b, m.bbox)])) == m.buttons
    ]


def _best_iou(box: BBox, boxes: np.ndarray) -> float:
    """The largest IoU of `box` with the rows (x, y, w, h) of `boxes` (0.0 for none)."""
    if boxes.size == 0:
        return 0.0
    x, y, w, h = box
    ix = np.clip(np.minimum(x + w, boxes[:, 0] + boxes[:, 2]) - np.maximum(x, boxes[:, 0]), 0, None)
    iy = np.clip(np.minimum(y + h, boxes[:, 1] + boxes[:, 3]) - np.maximum(y, boxes[:, 1]), 0, None)
    inter = ix * iy
    return float((inter / (w * h + boxes[:, 2] * boxes[:, 3] - inter)).max())


def _ranked(
    gray: np.ndarray, edges: np.ndarray, regions: list[BBox], buttons: list[BBox], previous: np.ndarray | None
) -> list[ModalRegion]:
    """The candidates built from an edge map's closed regions and button faces, scored, best first."""
    height, width = gray.shape
    bands = [r for r in regions if r[2] >= 60 and r[3] >= 20]
    candidates = {r for r in merge_bands(bands) if r[2] >= MIN_DIALOG_W and r[3] >= MIN_DIALOG_H}
    for fragment in list(candidates):
        group = button_group(fragment, buttons)
        if not group:
            # a dialog whose corner is under another window: grow the fragment into the whole dialog
            grown = complete_occluded(fragment, edges)
            if grown != fragment and button_group(grown, buttons):
                candidates.add(grown)
        elif runs_on(edges, fragment):
            # the footer band of a taller dialog (a file dialog's bottom, a title hidden by a window)
            taller = grow_up(fragment, edges)
            if taller != fragment:
                candidates.add(taller)
    candidates.update(_footers(gray, edges, buttons, candidates))
    candidates.update(_tiled(edges, bands, buttons))
    changed, changed_share = _changed_mask(gray, previous)
    blobs: set[BBox] = set()
    if changed is not None:
        # the region that changed, as a whole: a bubble drawn white on a white page has no outline
        # the edge map closes, but its title, buttons and shadow changed together
        blobs = set(_changed_blobs(changed))
        candidates.update(blobs)

    frame_area = width * height
    scored: list[ModalRegion] = []
    for cand in candidates:
        region = _score(cand, gray, edges, buttons, changed, changed_share, frame_area, tall=cand in blobs)
        if region is not None:
            scored.append(region)
    ranked = _demote_behind(_demote_content(_demote_windows(scored)), edges)
    return _drop_twins([m for m in ranked if m.score >= MIN_SCORE])


def _stacked_buttons(cand: BBox, buttons: list[BBox]) -> bool:
    """`cand` is two or more buttons of its width, one over the other, and no more (a file dialog's Save
    over its Cancel at 125 % display scaling, wider than a dialog's smallest width): no dialog. A face
    that holds a narrower one is a band of a dialog (Motif's button area round Yes / No), no button; a
    face as tall as the box is the box itself (a toast); a face many times wider than high is a field
    (a Win32 file dialog's name and type fields, one over the other, are left to the rules after)."""
    _x, _y, w, h = cand
    spanning = dedupe(
        [
            b
            for b in buttons
            if inside(b, cand)
            and b[2] >= 0.95 * w
            and b[3] < 0.6 * h
            and b[2] <= BUTTON_MAX_ASPECT * b[3]
            and not any(inside(o, b) and o[2] < 0.5 * b[2] for o in buttons)
        ]
    )
    return len(spanning) >= 2 and h < 2.2 * max(b[3] for b in spanning)


def _drop_twins(ranked: list[ModalRegion]) -> list[ModalRegion]:
    """The outer and inner outline of one box (a card's border and its inset) with the same buttons
    are one candidate: reading both would spend a read on the same text and push the next one out."""
    kept: list[ModalRegion] = []
    for region in ranked:
        if not any(k.buttons and k.buttons == region.buttons and same_box(k.bbox, region.bbox, TWIN_GAP) for k in kept):
            kept.append(region)
    return kept


def _footers(gray: np.ndarray, edges: np.ndarray, buttons: list[BBox], boxes: set[BBox]) -> set[BBox]:
    """Dialogs rebuilt from the buttons no box holds (a dark dialog whose top runs into a toolbar of its
    own grey has no closed outline, only its footer and sides)."""
    height, width = gray.shape
    holders = [b for b in boxes if area(b) < 0.45 * width * height]
    out: set[BBox] = set()
    for button in dedupe(buttons):
        if any(inside(button, b) and button != b for b in holders):
            continue
        found = box_above_footer(gray, edges, button)
        if found is not None and found[2] >= MIN_DIALOG_W and found[3] >= MIN_DIALOG_H:
            out.add(found)
    return out


def _tiled(edges: np.ndarray, bands: list[BBox], buttons: list[BBox]) -> set[BBox]:
    """Dialogs rebuilt from a body band over a row of buttons tiling its width (ink outside touching
    the outline keeps it from closing)."""
    distinct = dedupe(buttons)
    out: set[BBox] = set()
    for band in bands:
        if band[2] < MIN_DIALOG_W:
            continue
        found = box_over_tiled_row(edges, band, distinct)
        if found is not None and found[3] >= MIN_DIALOG_H:
            out.add(found)
    return out


def _score(
    cand: BBox,
    gray: np.ndarray,
    edges: np.ndarray,
    buttons: list[BBox],
    changed: np.ndarray | None,
    changed_share: float,
    frame_area: int,
    *,
    tall: bool = False,
) -> ModalRegion | None:
    """`tall`: a region that changed on its own (a prompt with a camera preview) may be taller than
    wide and large on a small screen; an outline that tall is a side panel of the page."""
    height, width = gray.shape
    x, y, w, h = cand
    share = area(cand) / frame_area
    # a dialog is drawn no smaller on a smaller screen (GTK's file chooser, 1100 x 850 px): its limits are
    # a 1080p screen's
    largest = area(cand) / max(frame_area, REFERENCE_AREA)
    if largest > 0.45 or w > 0.8 * width or h > 0.85 * max(height, REFERENCE_H) or w < (0.5 if tall else 0.6) * h:
        return None  # a window, the page or a side panel, not a dialog
    if y + h >= height - 1 and h < BAR_MAX_H:
        return None  # a bar along the screen's bottom (the taskbar, a status bar): dialogs float above it
    if in_a_row(cand, buttons) and not casts_shadow(gray, cand):
        return None  # a button beside another one (a form's buttons that appeared); a toast floats
    row = button_group(cand, buttons)
    if row and caption_buttons(edges, cand):
        return None  # an application's main window (minimize, maximize, close) and its status bar
    if row and not tall and y + h - max(b[1] + b[3] for b in row) < FOOTER_MIN_GAP:
        # cells flush with the bottom edge: a status bar or tabs, not a dialog's buttons (a region
        # that changed ends where the change does: at its last button when the page shows through)
        row = []
    if row and h < 2.2 * max(b[3] for b in row):
        return None  # a button strip, not a whole dialog
    if _stacked_buttons(cand, buttons):
        return None  # buttons of one width stacked: a box a button wide, however wide scaling draws them
    score, evidence = 0.0, []
    if row:
        button_h = max(b[3] for b in row)
        gap_below = y + h - max(b[1] + b[3] for b in row)
        # a dialog's buttons sit in its footer; a window's "buttons" far above its bottom edge
        # belong to something drawn on top of it
        if gap_below <= 2.2 * button_h:
            score += 2.0 + 0.2 * min(len(row), 3)
            evidence.append("buttons")
        else:
            score += 0.5 + 0.2 * min(len(row), 3)
    if changed is not None and share < (0.3 if tall else 0.15):
        fresh = _new_rectangle(changed, cand)
        outside = changed_share - fresh * share
        if fresh > 0.0 and outside <= PAGE_CHANGE_MAX:
            score += 2.5 * fresh
            evidence.append("new")
    shadow = casts_shadow(gray, cand)
    if shadow:
        score += SHADOW_BONUS
        evidence.append("shadow")
    if row and over_backdrop(gray, cand):
        # a modal over a dimmed page: borders of the page behind that line up with it are no band
        score += SHADOW_BONUS
        evidence.append("backdrop")
    # a window's own title bar above it (its borders in the box's columns) makes it no band
    band = "backdrop" not in evidence and runs_on(edges, cand, title_bar=True)
    if band:
        score -= BAND_PENALTY
        evidence.append("band")
    elif "backdrop" not in evidence and runs_on(edges, cand):
        evidence.append("titled")  # its title bar is its own: its words are the dialog's title
    if not row and "new" not in evidence and not band and share <= PANEL_MAX_SHARE and h <= 0.3 * height:
        corner = x + w >= width - EDGE_NEAR and (y <= CORNER_NEAR or y + h >= height - CORNER_NEAR)
        if shadow or corner:
            score = max(score, PANEL_SCORE + (0.3 if corner else 0.0))
            evidence.append("panel")
    if (
        not {"buttons", "new", "panel"} & set(evidence)
        and not band
        and share <= CLIPPED_MAX_SHARE
        and h >= 2 * MIN_DIALOG_H
        and clipped_below(edges, cand)
        and not caption_buttons(edges, cand)  # a main window dragged low is still no dialog
    ):
        score = max(score, CLIPPED_SCORE)
        evidence.append("clipped")
        row = []  # its buttons are hidden: boxes higher up are its content
    score += 0.5 * min(1.0, share / 0.02)  # very small boxes are rarely dialogs
    if not {"buttons", "new", "panel", "clipped"} & set(evidence):
        return None
    return ModalRegion(cand, tuple(row), score, tuple(evidence))


def _demote_windows(scored: list[ModalRegion]) -> list[ModalRegion]:
    """A dialog sits on top of a window: when two candidates hold the same buttons, the inner one is
    the dialog and the outer one the window behind it. So it is when the inner one has buttons of its
    own in its footer and the outer one did not appear with its buttons (then the inner one is its
    content, see _demote_content): a prompt over a file dialog, each with its own buttons."""
    scored.sort(key=lambda m: area(m.bbox))
    kept: list[ModalRegion] = []
    for region in scored:
        inner = [
            k
            for k in kept
            if k.buttons
            and inside(k.bbox, region.bbox)
            and (
                any(b in region.buttons for b in k.buttons)
                or ("buttons" in k.evidence and "new" not in region.evidence)
            )
            and not flush(k.bbox, region.bbox)  # a band of the dialog itself, not a dialog on a window
            and area(k.bbox) < 0.5 * area(region.bbox)
        ]
        if inner:
            region = ModalRegion(region.bbox, region.buttons, region.score - 1.5, region.evidence)
        kept.append(region)
    return sorted(kept, key=lambda m: (m.score, area(m.bbox)), reverse=True)


def _demote_behind(scored: list[ModalRegion], edges: np.ndarray) -> list[ModalRegion]:
    """Of two boxes with buttons that overlap, neither inside the other, the one behind is the one whose
    outline stops where the other's box begins (a question wider than the file panel it was raised over:
    the panel's sides end at the question's borders, the question's own run across the panel): it is
    demoted as a window behind a dialog is."""
    out: list[ModalRegion] = []
    for region in scored:
        fronts = [
            m
            for m in scored
            if m is not region
            and m.buttons
            and region.buttons
            and _crosses(region.bbox, m.bbox)
            and _drawn_inside(edges, region.bbox, m.bbox) < HIDDEN_OUTLINE
            and _drawn_inside(edges, m.bbox, region.bbox) >= DRAWN_OUTLINE
        ]
        if fronts:
            region = ModalRegion(region.bbox, region.buttons, region.score - BEHIND_PENALTY, region.evidence)
        out.append(region)
    return sorted(out, key=lambda m: (m.score, area(m.bbox)), reverse=True)


def _crosses(a: BBox, b: BBox) -> bool:
    """The boxes overlap and a corner of `a` lies well inside `b`, neither box inside the other."""
    if inside(a, b) or inside(b, a):
        return False
    bx, by, bw, bh = b
    ax, ay, aw, ah = a
    m = CROSS_MARGIN
    corners = ((ax, ay), (ax + aw, ay), (ax, ay + ah), (ax + aw, ay + ah))
    return any(bx + m < x < bx + bw - m and by + m < y < by + bh - m for x, y in corners)


def _drawn_inside(edges: np.ndarray, box: BBox, other: BBox) -> float:
    """How much of `box`'s outline the edge map draws where it runs inside `other` (a margin in): the
    least drawn share among its sides' stretches there (1 when none runs there)."""
    x, y, w, h = box
    ox, oy, ow, oh = other
    m = CROSS_MARGIN
    x0, x1, y0, y1 = ox + m, ox + ow - m, oy + m, oy + oh - m
    shares = [1.0]
    for row in (y, y + h - 1):  # top and bottom sides
        lo, hi = max(x, x0), min(x + w, x1)
        if y0 <= row < y1 and hi - lo >= MIN_STRETCH:
            shares.append(float(edges[max(0, row - 1) : row + 2, lo:hi].any(axis=0).mean()))
    for col in (x, x + w - 1):  # left and right sides
        lo, hi = max(y, y0), min(y + h, y1)
        if x0 <= col < x1 and hi - lo >= MIN_STRETCH:
            shares.append(float(edges[lo:hi, max(0, col - 1) : col + 2].any(axis=1).mean()))
    return min(shares)


def _demote_content(scored: list[ModalRegion]) -> list[ModalRegion]:
    """A box inside a larger box that appeared with its own buttons is part of its content (a
    prompt's camera preview with its device list), not a dialog of its own."""
    new = [m for m in scored if "new" in m.evidence and m.buttons]
    out: list[ModalRegion] = []
    for region in scored:
        holders = [
            m
            for m in new
            if m is not region
            and inside(region.bbox, m.bbox)
            and not flush(region.bbox, m.bbox)
            and area(region.bbox) < 0.6 * area(m.bbox)
            and not set(region.buttons) & set(m.buttons)
        ]
        if holders:
            region = ModalRegion(region.bbox, region.buttons, region.score - CONTENT_PENALTY, region.evidence)
        out.append(region)
    return sorted(out, key=lambda m: (m.score, area(m.bbox)), reverse=True)


def _new_rectangle(changed: np.ndarray, box: BBox, ring: int = 20) -> float:
    """Changed share inside `box` when the change is a compact new rectangle (little change in a
    ring around it), else 0: a tab switch repaints a whole page, a pop-up only its own box."""
    x, y, w, h = box
    inside_ = changed[y : y + h, x : x + w]
    outer = changed[max(0, y - ring) : y + h + ring, max(0, x - ring) : x + w + ring]
    around = (float(outer.sum()) - float(inside_.sum())) / 255.0
    ring_px = outer.size - inside_.size
    if ring_px <= 0 or around / ring_px > NEW_RING_MAX:
        return 0.0
    return float(inside_.mean()) / 255.0


def _changed_blobs(changed: np.ndarray, limit: int = 3) -> list[BBox]:
    """The largest dialog-sized regions of the change map once nearby changes are joined (the
    lines and buttons of one box are a few tens of pixels apart)."""
    joined = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((BLOB_JOIN, BLOB_JOIN), np.uint8))
    ranked = _largest(changed, _component_boxes(joined))
    if len(ranked) > limit and area(ranked[limit - 1]) == area(ranked[limit]):
        # a tie at the cut is broken by the components' order: take connectedComponents' own
        count, _, stats, _ = cv2.connectedComponentsWithStats((joined > 0).astype(np.uint8), connectivity=8)
        ranked = _largest(changed, [(int(x), int(y), int(w), int(h)) for x, y, w, h, _ in stats[1:count]])
    return ranked[:limit]


def _largest(changed: np.ndarray, boxes: list[BBox]) -> list[BBox]:
    """The trimmed boxes of dialog size, largest first (ties in the given order)."""
    blobs = [_trim(changed, box) for box in boxes]
    sized = [b for b in blobs if b[2] >= MIN_DIALOG_W and b[3] >= MIN_DIALOG_H]
    return sorted(sized, key=area, reverse=True)


def _component_boxes(mask: np.ndarray) -> list[BBox]:
    """The bounding boxes of the 8-connected components of a mask (those of
    connectedComponentsWithStats, maybe in another order).

    A component's outer border (findContours: foreground 8-connected; a component in a hole of
    another is a top-level contour of its own) has the component's box: tracing borders costs
    ~0.4 ms on a 1080p mask where labelling every pixel costs ~13 ms.
    """
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    outer = [c for c, (_next, _prev, _child, parent) in zip(contours, hierarchy[0], strict=True) if parent < 0]
    return [cast(BBox, tuple(int(v) for v in cv2.boundingRect(c))) for c in outer]


def _trim(changed: np.ndarray, box: BBox) -> BBox:
    """Side columns where little changed are cut: a line of text that moved beside the box (the
    address bar's text shifted by the prompt's chip) joined it but is no part of it."""
    x, y, w, h = box
    columns = (changed[y : y + h, x : x + w] > 0).sum(axis=0)
    kept = np.flatnonzero(columns >= TRIM_SHARE * h)
    if kept.size == 0:
        return box
    return (x + int(kept[0]), y, int(kept[-1] - kept[0]) + 1, h)


def _changed_mask(gray: np.ndarray, previous: np.ndarray | None) -> tuple[np.ndarray | None, float]:
    if previous is None:
        return None, 0.0
    prev = cv2.cvtColor(previous, cv2.COLOR_BGR2GRAY) if previous.ndim == 3 else previous
    if prev.shape != gray.shape:
        return None, 0.0
    diff = cv2.absdiff(gray, prev)
    _, mask = cv2.threshold(diff, 24, 255, cv2.THRESH_BINARY)
    share = cv2.countNonZero(mask) / mask.size
    if share < 0.0005 or share > 0.6:  # nothing, or everything (dimmed backdrop): no signal
        return None, share
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8)), share
