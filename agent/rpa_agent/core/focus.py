"""Evidence that the click on a field gave it the keyboard, before text is typed into it.

Typing before the focus lands loses keystrokes (they go to the window that had the keyboard
before the click). Waiting for the whole screen to be quiet proves it slowly: a caret blinks.
The evidence here is direct:

- the keyboard focus is in the foreground window, and that window is the one under the click
  (the backend's optional `KeyboardFocus` port; without it this sign is taken as given);
- the region around the field (the target's size, centred on the click, with a margin) has
  been repainted since the frame taken before the click (a focus ring, a caret), and shows the
  same pixels on two grabs in a row (the repaint is finished).

Without both signs by `timeout`, the answer is False and the caller falls back to waiting for
the whole screen to be quiet.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rpa_agent.port import Box, Frame

DEFAULT_FIELD = (300, 40)  # the size of a target whose recorded box is unknown
MARGIN = (24, 48)  # around the field: a focus ring, a caret on the field's first line below its label
MAX_REGION = (1200, 400)
POLL_S = 0.015
FIRST_LOOK_S = 0.01
TIMEOUT_S = 0.5


def focus_region(point: tuple[int, int], field: tuple[int, int] | None, screen: tuple[int, int]) -> Box:
    """The region watched for a field clicked at `point`: the field's size centred there, plus a margin."""
    fw, fh = field or DEFAULT_FIELD
    w = min(max(1, fw) + 2 * MARGIN[0], MAX_REGION[0], screen[0])
    h = min(max(1, fh) + 2 * MARGIN[1], MAX_REGION[1], screen[1])
    x = min(max(0, point[0] - w // 2), screen[0] - w)
    y = min(max(0, point[1] - h // 2), screen[1] - h)
    return x, y, w, h


@dataclass
class FocusEvidence:
    """`landed(before, region)`: True once the keyboard is in the clicked window and the field repainted."""

    grab: Callable[[], Frame]  # the screen now
    changed: Callable[[Frame, Frame, Box], float]  # the share of pixels that differ in a region
    keyboard_here: Callable[[], bool]  # the keyboard focus is in the window under the click
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    timeout_s: float = TIMEOUT_S

    def landed(self, before: Frame, region: Box) -> bool:
        deadline = self.clock() + self.timeout_s
        self.sleep(FIRST_LOOK_S)
        repainted: Frame | None = None
        while True:
            now = self.grab()
            if repainted is not None and self.changed(repainted, now, region) == 0 and self.keyboard_here():
                return True
            same_size = (now.width, now.height) == (before.width, before.height)
            repainted = now if same_size and self.changed(before, now, region) > 0 else None
            if self.clock() >= deadline:
                return False
            self.sleep(POLL_S)
