"""Recording and takeover: low-level mouse and keyboard hooks on their own thread.

`HookTranslator` turns what WH_MOUSE_LL / WH_KEYBOARD_LL hand over into the port's `RawInput`:
key names as the wire spells them, and the character a key typed, through ToUnicodeEx with the
keyboard layout of the foreground window's thread (a French workstation types "é" on the "2" key).
A scroll carries its direction in `key` ("up", "down", "left", "right").

An event is this agent's when it carries the agent's dwExtraInfo tag, or when it is flagged
injected (LLMHF_INJECTED / LLKHF_INJECTED) and matches an input the agent announced (`expect`),
or is an injected move to exactly where the agent's last move put the pointer (Wine repeats a move
without its tag).
Every other event is a person's (`foreign`), including input injected by another program such as
the on-screen keyboard: a pause is never wrong.

The hook callbacks only translate and queue; listeners run on a second thread. Windows removes a
low-level hook that answers late, without a word: every second the hook thread compares the time of
the desktop's last input (GetLastInputInfo) with the last event its hooks saw; input they missed
installs them again and counts once as a person's (`lost_count` says how often), so a takeover is
never missed silently. What the recorder missed meanwhile is not recovered.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from rpa_agent.port import Button, InputListener, RawInput
from rpa_agent.windows import api, keys
from rpa_agent.windows.api import KeyHookEvent, MouseHookEvent, Win32

logger = logging.getLogger(__name__)

EXPECTATION_TTL_S = 5.0
TICK_MS = 1000  # how often the hook thread checks that its hooks still see the desktop's input
STALE_MS = 1500  # input this much newer than the last event the hooks saw: the hooks were lost
ALTGR_CTRL_SCAN = 0x21D
MouseKind = Literal["button_press", "button_release", "motion", "scroll"]
_MOUSE: dict[int, tuple[MouseKind, Button | None]] = {
    api.WM_MOUSEMOVE: ("motion", None),
    api.WM_LBUTTONDOWN: ("button_press", "left"),
    api.WM_LBUTTONUP: ("button_release", "left"),
    api.WM_RBUTTONDOWN: ("button_press", "right"),
    api.WM_RBUTTONUP: ("button_release", "right"),
    api.WM_MBUTTONDOWN: ("button_press", "middle"),
    api.WM_MBUTTONUP: ("button_release", "middle"),
    api.WM_MOUSEWHEEL: ("scroll", None),
    api.WM_MOUSEHWHEEL: ("scroll", None),
}
_DOWN = {api.WM_KEYDOWN, api.WM_SYSKEYDOWN}
_SHIFT = {keys.VK_SHIFT, keys.VK_LSHIFT, keys.VK_RSHIFT}
_CTRL = {keys.VK_CONTROL, keys.VK_LCONTROL, keys.VK_RCONTROL}
_ALT = {keys.VK_MENU, keys.VK_LMENU, keys.VK_RMENU}


# A dead key's spacing accent -> the combining mark it puts on the next letter.
COMBINING = {
    "^": "\u0302", "ˆ": "\u0302", "¨": "\u0308", '"': "\u0308", "`": "\u0300", "´": "\u0301", "'": "\u0301",
    "~": "\u0303", "˜": "\u0303", "¸": "\u0327", "˚": "\u030a", "°": "\u030a", "ˇ": "\u030c",
}  # fmt: skip


def compose(accent: str, typed: str) -> str:
    """What Windows types for a dead key then a key: "ê" for ^ e, the accent alone for a space, both
    characters when no precomposed one exists (^ x gives "^x")."""
    if typed == " ":
        return accent
    mark = COMBINING.get(accent)
    if mark is not None:
        composed = unicodedata.normalize("NFC", typed[0] + mark)
        if len(composed) == 1:
            return composed + typed[1:]
    return accent + typed


def _signed16(value: int) -> int:
    value &= 0xFFFF
    return value - 0x10000 if value >= 0x8000 else value


class HookTranslator:
    """Hook structures -> `RawInput` (without `foreign`, which the watch decides)."""

    def __init__(self, win: Win32, clock: Callable[[], float] = time.time) -> None:
        self._win = win
        self._clock = clock
        self._held: set[int] = set()  # modifier virtual keys held now
        self._pointer = (0, 0)
        self._high_surrogate: str | None = None
        self._dead: str | None = None  # a dead key's accent waiting for the next key
        self._altgr_ctrl = False  # the left Ctrl that Windows sends with AltGr is down
        self._right_alt = "alt"  # what the right Alt was when pressed: "altgr" or "alt"

    def mouse(self, event: MouseHookEvent) -> RawInput | None:
        kind_button = _MOUSE.get(event.message)
        if kind_button is None:
            return None  # X buttons: not on the wire
        kind, button = kind_button
        self._pointer = (event.x, event.y)
        key = None
        if kind == "scroll":
            delta = _signed16(event.mouse_data >> 16)
            if event.message == api.WM_MOUSEWHEEL:
                key = "up" if delta > 0 else "down"
            else:
                key = "right" if delta > 0 else "left"
        return RawInput(kind, event.x, event.y, self._clock(), button=button, key=key)

    def key(self, event: KeyHookEvent) -> RawInput:
        down = event.message in _DOWN
        vk = event.vk
        name = keys.wire_name(vk)
        if vk == keys.VK_LCONTROL and event.scan == ALTGR_CTRL_SCAN:
            # AltGr arrives as this left Ctrl, then the right Alt: both are AltGr, not a Ctrl combo
            self._altgr_ctrl, name = down, "altgr"
        elif vk in keys.MODIFIER_VKS:
            (self._held.add if down else self._held.discard)(vk)
        if vk == keys.VK_RMENU:  # AltGr on a layout that has it, Alt on the others (US)
            if down:
                self._right_alt = "altgr" if self._altgr_ctrl else "alt"
            name = self._right_alt
        char = self._char(event) if down else None
        x, y = self._pointer
        return RawInput("key_press" if down else "key_release", x, y, self._clock(), key=name, char=char)

    def _char(self, event: KeyHookEvent) -> str | None:
        if event.vk == keys.VK_PACKET:  # KEYEVENTF_UNICODE: the scan code is the UTF-16 unit
            unit = chr(event.scan)
            if 0xD800 <= event.scan <= 0xDBFF:
                self._high_surrogate = unit
                return None
            if 0xDC00 <= event.scan <= 0xDFFF and self._high_surrogate is not None:
                pair, self._high_surrogate = self._high_surrogate + unit, None
                return pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            return unit
        if event.vk in keys.MODIFIER_VKS:
            return None
        ctrl, alt = bool(self._held & _CTRL), bool(self._held & _ALT)
        altgr = (self._altgr_ctrl and keys.VK_RMENU in self._held) or (ctrl and alt)
        if (ctrl or alt) and not altgr:
            return None  # a shortcut types nothing
        typed, dead = self._win.to_unicode(event.vk, event.scan, self._key_state(altgr), self._layout())
        pending, self._dead = self._dead, None
        if dead:
            if pending is None:
                self._dead = typed
                return None  # the accent waits for the next key, as the application's does
            return pending + typed  # two dead keys: both accents
        if not typed or not all(c.isprintable() for c in typed):
            return None
        return compose(pending, typed) if pending is not None else typed

    def _key_state(self, altgr: bool) -> bytes:
        state = bytearray(256)
        if self._held & _SHIFT:
            state[keys.VK_SHIFT] = state[keys.VK_LSHIFT] = 0x80
        if altgr:  # AltGr is Ctrl+Alt for ToUnicodeEx
            state[keys.VK_CONTROL] = state[keys.VK_LCONTROL] = 0x80
            state[keys.VK_MENU] = state[keys.VK_RMENU] = 0x80
        if self._win.key_toggled(keys.VK_CAPITAL):
            state[keys.VK_CAPITAL] = 0x01
        return bytes(state)

    def _layout(self) -> int:
        hwnd = self._win.foreground_window()
        thread, _ = self._win.window_thread_process(hwnd) if hwnd else (0, 0)
        return self._win.keyboard_layout(thread)


class HookWatch:
    """The port's `Watch` over low-level hooks."""

    def __init__(self, win: Win32, clock: Callable[[], float] = time.time) -> None:
        self._win = win
        self._translator = HookTranslator(win, clock)
        self._monotonic = time.monotonic
        self._lock = threading.Lock()
        self._expected: deque[tuple[str, float]] = deque()
        self._foreign = 0
        self._own_pointer: tuple[int, int] | None = None  # where the agent's last move put the pointer
        self._last_event_ms: int | None = None  # tick count when the hooks last saw an event
        self.lost_count = 0  # how often the hooks had to be installed again
        self._listeners: list[InputListener] = []
        self._queue: queue.Queue[RawInput | None] = queue.Queue()
        self._hook_thread: threading.Thread | None = None
        self._hook_thread_id = 0
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._dispatcher: threading.Thread | None = None

    @property
    def foreign_count(self) -> int:
        with self._lock:
            return self._foreign

    def expect(self, kinds: list[str]) -> None:
        deadline = self._monotonic() + EXPECTATION_TTL_S
        with self._lock:
            self._expected.extend((kind, deadline) for kind in kinds)

    def add_listener(self, listener: InputListener) -> None:
        self._listeners.append(listener)

    def start(self) -> None:
        if self._hook_thread is not None:
            return
        self._ready.clear()
        self._failure = None
        self._hook_thread_id = 0
        self._dispatcher = threading.Thread(target=self._dispatch, name="rpa-agent-input-dispatch", daemon=True)
        self._dispatcher.start()
        self._hook_thread = threading.Thread(target=self._run_hooks, name="rpa-agent-input-hooks", daemon=True)
        self._hook_thread.start()
        if not self._ready.wait(timeout=10.0) or self._failure is not None:
            self.stop()
            raise RuntimeError(f"the low-level input hooks could not be installed: {self._failure!r}")
        logger.info("input_hooks_started: thread %d", self._hook_thread_id)

    def stop(self) -> None:
        if self._hook_thread is not None:
            if self._hook_thread_id:
                self._win.post_quit(self._hook_thread_id)
            self._hook_thread.join(timeout=5.0)
            self._hook_thread = None
        if self._dispatcher is not None:
            self._queue.put(None)
            self._dispatcher.join(timeout=5.0)
            self._dispatcher = None

    def flush(self) -> None:
        """Wait until every queued event has reached the listeners."""
        self._queue.join()

    # --- the hook thread: translate, decide, queue ------------------------------------------------
    def on_tick(self) -> bool:
        """True (install the hooks again) when the desktop had input that the hooks did not see."""
        last_input = self._win.last_input_ms()
        seen = self._last_event_ms
        self._last_event_ms = last_input if seen is None else seen
        lag = (last_input - seen) & 0xFFFFFFFF if seen is not None else 0  # tick counts wrap after 49.7 days
        if lag <= STALE_MS or lag >= 0x80000000:
            return False
        self._last_event_ms = last_input
        self.lost_count += 1
        with self._lock:
            self._foreign += 1
        logger.warning(
            "input_hooks_lost: input %d ms newer than the hooks saw; installed again, counted as a person's", lag
        )
        return True

    def on_mouse(self, event: MouseHookEvent) -> None:
        self._last_event_ms = self._win.tick_count()  # when it reached the hooks: never before GetLastInputInfo's
        raw = self._translator.mouse(event)
        if raw is not None:
            self._account(raw, event.extra_info, bool(event.flags & api.LLMHF_INJECTED))

    def on_key(self, event: KeyHookEvent) -> None:
        self._last_event_ms = self._win.tick_count()
        raw = self._translator.key(event)
        self._account(raw, event.extra_info, bool(event.flags & api.LLKHF_INJECTED))

    def _account(self, raw: RawInput, extra_info: int, injected: bool) -> None:
        tagged = extra_info == api.AGENT_EXTRA_INFO
        announced = (injected or tagged) and self._consume(raw.kind)  # a person's input never uses up an announcement
        ours = tagged or announced
        if raw.kind == "motion":
            if ours:
                self._own_pointer = (raw.x, raw.y)
            elif injected and (raw.x, raw.y) == self._own_pointer:
                ours = True  # an injected echo of the agent's own move (Wine repeats a move without its tag)
        if not ours:
            with self._lock:
                self._foreign += 1
        self._queue.put(replace(raw, foreign=not ours))

    def _consume(self, kind: str) -> bool:
        now = self._monotonic()
        with self._lock:
            while self._expected and self._expected[0][1] < now:
                self._expected.popleft()
            for index, (expected, _) in enumerate(self._expected):
                if expected == kind:
                    del self._expected[index]
                    return True
            return False

    def _run_hooks(self) -> None:
        try:
            self._win.run_hooks(self.on_mouse, self.on_key, self._hooks_ready, self.on_tick, TICK_MS)
        except BaseException as exc:  # reported by start(); the thread must not die silently
            self._failure = exc
            logger.exception("input_hooks_failed")
        finally:
            self._ready.set()

    def _hooks_ready(self, thread_id: int) -> None:
        self._hook_thread_id = thread_id
        self._ready.set()

    def _dispatch(self) -> None:
        while True:
            raw = self._queue.get()
            try:
                if raw is None:
                    return
                for listener in list(self._listeners):
                    try:
                        listener(raw)
                    except Exception:
                        logger.exception("input_listener_failed")
            finally:
                self._queue.task_done()
