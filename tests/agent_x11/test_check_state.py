"""A check box's state around a recorded click: a press reading answered after the release says it is late,
and the box is read again once the release is done (no desktop needed)."""

from __future__ import annotations

import queue
import time
from typing import Any

from rpa_agent.core.recorder import event_element
from rpa_agent.port import Element
from rpa_agent.x11 import atspi
from rpa_agent.x11.check_state import RECHECK_AFTER_S, read_late, wait_before_reading_again, with_second_reading
from rpa_agent.x11.recorder import Recorder
from rpa_agent.x11.watch import RawInput
from rpa_agent.x11.windows import WindowInfo
from Xlib import X

BOX = Element("Isolement requis", "CheckBox", (10, 10, 20, 20), checked=False)


def test_a_press_reading_answered_after_the_release_is_late() -> None:
    assert read_late(answered=10.05, released=10.10) is False  # answered while the button was still down
    assert read_late(answered=10.20, released=10.10) is True  # the box may have flipped already
    assert read_late(answered=10.05, released=None) is True  # the release's moment is unknown
    assert abs(wait_before_reading_again(10.0, now=10.1) - (RECHECK_AFTER_S - 0.1)) < 1e-9
    assert wait_before_reading_again(None, now=10.1) == RECHECK_AFTER_S


def test_the_second_reading_is_kept_for_the_same_control_only() -> None:
    again = Element("Isolement requis", "CheckBox", checked=True)
    read = with_second_reading(BOX, again, late=True)
    assert (read.checked, read.checked_late, read.checked_after) == (False, True, True)
    other = with_second_reading(BOX, Element("Enregistrer", "Button"), late=False)
    assert (other.checked_late, other.checked_after) == (False, None)


def test_the_event_says_how_the_state_was_read() -> None:
    sent = event_element(with_second_reading(BOX, Element("Isolement requis", "CheckBox", checked=True), late=True))
    assert sent["states"] == [] and sent["checked_late"] is True and sent["checked_after"] is True
    assert "checked_late" not in event_element(BOX) and "checked_after" not in event_element(BOX)


class FakeClock:
    def monotonic(self, server_ms: int) -> float:
        return server_ms / 1000


class FakeTracker:
    window = WindowInfo(1, "Admission — Bureau des entrées", 42, "python3", None, (0, 0, 1100, 720))

    def catch_up(self, time_ms: int) -> None:
        pass

    def at(self, time_ms: int) -> WindowInfo:
        return self.window


class FakeFrames:
    def input_seen(self, motion: bool) -> None:
        pass

    def before(self, moment: float) -> None:
        return None


class FakeAccess:
    """The box is unticked when the press is looked up, ticked by the time it is read again."""

    def __init__(self, *states: bool) -> None:
        self.states = list(states)

    def element_at(self, x: int, y: int, window_title: str | None = None) -> atspi.Element:
        return atspi.Element("Isolement requis", "check box", (10, 10, 20, 20), False, checked=self.states.pop(0))


def recorder(access: FakeAccess) -> Any:
    rec: Any = Recorder.__new__(Recorder)  # the capture path only: no display, no server
    rec.clock, rec.tracker, rec.frames, rec.access = FakeClock(), FakeTracker(), FakeFrames(), access
    rec.captured, rec._capturing, rec._held = queue.Queue(), 0, None
    return rec


def button(kind: int, time_ms: int) -> RawInput:
    return RawInput(kind, 1, 15, 15, 0, time_ms, received=time.monotonic())


def test_a_press_on_a_check_box_is_handed_over_at_its_release_and_read_again() -> None:
    rec = recorder(FakeAccess(False, True))
    released_ms = int(time.monotonic() * 1000) - 5_000  # long ago: the press's answer came after it
    rec._on_raw(button(X.ButtonPress, released_ms - 100))
    assert rec.captured.empty() and rec._capturing == 1  # held until its release
    rec._on_raw(button(X.ButtonRelease, released_ms))
    item = rec.captured.get_nowait()
    assert rec._capturing == 0 and item.released == released_ms / 1000
    element = rec._checked_again(item)
    assert (element.checked, element.checked_late, element.checked_after) == (False, True, True)


def test_a_press_whose_release_never_came_is_handed_over_late_at_the_next_input() -> None:
    rec = recorder(FakeAccess(False, False))
    now_ms = int(time.monotonic() * 1000)
    rec._on_raw(button(X.ButtonPress, now_ms))
    rec._on_raw(RawInput(X.ButtonPress, 3, 15, 15, 0, now_ms + 10, received=time.monotonic()))  # a right click
    held = rec.captured.get_nowait()
    assert held.raw.detail == 1 and rec.captured.get_nowait().raw.detail == 3  # in the order they happened
    assert held.released is None and read_late(held.answered, held.released)
