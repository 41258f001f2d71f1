"""Per-validation shared state: both frames (decoded once), the change map, OCR and dialog caches.

Every checker of one validation reads the same arrays and the same memoised results, so
the diff is computed once and a crop is never OCR'd twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from rpa_mcp.validation.caller_schema import SchemaLimits
from rpa_mcp.validation.model import Expected, Frame, Observed, Target
from rpa_mcp.validation.ports import DialogHit, DialogLocator, JudgePort
from rpa_mcp.vision.images import BBox, clamp_bbox, crop
from rpa_mcp.vision.lines import ink_box, text_lines
from rpa_mcp.vision.ocr import OcrEngine, OcrLine

CELL = 8  # change map resolution (px per cell side)
THIN_STROKES = frozenset("lIi1|")  # glyphs of one thin stroke: a recognizer may read one too many
LARGER = 2  # a label read again this many times larger when its reading has one thin stroke too many
LAST_LETTERS = "abcdefghijklmnopqrstuvwxyzéèàùç"  # a label's last letter, looked for when a reading lacks it
BAND_READS = 4  # text lines recognised in the band around a click (the nearest ones)


@dataclass(frozen=True)
class DiffSettings:
    pixel_threshold: int = 24  # per-channel difference that counts as a changed pixel
    min_changed_pixels: int = 50  # below this the frames are "the same"
    min_blob_pixels: int = 20  # isolated specks smaller than this are noise
    clock_zone_right: int = 240  # taskbar clock: this many px from the right edge ...
    clock_zone_bottom: int = 64  # ... and from the bottom edge


@dataclass(frozen=True)
class Blob:
    bbox: BBox
    pixels: int


@dataclass
class ChangeMap:
    mask: np.ndarray  # uint8 0/255, full resolution, clock zone and specks removed
    changed_pixels: int
    blobs: list[Blob]
    ignored: list[str]

    def fraction_in(self, bbox: BBox) -> float:
        x, y, w, h = clamp_bbox(bbox, self.mask.shape)
        if w == 0 or h == 0:
            return 0.0
        return cv2.countNonZero(self.mask[y : y + h, x : x + w]) / float(w * h)

    @property
    def union_bbox(self) -> BBox | None:
        if not self.blobs:
            return None
        x0 = min(b.bbox[0] for b in self.blobs)
        y0 = min(b.bbox[1] for b in self.blobs)
        x1 = max(b.bbox[0] + b.bbox[2] for b in self.blobs)
        y1 = max(b.bbox[1] + b.bbox[3] for b in self.blobs)
        return x0, y0, x1 - x0, y1 - y0


CARET_MAX_WIDTH = 3  # a text caret is a vertical bar this thin ...
CARET_HEIGHTS = (8, 48)  # ... about one line of text high


def _text_caret(mask: np.ndarray, bbox: BBox) -> bool:
    """A change that is only a blinking text caret: a thin vertical bar, nothing else in its blob."""
    x, y, w, h = bbox
    ys, xs = np.nonzero(mask[y : y + h, x : x + w])
    if not len(xs):
        return False
    width, height = int(xs.max() - xs.min()) + 1, int(ys.max() - ys.min()) + 1
    return width <= CARET_MAX_WIDTH and CARET_HEIGHTS[0] <= height <= CARET_HEIGHTS[1]


def compute_change(before: np.ndarray, after: np.ndarray, settings: DiffSettings) -> ChangeMap:
    """Where the frames differ, ignoring the taskbar clock and isolated specks (~5 ms on 1080p)."""
    height, width = before.shape[:2]
    diff = cv2.absdiff(before, after)
    # Any channel over the threshold: threshold the 3 channels, then grey > 0 (no per-channel copies).
    _, per_channel = cv2.threshold(diff, settings.pixel_threshold, 255, cv2.THRESH_BINARY)
    _, mask = cv2.threshold(cv2.cvtColor(per_channel, cv2.COLOR_BGR2GRAY), 0, 255, cv2.THRESH_BINARY)
    ignored: list[str] = []
    zone_y, zone_x = max(0, height - settings.clock_zone_bottom), max(0, width - settings.clock_zone_right)
    clock_pixels = cv2.countNonZero(mask[zone_y:, zone_x:])
    if clock_pixels:
        mask[zone_y:, zone_x:] = 0
        ignored.append(f"taskbar clock zone: {clock_pixels} px ignored")
    cells = cv2.resize(mask, (max(1, width // CELL), max(1, height // CELL)), interpolation=cv2.INTER_AREA)
    count, labels, stats, _ = cv2.connectedComponentsWithStats((cells > 0).astype(np.uint8), connectivity=8)
    weights = np.bincount(labels.ravel(), weights=cells.ravel().astype(np.float64), minlength=count)
    blobs: list[Blob] = []
    for index in range(1, count):
        x, y, w, h, _ = stats[index]
        pixels = round(weights[index] / 255.0 * CELL * CELL)
        bbox = (int(x) * CELL, int(y) * CELL, int(w) * CELL, int(h) * CELL)
        if pixels < settings.min_blob_pixels:
            mask[bbox[1] : bbox[1] + bbox[3], bbox[0] : bbox[0] + bbox[2]] = 0
            ignored.append(f"isolated speck at {list(bbox)}: {pixels} px ignored")
            continue
        if _text_caret(mask, bbox):
            mask[bbox[1] : bbox[1] + bbox[3], bbox[0] : bbox[0] + bbox[2]] = 0
            ignored.append(f"text caret at {list(bbox)}: {pixels} px ignored")
            continue
        blobs.append(Blob(bbox, pixels))
    blobs.sort(key=lambda b: -b.pixels)
    return ChangeMap(mask=mask, changed_pixels=cv2.countNonZero(mask), blobs=blobs, ignored=ignored)


@dataclass
class CheckContext:
    action_type: str
    before: np.ndarray
    after: np.ndarray
    target: Target
    expected: Expected
    observed: Observed
    ocr: OcrEngine
    fast_ocr: OcrEngine | None = None  # reads a label looked for first (read_label); None: `ocr` only
    diff_settings: DiffSettings = field(default_factory=DiffSettings)
    dialog_locator: DialogLocator | None = None
    judge: JudgePort | None = None
    schema_limits: SchemaLimits = field(default_factory=SchemaLimits)
    ocr_calls: int = 0
    _change: ChangeMap | None = None
    _ocr_cache: dict[tuple[Frame, BBox], OcrLine | None] = field(default_factory=dict)
    _fast_cache: dict[tuple[Frame, BBox], OcrLine | None] = field(default_factory=dict)
    _dialogs: dict[Frame, DialogHit | None] = field(default_factory=dict)
    _gray_cells: dict[Frame, np.ndarray] = field(default_factory=dict)
    _bands: dict[tuple[Frame, BBox], list[OcrLine]] = field(default_factory=dict)
    memo: dict[str, Any] = field(default_factory=dict)

    def frame(self, which: Frame) -> np.ndarray:
        return self.before if which == "before" else self.after

    @property
    def shape(self) -> tuple[int, int]:
        return self.after.shape[0], self.after.shape[1]

    def change(self) -> ChangeMap:
        if self._change is None:
            self._change = compute_change(self.before, self.after, self.diff_settings)
        return self._change

    def changed_share(self, bbox: BBox) -> float:
        """The share of a box's pixels that differ between the frames: from the change map when it is
        made, else on the box alone (a dialog's box costs a fraction of a millisecond, the map ~5)."""
        if self._change is not None:
            return self._change.fraction_in(bbox)
        x, y, w, h = clamp_bbox(bbox, self.after.shape)
        if w == 0 or h == 0:
            return 0.0
        diff = cv2.absdiff(self.before[y : y + h, x : x + w], self.after[y : y + h, x : x + w])
        return float(np.count_nonzero(diff.max(axis=2) > self.diff_settings.pixel_threshold)) / float(w * h)

    def read_line(self, which: Frame, bbox: BBox) -> OcrLine | None:
        """Recognition-only OCR of a tight box (memoised per frame and box): of its letters, 4 px
        around them (vision.lines.ink_box), so that a label small in a tall box fills the height."""
        return self._read_once(self.ocr, self._ocr_cache, which, bbox)

    def read_lines(self, which: Frame, bboxes: list[BBox]) -> list[OcrLine | None]:
        """`read_line` of several boxes, recognised in one call to the engine (which shares the crops
        out among its workers: the CPUs work together on one validation's lines); each crop is the one
        `read_line` reads, recognised alone, so the readings are the same."""
        boxes = [clamp_bbox(bbox, self.after.shape) for bbox in bboxes]
        todo = [box for box in dict.fromkeys(boxes) if (which, box) not in self._ocr_cache]
        readable = [box for box in todo if box[2] >= 4 and box[3] >= 4]
        for box in todo:
            self._ocr_cache[(which, box)] = None
        if readable:
            image = self.frame(which)
            crops = [ink_box(image[y : y + h, x : x + w]) for x, y, w, h in readable]
            self.ocr_calls += len(readable)
            for box, line in zip(readable, self.ocr.read_lines(crops), strict=True):
                self._ocr_cache[(which, box)] = line
        return [self._ocr_cache[(which, box)] for box in boxes]

    def read_label(self, which: Frame, bbox: BBox, shows: Callable[[str], bool]) -> OcrLine | None:
        """`read_line` of a box where a known label is looked for: the fast engine's reading when
        `shows` it, else `read_line`'s (a label counts as absent only on the float model's reading:
        it compares exactly, and the int8 model misses some labels it reads). A reading one thin stroke
        over the label ("Flile" for "File": the recognizer read the gap between two strokes as a third)
        is never taken for it: the box is read again, drawn larger, and that reading decides."""
        if self.fast_ocr is not None:
            line = self._read_once(self.fast_ocr, self._fast_cache, which, bbox)
            if line is not None and shows(line.text):
                return line
        line = self.read_line(which, bbox)
        if line is None or shows(line.text):
            return line
        if _one_stroke_over(line.text, shows):
            larger = self._read_larger(which, bbox)  # "Flile" for "File": the label, or another word, read closer
            if larger is not None and shows(larger.text):
                return larger
        if not _one_letter_short(line.text, shows):
            return line
        whole = self._read_untrimmed(which, bbox)  # "Annule" for "Annuler": the crop to its ink cut the last letter
        return whole if whole is not None and shows(whole.text) else line

    def _read_untrimmed(self, which: Frame, bbox: BBox) -> OcrLine | None:
        """`read_line` of the box as it is, not cut to its letters (memoised): a last thin letter, a
        greyed-out label's "r", that the crop to the ink's pad leaves at its very edge."""
        box = clamp_bbox(bbox, self.after.shape)
        key = f"untrimmed_{which}_{box}"
        if key not in self.memo:
            x, y, w, h = box
            self.ocr_calls += 1
            self.memo[key] = self.ocr.read_line(self.frame(which)[y : y + h, x : x + w]) if w >= 4 and h >= 4 else None
        found: OcrLine | None = self.memo[key]
        return found

    def _read_larger(self, which: Frame, bbox: BBox) -> OcrLine | None:
        """`read_line` of the box drawn LARGER times bigger (memoised): thin strokes set close apart."""
        box = clamp_bbox(bbox, self.after.shape)
        key = f"larger_{which}_{box}"
        if key not in self.memo:
            x, y, w, h = box
            image = ink_box(self.frame(which)[y : y + h, x : x + w])
            self.ocr_calls += 1
            line = self.ocr.read_line(cv2.resize(image, None, fx=LARGER, fy=LARGER, interpolation=cv2.INTER_CUBIC))
            self.memo[key] = line and OcrLine(line.text, _scaled_down(line.bbox), line.score)
        found: OcrLine | None = self.memo[key]
        return found

    def _read_once(
        self, engine: OcrEngine, cache: dict[tuple[Frame, BBox], OcrLine | None], which: Frame, bbox: BBox
    ) -> OcrLine | None:
        box = clamp_bbox(bbox, self.after.shape)
        key = (which, box)
        if key not in cache:
            x, y, w, h = box
            if w < 4 or h < 4:
                cache[key] = None
            else:
                self.ocr_calls += engine is self.ocr  # the float model's reads, as counted before
                cache[key] = engine.read_line(ink_box(self.frame(which)[y : y + h, x : x + w]))
        return cache[key]

    def read_band(
        self,
        which: Frame,
        band: BBox,
        near: tuple[int, int] | None = None,
        accept: Callable[[list[OcrLine]], bool] | None = None,
        *,
        nearest_first: bool = False,
    ) -> list[OcrLine]:
        """The text lines of one band of a frame (memoised); boxes stay band-relative.

        Lines are found with morphology (vision.lines) and only the BAND_READS nearest to `near`
        (frame coordinates; default the band's centre) are recognised, in one batched call: a
        detector network on a 600x120 band costs 10-30x more. The others come back with no text,
        their boxes kept (a tab strip's pitch is measured on them).

        `accept`: the fast engine reads the lines first, and its reading is kept when `accept`
        says it shows what is looked for; else the lines are read again by `ocr` (as read_label).
        `nearest_first`: the fast engine reads the nearest line alone before the others, and that
        reading is kept when `accept` takes it (the others then stay unread: for a caller that
        wants the nearest line showing the label and nothing about the lines around it).
        """
        box = clamp_bbox(band, self.after.shape)
        key = (which, box)
        if key not in self._bands:
            x, y, w, h = box
            region = self.frame(which)[y : y + h, x : x + w]
            boxes = text_lines(region, drop_icons=True) if w and h else []
            cx, cy = (near[0] - x, near[1] - y) if near else (w / 2, h / 2)

            def distance(b: BBox) -> float:
                dx = max(b[0] - cx, 0, cx - (b[0] + b[2]))
                dy = max(b[1] - cy, 0, cy - (b[1] + b[3]))
                return float(dx * dx + dy * dy)

            boxes.sort(key=distance)
            chosen = boxes[:BAND_READS]
            crops = [crop(region, (b[0] - 3, b[1] - 3, b[2] + 6, b[3] + 6)) for b in chosen]

            def lines_of(reads: list[OcrLine | None]) -> list[OcrLine]:
                read = [OcrLine(r.text, b, r.score) for b, r in zip(chosen, reads, strict=False) if r is not None]
                return read + [OcrLine("", b, 0.0) for b in boxes[len(reads) :]]

            lines: list[OcrLine] | None = None
            if accept is not None and self.fast_ocr is not None and chosen:
                for count in (1, len(chosen)) if nearest_first and len(chosen) > 1 else (len(chosen),):
                    # the engine's cache makes the nearest line free the second time
                    fast = lines_of(self.fast_ocr.read_lines(crops[:count]))
                    if accept(fast):
                        lines = fast
                        break
            if lines is None:
                lines = lines_of(self.ocr.read_lines(crops))
                if chosen:
                    self.ocr_calls += 1
            self._bands[key] = lines
        return self._bands[key]

    def dialog(self, which: Frame) -> DialogHit | None:
        """The dialog the injected locator sees on a frame (None without a locator)."""
        if self.dialog_locator is None:
            return None
        if which not in self._dialogs:
            previous = self.before if which == "after" else None
            # the window the agent reported in front of that frame confirms which application shows it
            seen = self.observed
            window = (
                (seen.window_title_after, seen.process_after) if which == "after" else (seen.window_title_before, None)
            )
            windows = (window,) if any(window) else ()
            self._dialogs[which] = self.dialog_locator.locate(self.frame(which), previous=previous, windows=windows)
        return self._dialogs[which]

    def gray_cells(self, which: Frame) -> np.ndarray:
        """The frame in grey at change-map resolution (cheap global comparisons of brightness)."""
        if which not in self._gray_cells:
            image = self.frame(which)
            gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
            height, width = gray.shape
            self._gray_cells[which] = cv2.resize(
                gray, (max(1, width // CELL), max(1, height // CELL)), interpolation=cv2.INTER_AREA
            )
        return self._gray_cells[which]


def _one_stroke_over(read: str, shows: Callable[[str], bool]) -> bool:
    """`read` with one of its thin strokes left out `shows` the label: worth reading the box again."""
    return any(shows(read[:i] + read[i + 1 :]) for i, glyph in enumerate(read) if glyph in THIN_STROKES)


def _one_letter_short(read: str, shows: Callable[[str], bool]) -> bool:
    """`read` with one more letter at its end `shows` the label: its last letter may have been cut off."""
    return bool(read.strip()) and any(shows(read.rstrip() + letter) for letter in LAST_LETTERS)


def _scaled_down(bbox: BBox) -> BBox:
    x, y, w, h = bbox
    return x // LARGER, y // LARGER, w // LARGER, h // LARGER
