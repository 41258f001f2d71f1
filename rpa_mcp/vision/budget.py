"""Memory bounds for image work, shared by every caller of one server.

A near-limit screenshot is small on the wire (a 6320x6320 PNG of one colour is 116 KB) and
large once decoded (120 MB as BGR). Three bounds keep the server's memory flat whatever
clients send:

- `FrameCache`: decoded frames kept for reuse (the shadow observer's latest frame per session,
  stored screenshots read back by reference) share ONE byte budget across all sessions; the
  least recently used frame goes first, and a frame larger than the whole budget is not kept.
- `ImageWork`: at most `slots` units of image work (decode + analysis of one request) run at
  once; the others wait in the event loop, holding no thread and no decoded frame.
- `check_request_pixels`: the images of one request together stay under a pixel budget (one
  batch of a hundred small bomb PNGs must not decode to gigabytes at once).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import numpy as np

from rpa_mcp.errors import ImageRejected
from rpa_mcp.metrics import Metrics, NoMetrics
from rpa_mcp.vision.images import ImageHeader

T = TypeVar("T")


class FrameCache:
    """Decoded frames by key under one byte budget (LRU); thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._frames: OrderedDict[str, np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.evictions = 0

    def get(self, key: str) -> np.ndarray | None:
        with self._lock:
            frame = self._frames.get(key)
            if frame is not None:
                self._frames.move_to_end(key)
            return frame

    def put(self, key: str, frame: np.ndarray) -> None:
        size = int(frame.nbytes)
        frame.setflags(write=False)  # shared between requests: nobody may draw on it
        with self._lock:
            old = self._frames.pop(key, None)
            if old is not None:
                self._bytes -= int(old.nbytes)
            if size > self.max_bytes:
                return  # larger than the whole budget: the caller keeps its own reference
            self._frames[key] = frame
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, evicted = self._frames.popitem(last=False)
                self._bytes -= int(evicted.nbytes)
                self.evictions += 1

    def discard(self, keys: Iterable[str]) -> None:
        with self._lock:
            for key in keys:
                old = self._frames.pop(key, None)
                if old is not None:
                    self._bytes -= int(old.nbytes)

    @property
    def bytes_used(self) -> int:
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._frames)


class ImageWork:
    """At most `slots` image work units at once, each in a worker thread; waiting costs no thread."""

    def __init__(self, slots: int, *, metrics: Metrics | None = None) -> None:
        self.slots = slots
        self.metrics: Metrics = metrics or NoMetrics()  # each unit's wait for a slot is observed
        self._limiter = anyio.CapacityLimiter(slots)
        self._lock = threading.Lock()
        self.running = 0
        self.peak = 0

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        asked = time.perf_counter()
        return await anyio.to_thread.run_sync(self._counted, fn, args, asked, limiter=self._limiter)

    def _counted(self, fn: Callable[..., T], args: tuple[Any, ...], asked: float) -> T:
        self.metrics.image_work_waited(time.perf_counter() - asked)
        with self._lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            return fn(*args)
        finally:
            with self._lock:
                self.running -= 1


def check_request_pixels(headers: Iterable[ImageHeader], max_pixels: int, *, field: str) -> None:
    """Refuse a request whose images together are over `max_pixels` (checked on headers, before decoding)."""
    sizes = [h.width * h.height for h in headers]
    total = sum(sizes)
    if total > max_pixels:
        raise ImageRejected(
            f"{field}: the {len(sizes)} images of this request hold {total} pixels together; the limit is "
            f"{max_pixels} (RPA_MAX_REQUEST_PIXELS): send fewer or smaller screenshots per request",
            field=field,
            pixels=total,
            max_pixels=max_pixels,
        )
