"""`rpa-mcp agent-x11 record`: a person's real input streamed as shadow events (docs/concepts/shadow.md).

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

In a password field (AT-SPI role "password text") the typed text never leaves the machine: it
is replaced by the server's mask and the event says `is_password: true`.
"""

from __future__ import annotations

import base64
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2
import numpy as np
from Xlib import X

from rpa_mcp.agent_x11.atspi import Accessibility, Element
from rpa_mcp.agent_x11.clock import ServerClock
from rpa_mcp.agent_x11.keys import KeyTranslator
from rpa_mcp.agent_x11.screen import Screen
from rpa_mcp.agent_x11.watch import InputWatch, RawInput
from rpa_mcp.agent_x11.windows import WindowInfo, WindowTracker
from rpa_mcp.shadow.masking import MASK

logger = logging.getLogger(__name__)
EVENT_PATH = "/api/v1/traces/stream/event"
DOUBLE_CLICK_S = 0.4
DOUBLE_CLICK_PX = 6
TYPE_FLUSH_S = 1.0
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
    image: np.ndarray


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

    def before(self, moment: float) -> np.ndarray | None:
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

    def keep(self, image: np.ndarray, done: float) -> None:
        """A grab that returned at `done`: kept when the screen shows something new."""
        with self._lock:
            if not self._frames or not np.array_equal(self._frames[-1].image, image):
                self._frames = [*self._frames[-(KEEP_FRAMES - 1) :], _Frame(done, image)]
            self._last_grab = done


class EventSender:
    """Posts events in order from a background thread, retrying until the server takes each one."""

    def __init__(self, url: str, token: str | None, *, say: Say) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = httpx2.Client(base_url=url, headers=headers, timeout=30)
        self.say = say
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.sent = 0
        self.refused = 0
        self._thread = threading.Thread(target=self._run, name="x11-event-sender", daemon=True)

    def start(self) -> EventSender:
        self._thread.start()
        return self

    def send(self, event: dict[str, Any]) -> None:
        self.queue.put(event)

    def close(self, timeout: float = 60.0) -> None:
        self.queue.put(None)
        self._thread.join(timeout)
        self.client.close()

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            if event is None:
                return
            backoff = 0.5
            while True:
                try:
                    response = self.client.post(EVENT_PATH, json=event)
                except httpx2.TransportError as exc:
                    self.say(f"server unreachable ({exc}); retrying")
                    time.sleep(backoff)
                    backoff = min(backoff * 2, 10.0)
                    continue
                if response.status_code in (401, 403):
                    self.say(f"the server refused the token (HTTP {response.status_code}): stopping")
                    self.refused += 1
                    return
                if response.status_code == 429 or response.status_code >= 500:
                    time.sleep(backoff)
                    backoff = min(backoff * 2, 10.0)
                    continue
                if response.status_code >= 400:
                    self.refused += 1
                    self.say(
                        f"event {event.get('event_id')} refused: HTTP {response.status_code} {response.text[:200]}"
                    )
                else:
                    self.sent += 1
                break


