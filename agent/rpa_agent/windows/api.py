"""The boundary between the Windows backend and the operating system.

Every call into user32, kernel32, shcore, oleacc or UI Automation goes through one `Win32`
object. `rpa_agent.windows.win32.NativeWin32` implements it with ctypes on Windows; the unit
tests pass a fake. The types here are plain Python, so the backend's logic (coordinate
normalisation, Unicode typing, role names, password masking, secure-desktop detection, hook
translation) is tested on any platform.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rpa_agent.port import Box

# SendInput flags (winuser.h)
MOUSEEVENTF_MOVE = 0x0001
MOUSEEVENTF_LEFTDOWN = 0x0002
MOUSEEVENTF_LEFTUP = 0x0004
MOUSEEVENTF_RIGHTDOWN = 0x0008
MOUSEEVENTF_RIGHTUP = 0x0010
MOUSEEVENTF_MIDDLEDOWN = 0x0020
MOUSEEVENTF_MIDDLEUP = 0x0040
MOUSEEVENTF_WHEEL = 0x0800
MOUSEEVENTF_VIRTUALDESK = 0x4000
MOUSEEVENTF_ABSOLUTE = 0x8000
KEYEVENTF_EXTENDEDKEY = 0x0001
KEYEVENTF_KEYUP = 0x0002
KEYEVENTF_UNICODE = 0x0004
WHEEL_DELTA = 120

# Low-level hook flags and messages
LLMHF_INJECTED = 0x01
LLKHF_EXTENDED = 0x01
LLKHF_INJECTED = 0x10
WM_KEYDOWN = 0x0100
WM_KEYUP = 0x0101
WM_SYSKEYDOWN = 0x0104
WM_SYSKEYUP = 0x0105
WM_MOUSEMOVE = 0x0200
WM_LBUTTONDOWN = 0x0201
WM_LBUTTONUP = 0x0202
WM_RBUTTONDOWN = 0x0204
WM_RBUTTONUP = 0x0205
WM_MBUTTONDOWN = 0x0207
WM_MBUTTONUP = 0x0208
WM_MOUSEWHEEL = 0x020A
WM_MOUSEHWHEEL = 0x020E

# What this agent writes in dwExtraInfo of every event it sends: the hooks read it back.
AGENT_EXTRA_INFO = 0x52504121  # "RPA!"

ERROR_ACCESS_DENIED = 5
E_ACCESSDENIED = -2147024891  # 0x80070005 as a signed HRESULT
REGDB_E_CLASSNOTREG = -2147221164  # 0x80040154


@dataclass(frozen=True)
class MouseInput:
    """One MOUSEINPUT for SendInput (dx, dy already normalised when ABSOLUTE is set)."""

    dx: int
    dy: int
    flags: int
    data: int = 0  # wheel delta, signed
    extra_info: int = AGENT_EXTRA_INFO


@dataclass(frozen=True)
class KeyInput:
    """One KEYBDINPUT for SendInput: a virtual key, or a UTF-16 code unit with KEYEVENTF_UNICODE."""

    vk: int
    scan: int
    flags: int
    extra_info: int = AGENT_EXTRA_INFO


SendEvent = MouseInput | KeyInput


@dataclass(frozen=True)
class MouseHookEvent:
    """What WH_MOUSE_LL hands over: the message and MSLLHOOKSTRUCT's fields."""

    message: int
    x: int
    y: int
    mouse_data: int  # high word: wheel delta (signed) or X button
    flags: int
    time_ms: int
    extra_info: int


@dataclass(frozen=True)
class KeyHookEvent:
    """What WH_KEYBOARD_LL hands over: the message and KBDLLHOOKSTRUCT's fields."""

    message: int
    vk: int
    scan: int
    flags: int
    time_ms: int
    extra_info: int


@dataclass(frozen=True)
class ControlInfo:
    """A standard Win32 control under a point: its window class, style and, for a button, BM_GETCHECK."""

    class_name: str
    style: int
    check: int | None = None  # BST_UNCHECKED 0, BST_CHECKED 1, BST_INDETERMINATE 2; None: not a button or no answer


