"""Real input through XTEST: pointer moves, clicks, scrolls, key combos and any Unicode text.

A character without a key in the current keyboard map is typed through a spare keycode
(one that maps nothing) bound to its keysym for the time it is needed, the way xdotool does;
the map is restored when the injector closes. Every character of a text is bound before its
first key is sent, and no keycode is rebound while that text is typed (an application reads a
key with the map of the moment it reads it, not of the moment it was sent).

Every event sent is announced first to an optional `expect` callback, so that an input
watch can tell the agent's own events from a person's (see `rpa_agent.x11.watch`).
Text is sent in batches of keys (one round trip to the X server each, in order).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from Xlib import XK, X, display
from Xlib.ext import xtest

from rpa_agent.port import InputRefused
from rpa_agent.x11.own_input import Expectation

Expect = Callable[[list[Expectation]], None]

MODIFIERS = {
    "ctrl": "Control_L",
    "control": "Control_L",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "altgr": "ISO_Level3_Shift",
    "super": "Super_L",
    "win": "Super_L",
    "meta": "Super_L",
    "cmd": "Super_L",
}
KEY_NAMES = {
    "enter": "Return",
    "return": "Return",
    "tab": "Tab",
    "esc": "Escape",
    "escape": "Escape",
    "backspace": "BackSpace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pagedown": "Next",
    "pgup": "Prior",
    "pgdn": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "space": "space",
    "plus": "plus",
    "minus": "minus",
    "capslock": "Caps_Lock",
    "menu": "Menu",
    "printscreen": "Print",
}
BUTTONS = {"left": 1, "middle": 2, "right": 3}
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}
MAX_TEXT = 20_000
TYPING_BATCH = 64  # characters sent (and announced to the input watch) per round trip while typing


def char_keysym(char: str) -> int:
    if char == "\n":
        return int(XK.string_to_keysym("Return"))
    if char == "\t":
        return int(XK.string_to_keysym("Tab"))
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 | code


def key_keysym(name: str) -> int:
    lowered = name.strip().lower()
    if lowered in MODIFIERS:
        name = MODIFIERS[lowered]
    elif lowered in KEY_NAMES:
        name = KEY_NAMES[lowered]
    elif len(name) == 1:
        return char_keysym(name.lower() if name.isalpha() else name)
    elif lowered.startswith("f") and lowered[1:].isdigit():
        name = lowered.upper()
    keysym = int(XK.string_to_keysym(name))
    if keysym == 0:
        raise InputRefused(f"unknown key {name!r} in a key combo")
    return keysym


def parse_combo(keys: str) -> list[str]:
    parts = [p.strip() for p in keys.replace(" ", "").split("+")]
    if keys.strip().endswith("++"):  # "ctrl++": the plus key
        parts = [*[p for p in parts if p], "plus"]
    parts = [p for p in parts if p]
    if not parts:
        raise InputRefused("an empty key combo")
    return parts


class Injector:
    def __init__(self, display_name: str | None = None, *, expect: Expect | None = None) -> None:
        self.display = display.Display(display_name)
        self.expect = expect
        self._lock = threading.Lock()
        self._spares = self._find_spare_keycodes()
        self._spare_set = frozenset(self._spares)
        self._bound: OrderedDict[int, int] = OrderedDict()  # keysym -> spare keycode

    def close(self) -> None:
        with self._lock:
            for keycode in self._bound.values():
                self.display.change_keyboard_mapping(keycode, [(0, 0)])
            self.display.sync()
            self.display.close()

    # --- pointer ----------------------------------------------------------------------------------
    def pointer(self) -> tuple[int, int]:
        with self._lock:
            reply = self.display.screen().root.query_pointer()
        return int(reply.root_x), int(reply.root_y)

    def move(self, x: int, y: int) -> None:
        with self._lock:
            self._send([(X.MotionNotify, 0, x, y)])

    def click(self, x: int, y: int, *, button: str = "left", count: int = 1) -> None:
        number = BUTTONS.get(button)
        if number is None:
            raise InputRefused(f"unknown mouse button {button!r} (left, middle, right)")
        events: list[Expectation] = [(X.MotionNotify, 0, x, y)]
        for _ in range(max(1, count)):
            events += [(X.ButtonPress, number, None, None), (X.ButtonRelease, number, None, None)]
        with self._lock:
            self._send(events)

    def scroll(self, x: int, y: int, *, direction: str = "down", amount: int = 3) -> None:
        number = SCROLL_BUTTONS.get(direction)
        if number is None:
            raise InputRefused(f"unknown scroll direction {direction!r} (up, down, left, right)")
        events: list[Expectation] = [(X.MotionNotify, 0, x, y)]
        for _ in range(max(1, min(int(amount), 50))):
            events += [(X.ButtonPress, number, None, None), (X.ButtonRelease, number, None, None)]
        with self._lock:
            self._send(events)

    # --- keyboard ---------------------------------------------------------------------------------
    def combo(self, keys: str) -> None:
        """`ctrl+s`, `enter`, `shift+tab`, `ctrl+shift+t`: press in order, release in reverse."""
        with self._lock:
            keysyms = [key_keysym(k) for k in parse_combo(keys)]
            self._bind(keysyms)
            codes = [self._keycode_for(k) for k in keysyms]
            presses: list[Expectation] = []
            for keycode, shifted in codes:
                if shifted:
                    presses.append((X.KeyPress, self._shift(), None, None))
                presses.append((X.KeyPress, keycode, None, None))
            releases: list[Expectation] = [(X.KeyRelease, detail, None, None) for _, detail, _, _ in reversed(presses)]
            self._send(presses + releases)

    def type_text(self, text: str) -> None:
        if len(text) > MAX_TEXT:
            raise InputRefused(f"text longer than {MAX_TEXT} characters")
        keysyms = [char_keysym(char) for char in text if char != "\r"]
        with self._lock:
            self._bind(keysyms)  # the keyboard map holds every character before the first key is sent
            for start in range(0, len(keysyms), TYPING_BATCH):
                events: list[Expectation] = []
                for keysym in keysyms[start : start + TYPING_BATCH]:
                    keycode, shifted = self._keycode_for(keysym)
                    if shifted:
                        events.append((X.KeyPress, self._shift(), None, None))
                    events += [(X.KeyPress, keycode, None, None), (X.KeyRelease, keycode, None, None)]
                    if shifted:
                        events.append((X.KeyRelease, self._shift(), None, None))
                self._send(events)

    # --- internals ----------------------------------------------------------------------------------
    def _send(self, events: list[Expectation]) -> None:
        if self.expect is not None:
            self.expect(events)
        for kind, detail, x, y in events:
            if kind == X.MotionNotify:
                xtest.fake_input(self.display, X.MotionNotify, x=int(x or 0), y=int(y or 0))
            else:
                xtest.fake_input(self.display, kind, detail)
        self.display.sync()

    def _shift(self) -> int:
        return int(self.display.keysym_to_keycode(XK.string_to_keysym("Shift_L")))

    def _in_map(self, keysym: int) -> tuple[int, bool] | None:
        """(keycode, needs shift) of a keysym the keyboard map has (its own keys or one bound here)."""
        if keysym in self._bound:
            self._bound.move_to_end(keysym)
            return self._bound[keysym], False
        for keycode, index in self.display.keysym_to_keycodes(keysym):
            if index in (0, 1) and keycode not in self._spare_set:
                return int(keycode), index == 1
        return None

    def _bind(self, keysyms: list[int]) -> None:
        """Bind a spare keycode to each keysym the map lacks, all at once, before any of them is typed.

        A spare keycode another client has bound meanwhile is left to it. A keycode bound for one
        of these keysyms is not rebound for another: a key already sent
        may not be read yet by the application, which reads it with the map of the moment it
        reads it. Between two texts, the agent has waited for the screen to settle (the earlier
        keys were read). More characters without a key than spare keycodes: refused, nothing typed.
        """
        wanted = set(keysyms)
        missing = [k for k in dict.fromkeys(keysyms) if self._in_map(k) is None]
        if not missing:
            return
        taken = set(self._bound.values())
        free = [k for k in self._spares if k not in taken and not any(self.display.get_keyboard_mapping(k, 1)[0])]
        evictable = [sym for sym in self._bound if sym not in wanted]  # least recently used first
        if len(missing) > len(free) + len(evictable):
            raise InputRefused(
                f"the text has {len(missing)} different characters without a key on this keyboard map, more "
                f"than its {len(self._spares)} spare keycodes: send it in shorter parts"
            )
        for keysym in missing:
            keycode = free.pop() if free else self._bound.pop(evictable.pop(0))
            self.display.change_keyboard_mapping(keycode, [(keysym, keysym)])
            self._bound[keysym] = keycode
        self.display.sync()

    def _keycode_for(self, keysym: int) -> tuple[int, bool]:
        """(keycode, needs shift) for a keysym the map holds (after `_bind`)."""
        found = self._in_map(keysym)
        if found is None:  # pragma: no cover - `_bind` runs first
            raise InputRefused(f"cannot type keysym {keysym:#x}: it has no key")
        return found

    def _find_spare_keycodes(self) -> list[int]:
        first = self.display.display.info.min_keycode
        count = self.display.display.info.max_keycode - first + 1
        mapping = self.display.get_keyboard_mapping(first, count)
        return [first + i for i, syms in enumerate(mapping) if not any(syms)]
