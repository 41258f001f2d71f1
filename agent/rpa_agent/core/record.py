"""Recording on any backend through the port: `RawInput`, the window in front and the screen, as events.

The X11 backend has a recorder of its own, on X server time (`rpa_agent.x11.recorder`); any other
backend (Windows: low-level hooks) records through this one. The backend's watch delivers each
input (`RawInput`, with the character it typed in the keyboard layout in force); this recorder
keeps the recent screens (`Frames`: grabbed often just after an input, once a second otherwise),
follows the window in front, asks the element under a click, and hands all of it to the core's
`EventStream`, which makes and masks the events.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from rpa_agent.core.recorder import EventStream, Key, still_frame
from rpa_agent.port import Desktop, Frame, RawInput, Window

logger = logging.getLogger(__name__)
MODIFIERS = {"ctrl": "ctrl", "control": "ctrl", "shift": "shift", "alt": "alt", "altgr": "altgr", "win": "win"}
COMBO_MODIFIERS = ("ctrl", "alt", "win")  # held with a key, they make a combo (shift alone types a capital)
QUICK_EVERY_S = 0.05
QUICK_S = 0.6
IDLE_EVERY_S = 1.0
KEEP_FRAMES = 8
WINDOW_EVERY_S = 0.2


class Frames:
    """The screen as it last looked: `before(t)` is the latest grab that returned before t (epoch s)."""

    def __init__(self, grab: Callable[[], Frame], clock: Callable[[], float] = time.time) -> None:
        self.grab, self.clock = grab, clock
        self._lock = threading.Lock()
        self._frames: list[tuple[float, Frame]] = []
        self._quick_until = 0.0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recorder-frames", daemon=True)

    def start(self) -> Frames:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(10)

    def input_seen(self) -> None:
        self._quick_until = self.clock() + QUICK_S
        self._wake.set()

    def before(self, moment: float) -> Frame | None:
        with self._lock:
            older = [frame for at, frame in self._frames if at < moment]
        return older[-1] if older else None

    def keep(self, frame: Frame, at: float) -> None:
        with self._lock:
            if not self._frames or self._frames[-1][1] != frame:
                self._frames = [*self._frames[-(KEEP_FRAMES - 1) :], (at, frame)]

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.grab()
            except Exception:  # the screen went away: the recorder goes on without screenshots
                logger.exception("recorder_frame_grab_failed")
                return
            self.keep(frame, self.clock())
            self._wake.wait(QUICK_EVERY_S if self.clock() < self._quick_until else IDLE_EVERY_S)
            self._wake.clear()


class PortRecorder:
    def __init__(self, desktop: Desktop, stream: EventStream, *, say: Callable[[str], None]) -> None:
        self.desktop, self.stream, self.say = desktop, stream, say
        self.frames = Frames(desktop.screen.grab)
        self.inputs: queue.Queue[RawInput] = queue.Queue()
        self.held: set[str] = set()
        self._window: tuple[int, str] | None = None

    def run(self, stop: threading.Event) -> None:
        self.desktop.watch.add_listener(self._on_raw)
        self.frames.start()
        self.desktop.watch.start()
        self.poll_window()
        try:
            while not stop.is_set():
                try:
                    self.handle(self.inputs.get(timeout=WINDOW_EVERY_S))
                except queue.Empty:
                    self.stream.tick()
                    self.poll_window()
        finally:
            self.desktop.watch.stop()
            while not self.inputs.empty():
                self.handle(self.inputs.get())
            self.stream.flush_typing()
            self.frames.stop()
            try:
                self.stream.screen_at_end(still_frame(self.frames.grab), time.time())
            except Exception:  # the screen went away: the recording ends without it
                logger.exception("recorder_last_frame_grab_failed")

    def _on_raw(self, raw: RawInput) -> None:
        """The watch's thread: only what must be taken now (the screen before); the rest is handled later."""
        if raw.kind != "motion":
            self.frames.input_seen()
            self.inputs.put(raw)

    def poll_window(self, at: float | None = None) -> Window | None:
        front = self.desktop.windows.foreground()
        key = (front.handle, front.title) if front is not None else None
        if key != self._window:
            self._window = key
            self.stream.window(front, time.time() if at is None else at)
        return front

    def handle(self, raw: RawInput) -> None:
        front = self.poll_window(raw.time_s)
        if raw.kind == "button_press" and raw.button in ("left", "right"):
            element = self.desktop.windows.element_at(raw.x, raw.y)
            self.stream.click(
                raw.x, raw.y, button=raw.button, ts=raw.time_s, received=raw.time_s, window=front,
                element=element, frame=self.frames.before(raw.time_s),
            )  # fmt: skip
        elif raw.kind == "scroll":
            up_or_left = raw.key in ("up", "left")
            axis = "horizontal" if raw.key in ("left", "right") else "vertical"
            self.stream.scroll(raw.x, raw.y, delta=1 if up_or_left else -1, axis=axis, ts=raw.time_s, window=front)
        elif raw.kind in ("key_press", "key_release"):
            key = self.key(raw)
            if key is not None:
                self.stream.key(key, ts=raw.time_s, window=front, frame=self.frames.before(raw.time_s))

    def key(self, raw: RawInput) -> Key | None:
        """The key a press means (None for a release), with the modifiers held at that moment."""
        name = (raw.key or "").lower()
        modifier = MODIFIERS.get(name)
        if modifier is not None:
            (self.held.add if raw.kind == "key_press" else self.held.discard)(modifier)
            return Key(modifier, None, modifier, is_modifier=True) if raw.kind == "key_press" else None
        if raw.kind != "key_press":
            return None
        if not name and raw.char is None:
            return Key("", None, "?", unmapped=True)
        combo_mods = [m for m in COMBO_MODIFIERS if m in self.held]
        if raw.char is not None and not combo_mods:
            if raw.char == " ":
                return Key("space", " ", "space")
            return Key(name or raw.char, raw.char, name or raw.char)
        if combo_mods and "shift" in self.held:
            combo_mods.append("shift")
        if not combo_mods and "shift" in self.held and name in ("tab",):
            combo_mods.append("shift")
        return Key(name, None, "+".join([*combo_mods, name]))
