"""OCR port and its RapidOCR adapter.

Screen text is data, never instructions. One engine per process, built lazily (import and
construction cost ~0.6 s). Never OCR a full frame on a hot path: find the region first.

Recognition (`read_line`, `read_lines`) costs in proportion to the width of the recognizer's
input (48 px high, ~0.08 ms of CPU per column on one thread): each crop is recognised alone at
its own width (a batch is padded to its widest crop, and the library pads every crop to at least
320 columns), and what a crop reads is remembered by a digest of its pixels (the same label in
the frame before and after an action, or read by the classifier then by a checker, is
recognised once). A region read whole (`read`: detection, then recognition) is recognised by the
library's padded batch on the wheel's model, or, for an engine made with `lines_alone` (the checkers'
engine: a target's region, the validator's and the learner's reads), line by line as `read_lines`
recognises crops — 0.6 times the time of a resolution, the same decisions (docs/decisions/step-time.md).
A region is remembered the same way: a region read again with the same pixels (a frame read whole
by the dialogs' thorough path, then again with the window reported) answers what it read. The crops
of one call are recognised `workers` at a time, each on its own thread: one inference per crop either
way, so the CPU is the same and the readings too, and a dialog's five crops take about half the wall
time on two cores.
docs/decisions/ocr-engine.md has the measurements.

An engine may recognise with another ONNX model of the same recognizer (`recognizer`), decoded over
that model's own dictionary: the checkers' engine uses the copy of the wheel's model whose head keeps
the classes of Latin-script text (`vision.latin_head`), the dialog classifier's the same cut of the
int8 copy that `vision.int8` makes.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from rpa_mcp.errors import Unavailable
from rpa_mcp.vision.images import BBox

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OcrLine:
    text: str
    bbox: BBox  # in the coordinates of the image passed in
    score: float


class OcrEngine(Protocol):
    def read(self, image: np.ndarray) -> list[OcrLine]:
        """Detect and recognise text lines in a BGR region (keep regions small)."""
        ...

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        """Recognition only, for a tight crop that holds one line (a tab label, a button)."""
        ...

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        """`read_line` of several crops in one batched inference (a dialog's title and buttons)."""
        ...


def normalize_text(text: str) -> str:
    """Accent-, case- and space-insensitive form used for every comparison of screen text."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().replace("\u2019", "'").split())


BATCH_RATIO = 1.4  # kept for callers of an older version; recognition no longer batches crops
REC_HEIGHT = 48  # the recognizer's input height (PP-OCR rec models)
REC_MIN_WIDTH = 16  # narrower crops are padded to this many columns
READ_CACHE_ENTRIES = 4096  # recognised crops remembered (a digest and a short string each)
REGION_CACHE_ENTRIES = 64  # regions read whole remembered (a digest and their lines each)
MAX_THREADS = 16  # onnxruntime threads per inference (RPA_OCR_THREADS)
MAX_WORKERS = 16  # crops of one call recognised at once (RPA_OCR_WORKERS)
MIN_WIDTH_SHARE = 0.5  # narrower inputs than half a crop's own width read garbage
DETECT_SIDE = 960  # px: the detector scales an image whose longer side exceeds this down to it (`vision.tiles`)
AUTO_WORKERS = 4  # at most this many by default: a frame has a median of four or five crops to read


def default_workers() -> int:
    """The CPUs this process may run on, at most AUTO_WORKERS (RPA_OCR_WORKERS=0)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(AUTO_WORKERS, cpus))


