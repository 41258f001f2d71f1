"""The evidence that a clicked field has the keyboard before text is typed (no desktop needed)."""

from __future__ import annotations

import numpy as np
from rpa_agent.core.focus import FocusEvidence, focus_region
from rpa_agent.port import Box, Frame

SCREEN = (1920, 1080)


class Desk:
    """A screen whose region changes at scripted moments of a fake clock, and a keyboard focus."""

    def __init__(self, frames: list[tuple[float, np.ndarray]], keyboard_from: float = 0.0) -> None:
        self.now = 0.0
        self.frames = frames  # (from this time on, the whole screen shows this frame)
        self.keyboard_from = keyboard_from
        self.grabs = 0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def grab(self) -> Frame:
        self.grabs += 1
        shown = [f for since, f in self.frames if since <= self.now][-1]
        return Frame(SCREEN[0], SCREEN[1], shown.tobytes())

    def keyboard_here(self) -> bool:
        return self.now >= self.keyboard_from

    def evidence(self, timeout_s: float = 0.5) -> FocusEvidence:
        return FocusEvidence(
            self.grab, changed, self.keyboard_here, clock=self.clock, sleep=self.sleep, timeout_s=timeout_s
        )


def pixels(frame: Frame) -> np.ndarray:
    return np.frombuffer(frame.pixels, np.uint8).reshape(frame.height, frame.width, 4)


def changed(before: Frame, after: Frame, region: Box) -> float:
    x, y, w, h = region
    a, b = pixels(before)[y : y + h, x : x + w], pixels(after)[y : y + h, x : x + w]
    return float(np.any(a != b, axis=2).mean())


def frame_of(array: np.ndarray) -> Frame:
    return Frame(SCREEN[0], SCREEN[1], array.tobytes())


def screen(caret_at: tuple[int, int] | None = None) -> np.ndarray:
    frame = np.full((SCREEN[1], SCREEN[0], 4), 240, np.uint8)
    if caret_at is not None:
        x, y = caret_at
        frame[y : y + 18, x : x + 1] = 0
    return frame


CLICK = (700, 520)


def test_the_region_is_the_fields_size_around_the_click_with_a_margin_and_stays_on_screen():
    assert focus_region(CLICK, (400, 60), SCREEN) == (700 - 224, 520 - 78, 448, 156)
    x, y, w, h = focus_region((5, 1075), None, SCREEN)
    assert (x, y) == (0, SCREEN[1] - h) and w > 300 and h > 40
    assert focus_region(CLICK, (5000, 3000), SCREEN)[2:] == (1200, 400)  # a huge recorded box is capped


def test_a_repaint_of_the_field_that_holds_still_with_the_keyboard_in_the_window_is_evidence():
    before = screen()
    desk = Desk([(0.0, before), (0.04, screen(caret_at=(620, 540)))])
    assert desk.evidence().landed(frame_of(before), focus_region(CLICK, (400, 60), SCREEN))
    assert desk.now < 0.1 and desk.grabs < 10


def test_no_repaint_around_the_field_is_no_evidence():
    before = screen()
    desk = Desk([(0.0, before)])
    assert not desk.evidence().landed(frame_of(before), focus_region(CLICK, (400, 60), SCREEN))
    assert desk.now >= 0.5


def test_a_repaint_elsewhere_on_the_screen_is_no_evidence():
    before = screen()
    desk = Desk([(0.0, before), (0.02, screen(caret_at=(1500, 60)))])
    assert not desk.evidence().landed(frame_of(before), focus_region(CLICK, (400, 60), SCREEN))


def test_the_keyboard_still_in_another_window_is_no_evidence_until_it_arrives():
    before = screen()
    desk = Desk([(0.0, before), (0.02, screen(caret_at=(620, 540)))], keyboard_from=0.2)
    assert desk.evidence().landed(frame_of(before), focus_region(CLICK, (400, 60), SCREEN))
    assert desk.now >= 0.2
    never = Desk([(0.0, before), (0.02, screen(caret_at=(620, 540)))], keyboard_from=9.0)
    assert not never.evidence().landed(frame_of(before), focus_region(CLICK, (400, 60), SCREEN))


def test_a_field_still_being_painted_is_waited_for_until_two_grabs_agree():
    before = screen()
    frames = [(0.0, before)] + [(0.02 + 0.015 * i, screen(caret_at=(600 + i, 540))) for i in range(6)]
    desk = Desk(frames)
    assert desk.evidence().landed(frame_of(before), focus_region(CLICK, (400, 60), SCREEN))
    assert desk.now >= 0.02 + 0.015 * 5
