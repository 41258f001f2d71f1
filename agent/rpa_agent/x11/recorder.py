"""`rpa-agent record` on X11: a person's real input streamed as shadow events (docs/concepts/shadow.md).

Input comes from the RECORD extension (every key, button and motion the X server processes),
the window in front from EWMH, element name and role from AT-SPI where the application
exposes them. What is sent:

- `focus` when the foreground window or its title changes;
- `click` / `double_click` / `right_click` with the element under the pointer and the
  screenshot of the screen **before** the press (`FrameKeeper`: the last frame grabbed before
  the moment the X server stamped on the press);
- `type` for a burst of typed characters (flushed at a click, a non-character key, a window
  change or a pause); `key` for Enter, Tab, Backspace, Escape and combos (`ctrl+s`), with the
  screenshot before it;
- `scroll` for wheel clicks.

Every event's `ts` is the moment its input happened (X server time on this machine's clock,
`ServerClock`), not the moment it is sent: the server's segmentation measures the person's
pauses, not the recorder's delays (docs/decisions/x11-agent.md).

The events themselves are made and posted by the core (`rpa_agent.core.recorder.EventStream`):
this module captures what is only true at the moment of an input. Keys are translated in the
RECORD thread, with the keyboard map in force at that key (`rpa_agent.x11.keys.Keymap`, refreshed
on every MappingNotify the watch sees in order with the keys).
In a password field (AT-SPI role "password text") the typed text never leaves the machine.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from Xlib import X, display

from rpa_agent.core.http import Http
from rpa_agent.core.recorder import EventSender, EventStream, Key, still_frame
from rpa_agent.port import Element, Frame
from rpa_agent.x11.atspi import Accessibility
from rpa_agent.x11.check_state import read_late, wait_before_reading_again, with_second_reading
from rpa_agent.x11.clock import ServerClock
from rpa_agent.x11.desktop import window
from rpa_agent.x11.keys import Keymap, KeyTranslator
from rpa_agent.x11.screen import Screen
from rpa_agent.x11.watch import InputWatch, RawInput
from rpa_agent.x11.windows import WindowInfo, WindowTracker

logger = logging.getLogger(__name__)
SETTLE_S = 5.0  # after an input the screen is grabbed often this long: what it did is seen
SETTLE_EVERY_S = 0.2
QUICK_S = 0.6  # ... and very often at first, when a page redraws and the next click may follow it at once
QUICK_EVERY_S = 0.05
MOTION_FRAME_EVERY_S = 0.15
IDLE_FRAME_EVERY_S = 1.0
KEEP_FRAMES = 8
WINDOW_QUIET_S = 0.5  # a window change is sent between inputs once it is this old
SCROLL_BUTTONS = {4: ("vertical", 1), 5: ("vertical", -1), 6: ("horizontal", 1), 7: ("horizontal", -1)}
Say = Callable[[str], None]


@dataclass
class _Frame:
    at: float  # time.monotonic() when the grab had returned: the screen showed this by then
    image: Frame


class FrameKeeper:
    """The screen as it last looked: grabbed often while a person acts, once a second otherwise.

    After each input the screen is grabbed every `QUICK_EVERY_S` for `QUICK_S` (results drawn
    under the pointer are in a frame before a fast person's next click), then every
    `SETTLE_EVERY_S` until `SETTLE_S` (a page loads, a dialog opens), while the pointer moves every
    `MOTION_FRAME_EVERY_S`, and otherwise every
    `IDLE_FRAME_EVERY_S` (a screen that changes on its own). Only frames that differ from the one
    before are kept, each with the moment its grab returned: `before(t)` is then the screen as
    it was shown just before t, whatever happened after.
    """

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self._lock = threading.Lock()
        self._frames: list[_Frame] = []
        self._due = time.monotonic()
        self._settle_until = 0.0
        self._quick_until = 0.0
        self._last_grab = 0.0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="x11-frames", daemon=True)

    def start(self) -> FrameKeeper:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(10)

    def input_seen(self, motion: bool) -> None:
        now = time.monotonic()
        with self._lock:
            if not motion:
                self._settle_until = now + SETTLE_S
                self._quick_until = now + QUICK_S
                self._due = min(self._due, now + QUICK_EVERY_S)
            elif now - self._last_grab >= MOTION_FRAME_EVERY_S:
                self._due = now
        self._wake.set()

    def before(self, moment: float) -> Frame | None:
        """The latest frame whose grab returned before `moment` (time.monotonic())."""
        with self._lock:
            older = [f for f in self._frames if f.at < moment]
            return older[-1].image if older else None

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                delay = self._due - time.monotonic()
            if delay > 0:
                self._wake.wait(delay)
                self._wake.clear()
                continue
            try:
                image = self.screen.grab()
            except Exception:  # the display went away: the recorder ends on its own
                logger.exception("x11_frame_grab_failed")
                return
            done = time.monotonic()
            self.keep(image, done)
            with self._lock:
                self._due = done + self.every(done)

    def every(self, now: float) -> float:
        """The wait before the next grab: short just after an input, longer while it settles, a second idle."""
        if now < self._quick_until:
            return QUICK_EVERY_S
        return SETTLE_EVERY_S if now < self._settle_until else IDLE_FRAME_EVERY_S

    def keep(self, image: Frame, done: float) -> None:
        """A grab that returned at `done`: kept when the screen shows something new."""
        with self._lock:
            if not self._frames or self._frames[-1].image != image:
                self._frames = [*self._frames[-(KEEP_FRAMES - 1) :], _Frame(done, image)]
            self._last_grab = done


@dataclass
class _Captured:
    """A raw input with what was true when it happened: the window, the element, the frame before, the key."""

    raw: RawInput
    window: WindowInfo | None
    element: Element | None = None
    frame: Frame | None = None
    key: Key | None = None
    answered: float | None = None  # time.monotonic() when the element under the pointer had been read
    released: float | None = None  # time.monotonic() of a check box press's release (None: not seen)


class Recorder:
    def __init__(
        self,
        *,
        url: str,
        token: str | None,
        machine_id: str,
        session_id: str,
        display_name: str | None,
        session_bus: str | None,
        locale: str | None = None,
        say: Say | None = None,
    ) -> None:
        self.machine_id, self.session_id, self.locale = machine_id, session_id, locale
        self.say = say or (lambda text: None)
        self.clock = ServerClock()
        self.tracker = WindowTracker(display_name, clock=self.clock)
        self.screen = Screen(display_name)
        self.frames = FrameKeeper(self.screen)
        self.watch = InputWatch(display_name)
        self.keymap = Keymap(display.Display(display_name))
        self.watch.add_mapping_listener(self.keymap.refresh)
        self.keys = KeyTranslator(self.keymap)
        self.access = Accessibility(session_bus)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.sender = EventSender(Http(url, headers=headers, timeout=30), say=self.say)
        self.stream = EventStream(
            send=self.sender.send,
            machine_id=machine_id,
            session_id=session_id,
            agent="rpa-agent x11",
            screen_size=lambda: self.tracker.windows.size,
            png=self.screen.png,
            locale=locale,
            say=self.say,
        )
        self.captured: queue.Queue[_Captured] = queue.Queue()
        self._window_time = -1  # X time of the last window change already sent as a focus event
        self._capturing = 0  # inputs the RECORD thread is still capturing (element lookup, frame)
        self._held: _Captured | None = None  # a press on a check box, handed over at its release

    @property
    def counts(self) -> dict[str, int]:
        return self.stream.counts

    # --- lifecycle ------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        self.sender.start()
        self.frames.start()
        self.tracker.start()
        self.watch.add_listener(self._on_raw)
        self.watch.start()
        self.say(
            f"recording session {self.session_id} on {self.machine_id}"
            f"{'' if self.access.available else ' (no accessibility bus: element names come from OCR)'}"
        )
        try:
            self._windows_until(None)
            while not stop.is_set():
                try:
                    item: _Captured | None = self.captured.get(timeout=0.2)
                except queue.Empty:
                    item = None
                if item is not None:
                    self._handle(item)
                else:
                    self.stream.tick()
                    if self.captured.empty() and not self._capturing:
                        self._windows_until(None, seen_before=time.monotonic() - WINDOW_QUIET_S)
        finally:
            self.watch.stop()
            self._hand_over_held()
            while not self.captured.empty():
                self._handle(self.captured.get())
            self.stream.flush_typing()
            self._windows_until(None)
            self.frames.stop()
            self._screen_at_end()
            self.tracker.stop()
            self.sender.close()
            self.access.close()
            self.keymap.close()
            self.screen.close()
            summary = ", ".join(f"{n} {k}" for k, n in sorted(self.counts.items())) or "no event"
            unmapped = f"; {self.stream.unmapped} key(s) mapped to nothing" if self.stream.unmapped else ""
            self.say(f"stopped: {summary} sent ({self.sender.sent} accepted, {self.sender.refused} refused){unmapped}")

    def _screen_at_end(self) -> None:
        try:
            frame = still_frame(self.screen.grab)
        except Exception:  # the display went away: the recording ends without it
            logger.exception("x11_last_frame_grab_failed")
            return
        self.stream.screen_at_end(frame, time.time())

    def _on_raw(self, raw: RawInput) -> None:
        """RECORD thread: take what is only true now (window, element, frame before, key), then hand over."""
        if raw.kind == X.ButtonRelease:
            self._release(raw)
            return
        motion = raw.kind == X.MotionNotify
        if not motion and raw.kind not in (X.ButtonPress, X.KeyPress):
            return
        self.frames.input_seen(motion)
        if motion:
            return
        self._hand_over_held()  # a press whose release never came: its reading may be late
        self._capturing += 1
        try:
            frame = None
            if (raw.kind == X.ButtonPress and raw.detail in (1, 3)) or raw.kind == X.KeyPress:
                pressed = self.clock.monotonic(raw.time_ms)
                frame = self.frames.before(pressed if pressed is not None else raw.received)
            self.tracker.catch_up(raw.time_ms)
            info = self.tracker.at(raw.time_ms)
            item = _Captured(raw, info, frame=frame)
            if raw.kind == X.KeyPress:
                item.key = self.keys.translate(raw.detail, raw.state)  # the keyboard map in force now
            if raw.kind == X.ButtonPress and raw.detail in (1, 3):
                found = self.access.element_at(raw.x, raw.y, info.title if info else None)
                item.element = found.to_port() if found is not None else None
                item.answered = time.monotonic()
            if raw.kind == X.ButtonPress and raw.detail == 1 and item.element and item.element.checked is not None:
                self._held = item  # the box flips at the release: the reading is judged then
                self._capturing += 1
            else:
                self.captured.put(item)
        finally:
            self._capturing -= 1

    def _release(self, raw: RawInput) -> None:
        held = self._held
        if held is not None and raw.detail == held.raw.detail:
            held.released = self.clock.monotonic(raw.time_ms)  # None (clock unknown): the reading is late
            self._hand_over_held()

    def _hand_over_held(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            self.captured.put(held)
            self._capturing -= 1

    def _checked_again(self, item: _Captured) -> Element | None:
        """Main thread: a check box's press reading, judged, with the box read again after the release."""
        element = item.element
        if element is None or element.checked is None or item.raw.detail != 1:
            return element
        time.sleep(wait_before_reading_again(item.released, time.monotonic()))
        again = self.access.element_at(item.raw.x, item.raw.y, item.window.title if item.window else None)
        late = read_late(item.answered, item.released)
        return with_second_reading(element, again.to_port() if again is not None else None, late=late)

    # --- events ---------------------------------------------------------------------------------------
    def _windows_until(self, time_ms: int | None, *, seen_before: float | None = None) -> None:
        """Send a focus event for each window change up to X time `time_ms` (None: all of them).

        Between inputs only changes seen a moment ago are sent (`seen_before`): one seen just now may be
        the effect of a click still being captured, and must follow that click, not precede it.
        """
        changes = [
            (t, w)
            for t, w in self.tracker.since(self._window_time, seen_before=seen_before)
            if time_ms is None or t <= time_ms
        ]
        for t, info in changes:
            self._window_time = max(self._window_time, t)
            self.stream.window(window(info) if info is not None else None, self.clock.wall(t))

    def _handle(self, item: _Captured) -> None:
        raw = item.raw
        self._windows_until(raw.time_ms)
        ts = self.clock.wall(raw.time_ms)
        front = window(item.window) if item.window is not None else None
        if raw.kind == X.ButtonPress and raw.detail in SCROLL_BUTTONS:
            axis, sign = SCROLL_BUTTONS[raw.detail]
            self.stream.scroll(raw.x, raw.y, delta=sign, axis=axis, ts=ts, window=front)
        elif raw.kind == X.ButtonPress and raw.detail in (1, 3):
            button = "right" if raw.detail == 3 else "left"
            self.stream.click(
                raw.x,
                raw.y,
                button=button,
                ts=ts,
                received=raw.received,
                window=front,
                element=self._checked_again(item),
                frame=item.frame,
            )
        elif raw.kind == X.KeyPress and item.key is not None:
            self.stream.key(item.key, ts=ts, window=front, frame=item.frame)
