"""The thorough path: a dialog found by its words and buttons when no outline gives it away.

Run on a single frame whose fast path found no dialog (or nothing it could name): the whole frame
is read once, then each line that reads like a dialog's title (or its known body words) is taken
with the lines just below it; a block whose lines name a catalog entry AND that shows at least one
of its buttons below the title is a dialog. Slower than the fast path (a full-frame OCR), and never
sure enough to answer anything by itself: its confidence stays under the resolver's skip threshold.
When no block names an entry, a row of known button labels and the lines above it may still be a
dialog whose shape names a generic kind (`button_blocks`, structure.py); a file chooser is told by
its layout (structure.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from rpa_mcp.dialogs.apps import AppConfirmer
from rpa_mcp.dialogs.catalog import GENERIC_IDS, DialogCatalog
from rpa_mcp.dialogs.chooser_layout import Chooser, file_chooser, title_band
from rpa_mcp.dialogs.choosers import bare_chooser
from rpa_mcp.dialogs.classification import Classification, ReadButton, seen
from rpa_mcp.dialogs.identify import STRUCTURE_CONFIDENCE, Identifier
from rpa_mcp.dialogs.matching import Matcher, compact
from rpa_mcp.dialogs.reading import icon_check
from rpa_mcp.dialogs.structure import QUESTIONS, kind_of, labels_among, ok_kind
from rpa_mcp.vision.images import BBox, crop
from rpa_mcp.vision.ocr import OcrEngine, OcrLine

BLOCK_BELOW = 400  # px (at 1080 rows) of a dialog under its title line (a camera preview makes a bubble tall)
BLOCK_LEFT, BLOCK_RIGHT = 320, 640  # px (at 1080 rows) beside the title line
MAX_BUTTON_CHARS = 32
THOROUGH_CONFIDENCE = 0.55  # < the resolver's skip (0.6) and auto (0.85) thresholds: a person decides
MAX_ANCHORS = 8
# a dialog found from its buttons up (px at 1080 rows): its row of buttons, the text above it
ROW_SLACK = 0.8  # of a label's height: two labels on one row
ROW_W = 520
TEXT_ABOVE = 220
TEXT_LEFT, TEXT_RIGHT = 560, 120
ICON_MARGIN = 96  # px beside a block of words where its icon may sit
MESSAGE_BELOW, MESSAGE_ALIGN = 3.0, 1.0  # line heights: how far under an origin alone its message starts, how aligned


def classify_thorough(
    identifier: Identifier, ocr: OcrEngine, image: np.ndarray, confirm: AppConfirmer, *, seen: Sequence[OcrLine] = ()
) -> Classification | None:
    """A dialog found by its words and buttons on the whole frame read once, or a file chooser by its
    layout; None when neither is there. `seen`: lines read on located boxes (their buttons, each read
    alone, and the title bar above them): a short label in a thick frame ("OK") or a faint title the
    full-frame read misses still tells a chooser."""
    catalog = identifier.catalog
    unknown = catalog.unknown
    best: Classification | None = None
    read = ocr.read(image)
    for block in blocks(catalog, identifier.matcher, read, image.shape[0]):
        buttons = [ReadButton(b.text.strip(), b.bbox) for b in block.buttons]
        lines = [line.text.strip() for line in block.lines]
        found = identifier.match(
            block.bbox,
            buttons,
            lines,
            confirm=confirm,
            icon=icon_check(image, _beside(block.bbox, image.shape[0])),
            flat=labels_among(lines),
            whole_frame=True,
        )
        # a chooser's title over its buttons alone (a download's "Save File" choice): the chooser's own layout decides
        if bare_chooser(ocr, image, found.entry, block.bbox, lines):
            continue
        if found.found and found.dialog_id != unknown.id and (best is None or found.confidence > best.confidence):
            best = found
    best = best or _by_buttons(catalog, image, read)
    chooser = file_chooser([*read, *_unread(seen, read)], image.shape[0])
    if chooser is not None and chooser.guessed and chooser.kind == "file-open":
        chooser = _titled(ocr, image, chooser)
    # a question's own words (a deletion, a file that exists) outrank file names read behind its buttons
    if chooser is not None and (best is None or (best.dialog_id in GENERIC_IDS and best.dialog_id not in QUESTIONS)):
        entry = catalog.get(chooser.kind)
        assert entry is not None, f"{chooser.kind}: a generic kind of the catalog"
        best = Classification(
            entry.id,
            entry,
            STRUCTURE_CONFIDENCE,
            "screenshot",
            True,
            chooser.bbox,
            None,
            tuple(ReadButton(b.text.strip(), b.bbox) for b in chooser.buttons),
            notes=(f"a file chooser: {chooser.why}",),
        )
    if best is None:
        return None
    return replace(
        best,
        confidence=min(best.confidence, THOROUGH_CONFIDENCE),
        region_found_by="words",
        path="thorough",
        notes=(*best.notes, "found by its words and buttons on the whole frame (no outline named it)"),
    )


def _titled(ocr: OcrEngine, image: np.ndarray, chooser: Chooser) -> Chooser:
    """A chooser whose accept button names no action, told again from the band above it read on its own:
    a faint title bar ("Save Image File") that a read of the whole frame, shrunk, misses."""
    band = ocr.read(crop(image, title_band(chooser.bbox, image.shape[0])))
    title = next((line.text.strip() for line in band if ok_kind([line]) == "file-save-as"), None)
    if title is None:
        return chooser
    return replace(chooser, kind="file-save-as", why=f"{chooser.why}, titled above it '{title}'")


def _unread(seen: Sequence[OcrLine], read: Sequence[OcrLine]) -> list[OcrLine]:
    """The lines of `seen` the full-frame read did not find where they are, or read otherwise there (a
    button read alone, "Open", where the whole frame read "Qpen")."""
    return [
        line
        for line in seen
        if not any(_overlap(line.bbox, r.bbox) and compact(r.text) == compact(line.text) for r in read)
    ]


def _overlap(a: BBox, b: BBox) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _by_buttons(catalog: DialogCatalog, image: np.ndarray, read: Sequence[OcrLine]) -> Classification | None:
    """A dialog found from its row of buttons up, named by its shape alone (never by its words)."""
    for block in button_blocks(read, image.shape[0]):
        lines = [line.text.strip() for line in block.lines]
        shape = kind_of([b.text for b in block.buttons], lines, icon_check(image, _beside(block.bbox, image.shape[0])))
        kind = catalog.get(shape.kind) if shape is not None else None
        if shape is not None and kind is not None:
            buttons = [ReadButton(b.text.strip(), b.bbox) for b in block.buttons]
            notes = [f"{kind.id} by its shape: {shape.why} (found from its buttons up)"]
            return seen(kind, STRUCTURE_CONFIDENCE, block.bbox, buttons, lines, notes)
    return None


def _beside(bbox: BBox, frame_height: int) -> BBox:
    """A block widened to its left, where its icon may sit."""
    x, y, w, h = bbox
    margin = int(ICON_MARGIN * max(1.0, frame_height / 1080))
    return (x - margin, y, w + margin, h)


class Block:
    """Lines of the frame taken as one dialog: a title line and what lies under it."""

    def __init__(self, anchor: OcrLine, lines: list[OcrLine], buttons: list[OcrLine]) -> None:
        self.anchor = anchor
        self.lines = lines
        self.buttons = buttons

    @property
    def bbox(self) -> BBox:
        boxes = [line.bbox for line in (*self.lines, *self.buttons)]
        x0 = min(b[0] for b in boxes)
        y0 = min(b[1] for b in boxes)
        x1 = max(b[0] + b[2] for b in boxes)
        y1 = max(b[1] + b[3] for b in boxes)
        return (x0, y0, x1 - x0, y1 - y0)


def blocks(catalog: DialogCatalog, matcher: Matcher, read: Sequence[OcrLine], frame_height: int) -> list[Block]:
    """Candidate dialogs among the frame's lines, most promising first (each with a button)."""
    scale = max(1.0, frame_height / 1080)  # a smaller screen draws dialogs no smaller
    labels = _button_labels(catalog)
    anchors = [
        line
        for line in read
        if _anchor(matcher, line.text) and not _lone_word(matcher, line, read) and not _in_toolbar(line, read, labels)
    ]
    anchors = anchors[:MAX_ANCHORS]
    out = []
    for anchor in anchors:
        ax, ay, aw, _ = anchor.bbox
        near = [
            line
            for line in read
            if ay - 4 <= line.bbox[1] <= ay + BLOCK_BELOW * scale
            and line.bbox[0] + line.bbox[2] >= ax - BLOCK_LEFT * scale
            and (line.bbox[0] <= ax + aw + BLOCK_RIGHT * scale or _further_on_row(line, anchor))
        ]
        buttons = [
            line
            for line in near
            if line is not anchor and len(line.text) <= MAX_BUTTON_CHARS and compact(line.text) in labels
        ]
        if not buttons:
            continue
        text = [anchor, *sorted((x for x in near if x is not anchor and x not in buttons), key=lambda x: x.bbox[1])]
        out.append(Block(anchor, text, sorted(buttons, key=lambda b: (b.bbox[1], b.bbox[0]))))
    return out


