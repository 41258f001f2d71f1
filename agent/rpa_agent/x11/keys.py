"""X key events -> what a person typed: a character, or a key name for combos (`ctrl+s`, `enter`).

A keycode is read with the keyboard map in force when the key was pressed, never with a copy
taken when the recorder started: a typing program (xdotool, a scripted person, an input method)
binds the characters its keyboard lacks to spare keycodes for the time it types them. `Keymap`
keeps this process's copy of the map and re-reads the keycodes a `MappingNotify` names (the
input watch sees it in order with the keys); a keycode its copy maps to nothing is read again from
the server before it is given up. A key that still maps to nothing is `unmapped` — reported by the
recorder, never taken for a modifier.
"""

from __future__ import annotations

import threading
from typing import Protocol

from Xlib import XK, X

from rpa_agent.core.recorder import Key

MODIFIER_KEYSYMS = {
    "Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Meta_L", "Meta_R",
    "Super_L", "Super_R", "ISO_Level3_Shift", "Caps_Lock", "Num_Lock",
}  # fmt: skip
NAMES = {
    "Return": "enter", "KP_Enter": "enter", "Tab": "tab", "ISO_Left_Tab": "tab", "Escape": "escape",
    "BackSpace": "backspace", "Delete": "delete", "Insert": "insert", "Home": "home", "End": "end",
    "Prior": "pageup", "Next": "pagedown", "Up": "up", "Down": "down", "Left": "left", "Right": "right",
    "space": "space",
}  # fmt: skip


_KEYSYM_NAMES: dict[int, str] = {}
for _name, _value in sorted(vars(XK).items()):
    if _name.startswith("XK_") and isinstance(_value, int):
        _KEYSYM_NAMES.setdefault(_value, _name[3:])


def keysym_name(keysym: int) -> str:
    """`Shift_L`, `Return`, `a`, `eacute`... ('' for NoSymbol and keysyms without a name)."""
    return _KEYSYM_NAMES.get(keysym, "")


class KeyboardMapping(Protocol):
    """What `Keymap` reads from the X server (python-xlib's `Display` has it)."""

    def get_keyboard_mapping(self, first_keycode: int, count: int) -> list[list[int]]: ...
    def close(self) -> None: ...


class Keymap:
    """This process's copy of the keyboard map: keycode -> keysyms (index 0 plain, 1 shifted)."""

    def __init__(self, conn: KeyboardMapping, first: int = 8, last: int = 255) -> None:
        self.conn = conn
        self.first, self.last = first, last
        self._lock = threading.Lock()
        self._map: dict[int, list[int]] = {}
        self.refresh(first, last - first + 1)

    def close(self) -> None:
        self.conn.close()

    def refresh(self, first: int, count: int) -> None:
        """Re-read `count` keycodes from `first` (a MappingNotify named them)."""
        first = max(first, self.first)
        count = min(count, self.last - first + 1)
        if count <= 0:
            return
        with self._lock:
            rows = self.conn.get_keyboard_mapping(first, count)
            for i, syms in enumerate(rows):
                self._map[first + i] = [int(s) for s in syms]

    def keysym(self, keycode: int, index: int) -> int:
        """The keysym at `index` (0 plain, 1 shifted; the plain one when the shifted is absent)."""
        with self._lock:
            syms = self._map.get(keycode, [])
        if not any(syms):  # maybe bound since the last MappingNotify this process saw: ask the server
            self.refresh(keycode, 1)
            with self._lock:
                syms = self._map.get(keycode, [])
        shifted = syms[index] if index < len(syms) else 0
        return shifted or (syms[0] if syms else 0)


class KeyTranslator:
    def __init__(self, keymap: Keymap) -> None:
        self.keymap = keymap

    def translate(self, keycode: int, state: int) -> Key:
        shifted = bool(state & X.ShiftMask)
        keysym = self.keymap.keysym(keycode, 1 if shifted else 0)
        name = keysym_name(keysym)
        if not keysym:
            return Key("", None, f"keycode {keycode}", unmapped=True)
        if name in MODIFIER_KEYSYMS:
            return Key(name.lower(), None, name.lower(), is_modifier=True)
        char = _char(keysym)
        if char is None and not name:  # a keysym with no name and no character
            return Key("", None, f"keysym {keysym:#x}", unmapped=True)
        if char is not None and len(name) != 1 and name not in NAMES:
            name = char  # eacute -> é (and a Unicode keysym without an XK name)
        if state & X.LockMask and char is not None and char.isalpha():
            char = char.swapcase() if not shifted else char
        mods = [m for m, mask in (("ctrl", X.ControlMask), ("alt", X.Mod1Mask), ("win", X.Mod4Mask)) if state & mask]
        key = NAMES.get(name) or (name.lower() if len(name) > 1 else (char or name).lower())
        if mods or char is None:
            if shifted and (char is None or mods):
                mods.append("shift")
            return Key(key, None, "+".join([*mods, key]))
        if key == "space":
            return Key("space", " ", "space")
        return Key(key, char, key)


def _char(keysym: int) -> str | None:
    if 0x20 <= keysym <= 0x7E or 0xA0 <= keysym <= 0xFF:
        return chr(keysym)
    if keysym & 0xFF000000 == 0x01000000:
        return chr(keysym & 0x00FFFFFF)
    return None