class UiaUnavailable(Exception):
    """UI Automation cannot be created here (Wine 8: CUIAutomation not registered)."""

    def __init__(self, hresult: int) -> None:
        super().__init__(f"UI Automation unavailable (HRESULT 0x{hresult & 0xFFFFFFFF:08X})")
        self.hresult = hresult


class UiaNode(Protocol):
    """An IUIAutomationElement; each property is read only when asked."""

    def name(self) -> str: ...
    def control_type(self) -> int: ...
    def is_password(self) -> bool: ...
    def box(self) -> Box | None: ...
    def value(self) -> str | None:
        """ValuePattern's current value, None without the pattern."""
        ...

    def toggle_state(self) -> int | None:
        """TogglePattern's current state (0 off, 1 on, 2 indeterminate), None without the pattern."""
        ...

    def is_offscreen(self) -> bool:
        """IsOffscreen (an unreadable answer counts as off screen)."""
        ...

    def children(self, limit: int) -> Sequence[UiaNode]:
        """The control view's children (a tree walker), at most `limit`; OSError when UIA fails mid-walk."""
        ...


class MsaaNode(Protocol):
    """An IAccessible and its child id; each property is read only when asked."""

    def name(self) -> str: ...
    def role(self) -> int: ...
    def state(self) -> int: ...
    def box(self) -> Box | None: ...
    def value(self) -> str | None: ...
    def children(self, limit: int) -> Sequence[MsaaNode]:
        """AccessibleChildren, at most `limit` (none for a simple element, a child id); OSError on failure."""
        ...


MouseHandler = Callable[[MouseHookEvent], None]
KeyHandler = Callable[[KeyHookEvent], None]


