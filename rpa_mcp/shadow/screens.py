"""Reading the stored screenshots for a step's evidence: a toast that appeared, a screen left unchanged.

Results are cached on the event they belong to (its facts), so a step re-derived as new
events arrive never pays twice for the same pair of frames.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

import cv2
import numpy as np

from rpa_mcp.errors import RpaError
from rpa_mcp.shadow.ports import TraceRepository
from rpa_mcp.shadow.toasts import BOTTOM_BAND, PIXEL_THRESHOLD, read_opened, read_toast
from rpa_mcp.validation.context import DiffSettings, compute_change
from rpa_mcp.vision.images import clamp_bbox, decode_image
from rpa_mcp.vision.marks import Learned, mark_beside
from rpa_mcp.vision.ocr import OcrEngine

logger = logging.getLogger(__name__)

SAME_SCREEN_MAX_CHANGE = 0.01  # share of pixels that may differ (a cursor, a blinking caret, a clock)
CACHE_FRAMES = 4


class StoredScreens:
    def __init__(self, traces: TraceRepository, ocr: OcrEngine, session_id: str, *, max_pixels: int) -> None:
        self.traces, self.ocr, self.session_id, self.max_pixels = traces, ocr, session_id, max_pixels
        self._frames: OrderedDict[str, np.ndarray | None] = OrderedDict()

    def frame(self, shot: str) -> np.ndarray | None:
        if shot in self._frames:
            self._frames.move_to_end(shot)
            return self._frames[shot]
        try:
            image: np.ndarray | None = decode_image(self.traces.get_screenshot(shot), max_pixels=self.max_pixels)
        except RpaError:
            logger.warning("screenshot %s could not be read back", shot)
            image = None
        self._frames[shot] = image
        while len(self._frames) > CACHE_FRAMES:
            self._frames.popitem(last=False)
        return image

    def unchanged(self, a: str, b: str) -> bool | None:
        """Whether nothing but a text caret, a taskbar clock or specks differs between two screenshots (None:
        cannot tell): stricter than `same_screen`, a check box's tick is a change."""
        fa, fb = self.frame(a), self.frame(b)
        if fa is None or fb is None or fa.shape != fb.shape:
            return None
        return not compute_change(fa, fb, DiffSettings()).blobs

    def toast(self, idx: int, before: str, after: str, exclude: list[int] | None) -> str | None:
        rows = self.traces.events(self.session_id, idx, idx + 1)
        if not rows:
            return None
        facts = rows[0]["facts"]
        cached = facts.get("toast")
        if isinstance(cached, dict) and cached.get("pair") == [before, after]:
            text = cached.get("text")
            return str(text) if text else None
        a, b = self.frame(before), self.frame(after)
        text = None
        if a is not None and b is not None:
            box = (int(exclude[0]), int(exclude[1]), int(exclude[2]), int(exclude[3])) if exclude else None
            try:
                text = read_toast(a, b, self.ocr, exclude=box)
            except RpaError as exc:
                logger.warning("reading a toast failed: %s", exc.message)
        facts["toast"] = {"pair": [before, after], "text": text}
        self.traces.update_facts(self.session_id, idx, facts)
        return text

    def opened(self, idx: int, before: str, after: str, exclude: list[int] | None) -> str | None:
        rows = self.traces.events(self.session_id, idx, idx + 1)
        if not rows:
            return None
        facts = rows[0]["facts"]
        cached = facts.get("opened")
        if isinstance(cached, dict) and cached.get("pair") == [before, after]:
            return str(cached["text"]) if cached.get("text") else None
        a, b = self.frame(before), self.frame(after)
        text = None
        if a is not None and b is not None and a.shape == b.shape:
            box = (int(exclude[0]), int(exclude[1]), int(exclude[2]), int(exclude[3])) if exclude else None
            try:
                text = read_opened(a, b, self.ocr, exclude=box)
            except RpaError as exc:
                logger.warning("reading an opened box failed: %s", exc.message)
        facts["opened"] = {"pair": [before, after], "text": text}
        self.traces.update_facts(self.session_id, idx, facts)
        return text

    def text_in(self, idx: int, shot: str, box: list[int]) -> str | None:
        rows = self.traces.events(self.session_id, idx, idx + 1)
        if not rows:
            return None
        facts = rows[0]["facts"]
        cached = facts.get("shown")
        if isinstance(cached, dict) and cached.get("at") == [shot, *box]:
            return str(cached["text"]) if cached.get("text") else None
        frame, text = self.frame(shot), None
        if frame is not None:
            x, y, w, h = clamp_bbox((int(box[0]), int(box[1]), int(box[2]), int(box[3])), frame.shape)
            if w >= 4 and h >= 4:
                try:
                    line = self.ocr.read_line(frame[y : y + h, x : x + w])
                except RpaError as exc:
                    logger.warning("reading a box failed: %s", exc.message)
                    line = None
                text = " ".join(line.text.split()) if line is not None and line.text.strip() else None
        facts["shown"] = {"at": [shot, *box], "text": text}
        self.traces.update_facts(self.session_id, idx, facts)
        return text

    def box_seen(self, idx: int, before: str, after: str, line: list[int]) -> tuple[dict[str, Any] | None, bool | None]:
        facts = self.traces.events(self.session_id, idx, idx + 1)
        if not facts:
            return None, None
        cached = facts[0]["facts"].get("mark_seen")
        if isinstance(cached, dict) and cached.get("at") == [before, after, *line] and "mark" in cached:
            state, mark = cached.get("state"), cached.get("mark")
            return mark if isinstance(mark, dict) else None, state if isinstance(state, bool) else None
        a, b = self.frame(before), self.frame(after)
        box, state = (int(line[0]), int(line[1]), int(line[2]), int(line[3])), None
        was = mark_beside(a, box) if a is not None else None
        if was is not None and b is not None and a is not None and a.shape == b.shape:
            now = mark_beside(b, box)
            flipped = now is not None and now.kind == was.kind and was.state is not None and now.state is not None
            state = now.state if flipped and now is not None and now.state != was.state else None
            if was.kind == "radio" and state is False:
                state = None  # a click selects a radio button: one seen cleared was not cleared by it
        learned = Learned.of(was) if was is not None else None
        mark = learned.as_json() if learned is not None else None
        facts[0]["facts"]["mark_seen"] = {"at": [before, after, *line], "mark": mark, "state": state}
        self.traces.update_facts(self.session_id, idx, facts[0]["facts"])
        return mark, state

    def same_screen(self, a: str, b: str, *, max_change: float = SAME_SCREEN_MAX_CHANGE) -> bool | None:
        if a == b:
            return True
        fa, fb = self.frame(a), self.frame(b)
        if fa is None or fb is None or fa.shape != fb.shape:
            return None
        diff = cv2.absdiff(fa, fb)
        mask = (diff.max(axis=2) if diff.ndim == 3 else diff) > PIXEL_THRESHOLD
        mask[int(mask.shape[0] * (1 - BOTTOM_BAND)) :, :] = False
        return float(mask.mean()) <= max_change
