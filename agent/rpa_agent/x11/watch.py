"""Every real input event of an X11 display, through the RECORD extension (a thread).

`InputWatch` delivers each key, button and motion event (`RawInput`) to its listeners as
the X server processes it, whoever produced it: a person's mouse and keyboard, or XTEST.
To tell its own input from a person's, the replay agent announces what it is about to send
(`expect`); `OwnInput` decides which events are the agent's, any other one is a person's
(`foreign`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from Xlib import X, display
from Xlib.ext import record
from Xlib.protocol import rq

from rpa_agent.x11.own_input import Expectation, OwnInput

logger = logging.getLogger(__name__)
KINDS = {X.KeyPress: "key_press", X.KeyRelease: "key_release", X.ButtonPress: "button_press"}
KINDS |= {X.ButtonRelease: "button_release", X.MotionNotify: "motion"}


@dataclass(frozen=True)
class RawInput:
    kind: int  # X.KeyPress, X.KeyRelease, X.ButtonPress, X.ButtonRelease, X.MotionNotify
    detail: int  # keycode or button
    x: int
    y: int
    state: int  # modifier mask before the event
    time_ms: int  # X server time
    received: float  # time.monotonic() when this process got it
    foreign: bool = False  # not announced by the agent: a person's input

    @property
    def name(self) -> str:
        return KINDS.get(self.kind, str(self.kind))


Listener = Callable[[RawInput], None]
MappingListener = Callable[[int, int], None]  # (first keycode, count) of a keyboard map change


class InputWatch:
    def __init__(self, display_name: str | None = None) -> None:
        self._name = display_name
        self._control = display.Display(display_name)
        self._data = display.Display(display_name)
        if not self._data.has_extension("RECORD"):
            raise RuntimeError(f"the X server {display_name or ''} has no RECORD extension")
        self._listeners: list[Listener] = []
        self._mapping_listeners: list[MappingListener] = []
        self._context: int | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._own = OwnInput()
        self.foreign_count = 0
        self.last_foreign: RawInput | None = None
        self._foreign = threading.Condition()

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def add_mapping_listener(self, listener: MappingListener) -> None:
        """Called with (first keycode, count) when the keyboard map changes, in order with the keys."""
        self._mapping_listeners.append(listener)

    def start(self) -> InputWatch:
        self._context = self._control.record_create_context(
            0,
            [record.AllClients],
            [
                {
                    "core_requests": (0, 0),
                    "core_replies": (0, 0),
                    "ext_requests": (0, 0, 0, 0),
                    "ext_replies": (0, 0, 0, 0),
                    "delivered_events": (X.MappingNotify, X.MappingNotify),  # the keyboard map, in order
                    "device_events": (X.KeyPress, X.MotionNotify),
                    "errors": (0, 0),
                    "client_started": False,
                    "client_died": False,
                }
            ],
        )
        self._control.sync()
        self._thread = threading.Thread(target=self._run, name="x11-input-watch", daemon=True)
        self._thread.start()
        self._started.wait(10)
        return self

    def stop(self) -> None:
        if self._context is not None:
            self._control.record_disable_context(self._context)
            self._control.flush()
        if self._thread is not None:
            self._thread.join(10)
        if self._context is not None:
            self._control.record_free_context(self._context)
            self._context = None
        self._control.close()

    def wait_foreign(self, seen: int, timeout: float) -> bool:
        """Wait up to `timeout` seconds for input the agent did not inject, beyond the `seen` count
        (a person taking the mouse or keyboard); True as soon as there is some."""
        with self._foreign:
            return self._foreign.wait_for(lambda: self.foreign_count > seen, timeout=max(0.0, timeout))

    # --- telling the agent's events from a person's ----------------------------------------------
    def expect(self, events: list[Expectation]) -> None:
        self._own.expect(events, time.monotonic())

    # --- the record thread -----------------------------------------------------------------------------
    def _run(self) -> None:
        assert self._context is not None
        self._started.set()
        try:
            self._data.record_enable_context(self._context, self._on_reply)
        except Exception:  # the connection went away: the watch ends, the agent keeps running
            logger.exception("x11_input_watch_stopped")
        finally:
            self._data.close()

    def _on_reply(self, reply: object) -> None:
        if getattr(reply, "category", None) != record.FromServer or getattr(reply, "client_swapped", False):
            return
        data = getattr(reply, "data", b"")
        now = time.monotonic()
        while len(data):
            ev, data = rq.EventField(None).parse_binary_value(data, self._data.display, None, None)
            kind = int(ev.type) & 0x7F
            if kind == X.MappingNotify:
                self._mapping_changed(ev)
                continue
            if kind not in KINDS:
                continue
            raw = RawInput(
                kind,
                int(ev.detail),
                int(ev.root_x),
                int(ev.root_y),
                int(ev.state),
                int(ev.time),
                now,
            )
            if not self._own.is_own(raw.kind, raw.detail, raw.x, raw.y, raw.received, raw.time_ms):
                raw = replace(raw, foreign=True)
                with self._foreign:
                    self.foreign_count += 1
                    self.last_foreign = raw
                    self._foreign.notify_all()
            for listener in self._listeners:
                try:
                    listener(raw)
                except Exception:
                    logger.exception("x11_input_listener_failed")

    def _mapping_changed(self, ev: Any) -> None:
        if int(getattr(ev, "request", -1)) != X.MappingKeyboard:
            return
        for listener in self._mapping_listeners:
            try:
                listener(int(ev.first_keycode), int(ev.count))
            except Exception:
                logger.exception("x11_mapping_listener_failed")
