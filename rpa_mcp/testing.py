"""In-memory fakes of the ports, for tests, the demo and benchmarks."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rpa_mcp.vision.ocr import OcrLine


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: float | None = None) -> None:
        self._now = float(int(time.time())) if start is None else start
        self._mono = 1000.0

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    def advance(self, seconds: float) -> None:
        self._now += seconds
        self._mono += seconds


@dataclass
class FakeOcr:
    """Returns scripted lines; `lines_for` maps an image shape or a key to lines."""

    lines: list[OcrLine] = field(default_factory=list)
    calls: int = 0

    def read(self, image: np.ndarray) -> list[OcrLine]:
        self.calls += 1
        return list(self.lines)

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        self.calls += 1
        return self.lines[0] if self.lines else None

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


@dataclass
class PageOcr:
    """Reads the whole frame as `lines`; recognises nothing in crops (the fast path finds nothing)."""

    lines: list[OcrLine]

    def read(self, image: np.ndarray) -> list[OcrLine]:
        return list(self.lines)

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        return None

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        return [None for _ in images]


@dataclass
class ScriptedOcr:
    """Answers read_line calls with `texts` in order (then empty), read() with nothing.

    The dialog classifier reads buttons left to right first, then text lines top to bottom,
    so a test scripts exactly what "appears" on a synthetic dialog.
    """

    texts: list[str] = field(default_factory=list)
    calls: int = 0

    def read(self, image: np.ndarray) -> list[OcrLine]:
        self.calls += 1
        return []

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        self.calls += 1
        index = self.calls - 1
        if index >= len(self.texts):
            return None
        height, width = image.shape[:2]
        return OcrLine(self.texts[index], (0, 0, width, height), 0.99)

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


# --- validation ports ---------------------------------------------------------------------
class LineReader:
    """An OCR engine for checkers that only recognise lines (never the detector): each crop is read by
    `reading`, which a test defines from what the crop shows."""

    def reading(self, image: np.ndarray) -> OcrLine | None:
        raise NotImplementedError

    def read(self, image: np.ndarray) -> list[OcrLine]:
        raise AssertionError("no checker runs the text detector")

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        return self.reading(image)

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        return [self.reading(image) for image in images]


@dataclass
class FakeDialogLocator:
    """validation.DialogLocator: answers `after` for the AFTER frame (called with previous=...), else `before`."""

    before: object | None = None  # validation.DialogHit | None
    after: object | None = None
    calls: int = 0
    windows: list[tuple[tuple[str | None, str | None], ...]] = field(default_factory=list)  # as each call got them

    def locate(
        self,
        image: np.ndarray,
        *,
        previous: np.ndarray | None = None,
        windows: Sequence[tuple[str | None, str | None]] = (),
    ) -> object | None:
        self.calls += 1
        self.windows.append(tuple(windows))
        return self.after if previous is not None else self.before


@dataclass
class FakeJudge:
    """validation.JudgePort with a scripted answer; records the questions it was asked."""

    success: bool = True
    confidence: float = 0.95
    explanation: str = "scripted"
    questions: list[str] = field(default_factory=list)

    def judge(self, *, action_type: str, question: str, before_png: bytes, after_png: bytes) -> object:
        from rpa_mcp.validation.ports import JudgeAnswer

        self.questions.append(f"{action_type}: {question}")
        return JudgeAnswer(self.success, self.confidence, self.explanation)


def loopback_socket() -> socket.socket:
    """A socket bound to 127.0.0.1 on a free port, for `uvicorn.Server.serve([sock])`.

    TCP_NODELAY is set on the listening socket so accepted connections inherit it: without it
    a response written in two parts waits ~40 ms for the peer's delayed ACK (Nagle).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


class FakeRecordReader:
    """`RecordReader` that answers through `handler(url)` (a JSON value, or it raises `RecordUnreadable`);
    every URL asked is kept in `calls`."""

    def __init__(self, handler: Callable[[str], Any]) -> None:
        self.handler = handler
        self.calls: list[str] = []

    def get_json(self, url: str, *, timeout_s: float) -> Any:
        self.calls.append(url)
        return self.handler(url)


class HeldJobs:
    """`Background` that keeps each job until the test runs it (`jobs`), e.g. on a worker thread."""

    def __init__(self) -> None:
        self.jobs: list[Callable[[], None]] = []

    def submit(self, job: Callable[[], None]) -> None:
        self.jobs.append(job)