def button_blocks(read: Sequence[OcrLine], frame_height: int) -> list[Block]:
    """Candidate dialogs found from their buttons up: a row of known button labels (OK, Yes/No, Save
    and Don't Save...) and the lines just above it. Only their shape may name them (structure.py)."""
    scale = max(1.0, frame_height / 1080)
    labels = [line for line in read if len(line.text) <= MAX_BUTTON_CHARS and labels_among([line.text])]
    out: list[Block] = []
    seen: set[tuple[BBox, ...]] = set()
    for label in labels:
        _lx, ly, _lw, lh = label.bbox
        row = [
            b
            for b in labels
            if abs(b.bbox[1] - ly) <= ROW_SLACK * lh and abs(b.bbox[0] - label.bbox[0]) <= ROW_W * scale
        ]
        key = tuple(sorted(b.bbox for b in row))
        if key in seen:
            continue
        seen.add(key)
        left = min(b.bbox[0] for b in row) - TEXT_LEFT * scale
        right = max(b.bbox[0] + b.bbox[2] for b in row) + TEXT_RIGHT * scale
        above = [
            line
            for line in read
            if line not in row
            and line.bbox[1] + line.bbox[3] <= ly
            and ly - line.bbox[1] <= TEXT_ABOVE * scale
            and line.bbox[0] + line.bbox[2] >= left
            and line.bbox[0] <= right
        ]
        if not above:
            continue
        above.sort(key=lambda x: x.bbox[1])
        out.append(Block(above[0], above, sorted(row, key=lambda b: b.bbox[0])))
    return out