class RapidOcrEngine:
    """`rapidocr` 3.x on onnxruntime; the models ship inside its wheel (nothing downloaded)."""

    def __init__(
        self,
        *,
        cache_entries: int = READ_CACHE_ENTRIES,
        recognizer: Callable[[], Path | None] | None = None,
        threads: int = 1,
        workers: int = 1,
        width: float = 1.0,
        lines_alone: bool = False,
    ) -> None:
        """`recognizer`: called once, at the first use, for an ONNX model to recognise with instead of
        the wheel's (the same network and dictionary, e.g. its int8 copy); None from it keeps the wheel's.
        `threads`: onnxruntime threads per inference (RPA_OCR_THREADS); `workers`: crops of one
        `read_lines` call recognised at once (RPA_OCR_WORKERS; docs/decisions/ocr-engine.md); `width`: the
        recognizer's input width as a share of a crop's own (below 1, text narrowed for less CPU);
        `lines_alone`: a region read whole has its detected lines recognised as `read_lines` recognises
        crops (each alone at its own width, by this engine's recognizer, remembered by their pixels)
        instead of by the library's padded batch on the wheel's model (docs/decisions/step-time.md)."""
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}, not {threads}")
        if not 1 <= workers <= MAX_WORKERS:
            raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {workers}")
        if not MIN_WIDTH_SHARE <= width <= 1.0:
            raise ValueError(f"width must be from {MIN_WIDTH_SHARE} to 1, not {width}")
        self.threads = threads
        self.width = width
        self.workers = workers
        self.lines_alone = lines_alone
        self._pool: ThreadPoolExecutor | None = None  # made at the first call with crops to share out
        self._engine: Any = None  # a RapidOCR instance (untyped library): results are read duck-typed
        self._recognizer = recognizer
        self._session: Any = None  # an onnxruntime session on `recognizer`'s model, when it gave one
        self._characters: list[str] | None = None  # that model's own dictionary (its `character` metadata)
        self._decode: Any = None  # rapidocr's CTC decoder over `_characters`, made at the first recognition
        self.recognizer_model: Path | None = None  # the model recognition runs on, when not the wheel's
        self._lock = threading.Lock()
        self._reads: OrderedDict[bytes, tuple[str, float]] = OrderedDict()
        self._regions: OrderedDict[bytes, tuple[OcrLine, ...]] = OrderedDict()
        self._cache_entries = cache_entries
        self._region_entries = min(cache_entries, REGION_CACHE_ENTRIES)
        self.recognitions = 0  # crops sent to the recognizer (cache misses), for benchmarks
        self.cache_hits = 0
        self.regions_read = 0  # regions sent to detection and recognition (cache misses)
        self.region_hits = 0

    def clear_cache(self) -> None:
        """Forget what crops read (benchmarks measure cold reads)."""
        with self._lock:
            self._reads.clear()
            self._regions.clear()

    def _get(self) -> Any:
        with self._lock:
            if self._engine is None:
                try:
                    import logging

                    from rapidocr import RapidOCR

                    # "The text detection result is empty" is a normal outcome here, not a warning.
                    logging.getLogger("RapidOCR").setLevel(logging.ERROR)
                    self._engine = RapidOCR(
                        params={
                            "Global.use_cls": False,
                            "Global.log_level": "error",
                            "Det.limit_type": "max",
                            "Det.limit_side_len": DETECT_SIDE,
                            # one thread per inference by default (RPA_OCR_THREADS): a second one
                            # answers in ~0.7x the time for ~1.4x the CPU; a server's concurrency
                            # comes from requests (docs/decisions/ocr-engine.md)
                            "EngineConfig.onnxruntime.intra_op_num_threads": self.threads,
                            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                        }
                    )
                except Exception as exc:  # pragma: no cover - depends on the install
                    raise Unavailable(f"OCR engine could not start: {exc}") from exc
                if self._recognizer is not None:
                    model: Path | None = None
                    try:
                        model = self._recognizer()
                        self._session = _session(model, self.threads) if model is not None else None
                        self._characters = _dictionary(self._session) if self._session is not None else None
                        self.recognizer_model = model
                    except Exception as exc:  # a damaged model file: the wheel's model, slower, never wrong
                        self._session, self._characters, self.recognizer_model = None, None, None
                        log.warning("recognizer %s not loaded (%s); the wheel's model is used", model, exc)
            return self._engine

    def prepare(self) -> None:
        """Load the detector and the recognizer now (a model made at the first use — the int8 copy, a Latin
        head — is made here), not at the first read: `bootstrap.prepare_ocr` calls it as the server starts."""
        self._recognizer_of(self._get())

    def read(self, image: np.ndarray) -> list[OcrLine]:
        """Detection and recognition of a region; a region with the same pixels as one read before answers
        the lines it read then (the engine is deterministic: the same pixels read the same)."""
        return self._read(image, DETECT_SIDE)

    def read_own_scale(self, image: np.ndarray) -> list[OcrLine]:
        """`read` with the region detected at its own scale, however long its sides (up to the library's
        2000 px): a region wider than `DETECT_SIDE` is otherwise scaled down for the detector, where the
        lines of a dense grid (rows 15 px apart) run together into one box two rows high that reads
        nothing (`vision.tiles`). The detector's time grows with the region's area."""
        return self._read(image, max(DETECT_SIDE, *image.shape[:2]))

    def _read(self, image: np.ndarray, side: int) -> list[OcrLine]:
        if image.size == 0:
            return []
        key = (_digest(image) + (b"" if side == DETECT_SIDE else b"own")) if self._region_entries else None
        if key is not None:
            with self._lock:
                known = self._regions.get(key)
                if known is not None:
                    self._regions.move_to_end(key)
                    self.region_hits += 1
                    return list(known)
        lines = self._detect_and_read(image, side)
        if key is not None:
            with self._lock:
                self._regions[key] = tuple(lines)
                self._regions.move_to_end(key)
                while len(self._regions) > self._region_entries:
                    self._regions.popitem(last=False)
        return lines

    def _detect_and_read(self, image: np.ndarray, side: int) -> list[OcrLine]:
        if self.lines_alone:
            return self._detect_then_recognize(image, side)
        engine = self._get()
        with self._lock:  # onnxruntime sessions are shared; keep calls serial and predictable
            self.regions_read += 1
            # Explicit flags: rapidocr 3.x keeps use_det=False from a previous read_line() call.
            with _detector_side(engine, side):
                result = engine(image, use_det=True, use_cls=False, use_rec=True)
        txts, scores = getattr(result, "txts", None), getattr(result, "scores", None)
        if not txts:
            return []
        boxes = getattr(result, "boxes", None)
        if boxes is None:  # RapidOCR skipped detection (tiny image): one line over the whole region
            height, width = image.shape[:2]
            boxes = [np.array([[0, 0], [width, 0], [width, height], [0, height]])] * len(txts)
        lines = []
        for box, text, score in zip(boxes, txts, scores or [1.0] * len(txts), strict=False):
            pts = np.asarray(box)
            x0, y0 = pts.min(axis=0)
            x1, y1 = pts.max(axis=0)
            lines.append(OcrLine(str(text), (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), float(score)))
        return lines

    def _detect_then_recognize(self, image: np.ndarray, side: int) -> list[OcrLine]:
        """The library's detection, then each line recognised alone (`read_lines`), kept as the library keeps
        them: a reading with letters, at its text score or more."""
        engine = self._get()
        with self._lock:
            self.regions_read += 1
            with _detector_side(engine, side):
                found = engine(image, use_det=True, use_cls=False, use_rec=False)
        boxes = getattr(found, "boxes", None)
        if boxes is None or len(boxes) == 0:
            return []
        quads = [np.asarray(box, dtype=np.float32) for box in boxes]
        minimum = float(getattr(getattr(engine.cfg, "Global", None), "text_score", 0.5))
        lines = []
        for quad, read in zip(quads, self.read_lines([line_crop(image, q) for q in quads]), strict=True):
            if read is None or read.score < minimum:
                continue
            x0, y0 = quad.min(axis=0)
            x1, y1 = quad.max(axis=0)
            lines.append(OcrLine(read.text, (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), read.score))
        return lines

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        return self.read_lines([image])[0]

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        """Recognition of several crops, each at its own width (see the module docstring)."""
        out: list[OcrLine | None] = [None] * len(images)
        todo = [(i, im, _digest(im)) for i, im in enumerate(images) if im.size and min(im.shape[:2]) >= 4]
        if not todo:
            return out
        engine = self._get()
        known: dict[bytes, tuple[str, float]] = {}
        misses: dict[bytes, np.ndarray] = {}  # a crop twice in one call is recognised once
        with self._lock:
            for _i, im, key in todo:
                read = self._reads.get(key)
                if read is not None:
                    self._reads.move_to_end(key)
                    self.cache_hits += 1
                    known[key] = read
                elif key not in misses:
                    misses[key] = im
            if misses:
                self._recognizer_of(engine)  # loaded once, before any worker needs it
        for key, read in zip(misses, self._recognize_all(engine, list(misses.values())), strict=True):
            known[key] = read
        with self._lock:
            for key in misses:
                self._reads[key] = known[key]
                self._reads.move_to_end(key)
            self.recognitions += len(misses)
            while len(self._reads) > self._cache_entries:
                self._reads.popitem(last=False)
        for i, im, key in todo:
            text, score = known[key]
            if text.strip():
                height, width = im.shape[:2]
                out[i] = OcrLine(text, (0, 0, width, height), score)
        return out

    def _recognize_all(self, engine: Any, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """Each crop through the recognizer alone, `workers` at a time (onnxruntime runs a session's
        inferences concurrently and releases the GIL meanwhile), the widest first so the last to finish
        is a short one; the readings in the order of `crops`."""
        if self.workers == 1 or len(crops) == 1:
            return [self._recognize(engine, im) for im in crops]
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="ocr")
        widest_first = sorted(range(len(crops)), key=lambda i: -crops[i].shape[1] / crops[i].shape[0])
        futures = {i: self._pool.submit(self._recognize, engine, crops[i]) for i in widest_first}
        return [futures[i].result() for i in range(len(crops))]

    @staticmethod
    def _recognizer_of(engine: Any) -> Any:
        """rapidocr 3.x's TextRecognizer (session + CTC decoder), loaded at the first call; None elsewhere."""
        load = getattr(engine, "_load_rec_model", None)
        return load() if load is not None else None

    def _recognize(self, engine: Any, image: np.ndarray) -> tuple[str, float]:
        """One crop through the recognizer at its own width (safe from several threads at once)."""
        recognizer = self._recognizer_of(engine)
        session, decode = getattr(recognizer, "session", None), getattr(recognizer, "postprocess_op", None)
        if session is None or decode is None:  # pragma: no cover - another rapidocr layout: its own path
            result = engine.recognize_txt([image])
            return str((result.txts or ("",))[0]), float((result.scores or (0.0,))[0])
        if self._session is not None and self._characters is not None:
            if self._decode is None:  # the wheel's decoder class over this model's dictionary (blank and space
                # added); two workers may both make it: the same decoder, the last one kept
                self._decode = type(decode)(character=list(self._characters))
            decode = self._decode
        batch = rec_input(image, self.width)
        columns = batch.shape[3]
        output = (
            self._session.run(None, {self._session.get_inputs()[0].name: batch})[0] if self._session else session(batch)
        )
        lines, _words = decode(output, False, wh_ratio_list=[columns / REC_HEIGHT], max_wh_ratio=columns / REC_HEIGHT)
        text, score = lines[0]
        return str(text), float(score)


