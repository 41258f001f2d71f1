"""A fake `Win32` boundary: records what the backend sends, answers what a test sets."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Self

from rpa_agent.port import Box
from rpa_agent.windows.api import (
    KEYEVENTF_KEYUP,
    KEYEVENTF_UNICODE,
    LLKHF_INJECTED,
    LLMHF_INJECTED,
    MOUSEEVENTF_LEFTDOWN,
    MOUSEEVENTF_LEFTUP,
    MOUSEEVENTF_MOVE,
    WM_KEYDOWN,
    WM_KEYUP,
    WM_LBUTTONDOWN,
    WM_LBUTTONUP,
    WM_MOUSEMOVE,
    ControlInfo,
    KeyHandler,
    KeyHookEvent,
    KeyInput,
    MouseHandler,
    MouseHookEvent,
    SendEvent,
    UiaUnavailable,
)

DESKTOP_WINDOW = 0x10010  # GetDesktopWindow's answer


@dataclass
class _FakeNode:
    """What a UIA element and an MSAA object both answer: a name, a box, a value (reads counted) and the
    children of a tree walk (how many handed out counted; `failure` raised as a COM call failing)."""

    name_: str = ""
    _: KW_ONLY
    value_: str | None = None
    box_: Box | None = (10, 20, 100, 30)
    value_reads: int = 0
    kids: list[Self] = field(default_factory=list)
    handed: int = 0
    failure: Exception | None = None

    def children(self, limit: int) -> list[Self]:
        if self.failure is not None:
            raise self.failure
        given = self.kids[: max(0, limit)]
        self.handed += len(given)
        return given

    def name(self) -> str:
        return self.name_

    def box(self) -> Box | None:
        return self.box_

    def value(self) -> str | None:
        self.value_reads += 1
        return self.value_


@dataclass
class FakeUia(_FakeNode):
    control_type_: int = 50000
    password: bool = False
    toggle: int | None = None  # TogglePattern's state; None: no pattern
    offscreen: bool = False

    def control_type(self) -> int:
        return self.control_type_

    def is_password(self) -> bool:
        return self.password

    def toggle_state(self) -> int | None:
        return self.toggle

    def is_offscreen(self) -> bool:
        return self.offscreen


@dataclass
class FakeMsaa(_FakeNode):
    role_: int = 0x2B
    state_: int = 0

    def role(self) -> int:
        return self.role_

    def state(self) -> int:
        return self.state_


@dataclass
class FakeProcessWindow:
    title: str
    pid: int
    thread: int
    image: str | None
    visible: bool = True
    rect: Box = (0, 0, 800, 600)
    minimised: bool = False
    cloaked: bool = False
    integrity: int | None = 0x2000  # medium


@dataclass
class FakeWin32:
    sent: list[SendEvent] = field(default_factory=list)
    accept: int | None = None  # how many events SendInput inserts; None: all
    screen: Box = (0, 0, 1920, 1080)
    # DPI: each entry a raw answer, or AttributeError to say the function is absent
    dpi_context_answer: bool | type[AttributeError] = True
    dpi_context_error: int = 0
    dpi_shcore_answer: int | type[AttributeError] = 0
    dpi_legacy_answer: bool = True
    dpi_now: int | None = 2
    dpi_calls: list[str] = field(default_factory=list)
    # windows
    windows: dict[int, FakeProcessWindow] = field(default_factory=dict)
    foreground: int = 0
    focus: int = 0
    refuse_foreground: bool = False  # SetForegroundWindow fails until Alt was pressed while attached
    attached: list[tuple[int, int, bool]] = field(default_factory=list)
    thread_id: int = 1
    desktop: str | type[PermissionError] = "Default"
    children: dict[tuple[int, str], int] = field(default_factory=dict)
    session: int = 1
    own_integrity: int | None = 0x2000  # the agent runs at medium integrity
    texts: dict[int, str] = field(default_factory=dict)
    control: ControlInfo | None = None  # the standard control under any point
    # keyboard
    layouts: dict[int, int] = field(default_factory=dict)  # thread -> HKL
    keymap: dict[tuple[int, int, bool, bool], str] = field(default_factory=dict)  # (hkl, vk, shift, altgr) -> text
    caps: bool = False
    to_unicode_calls: list[tuple[int, int]] = field(default_factory=list)
    # accessibility
    uia: FakeUia | None = None
    uia_error: int | None = None
    uia_calls: int = 0
    msaa: FakeMsaa | None = None
    msaa_windows_asked: list[int] = field(default_factory=list)
    uia_trees: dict[int, FakeUia] = field(default_factory=dict)  # ElementFromHandle's answer per window
    msaa_frames: dict[int, FakeMsaa] = field(default_factory=dict)  # OBJID_WINDOW's answer per window
    # hooks
    hook_script: Callable[[MouseHandler, KeyHandler], None] | None = None
    hooks: tuple[MouseHandler, KeyHandler] | None = None  # set while "installed": sent input is echoed to them
    application: Callable[[SendEvent], None] | None = None  # the application in front receives sent input
    pointer: tuple[int, int] = (0, 0)
    tick: Callable[[], bool] | None = None  # the hook thread's timer
    hook_failure: Exception | None = None  # SetWindowsHookExW refused
    last_input: int = 0  # GetLastInputInfo's tick count
    now_ms: int = 0  # GetTickCount
    quit_posted: list[int] = field(default_factory=list)

    def send_input(self, events: Sequence[SendEvent]) -> int:
        count = len(events) if self.accept is None else min(self.accept, len(events))
        self.sent.extend(events[:count])
        for event in events[:count]:
            if self.application is not None:
                self.application(event)
            if self.hooks is not None:
                self._echo(event)
        return count

    def _echo(self, event: SendEvent) -> None:
        """What the low-level hooks see of an injected event."""
        assert self.hooks is not None
        on_mouse, on_key = self.hooks
        if isinstance(event, KeyInput):
            up = bool(event.flags & KEYEVENTF_KEYUP)
            vk = 0xE7 if event.flags & KEYEVENTF_UNICODE else event.vk
            message = WM_KEYUP if up else WM_KEYDOWN
            on_key(KeyHookEvent(message, vk, event.scan, LLKHF_INJECTED, 0, event.extra_info))
            return
        left, top, width, height = self.screen
        if event.flags & MOUSEEVENTF_MOVE:
            self.pointer = (left + event.dx * width // 65536, top + event.dy * height // 65536)
        message = {MOUSEEVENTF_LEFTDOWN: WM_LBUTTONDOWN, MOUSEEVENTF_LEFTUP: WM_LBUTTONUP}.get(
            event.flags, WM_MOUSEMOVE
        )
        on_mouse(MouseHookEvent(message, *self.pointer, 0, LLMHF_INJECTED, 0, event.extra_info))

    def scan_code(self, vk: int) -> int:
        return vk + 0x100

    def virtual_screen(self) -> Box:
        return self.screen

    def last_input_ms(self) -> int:
        return self.last_input

    def tick_count(self) -> int:
        return self.now_ms

    def cursor_pos(self) -> tuple[int, int]:
        return (0, 0)

    def set_dpi_awareness_context(self, context: int) -> bool:
        self.dpi_calls.append(f"context({context})")
        if self.dpi_context_answer is AttributeError:
            raise AttributeError("SetProcessDpiAwarenessContext")
        return bool(self.dpi_context_answer)

    def set_process_dpi_awareness(self, value: int) -> int:
        self.dpi_calls.append(f"shcore({value})")
        if self.dpi_shcore_answer is AttributeError:
            raise AttributeError("shcore.dll")
        assert isinstance(self.dpi_shcore_answer, int)
        return self.dpi_shcore_answer

    def set_process_dpi_aware(self) -> bool:
        self.dpi_calls.append("legacy")
        return self.dpi_legacy_answer

    def last_error(self) -> int:
        return self.dpi_context_error

    def dpi_awareness(self) -> int | None:
        return self.dpi_now

    def foreground_window(self) -> int:
        return self.foreground

    def desktop_window(self) -> int:
        return DESKTOP_WINDOW

    def enum_windows(self) -> list[int]:
        return list(self.windows)

    def is_window_visible(self, hwnd: int) -> bool:
        return self.windows[hwnd].visible

    def is_iconic(self, hwnd: int) -> bool:
        return hwnd in self.windows and self.windows[hwnd].minimised

    def is_cloaked(self, hwnd: int) -> bool:
        return hwnd in self.windows and self.windows[hwnd].cloaked

    def window_text(self, hwnd: int) -> str:
        return self.windows[hwnd].title if hwnd in self.windows else ""

    def window_rect(self, hwnd: int) -> Box | None:
        return self.windows[hwnd].rect if hwnd in self.windows else None

    def window_thread_process(self, hwnd: int) -> tuple[int, int]:
        window = self.windows.get(hwnd)
        return (window.thread, window.pid) if window else (0, 0)

    def process_image(self, pid: int) -> str | None:
        return next((w.image for w in self.windows.values() if w.pid == pid), None)

    def current_thread_id(self) -> int:
        return self.thread_id

    def window_at(self, x: int, y: int) -> int:
        for hwnd, window in self.windows.items():
            left, top, width, height = window.rect
            if window.visible and left <= x < left + width and top <= y < top + height:
                return hwnd
        return 0

    def integrity_level(self, pid: int | None) -> int | None:
        if pid is None:
            return self.own_integrity
        return next((w.integrity for w in self.windows.values() if w.pid == pid), None)

    def attach_thread_input(self, attach_from: int, attach_to: int, attach: bool) -> bool:
        self.attached.append((attach_from, attach_to, attach))
        return True

    def set_foreground_window(self, hwnd: int) -> bool:
        alt_pressed = any(getattr(e, "vk", None) == 0x12 for e in self.sent)
        if self.refuse_foreground and not alt_pressed:
            return False
        if hwnd in self.windows:
            self.foreground = hwnd
            return True
        return False

    def bring_window_to_top(self, hwnd: int) -> bool:
        return True

    def show_window(self, hwnd: int, command: int) -> bool:
        return True

    def focused_window(self) -> int:
        return self.focus

    def child_window(self, parent: int, class_name: str) -> int:
        return self.children.get((parent, class_name), 0)

    def control_text(self, hwnd: int) -> str:
        return self.texts.get(hwnd, "")

    def control_at(self, x: int, y: int) -> ControlInfo | None:
        return self.control

    def session_id(self) -> int:
        return self.session

    def input_desktop_name(self) -> str:
        if self.desktop is PermissionError:
            raise PermissionError(5, "access denied")
        assert isinstance(self.desktop, str)
        return self.desktop

    def keyboard_layout(self, thread_id: int) -> int:
        return self.layouts.get(thread_id, 0x04090409)

    def to_unicode(self, vk: int, scan: int, key_state: bytes, layout: int) -> tuple[str, bool]:
        self.to_unicode_calls.append((vk, layout))
        shift = bool(key_state[0x10] & 0x80)
        altgr = bool(key_state[0x11] & 0x80 and key_state[0x12] & 0x80)
        text = self.keymap.get((layout, vk, shift, altgr), "")
        if key_state[0x14] & 1 and text.isalpha():
            text = text.swapcase()
        if text.startswith("dead:"):
            return text[5:], True
        return text, False

    def vk_for_char(self, char: str, layout: int) -> int | None:
        return next((vk for (hkl, vk, _, _), text in self.keymap.items() if hkl == layout and text == char), None)

    def key_toggled(self, vk: int) -> bool:
        return self.caps if vk == 0x14 else False

    def uia_element_at(self, x: int, y: int) -> FakeUia | None:
        self.uia_calls += 1
        if self.uia_error is not None:
            raise UiaUnavailable(self.uia_error)
        return self.uia

    def uia_focused(self) -> FakeUia | None:
        return self.uia_element_at(0, 0)

    def msaa_element_at(self, x: int, y: int) -> FakeMsaa | None:
        return self.msaa

    def msaa_window(self, hwnd: int) -> FakeMsaa | None:
        self.msaa_windows_asked.append(hwnd)
        return self.msaa

    def uia_window(self, hwnd: int) -> FakeUia | None:
        self.uia_calls += 1
        if self.uia_error is not None:
            raise UiaUnavailable(self.uia_error)
        return self.uia_trees.get(hwnd)

    def msaa_frame(self, hwnd: int) -> FakeMsaa | None:
        return self.msaa_frames.get(hwnd)

    def run_hooks(
        self,
        on_mouse: MouseHandler,
        on_key: KeyHandler,
        ready: Callable[[int], None],
        on_tick: Callable[[], bool],
        tick_ms: int,
    ) -> None:
        if self.hook_failure is not None:
            raise self.hook_failure
        self.hooks = (on_mouse, on_key)
        self.tick = on_tick
        ready(77)
        if self.hook_script is not None:
            self.hook_script(on_mouse, on_key)

    def post_quit(self, thread_id: int) -> bool:
        self.hooks = None
        self.quit_posted.append(thread_id)
        return True


def mouse(
    message: int, x: int = 5, y: int = 6, *, flags: int = 0, data: int = 0, extra: int = 0, time_ms: int = 0
) -> MouseHookEvent:
    return MouseHookEvent(message, x, y, data, flags, time_ms, extra)


def key(message: int, vk: int, *, scan: int = 0, flags: int = 0, extra: int = 0, time_ms: int = 0) -> KeyHookEvent:
    return KeyHookEvent(message, vk, scan, flags, time_ms, extra)
