"""An animated GIF of what happened on an X11 screen, so that a person can watch a replay afterwards.

A thread grabs the screen a few times a second (mss), keeps a frame only when the picture changed,
and `save()` writes the frames, downscaled, as a looping GIF (Pillow) whose frame durations are
the real times between changes.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from rpa_mcp.agent_x11.screen import Screen

MAX_FRAMES = 900
MIN_FRAME_MS = 100


@dataclass
class _Frame:
    at: float
    image: np.ndarray  # RGB, downscaled


class ScreenMovie:
    def __init__(self, display: str, *, fps: float = 4.0, width: int = 960) -> None:
        self.display, self.interval, self.width = display, 1.0 / fps, width
        self.frames: list[_Frame] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="screen-movie", daemon=True)

    def start(self) -> ScreenMovie:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        screen = Screen(self.display)
        try:
            while not self._stop.is_set() and len(self.frames) < MAX_FRAMES:
                started = time.monotonic()
                frame = screen.grab()
                h, w = frame.shape[:2]
                small = cv2.resize(frame, (self.width, round(h * self.width / w)), interpolation=cv2.INTER_AREA)
                rgb = cv2.cvtColor(small, cv2.COLOR_BGR2RGB)
                if not self.frames or not np.array_equal(rgb, self.frames[-1].image):
                    self.frames.append(_Frame(started, rgb))
                self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))
        finally:
            screen.close()
        self._end = time.monotonic()

    def save(self, path: Path) -> Path:
        """Write the GIF (at least one frame); returns its path."""
        from PIL import Image

        if not self.frames:
            raise RuntimeError("no frame was captured")
        end = getattr(self, "_end", time.monotonic())
        times = [f.at for f in self.frames] + [end]
        durations = [max(MIN_FRAME_MS, round(1000 * (b - a))) for a, b in itertools.pairwise(times)]
        images = [Image.fromarray(f.image).quantize(colors=128, method=Image.Quantize.MEDIANCUT) for f in self.frames]
        path.parent.mkdir(parents=True, exist_ok=True)
        images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)
        return path
