"""An animated GIF of what happened on an X11 screen, so that a person can watch a replay afterwards.

A thread grabs the screen a few times a second (mss), keeps a frame only when the picture changed;
the story adds marks as it goes (`mark`: a step and its verdict, where the agent clicked, what
the person did), and `save()` writes the frames, downscaled and captioned (rpa_mcp.desktop_rig.film),
as a looping GIF whose frame durations are the real times between changes.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
import numpy as np
from rpa_agent.x11.screen import Screen

from rpa_mcp.desktop_rig import frame_array
from rpa_mcp.desktop_rig.film import Frame, Mark, compose, save_gif

MAX_FRAMES = 900


class ScreenMovie:
    def __init__(self, display: str, *, fps: float = 4.0, width: int = 960) -> None:
        self.display, self.interval, self.width = display, 1.0 / fps, width
        self.frames: list[Frame] = []
        self.marks: list[Mark] = []
        self.scale = 1.0  # frame pixels per screen pixel, known at the first grab
        self._end: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="screen-movie", daemon=True)

    def start(self) -> ScreenMovie:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def mark(self, caption: str, *, at: float | None = None, click: tuple[int, int] | None = None) -> None:
        """From `at` (wall clock, default now) the frames say `caption`; `click` is in screen pixels."""
        ring = (round(click[0] * self.scale), round(click[1] * self.scale)) if click else None
        self.marks.append(Mark(time.time() if at is None else at, caption, ring))

    def _run(self) -> None:
        screen = Screen(self.display)
        try:
            while not self._stop.is_set() and len(self.frames) < MAX_FRAMES:
                started = time.monotonic()
                frame = frame_array(screen.grab())
                h, w = frame.shape[:2]
                self.scale = self.width / w
                small = cv2.resize(frame, (self.width, round(h * self.scale)), interpolation=cv2.INTER_AREA)
                rgb = cv2.cvtColor(small, cv2.COLOR_BGR2RGB)
                if not self.frames or not np.array_equal(rgb, self.frames[-1].image):
                    self.frames.append(Frame(time.time(), rgb))
                self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))
        finally:
            screen.close()
        self._end = time.time()

    def save(self, path: Path) -> Path | None:
        """Write the captioned GIF; None when no frame showed anything."""
        pictures = compose(self.frames, self.marks, end=self._end or time.time())
        if not pictures:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        save_gif(pictures, str(path))
        return path