@dataclass
class _Captured:
    """A raw input with what was true when it happened: the window, the element, the frame before."""

    raw: RawInput
    window: WindowInfo | None
    element: Element | None = None
    frame: np.ndarray | None = None


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
        self.keys = KeyTranslator(self.tracker.windows.display)
        self.access = Accessibility(session_bus)
        self.sender = EventSender(url, token, say=self.say)
        self.captured: queue.Queue[_Captured] = queue.Queue()
        self._ids = itertools.count(1)
        self._window_time = -1  # X time of the last window change already sent as a focus event
        self._typed: list[str] = []
        self._typed_at = 0.0
        self._typed_ms = 0  # X time of the last character typed
        self._typed_window: WindowInfo | None = None
        self._secret: Element | None = None
        self._last_click: tuple[float, int, int] | None = None
        self._capturing = 0  # inputs the RECORD thread is still capturing (element lookup, frame)
        self.counts: dict[str, int] = {}

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
                    if self._typed and time.monotonic() - self._typed_at > TYPE_FLUSH_S:
                        self._flush_typing()
                    if self.captured.empty() and not self._capturing:
                        self._windows_until(None, seen_before=time.monotonic() - WINDOW_QUIET_S)
        finally:
            self.watch.stop()
            while not self.captured.empty():
                self._handle(self.captured.get())
            self._flush_typing()
            self._windows_until(None)
            self.frames.stop()
            self.tracker.stop()
            self.sender.close()
            self.access.close()
            self.screen.close()
            summary = ", ".join(f"{n} {k}" for k, n in sorted(self.counts.items())) or "no event"
            self.say(f"stopped: {summary} sent ({self.sender.sent} accepted, {self.sender.refused} refused)")

    def _on_raw(self, raw: RawInput) -> None:
        """RECORD thread: take what is only true now (window, element, frame before), then hand over."""
        motion = raw.kind == X.MotionNotify
        if not motion and raw.kind not in (X.ButtonPress, X.KeyPress):
            return
        self.frames.input_seen(motion)
        if motion:
            return
        self._capturing += 1
        try:
            frame = None
            if (raw.kind == X.ButtonPress and raw.detail in (1, 3)) or raw.kind == X.KeyPress:
                pressed = self.clock.monotonic(raw.time_ms)
                frame = self.frames.before(pressed if pressed is not None else raw.received)
            self.tracker.catch_up(raw.time_ms)
            window = self.tracker.at(raw.time_ms)
            item = _Captured(raw, window, frame=frame)
            if raw.kind == X.ButtonPress and raw.detail in (1, 3):
                item.element = self.access.element_at(raw.x, raw.y, window.title if window else None)
            self.captured.put(item)
        finally:
            self._capturing -= 1

    # --- events ---------------------------------------------------------------------------------------
    def _base(self, kind: str, window: WindowInfo | None, time_ms: int) -> dict[str, Any]:
        """An event stamped with the moment it happened (X time `time_ms`), not when it is sent."""
        event: dict[str, Any] = {
            "session_id": self.session_id,
            "machine_id": self.machine_id,
            "event_id": f"{self.session_id}-{next(self._ids)}",
            "ts": round(self.clock.wall(time_ms), 3),
            "type": kind,
            "window_title": window.title if window else None,
            "window_box": list(window.geometry) if window and window.geometry else None,  # a replay follows it
            "app": window.process if window else None,
            "agent": "rpa-mcp agent-x11",
        }
        width, height = self.tracker.windows.size
        event |= {"screen_width": width, "screen_height": height}
        if self.locale:
            event["locale"] = self.locale
        return {k: v for k, v in event.items() if v is not None}

    def _emit(self, event: dict[str, Any]) -> None:
        self.counts[event["type"]] = self.counts.get(event["type"], 0) + 1
        self.sender.send(event)

    def _shot(self, frame: np.ndarray | None) -> str | None:
        return base64.b64encode(self.screen.encode(frame)).decode("ascii") if frame is not None else None

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
        for t, window in changes:
            self._window_time = max(self._window_time, t)
            self._flush_typing()
            self._secret = None
            if window is not None and (window.title or window.process):
                self._emit(self._base("focus", window, t))
                self.say(f"window: {window.title!r} ({window.process})")

    def _handle(self, item: _Captured) -> None:
        raw = item.raw
        self._windows_until(raw.time_ms)
        if raw.kind == X.ButtonPress and raw.detail in SCROLL_BUTTONS:
            self._flush_typing()
            axis, sign = SCROLL_BUTTONS[raw.detail]
            where = {"x": raw.x, "y": raw.y, "delta": sign, "axis": axis}
            event = self._base("scroll", item.window, raw.time_ms) | where
            self._emit(event)
        elif raw.kind == X.ButtonPress and raw.detail in (1, 3):
            self._click(item)
        elif raw.kind == X.KeyPress:
            self._key(item)

    def _click(self, item: _Captured) -> None:
        raw, element = item.raw, item.element
        self._flush_typing()
        kind = "right_click" if raw.detail == 3 else "click"
        last = self._last_click
        if (
            kind == "click"
            and last is not None
            and raw.received - last[0] <= DOUBLE_CLICK_S
            and abs(raw.x - last[1]) <= DOUBLE_CLICK_PX
            and abs(raw.y - last[2]) <= DOUBLE_CLICK_PX
        ):
            kind = "double_click"
        self._last_click = (raw.received, raw.x, raw.y) if kind == "click" else None
        event = self._base(kind, item.window, raw.time_ms) | {
            "x": raw.x,
            "y": raw.y,
            "button": "right" if raw.detail == 3 else "left",
        }
        if element is not None and element.identifies_target:
            event["element"] = element.as_event_element()
        self._secret = element if element is not None and element.is_password else None
        shot = self._shot(item.frame)
        if shot:
            event["screenshot"] = shot
        self._emit(event)
        name = f" {element.name!r}" if element is not None and element.name else ""
        self.say(f"{kind} at ({raw.x}, {raw.y}){name}")

    def _key(self, item: _Captured) -> None:
        key = self.keys.translate(item.raw.detail, item.raw.state)
        if key.is_modifier:
            return
        if (key.char is not None and key.combo == key.name) or key.name == "space":
            if not self._typed:
                self._typed_window = item.window
            self._typed.append(key.char or " ")
            self._typed_at = time.monotonic()
            self._typed_ms = item.raw.time_ms
            return
        self._flush_typing()
        event = self._base("key", item.window, item.raw.time_ms) | {"keys": key.combo}
        if self._secret is not None:
            event |= {"is_password": True, "element": self._secret.as_event_element()}
        shot = self._shot(item.frame)
        if shot:
            event["screenshot"] = shot
        self._emit(event)
        self.say(f"key {key.combo}")
        if key.name in ("enter", "tab", "escape"):
            self._secret = None

    def _flush_typing(self) -> None:
        if not self._typed:
            return
        text = "".join(self._typed)
        self._typed = []
        event = self._base("type", self._typed_window, self._typed_ms) | {"text": text}
        if self._secret is not None:
            event |= {"text": MASK, "is_password": True, "element": self._secret.as_event_element()}
            self.say(f"typed {len(text)} character(s) in a password field (masked)")
        else:
            self.say(f"typed {len(text)} character(s)")
        self._emit(event)
