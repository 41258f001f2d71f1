"""Virtual-key codes and the key names the wire uses ("ctrl", "enter", "f5", "a")."""

from __future__ import annotations

VK_BACK = 0x08
VK_TAB = 0x09
VK_RETURN = 0x0D
VK_SHIFT = 0x10
VK_CONTROL = 0x11
VK_MENU = 0x12
VK_CAPITAL = 0x14
VK_LSHIFT = 0xA0
VK_RSHIFT = 0xA1
VK_LCONTROL = 0xA2
VK_RCONTROL = 0xA3
VK_LMENU = 0xA4
VK_RMENU = 0xA5
VK_LWIN = 0x5B
VK_RWIN = 0x5C
VK_PACKET = 0xE7  # a KEYEVENTF_UNICODE character as the hooks see it

MODIFIERS = {
    "ctrl": VK_CONTROL, "control": VK_CONTROL, "shift": VK_SHIFT, "alt": VK_MENU, "altgr": VK_RMENU,
    "win": VK_LWIN, "super": VK_LWIN, "meta": VK_LWIN, "cmd": VK_LWIN,
}  # fmt: skip
NAMED = {
    "enter": VK_RETURN, "return": VK_RETURN, "tab": VK_TAB, "esc": 0x1B, "escape": 0x1B,
    "backspace": VK_BACK, "delete": 0x2E, "del": 0x2E, "insert": 0x2D, "home": 0x24, "end": 0x23,
    "pageup": 0x21, "pagedown": 0x22, "pgup": 0x21, "pgdn": 0x22, "up": 0x26, "down": 0x28,
    "left": 0x25, "right": 0x27, "space": 0x20, "capslock": VK_CAPITAL, "printscreen": 0x2C,
    "menu": 0x5D, "plus": 0xBB, "minus": 0xBD, "comma": 0xBC, "period": 0xBE,
}  # fmt: skip
# Keys that need KEYEVENTF_EXTENDEDKEY (else the arrows act as the numeric keypad's).
EXTENDED = {0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x2C, 0x2D, 0x2E, 0x5B, 0x5C, 0x5D, VK_RCONTROL, VK_RMENU}

# What the hooks report: one wire name per virtual key.
_WIRE_NAMES = {
    VK_RETURN: "enter", VK_TAB: "tab", 0x1B: "escape", VK_BACK: "backspace", 0x2E: "delete", 0x2D: "insert",
    0x24: "home", 0x23: "end", 0x21: "pageup", 0x22: "pagedown", 0x26: "up", 0x28: "down", 0x25: "left",
    0x27: "right", 0x20: "space", VK_CAPITAL: "capslock", 0x2C: "printscreen", 0x5D: "menu",
    VK_SHIFT: "shift", VK_LSHIFT: "shift", VK_RSHIFT: "shift", VK_CONTROL: "ctrl", VK_LCONTROL: "ctrl",
    VK_RCONTROL: "ctrl", VK_MENU: "alt", VK_LMENU: "alt", VK_RMENU: "altgr", VK_LWIN: "win", VK_RWIN: "win",
    VK_PACKET: "packet",
}  # fmt: skip
MODIFIER_VKS = {
    VK_SHIFT, VK_LSHIFT, VK_RSHIFT, VK_CONTROL, VK_LCONTROL, VK_RCONTROL, VK_MENU, VK_LMENU, VK_RMENU, VK_LWIN, VK_RWIN,
}  # fmt: skip


def vk_for(name: str) -> int | None:
    """The virtual key of one wire key name, None when unknown (letters and digits are their ASCII)."""
    name = name.strip().lower()
    if name in MODIFIERS:
        return MODIFIERS[name]
    if name in NAMED:
        return NAMED[name]
    if len(name) == 1 and ("a" <= name <= "z" or "0" <= name <= "9"):
        return ord(name.upper())
    if name[:1] == "f" and name[1:].isdigit() and 1 <= int(name[1:]) <= 24:
        return 0x70 + int(name[1:]) - 1
    return None


def wire_name(vk: int) -> str:
    """The wire name of a virtual key: "enter", "ctrl", "a", "f5"; "vk_0xNN" for the rest."""
    if vk in _WIRE_NAMES:
        return _WIRE_NAMES[vk]
    if 0x41 <= vk <= 0x5A or 0x30 <= vk <= 0x39:
        return chr(vk).lower()
    if 0x70 <= vk <= 0x87:
        return f"f{vk - 0x70 + 1}"
    if 0x60 <= vk <= 0x69:
        return str(vk - 0x60)  # the numeric keypad's digits
    return f"vk_0x{vk:02x}"
