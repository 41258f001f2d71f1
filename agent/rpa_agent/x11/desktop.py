"""The X11 backend of the port: XTEST input, mss screenshots, EWMH windows, AT-SPI elements, RECORD input.

`X11Desktop.open(display)` connects everything the core needs on one X display (and its
accessibility bus when `DBUS_SESSION_BUS_ADDRESS` is given). The operating system's own prompt
on an X11 desktop is a polkit authentication agent's window: `system_dialog` finds it by process
or class, and the core touches nothing while it is up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from Xlib import X, display

from rpa_agent import port
from rpa_agent.core.titles import title_matches
from rpa_agent.x11 import wheel
from rpa_agent.x11.atspi import Accessibility
from rpa_agent.x11.inject import Injector
from rpa_agent.x11.keys import Keymap, KeyTranslator
from rpa_agent.x11.screen import Screen
from rpa_agent.x11.watch import InputWatch
from rpa_agent.x11.watch import RawInput as XRawInput
from rpa_agent.x11.windows import WindowInfo, Windows

POLKIT_MARKERS = ("polkit", "lxpolkit", "pkexec", "gcr-prompter", "ssh-askpass")
BUTTON_NAMES: dict[int, port.Button] = {1: "left", 2: "middle", 3: "right"}
RawKind = Literal["key_press", "key_release", "button_press", "button_release", "motion", "scroll"]
RAW_KINDS: dict[int, RawKind] = {
    X.KeyPress: "key_press",
    X.KeyRelease: "key_release",
    X.ButtonPress: "button_press",
    X.ButtonRelease: "button_release",
    X.MotionNotify: "motion",
}


def window(info: WindowInfo) -> port.Window:
    return port.Window(info.wid, info.title, info.pid, info.process, info.geometry, info.wm_class)


def privilege_prompt(windows: list[WindowInfo]) -> WindowInfo | None:
    """The desktop's privilege prompt (a polkit authentication agent window), identified by process/class."""
    for info in windows:
        names = f"{info.process or ''} {info.wm_class or ''}".lower()
        if any(marker in names for marker in POLKIT_MARKERS):
            return info
    return None


class X11Windows:
    def __init__(self, windows: Windows, access: Accessibility) -> None:
        self.x = windows
        self.access = access

    def foreground(self) -> port.Window | None:
        info = self.x.foreground()
        return window(info) if info is not None else None

    def windows(self) -> list[port.Window]:
        return [window(info) for info in self.x.windows()]

    def stacked(self) -> list[port.Window]:
        """The windows shown, top-most first (EWMH stacking order), minimised ones left out."""
        return [window(info) for info in self.x.stacked()]

    def activate(self, handle: int) -> bool:
        self.x.activate(handle)
        return True  # asked of the window manager; the core checks the window in front afterwards

    def element_at(self, x: int, y: int) -> port.Element | None:
        front = self.x.foreground()
        found = self.access.element_at(x, y, front.title if front else None)
        return found.to_port() if found is not None else None

    def element_named(self, name: str, role: str, window_title: str) -> port.Element | None:
        front = self.x.foreground()
        if front is None or not title_matches(front.title.strip(), window_title):
            return None  # another window in front: its element of the same name is never the step's
        found = self.access.only_element(name, role, front.title)
        return found.to_port() if found is not None else None

    def option_shown(self, name: str, near: tuple[int, int] | None = None) -> port.Element | None:
        front = self.x.foreground()
        found = self.access.option_shown(name, near, front.title if front else None)
        return found.to_port() if found is not None else None

    def focused_element(self) -> port.Element | None:
        """Not read on X11 yet: the core does not need it here (the recorder uses `element_at`)."""
        return None

    def system_dialog(self) -> port.SystemDialog | None:
        prompt = privilege_prompt(self.x.windows())
        if prompt is None:
            return None
        return port.SystemDialog("other", prompt.process or prompt.wm_class, prompt.title[:500] or None)

    def keyboard_at(self, x: int, y: int) -> bool:
        return self.x.keyboard_at(x, y)

    def wheel_refusal(self, x: int, y: int) -> str | None:
        """None when (x, y) is in the window in front, top-most there, over elements a wheel only scrolls."""
        front = self.x.foreground()
        if front is None or not front.title:
            return "no titled window in front"
        top = next((w for w in self.x.stacked() if _inside(w.geometry, x, y)), None)
        if top is None or top.wid != front.wid:
            return f"the point ({x}, {y}) is not in the window in front ({front.title!r})"
        roles = self.access.roles_at(x, y, front.title)
        if roles is None:
            return "the accessibility tree does not say what is under the pointer"
        return wheel.refusal(roles)


