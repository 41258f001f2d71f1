"""Memory bounds for image work, shared by every caller of one server.

A near-limit screenshot is small on the wire (a 6320x6320 PNG of one colour is 116 KB) and
large once decoded (120 MB as BGR). Three bounds keep the server's memory flat whatever
clients send:

- `FrameCache`: decoded frames kept for reuse (the shadow observer's latest frame per session,
  stored screenshots read back by reference) share ONE byte budget across all sessions; the
  least recently used frame goes first, and a frame larger than the whole budget is not kept.
- `ImageWork`: at most `slots` units of image work (decode + analysis of one request) run at
  once; the others wait in the event loop, holding no thread and no decoded frame. Each
  identity has its own share (running, waiting) and the agents a reserved part of the slots.
- `check_request_pixels`: the images of one request together stay under a pixel budget (one
  batch of a hundred small bomb PNGs must not decode to gigabytes at once).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread
import numpy as np

from rpa_mcp.errors import ImageRejected, ImageWorkBusy
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


Lane = Literal["people", "agents"]


@dataclass
class _Share:
    """One identity's image work: running and waiting, under its own concurrency bound."""

    gate: anyio.Semaphore
    calls: int = 0


class ImageWork:
    """Image work units in worker threads, shared fairly between identities; waiting costs no thread.

    - At most `slots` units run at once; `reserved` of them only for the agents' lane (an agent's
      validation, target resolution and observation, and a replay's own check of a reported action),
      so people's calls never starve a replay.
    - One identity runs at most `per_identity` units at once and has at most `queue_per_identity`
      more waiting; one call more is refused at once with `ImageWorkBusy` (429, `Retry-After`), so
      one caller's flood takes one share, never every slot, and waits in no queue of the others.
    - Waiting identities are served in arrival order, one unit each at a time.
    `identity=None` (the server's own work) has no share of its own: the slots bound it.
    """

    def __init__(
        self,
        slots: int,
        *,
        reserved: int = 0,
        per_identity: int | None = None,
        queue_per_identity: int = 0,
        monotonic: Callable[[], float] = time.monotonic,
        metrics: Metrics | None = None,
    ) -> None:
        if not 0 <= reserved < slots:
            raise ValueError(f"reserved image-work slots ({reserved}) must be fewer than the slots ({slots})")
        self.slots, self.reserved = slots, reserved
        self.metrics: Metrics = metrics or NoMetrics()  # each unit's wait for a slot is observed
        self.per_identity = per_identity or slots
        self.queue_per_identity = queue_per_identity
        self._all = anyio.Semaphore(slots)
        self._people = anyio.Semaphore(slots - reserved)
        self._shares: dict[str, _Share] = {}
        self._monotonic = monotonic
        self._unit_s = 1.0  # a running average of a unit's duration, for Retry-After
        self._lock = threading.Lock()
        self.running = 0
        self.peak = 0

    def waiting(self, identity: str) -> int:
        """Calls of `identity` admitted and not finished (running or waiting)."""
        share = self._shares.get(identity)
        return share.calls if share is not None else 0

    async def run(self, fn: Callable[..., T], *args: Any, identity: str | None = None, lane: Lane = "agents") -> T:
        asked = time.perf_counter()
        share = self._admit(identity) if identity is not None else None
        try:
            async with contextlib.AsyncExitStack() as held:
                if share is not None:
                    await held.enter_async_context(share.gate)
                if lane == "people":
                    await held.enter_async_context(self._people)
                await held.enter_async_context(self._all)
                started = self._monotonic()
                self.metrics.image_work_waited(time.perf_counter() - asked)
                try:
                    return await anyio.to_thread.run_sync(self._counted, fn, args)
                finally:
                    self._unit_s = 0.8 * self._unit_s + 0.2 * (self._monotonic() - started)
        finally:
            if share is not None and identity is not None:
                share.calls -= 1
                if share.calls == 0:
                    del self._shares[identity]

    def _admit(self, identity: str) -> _Share:
        share = self._shares.get(identity)
        if share is None:
            share = self._shares[identity] = _Share(anyio.Semaphore(self.per_identity))
        bound = self.per_identity + self.queue_per_identity
        if share.calls >= bound:
            retry = max(1.0, self._unit_s * (self.queue_per_identity + 1) / self.per_identity)
            raise ImageWorkBusy(
                f"you already have {share.calls} image operations running or waiting, the most one caller may "
                f"(RPA_IMAGE_WORK_PER_IDENTITY={self.per_identity} + RPA_IMAGE_WORK_QUEUE_PER_IDENTITY="
                f"{self.queue_per_identity}); wait for one to finish, then retry after {retry:.0f} s",
                retry_after_s=retry,
                in_progress=share.calls,
                limit=bound,
            )
        share.calls += 1
        return share

    def _counted(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
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
