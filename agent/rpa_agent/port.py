"""The one port between the agent core and a platform backend (X11, Windows).

The core (wire client, journal, takeover, recorder stream) speaks only to this port; a backend
implements it with the platform's own input, screen, window and accessibility APIs. Everything
here is standard library: the core runs on Windows' own embeddable Python, where native wheels
such as numpy or pydantic-core do not load. Coordinates are physical screen pixels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Box = tuple[int, int, int, int]  # x, y, w, h in physical screen pixels
Button = Literal["left", "right", "middle"]


@dataclass(frozen=True)
class Frame:
    """One screenshot: raw pixels, 4 bytes per pixel (BGRA or RGBA, the backend's own), row-major."""

    width: int
    height: int
    pixels: bytes
    origin: tuple[int, int] = (0, 0)  # screen position of pixel (0, 0): negative with a monitor left of the primary


@dataclass(frozen=True)
class Window:
    """A top-level window as the platform reports it."""

    handle: int
    title: str
    pid: int | None
    process: str | None  # executable name ("notepad.exe", "gedit")
    box: Box | None = None
    wm_class: str | None = None  # X11 only


@dataclass(frozen=True)
class Element:
    """An accessible element (UI Automation, MSAA, AT-SPI). `role` uses UI Automation's control type
    names ("Button", "Edit", "CheckBox"...); `is_password` masks what is typed into it."""

    name: str
    role: str
    box: Box | None = None
    is_password: bool = False
    value: str | None = None  # never filled for a password field
    checked: bool | None = None  # a check box's (radio button's) state; None for other elements or when unread
    checked_late: bool = False  # `checked` was read at a click's press but answered after its release
    checked_after: bool | None = None  # the state read again once the click's release was done


@dataclass(frozen=True)
class SystemDialog:
    """A prompt of the operating system itself (UAC on the secure desktop, polkit): never touched."""

    kind: Literal["uac", "credential", "other"]
    process: str | None
    title: str | None


@dataclass(frozen=True)
class RawInput:
    """One input event seen on the desktop, injected by this agent or not (`foreign`: a person's)."""

    kind: Literal["key_press", "key_release", "button_press", "button_release", "motion", "scroll"]
    x: int
    y: int
    time_s: float  # time.time() of the event
    button: Button | None = None
    key: str | None = None  # key name as the wire spells it ("enter", "a", "ctrl")
    char: str | None = None  # the character it typed with the keyboard layout in force, if any
    foreign: bool = True


InputListener = Callable[[RawInput], None]


class InputRefused(ValueError):
    """An input a backend cannot make as asked (an unknown key name, a text too long): nothing was sent.

    `Input` methods raise it before sending anything; the core reports the step not executed
    (`INVALID_ACTION`), so the replay pauses for a person.
    """


class Screen(Protocol):
    def size(self) -> tuple[int, int]: ...
    def grab(self) -> Frame: ...
    def png(self, frame: Frame) -> bytes: ...
    def changed(self, before: Frame, after: Frame, region: Box | None = None) -> float:
        """The share (0..1) of pixels that differ inside `region` (the whole frame when None)."""
        ...


class Input(Protocol):
    def move(self, x: int, y: int) -> None: ...
    def click(self, x: int, y: int, *, button: Button = "left", count: int = 1) -> None: ...
    def scroll(self, x: int, y: int, *, direction: Literal["up", "down"] = "down", amount: int = 3) -> None: ...
    def combo(self, keys: str) -> None:
        """Press a key combination as the wire spells it: "ctrl+a", "enter", "alt+f4"."""
        ...

    def type_text(self, text: str) -> None:
        """Type any Unicode text as the person's keyboard would deliver it."""
        ...


class Windows(Protocol):
    def foreground(self) -> Window | None: ...
    def windows(self) -> list[Window]: ...
    def activate(self, handle: int) -> bool: ...
    def element_at(self, x: int, y: int) -> Element | None: ...
    def focused_element(self) -> Element | None: ...
    def system_dialog(self) -> SystemDialog | None:
        """The operating system's own prompt when it is up (secure desktop, consent.exe, polkit)."""
        ...


@runtime_checkable
class Stacking(Protocol):
    """Optional on a `Windows` backend: the windows shown, top-most first, with their boxes.

    The core sends them with each `resolve_target` request: the server looks for a target in its
    window's new frame (moved, resized) and refuses a target another window covers (WINDOW_OCCLUDED).
    Without it, the server resolves on the screenshot alone.
    """

    def stacked(self) -> list[Window]:
        """The windows on screen (minimised ones left out), the top-most first."""
        ...


@runtime_checkable
class NamedElements(Protocol):
    """Optional on a `Windows` backend: the one showing element of the window in front called exactly `name`
    with the control type `role`, from the accessibility tree; None when there is none or more than one, or
    when the window in front is not titled `window_title` (the step's own window; `{{*}}` in it stands for
    a record's words, `rpa_agent.core.titles.title_matches`).

    With it, a control the server could not place on the screenshot (its label read joined with its
    neighbour's) is found by the element the demonstration recorded (`rpa_agent.core.locate.by_tree`), and the
    look a replay begins with answers whether the run's first control is there (`first_step_tree`).
    """

    def element_named(self, name: str, role: str, window_title: str) -> Element | None: ...


@runtime_checkable
class ShownOptions(Protocol):
    """Optional on a `Windows` backend: a drop-down's option in its opened list, from the accessibility tree.

    With it, the core clicks an option the tree shows (named exactly, in a pop-up, near the drop-down)
    without asking the server to read the list; without it, or when the tree does not say, the server
    resolves the option on the screenshot.
    """

    def option_shown(self, name: str, near: tuple[int, int] | None = None) -> Element | None:
        """The showing option called exactly `name` in an opened list (a pop-up, or the list of the drop-down
        at `near`, the point that opened it), with its box; else None."""
        ...


@runtime_checkable
class WheelPoints(Protocol):
    """Optional on a `Windows` backend: what a wheel turned at a point would land on.

    With it, the core scrolls any target not in view into it, one notch at a time, each only where the wheel
    moves the view and nothing else (`rpa_agent.core.scrolling`); without it, only a list's rows are scrolled to.
    """

    def wheel_refusal(self, x: int, y: int) -> str | None:
        """None when (x, y) is in the window in front, over an element whose value a wheel never changes (text,
        a container, a list, a button); else why not (a drop-down, a spin button, a slider, a tab strip, another
        window there, or nothing the tree can tell)."""
        ...


@runtime_checkable
class KeyboardFocus(Protocol):
    """Optional on a `Windows` backend: evidence that a click gave the clicked field the keyboard.

    When the backend's `windows` has it, the core types into a field as soon as the keyboard is in
    the window under the click and the field repainted; without it, it waits for the screen to be quiet.
    """

    def keyboard_at(self, x: int, y: int) -> bool:
        """The keyboard focus is in the foreground window, and (x, y) is inside that window."""
        ...


class Watch(Protocol):
    """The desktop's input stream: the takeover check and the recorder both read it."""

    @property
    def foreign_count(self) -> int: ...
    def expect(self, kinds: list[str]) -> None:
        """Announce inputs this agent is about to inject, so they are not counted as a person's."""
        ...

    def add_listener(self, listener: InputListener) -> None: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...


class Desktop(Protocol):
    """One platform backend: what the core needs, nothing more."""

    # Read-only members: a backend's own, narrower types (its attributes) satisfy them.
    @property
    def name(self) -> str:  # "x11", "windows"
        ...

    @property
    def screen(self) -> Screen: ...
    @property
    def input(self) -> Input: ...
    @property
    def windows(self) -> Windows: ...
    @property
    def watch(self) -> Watch: ...

    def close(self) -> None: ...
