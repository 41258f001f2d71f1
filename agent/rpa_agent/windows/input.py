"""Input through SendInput: absolute mouse moves on the virtual desktop, clicks, wheel, key
combinations by virtual key, and any Unicode text as KEYEVENTF_UNICODE code units.

Coordinates are physical pixels of the virtual desktop (all monitors; the primary one's top-left is
(0, 0), a monitor left of it has negative x). Every event carries AGENT_EXTRA_INFO in dwExtraInfo
and is announced to `announce` first, so the input watch can tell it from a person's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from rpa_agent.port import Button, InputRefused
from rpa_agent.windows import api, keys
from rpa_agent.windows.api import KeyInput, MouseInput, SendEvent, Win32

Announce = Callable[[list[str]], None]

_BUTTON_FLAGS = {
    "left": (api.MOUSEEVENTF_LEFTDOWN, api.MOUSEEVENTF_LEFTUP),
    "right": (api.MOUSEEVENTF_RIGHTDOWN, api.MOUSEEVENTF_RIGHTUP),
    "middle": (api.MOUSEEVENTF_MIDDLEDOWN, api.MOUSEEVENTF_MIDDLEUP),
}
TEXT_BATCH = 64  # UTF-16 code units per SendInput call: one call is never interleaved with a person's input


class InputBlocked(InputRefused):
    """SendInput inserted none of the events (input blocked, the secure desktop in front): nothing was sent."""

    code = "input-blocked"

    def __init__(self, asked: int) -> None:
        super().__init__(f"SendInput inserted none of {asked} events (input blocked or the secure desktop in front)")
        self.asked = asked


class InputPartlySent(RuntimeError):
    """SendInput inserted only part of an action's events: what reached the application is uncertain."""

    code = "input-partly-sent"

    def __init__(self, sent: int, asked: int) -> None:
        super().__init__(f"SendInput inserted {sent} of {asked} events: the action may be half done")
        self.sent = sent
        self.asked = asked


class ElevatedWindow(InputRefused):
    """The window the input would reach runs at a higher integrity level (as administrator): Windows would
    drop the input without a word (UIPI), so nothing is sent."""

    code = "elevated-window"


class UnknownKey(InputRefused):
    """A combination names a key this backend does not know: nothing was sent."""

    code = "unknown-key"


