"""The recorder's event stream: a person's inputs, windows and screens turned into shadow events.

A backend's recorder captures what is only true at the moment of an input (the window in front,
the element under the pointer, the screen just before) and calls `EventStream`; this module
makes the events of docs/concepts/shadow.md and posts them in order (`EventSender`):

- `focus` when the foreground window or its title changes;
- `click` / `double_click` / `right_click` with the element under the pointer and the
  screenshot of the screen **before** the press;
- `type` for a burst of typed characters (flushed at a click, a non-character key, a window
  change or a pause); `key` for Enter, Tab, Backspace, Escape and combos (`ctrl+s`), with the
  screenshot before it;
- `scroll` for wheel clicks;
- `screenshot` once, when the recording stops: the screen the last action left, once still.

Every event's `ts` is the moment its input happened, not the moment it is sent. In a password
field the typed text never leaves the machine: it is replaced by `MASK` and the event says
`is_password: true`. A key that maps to no character and no key name is reported (`unmapped`),
never silently dropped as if it were a modifier.
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

from rpa_agent.core.http import Http, Unreachable
from rpa_agent.port import Element, Frame, Window

logger = logging.getLogger(__name__)
EVENT_PATH = "/api/v1/traces/stream/event"
MASK = "••••••••"  # the server's mask for a secret (rpa_mcp.shadow.masking.MASK)
DOUBLE_CLICK_S = 0.4
DOUBLE_CLICK_PX = 6
TYPE_FLUSH_S = 1.0
STILL_TRIES = 20  # grabs at most, when the recording stops, for a screen that stopped changing
STILL_EVERY_S = 0.1
NON_TARGET_ROLES = frozenset(
    {
        "Document", "Document Web", "Frame", "Panel", "Section", "Filler", "Application", "Window", "Pane",
        "Invalid", "Unknown", "Redundant Object",
    }
)  # fmt: skip
Say = Callable[[str], None]


@dataclass(frozen=True)
class Key:
    """A key press as a person meant it: `char` when it types one, else a key name or a combo."""

    name: str  # "a", "enter", "f5", ... (lower case); "" for a key that maps to nothing
    char: str | None  # the character it types (None for keys and combos that type nothing)
    combo: str  # "ctrl+s", "shift+tab", "enter", "a"
    is_modifier: bool = False
    unmapped: bool = False  # the keyboard map in force gave this key nothing: reported, never guessed


def identifies_target(element: Element) -> bool:
    """A named element, a password box or a nameless control; not a page container or a node that is already
    gone (a link that navigated): their box is not what was clicked."""
    return bool(element.name) or element.is_password or element.role not in NON_TARGET_ROLES


def event_element(element: Element) -> dict[str, Any]:
    out: dict[str, Any] = {"name": element.name, "role": element.role}
    if element.box is not None:
        out["bbox"] = list(element.box)
    if element.is_password:
        out["is_password"] = True
    if element.checked is not None:  # looked up as the button went down: the state before the click
        out["states"] = ["checked"] if element.checked else []
        if element.checked_late:  # ... unless the answer came after the release: the box may have flipped
            out["checked_late"] = True
    if element.checked_after is not None:  # read again once the release was done: the state the click left
        out["checked_after"] = element.checked_after
    return out


class EventSender:
    """Posts events in order from a background thread, retrying until the server takes each one."""

    def __init__(self, http: Http, *, say: Say, sleep: Callable[[float], None] = time.sleep) -> None:
        self.http = http
        self.say = say
        self.sleep = sleep
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.sent = 0
        self.refused = 0
        self._thread = threading.Thread(target=self._run, name="recorder-event-sender", daemon=True)

    def start(self) -> EventSender:
        self._thread.start()
        return self

    def send(self, event: dict[str, Any]) -> None:
        self.queue.put(event)

    def close(self, timeout: float = 60.0) -> None:
        self.queue.put(None)
        self._thread.join(timeout)
        self.http.close()

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            if event is None:
                return
            if not self.post(event):
                return

    def post(self, event: dict[str, Any]) -> bool:
        """Post one event until the server answers; False when it refused the token (stop sending)."""
        backoff = 0.5
        while True:
            try:
                response = self.http.post(EVENT_PATH, event)
            except Unreachable as exc:
                self.say(f"server unreachable ({exc}); retrying")
                self.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            if response.status_code in (401, 403):
                self.say(f"the server refused the token (HTTP {response.status_code}): stopping")
                self.refused += 1
                return False
            if response.status_code == 429 or response.status_code >= 500:
                self.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            if response.status_code >= 400:
                self.refused += 1
                self.say(f"event {event.get('event_id')} refused: HTTP {response.status_code} {response.text[:200]}")
            else:
                self.sent += 1
            return True


def still_frame(
    grab: Callable[[], Frame],
    *,
    tries: int = STILL_TRIES,
    every: float = STILL_EVERY_S,
    sleep: Callable[[float], None] = time.sleep,
) -> Frame:
    """A grab of the screen once it stopped changing (a banner's slide-in ended): two grabs `every` apart
    alike, or the last of `tries`."""
    frame = grab()
    for _ in range(tries - 1):
        sleep(every)
        again = grab()
        if again == frame:
            return again
        frame = again
    return frame


class EventStream:
    """Shadow events from captured inputs, in the order the person made them."""

    def __init__(
        self,
        *,
        send: Callable[[dict[str, Any]], None],
        machine_id: str,
        session_id: str,
        agent: str,
        screen_size: Callable[[], tuple[int, int]],
        png: Callable[[Frame], bytes],
        locale: str | None = None,
        say: Say = lambda text: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.send, self.machine_id, self.session_id, self.agent = send, machine_id, session_id, agent
        self.screen_size, self.png, self.locale, self.say, self.clock = screen_size, png, locale, say, clock
        self._ids = itertools.count(1)
        self._typed: list[str] = []
        self._typed_at = 0.0
        self._typed_ts = 0.0  # when the last character was typed (epoch s)
        self._typed_window: Window | None = None
        self._secret: Element | None = None
        self._last_click: tuple[float, int, int] | None = None
        self._window: Window | None = None  # the window of the last event sent
        self.counts: dict[str, int] = {}
        self.unmapped = 0

    # --- what the backend reports -------------------------------------------------------------------
    def window(self, window: Window | None, ts: float) -> None:
        """The window in front changed (or its title) at `ts`."""
        self.flush_typing()
        self._secret = None
        if window is not None and (window.title or window.process):
            self._emit(self._base("focus", window, ts))
            self.say(f"window: {window.title!r} ({window.process})")

    def scroll(self, x: int, y: int, *, delta: int, axis: str, ts: float, window: Window | None) -> None:
        self.flush_typing()
        self._emit(self._base("scroll", window, ts) | {"x": x, "y": y, "delta": delta, "axis": axis})

    def click(
        self,
        x: int,
        y: int,
        *,
        button: str,
        ts: float,
        received: float,
        window: Window | None,
        element: Element | None,
        frame: Frame | None,
    ) -> None:
        """A left or right press at (x, y); `received` (clock()) tells a double click from two clicks."""
        self.flush_typing()
        kind = "right_click" if button == "right" else "click"
        last = self._last_click
        if (
            kind == "click"
            and last is not None
            and received - last[0] <= DOUBLE_CLICK_S
            and abs(x - last[1]) <= DOUBLE_CLICK_PX
            and abs(y - last[2]) <= DOUBLE_CLICK_PX
        ):
            kind = "double_click"
        self._last_click = (received, x, y) if kind == "click" else None
        event = self._base(kind, window, ts) | {"x": x, "y": y, "button": "right" if button == "right" else "left"}
        if element is not None and identifies_target(element):
            event["element"] = event_element(element)
        self._secret = element if element is not None and element.is_password else None
        shot = self._shot(frame)
        if shot:
            event["screenshot"] = shot
        self._emit(event)
        name = f" {element.name!r}" if element is not None and element.name else ""
        self.say(f"{kind} at ({x}, {y}){name}")

    def key(self, key: Key, *, ts: float, window: Window | None, frame: Frame | None) -> None:
        if key.unmapped:
            self.unmapped += 1
            self.say(f"key {key.combo or '?'} maps to nothing in the keyboard map in force: not recorded as typed")
            return
        if key.is_modifier:
            return
        if (key.char is not None and key.combo == key.name) or key.name == "space":
            if not self._typed:
                self._typed_window = window
            self._typed.append(key.char or " ")
            self._typed_at = self.clock()
            self._typed_ts = ts
            return
        self.flush_typing()
        event = self._base("key", window, ts) | {"keys": key.combo}
        if self._secret is not None:
            event |= {"is_password": True, "element": event_element(self._secret)}
        shot = self._shot(frame)
        if shot:
            event["screenshot"] = shot
        self._emit(event)
        self.say(f"key {key.combo}")
        if key.name in ("enter", "tab", "escape"):
            self._secret = None

    def tick(self) -> None:
        """Between inputs: a burst of typing ends after a pause."""
        if self._typed and self.clock() - self._typed_at > TYPE_FLUSH_S:
            self.flush_typing()

    def flush_typing(self) -> None:
        if not self._typed:
            return
        text = "".join(self._typed)
        self._typed = []
        event = self._base("type", self._typed_window, self._typed_ts) | {"text": text}
        if self._secret is not None:
            event |= {"text": MASK, "is_password": True, "element": event_element(self._secret)}
            self.say(f"typed {len(text)} character(s) in a password field (masked)")
        else:
            self.say(f"typed {len(text)} character(s)")
        self._emit(event)

    def screen_at_end(self, frame: Frame | None, ts: float) -> None:
        """The screen when the recording stops: what the last action left (a confirmation it showed), which
        no later input's frame before will show."""
        self.flush_typing()
        if frame is not None and self.counts.keys() - {"focus"}:
            self._emit(self._base("screenshot", self._window, ts) | {"screenshot": self._shot(frame)})

    # --- events ---------------------------------------------------------------------------------------
    def _base(self, kind: str, window: Window | None, ts: float) -> dict[str, Any]:
        """An event stamped with the moment it happened, not when it is sent."""
        self._window = window or self._window
        width, height = self.screen_size()
        event: dict[str, Any] = {
            "session_id": self.session_id,
            "machine_id": self.machine_id,
            "event_id": f"{self.session_id}-{next(self._ids)}",
            "ts": round(ts, 3),
            "type": kind,
            "window_title": window.title if window else None,
            "window_box": list(window.box) if window and window.box else None,  # a replay follows the window
            "app": window.process if window else None,
            "agent": self.agent,
            "screen_width": width,
            "screen_height": height,
            "locale": self.locale,
        }
        return {k: v for k, v in event.items() if v is not None}

    def _emit(self, event: dict[str, Any]) -> None:
        self.counts[event["type"]] = self.counts.get(event["type"], 0) + 1
        self.send(event)

    def _shot(self, frame: Frame | None) -> str | None:
        return base64.b64encode(self.png(frame)).decode("ascii") if frame is not None else None