@contextmanager
def _detector_side(engine: Any, side: int) -> Iterator[None]:
    """The library's detector scaling an image whose longer side exceeds `side` down to it, for one call
    (under the engine's lock: the detector reads its limit at each call)."""
    if side == DETECT_SIDE:
        yield
        return
    load = getattr(engine, "_load_det_model", None)
    detector = load() if load is not None else getattr(engine, "text_det", None)
    if detector is None or not hasattr(detector, "limit_side_len"):  # pragma: no cover - another rapidocr layout
        yield
        return
    before = detector.limit_side_len
    detector.limit_side_len = side
    try:
        yield
    finally:
        detector.limit_side_len = before


def line_crop(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """A detected line's pixels, straightened from its four corners as the library crops them (a line
    taller than 1.5 times its width turned to lie flat)."""
    width = int(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])))
    height = int(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])))
    if width < 1 or height < 1:
        return np.zeros((0, 0, 3), dtype=np.uint8)
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    crop = cv2.warpPerspective(
        image,
        cv2.getPerspectiveTransform(quad, corners),
        (width, height),
        borderMode=cv2.BORDER_REPLICATE,
        flags=cv2.INTER_CUBIC,
    )
    return np.rot90(crop) if crop.shape[0] >= 1.5 * crop.shape[1] else crop


