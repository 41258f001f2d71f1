"""In-memory fakes of the ports, for tests, the demo and benchmarks."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

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