def normalise(pixel: int, origin: int, extent: int) -> int:
    """0..65535 for one physical pixel of the virtual desktop: the middle of the pixel, so that
    Windows' mapping back (`pixel = origin + dx * extent / 65536`, rounded down) lands on it."""
    offset = min(max(pixel - origin, 0), max(extent - 1, 0))
    return min(((2 * offset + 1) * 65536) // (2 * max(extent, 1)), 65535)


def utf16_units(text: str) -> list[int]:
    """UTF-16 code units: a character outside the BMP ("𝄞") becomes its surrogate pair."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


class SendInputDevice:
    """The port's `Input` over SendInput."""

    def __init__(self, win: Win32, announce: Announce | None = None) -> None:
        self._win = win
        self._announce = announce or (lambda kinds: None)
        self._own_level: int | None = None

    def move(self, x: int, y: int) -> None:
        self._send([self._move(x, y)], ["motion"])

    def click(self, x: int, y: int, *, button: Button = "left", count: int = 1) -> None:
        self._refuse_elevated(self._win.window_at(x, y))
        down, up = _BUTTON_FLAGS[button]
        events: list[SendEvent] = [self._move(x, y)]
        for _ in range(max(count, 1)):
            events += [MouseInput(0, 0, down), MouseInput(0, 0, up)]
        self._send(events, ["motion"] + ["button_press", "button_release"] * max(count, 1))

    def scroll(self, x: int, y: int, *, direction: Literal["up", "down"] = "down", amount: int = 3) -> None:
        self._refuse_elevated(self._win.window_at(x, y))
        delta = api.WHEEL_DELTA if direction == "up" else -api.WHEEL_DELTA
        events: list[SendEvent] = [self._move(x, y)]
        events += [MouseInput(0, 0, api.MOUSEEVENTF_WHEEL, data=delta) for _ in range(max(amount, 1))]
        self._send(events, ["motion"] + ["scroll"] * max(amount, 1))

    def combo(self, keys_: str) -> None:
        """ "ctrl+shift+tab": modifiers pressed in order, the last key pressed and released, modifiers released."""
        names = [part for part in keys_.replace(" ", "").lower().split("+") if part] or ["+"]
        vks: list[int] = []
        for name in names:
            vk = keys.vk_for(name)
            if vk is None and len(name) == 1:  # "ctrl+/", "ctrl+é": the key of the layout in front
                vk = self._win.vk_for_char(name, self._foreground_layout())
            if vk is None:
                raise UnknownKey(f"unknown key {name!r} in {keys_!r}: use names such as ctrl, alt, enter, f5, a")
            vks.append(vk)
        self._refuse_elevated(self._win.foreground_window())
        events = [self._key(vk, up=False) for vk in vks] + [self._key(vk, up=True) for vk in reversed(vks)]
        self._send(events, ["key_press"] * len(vks) + ["key_release"] * len(vks))

    def type_text(self, text: str) -> None:
        """Each character as KEYEVENTF_UNICODE code units (down, up); a line break as Enter, a tab as Tab
        (an edit control takes a typed "\\n" for Ctrl+Enter)."""
        self._refuse_elevated(self._win.foreground_window())
        events: list[KeyInput] = []
        for char in text.replace("\r\n", "\n"):
            if char in "\n\r\t":
                vk = keys.VK_TAB if char == "\t" else keys.VK_RETURN
                events += [self._key(vk, up=False), self._key(vk, up=True)]
                continue
            for unit in utf16_units(char):
                events.append(KeyInput(0, unit, api.KEYEVENTF_UNICODE))
                events.append(KeyInput(0, unit, api.KEYEVENTF_UNICODE | api.KEYEVENTF_KEYUP))
        for start in range(0, len(events), 2 * TEXT_BATCH):
            batch = events[start : start + 2 * TEXT_BATCH]
            self._send(batch, ["key_press", "key_release"] * (len(batch) // 2), already=start, total=len(events))

    # --- helpers -------------------------------------------------------------------------------------
    def _move(self, x: int, y: int) -> MouseInput:
        left, top, width, height = self._win.virtual_screen()
        flags = api.MOUSEEVENTF_MOVE | api.MOUSEEVENTF_ABSOLUTE | api.MOUSEEVENTF_VIRTUALDESK
        return MouseInput(normalise(x, left, width), normalise(y, top, height), flags)

    def _refuse_elevated(self, hwnd: int) -> None:
        """Refuse before sending when the window that would get the input outranks the agent (UIPI).
        When either integrity level cannot be read, the input is sent: the screen then shows what it did."""
        if not hwnd:
            return
        _, pid = self._win.window_thread_process(hwnd)
        target = self._win.integrity_level(pid) if pid else None
        if self._own_level is None:
            self._own_level = self._win.integrity_level(None)
        if target is not None and self._own_level is not None and target > self._own_level:
            raise ElevatedWindow(
                f"the window 0x{hwnd:x} runs as administrator (integrity 0x{target:x} above the agent's "
                f"0x{self._own_level:x}): Windows would drop the input; a person must do this step"
            )

    def _foreground_layout(self) -> int:
        hwnd = self._win.foreground_window()
        thread, _ = self._win.window_thread_process(hwnd) if hwnd else (0, 0)
        return self._win.keyboard_layout(thread)

    def _key(self, vk: int, *, up: bool) -> KeyInput:
        flags = (api.KEYEVENTF_KEYUP if up else 0) | (api.KEYEVENTF_EXTENDEDKEY if vk in keys.EXTENDED else 0)
        return KeyInput(vk, self._win.scan_code(vk), flags)

    def _send(self, events: Sequence[SendEvent], kinds: list[str], *, already: int = 0, total: int = 0) -> None:
        """SendInput in one call. Its count catches blocked input and the secure desktop; input that UIPI
        drops (an elevated window in front) is counted as sent: only the screen shows that one."""
        self._announce(kinds)
        sent = self._win.send_input(events)
        if sent == len(events):
            return
        if sent == 0 and already == 0:
            raise InputBlocked(len(events))
        raise InputPartlySent(already + sent, max(total, len(events)))