def _further_on_row(line: OcrLine, anchor: OcrLine) -> bool:
    """`line` sits on `anchor`'s row, right of it: a bar across a window (a site's permission request)
    puts its buttons at the far end of its one line of text."""
    centre = line.bbox[1] + line.bbox[3] / 2
    anchor_centre = anchor.bbox[1] + anchor.bbox[3] / 2
    return line.bbox[0] > anchor.bbox[0] + anchor.bbox[2] and abs(centre - anchor_centre) <= anchor.bbox[3]


def _in_toolbar(line: OcrLine, read: Sequence[OcrLine], labels: set[str]) -> bool:
    """`line` is a button's label with another button's label beside it on its row: a row of buttons (a
    window's toolbar: "Open  Save  Validate"), no dialog's title. A title stands alone on its row, or heads
    a bar whose buttons follow its sentence."""
    if compact(line.text) not in labels:
        return False
    middle, height = line.bbox[1] + line.bbox[3] / 2, line.bbox[3]
    return any(
        other is not line
        and compact(other.text) in labels
        and abs(other.bbox[1] + other.bbox[3] / 2 - middle) <= ROW_SLACK * height
        for other in read
    )


def _anchor(matcher: Matcher, text: str) -> bool:
    """A line that reads like a catalog dialog's title, or holds one of its body keywords."""
    return bool(matcher.by_title(text)) or matcher.title_like(text)


def _lone_word(matcher: Matcher, line: OcrLine, read: Sequence[OcrLine]) -> bool:
    """A one-word line named by a title pattern alone (a page's origin: "intranet.chu.fr") with no line
    under it where a message would start: an origin heads its alert's message, left-aligned under it
    within a few of its heights; a file name in a list ("prive.fig", under the window that names it)
    has none, and no browser is there to have drawn it."""
    text = line.text.strip()
    if " " in text or matcher.title_like(text) or not matcher.by_pattern_only(text):
        return False
    x, y, _w, h = line.bbox
    return not any(
        other is not line and 0 < other.bbox[1] - y <= MESSAGE_BELOW * h and abs(other.bbox[0] - x) <= MESSAGE_ALIGN * h
        for other in read
    )


def _button_labels(catalog: DialogCatalog) -> set[str]:
    return {compact(label) for entry in catalog.dialogs for spec in entry.buttons for label in spec.labels()}