def rec_input(image: np.ndarray, width: float = 1.0) -> np.ndarray:
    """A crop as the recognizer's input: 48 px high at `width` times its own width, scaled to [-1, 1], NCHW."""
    rows, cols = image.shape[:2]
    columns = max(REC_MIN_WIDTH, math.ceil(round(width * REC_HEIGHT * cols / rows, 6)))  # 0.8 x 480 is 384
    resized = cv2.resize(np.ascontiguousarray(image), (columns, REC_HEIGHT)).astype(np.float32)
    return (resized.transpose(2, 0, 1)[np.newaxis] / 127.5 - 1.0).astype(np.float32)


def _session(model: Path, threads: int = 1) -> Any:
    """An onnxruntime session on `threads` threads (one by default, as rapidocr's own; with more, its
    pool spins between a frame's short inferences, as onnxruntime does by default: docs/decisions/ocr-engine.md)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])


def _dictionary(session: Any) -> list[str] | None:
    """A model's dictionary as rapidocr reads it (metadata `character`, one per line), None without one."""
    text = session.get_modelmeta().custom_metadata_map.get("character")
    return str(text).splitlines() if text is not None else None


def _digest(image: np.ndarray) -> bytes:
    """Identity of a crop's pixels (shape and type included): equal digests read the same text."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{image.shape}{image.dtype.str}".encode())
    h.update(np.ascontiguousarray(image).data)
    return h.digest()