class Win32(Protocol):
    """The thin boundary: one method per Windows call (or a few calls that only make sense together)."""

    # input
    def send_input(self, events: Sequence[SendEvent]) -> int:
        """SendInput: how many events were inserted (fewer when UIPI or the secure desktop blocks them)."""
        ...

    def scan_code(self, vk: int) -> int: ...
    def virtual_screen(self) -> Box:
        """SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN, SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN."""
        ...

    def cursor_pos(self) -> tuple[int, int]: ...
    def last_input_ms(self) -> int:
        """GetLastInputInfo: the tick count (GetTickCount's clock) of the desktop's last input."""
        ...

    def tick_count(self) -> int:
        """GetTickCount: milliseconds since start, 32 bits."""
        ...

    # DPI awareness: each returns the raw answer (BOOL, HRESULT); AttributeError when absent
    def set_dpi_awareness_context(self, context: int) -> bool: ...
    def set_process_dpi_awareness(self, value: int) -> int: ...
    def set_process_dpi_aware(self) -> bool: ...
    def last_error(self) -> int: ...
    def dpi_awareness(self) -> int | None:
        """The thread's awareness now (0 unaware, 1 system, 2 per monitor), None when unknown."""
        ...

    # windows and processes
    def foreground_window(self) -> int: ...
    def desktop_window(self) -> int:
        """GetDesktopWindow: the desktop's own window, there even when nothing is in front."""
        ...

    def enum_windows(self) -> list[int]: ...
    def is_window_visible(self, hwnd: int) -> bool: ...
    def is_iconic(self, hwnd: int) -> bool: ...
    def is_cloaked(self, hwnd: int) -> bool:
        """DWM keeps the window off screen though user32 calls it visible (a suspended Store app, a window
        on another virtual desktop); False when DWM cannot say."""
        ...

    def window_text(self, hwnd: int) -> str: ...
    def window_rect(self, hwnd: int) -> Box | None: ...
    def window_thread_process(self, hwnd: int) -> tuple[int, int]:
        """GetWindowThreadProcessId: (thread id, process id); (0, 0) for a gone window."""
        ...

    def process_image(self, pid: int) -> str | None:
        """QueryFullProcessImageNameW through a PROCESS_QUERY_LIMITED_INFORMATION handle."""
        ...

    def current_thread_id(self) -> int: ...
    def window_at(self, x: int, y: int) -> int:
        """WindowFromPoint's top-level window (GetAncestor GA_ROOT), 0 when none."""
        ...

    def integrity_level(self, pid: int | None) -> int | None:
        """The mandatory integrity level's RID of a process (None: this one): 0x2000 medium, 0x3000 high;
        None when its token cannot be read."""
        ...

    def attach_thread_input(self, attach_from: int, attach_to: int, attach: bool) -> bool: ...
    def set_foreground_window(self, hwnd: int) -> bool: ...
    def bring_window_to_top(self, hwnd: int) -> bool: ...
    def show_window(self, hwnd: int, command: int) -> bool: ...
    def focused_window(self) -> int:
        """GetGUIThreadInfo's hwndFocus for the foreground thread (0 when none)."""
        ...

    def child_window(self, parent: int, class_name: str) -> int:
        """FindWindowExW: the first child of that window class (0 when none)."""
        ...

    def control_text(self, hwnd: int) -> str:
        """WM_GETTEXT, also across processes (GetWindowTextW only reads another process's captions)."""
        ...

    def control_at(self, x: int, y: int) -> ControlInfo | None:
        """The child window under the point (WindowFromPoint): GetClassNameW, GWL_STYLE, and for a "Button"
        BM_GETCHECK (SendMessageTimeoutW, aborted if the application hangs); None when there is none."""
        ...

    def session_id(self) -> int:
        """ProcessIdToSessionId of this process: 0 is the services' session, with no person's desktop."""
        ...

    # secure desktop
    def input_desktop_name(self) -> str:
        """OpenInputDesktop + GetUserObjectInformationW(UOI_NAME); PermissionError when access is denied."""
        ...

    # keyboard layouts
    def keyboard_layout(self, thread_id: int) -> int: ...
    def to_unicode(self, vk: int, scan: int, key_state: bytes, layout: int) -> tuple[str, bool]:
        """ToUnicodeEx without changing the keyboard state (flag 4): (what the key types, '' for nothing;
        whether it is a dead key, whose spacing accent is then the text)."""
        ...

    def vk_for_char(self, char: str, layout: int) -> int | None:
        """VkKeyScanExW: the virtual key that types `char` in that layout (modifiers aside), None when none does."""
        ...

    def key_toggled(self, vk: int) -> bool:
        """GetKeyState's low bit (Caps Lock, Num Lock)."""
        ...

    # accessibility
    def uia_element_at(self, x: int, y: int) -> UiaNode | None:
        """IUIAutomation::ElementFromPoint; raises UiaUnavailable when UIA cannot be created."""
        ...

    def uia_focused(self) -> UiaNode | None: ...
    def msaa_element_at(self, x: int, y: int) -> MsaaNode | None: ...
    def msaa_window(self, hwnd: int) -> MsaaNode | None:
        """AccessibleObjectFromWindow(hwnd, OBJID_CLIENT)."""
        ...

    def uia_window(self, hwnd: int) -> UiaNode | None:
        """IUIAutomation::ElementFromHandle; raises UiaUnavailable when UIA cannot be created."""
        ...

    def msaa_frame(self, hwnd: int) -> MsaaNode | None:
        """AccessibleObjectFromWindow(hwnd, OBJID_WINDOW): the window with its title and menu bars."""
        ...

    # low-level hooks (on the calling thread, which must pump messages)
    def run_hooks(
        self,
        on_mouse: MouseHandler,
        on_key: KeyHandler,
        ready: Callable[[int], None],
        on_tick: Callable[[], bool],
        tick_ms: int,
    ) -> None:
        """Install WH_MOUSE_LL and WH_KEYBOARD_LL, call `ready(thread id)`, pump messages until WM_QUIT;
        every `tick_ms` call `on_tick()` on the same thread, and install the hooks again when it says so."""
        ...

    def post_quit(self, thread_id: int) -> bool: ...
