"""X key events -> what a person typed: a character, or a key name for combos (`ctrl+s`, `enter`)."""

from __future__ import annotations

from dataclasses import dataclass

from Xlib import XK, X, display

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
    """`Shift_L`, `Return`, `a`, `eacute`... ('' for NoSymbol)."""
    return _KEYSYM_NAMES.get(keysym, "")


@dataclass(frozen=True)
class Key:
    name: str  # "a", "enter", "f5", ... (lower case)
    char: str | None  # the character it types (None for keys and combos that type nothing)
    combo: str  # "ctrl+s", "shift+tab", "enter", "a"
    is_modifier: bool


class KeyTranslator:
    def __init__(self, conn: display.Display) -> None:
        self.conn = conn

    def translate(self, keycode: int, state: int) -> Key:
        shifted = bool(state & X.ShiftMask)
        keysym = self.conn.keycode_to_keysym(keycode, 1 if shifted else 0) or self.conn.keycode_to_keysym(keycode, 0)
        name = keysym_name(keysym)
        if name in MODIFIER_KEYSYMS or not keysym:
            return Key(name.lower(), None, name.lower(), True)
        char = _char(keysym)
        if char is not None and len(name) != 1 and name not in NAMES:
            name = char  # eacute -> é
        if state & X.LockMask and char is not None and char.isalpha():
            char = char.swapcase() if not shifted else char
        mods = [m for m, mask in (("ctrl", X.ControlMask), ("alt", X.Mod1Mask), ("win", X.Mod4Mask)) if state & mask]
        key = NAMES.get(name) or (name.lower() if len(name) > 1 else (char or name).lower())
        if mods or char is None:
            if shifted and (char is None or mods):
                mods.append("shift")
            return Key(key, None, "+".join([*mods, key]), False)
        if key == "space":
            return Key("space", " ", "space", False)
        return Key(key, char, key, False)


def _char(keysym: int) -> str | None:
    if 0x20 <= keysym <= 0x7E or 0xA0 <= keysym <= 0xFF:
        return chr(keysym)
    if keysym & 0xFF000000 == 0x01000000:
        return chr(keysym & 0x00FFFFFF)
    return None