class X11Input:
    def __init__(self, injector: Injector) -> None:
        self.hands = injector

    def move(self, x: int, y: int) -> None:
        self.hands.move(x, y)

    def click(self, x: int, y: int, *, button: port.Button = "left", count: int = 1) -> None:
        self.hands.click(x, y, button=button, count=count)

    def scroll(self, x: int, y: int, *, direction: Literal["up", "down"] = "down", amount: int = 3) -> None:
        self.hands.scroll(x, y, direction=direction, amount=amount)

    def combo(self, keys: str) -> None:
        self.hands.combo(keys)

    def type_text(self, text: str) -> None:
        self.hands.type_text(text)


class X11Watch:
    """The port's view of RECORD: a person's input counted; the injector announces its own events itself."""

    def __init__(self, watch: InputWatch, keys: KeyTranslator) -> None:
        self.x = watch
        self.keys = keys
        self.started = False

    @property
    def foreign_count(self) -> int:
        return self.x.foreign_count

    def expect(self, kinds: list[str]) -> None:
        """Nothing to do: the X11 injector announces each event it sends to the watch itself."""

    def add_listener(self, listener: port.InputListener) -> None:
        self.x.add_listener(lambda raw: listener(self.raw(raw)))

    def raw(self, raw: XRawInput) -> port.RawInput:
        kind: RawKind = RAW_KINDS.get(raw.kind, "motion")
        button: port.Button | None = None
        key = char = None
        if raw.kind in (X.ButtonPress, X.ButtonRelease):
            if raw.detail in (4, 5, 6, 7):
                kind = "scroll"
            button = BUTTON_NAMES.get(raw.detail)
        elif raw.kind in (X.KeyPress, X.KeyRelease):
            translated = self.keys.translate(raw.detail, raw.state)
            key, char = translated.combo or None, translated.char
        wall = time.time() - (time.monotonic() - raw.received)
        return port.RawInput(kind, raw.x, raw.y, wall, button, key, char, raw.foreign)

    def start(self) -> None:
        if not self.started:
            self.x.start()
            self.started = True

    def stop(self) -> None:
        if self.started:
            self.x.stop()
            self.started = False


@dataclass
class X11Desktop:
    name: str
    screen: Screen
    input: X11Input
    windows: X11Windows
    watch: X11Watch
    display_name: str | None = None

    @classmethod
    def open(cls, display_name: str | None, *, session_bus: str | None = None) -> X11Desktop:
        windows = Windows(display_name)
        watch = InputWatch(display_name)
        keymap = Keymap(display.Display(display_name))  # its own connection: refreshed from the RECORD thread
        watch.add_mapping_listener(keymap.refresh)
        injector = Injector(display_name, expect=watch.expect)
        return cls(
            "x11",
            Screen(display_name),
            X11Input(injector),
            X11Windows(windows, Accessibility(session_bus)),
            X11Watch(watch, KeyTranslator(keymap)),
            display_name,
        )

    def close(self) -> None:
        self.watch.stop()
        self.watch.keys.keymap.close()
        self.input.hands.close()
        self.screen.close()
        self.windows.access.close()
        self.windows.x.close()


def _inside(box: tuple[int, int, int, int] | None, x: int, y: int) -> bool:
    return box is not None and box[0] <= x < box[0] + box[2] and box[1] <= y < box[1] + box[3]
