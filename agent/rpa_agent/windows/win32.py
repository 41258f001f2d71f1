"""`NativeWin32`, the real `Win32` boundary over the ctypes prototypes of `rpa_agent.windows.prototypes`.
The DLLs are loaded when a `NativeWin32` is made, so this module imports on any platform (the unit
tests run on Linux with a fake boundary)."""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable, Sequence
from ctypes import POINTER, byref, c_void_p
from typing import Any

from rpa_agent.port import Box
from rpa_agent.windows.api import (
    ERROR_ACCESS_DENIED,
    ControlInfo,
    KeyHandler,
    KeyHookEvent,
    MouseHandler,
    MouseHookEvent,
    MouseInput,
    MsaaNode,
    SendEvent,
    UiaNode,
)
from rpa_agent.windows.prototypes import (
    BM_GETCHECK,
    CHECK_TIMEOUT_MS,
    DESKTOP_READOBJECTS,
    DWMWA_CLOAKED,
    DWORD,
    GA_ROOT,
    GUITHREADINFO,
    GWL_STYLE,
    HANDLE,
    INPUT,
    INPUT_KEYBOARD,
    INPUT_MOUSE,
    KBDLLHOOKSTRUCT,
    KEYBDINPUT,
    LASTINPUTINFO,
    MOUSEINPUT,
    MSG,
    MSLLHOOKSTRUCT,
    PM_NOREMOVE,
    POINT,
    PROCESS_QUERY_LIMITED_INFORMATION,
    RECT,
    SM_CXVIRTUALSCREEN,
    SM_CYVIRTUALSCREEN,
    SM_XVIRTUALSCREEN,
    SM_YVIRTUALSCREEN,
    SMTO_ABORTIFHUNG,
    TOKEN_INTEGRITY_LEVEL,
    TOKEN_QUERY,
    TOUNICODE_KEEP_STATE,
    ULONG_PTR,
    UOI_NAME,
    WH_KEYBOARD_LL,
    WH_MOUSE_LL,
    WM_GETTEXT,
    WM_GETTEXTLENGTH,
    WM_QUIT,
    WM_TIMER,
    Dlls,
)

logger = logging.getLogger(__name__)


def _to_input(event: SendEvent) -> INPUT:
    item = INPUT()
    if isinstance(event, MouseInput):
        item.type = INPUT_MOUSE
        item.u.mi = MOUSEINPUT(event.dx, event.dy, event.data & 0xFFFFFFFF, event.flags, 0, event.extra_info)
    else:
        item.type = INPUT_KEYBOARD
        item.u.ki = KEYBDINPUT(event.vk, event.scan, event.flags, 0, event.extra_info)
    return item


class NativeWin32:
    """The `Win32` boundary over ctypes. Accessibility calls go to `rpa_agent.windows.com`."""

    def __init__(self) -> None:
        self.dlls = Dlls()
        self._u = self.dlls.user32
        self._k = self.dlls.kernel32
        from rpa_agent.windows.com import Com

        self.com = Com()

    # --- input --------------------------------------------------------------------------------------
    def send_input(self, events: Sequence[SendEvent]) -> int:
        array = (INPUT * len(events))(*[_to_input(e) for e in events])
        return int(self._u.SendInput(len(events), array, ctypes.sizeof(INPUT)))

    def scan_code(self, vk: int) -> int:
        return int(self._u.MapVirtualKeyW(vk, 0)) & 0xFFFF  # MAPVK_VK_TO_VSC

    def virtual_screen(self) -> Box:
        metric = self._u.GetSystemMetrics
        return (
            int(metric(SM_XVIRTUALSCREEN)),
            int(metric(SM_YVIRTUALSCREEN)),
            int(metric(SM_CXVIRTUALSCREEN)),
            int(metric(SM_CYVIRTUALSCREEN)),
        )

    def last_input_ms(self) -> int:
        info = LASTINPUTINFO()
        info.cbSize = ctypes.sizeof(LASTINPUTINFO)
        if not self._u.GetLastInputInfo(byref(info)):
            raise ctypes.WinError(ctypes.get_last_error())
        return int(info.dwTime)

    def tick_count(self) -> int:
        return int(self._k.GetTickCount())

    def cursor_pos(self) -> tuple[int, int]:
        point = POINT()
        self._u.GetCursorPos(byref(point))
        return int(point.x), int(point.y)

    # --- DPI ----------------------------------------------------------------------------------------
    def set_dpi_awareness_context(self, context: int) -> bool:
        return bool(self.dlls.optional("SetProcessDpiAwarenessContext")(context))

    def set_process_dpi_awareness(self, value: int) -> int:
        return int(self.dlls.shcore().SetProcessDpiAwareness(value))

    def set_process_dpi_aware(self) -> bool:
        return bool(self._u.SetProcessDPIAware())

    def last_error(self) -> int:
        return ctypes.get_last_error()

    def dpi_awareness(self) -> int | None:
        context = self.dlls.optional("GetThreadDpiAwarenessContext")()
        value = int(self.dlls.optional("GetAwarenessFromDpiAwarenessContext")(context))
        return value if value >= 0 else None

    # --- windows ------------------------------------------------------------------------------------
    def foreground_window(self) -> int:
        return int(self._u.GetForegroundWindow() or 0)

    def desktop_window(self) -> int:
        return int(self._u.GetDesktopWindow() or 0)

    def enum_windows(self) -> list[int]:
        found: list[int] = []

        def collect(hwnd: int | None, _: int) -> int:
            found.append(int(hwnd or 0))
            return 1

        self._u.EnumWindows(self.dlls.enum_proc(collect), 0)
        return [h for h in found if h]

    def is_window_visible(self, hwnd: int) -> bool:
        return bool(self._u.IsWindowVisible(hwnd))

    def is_iconic(self, hwnd: int) -> bool:
        return bool(self._u.IsIconic(hwnd))

    def is_cloaked(self, hwnd: int) -> bool:
        dwm = self.dlls.dwmapi
        if dwm is None:
            return False
        cloaked = DWORD(0)
        result = dwm.DwmGetWindowAttribute(hwnd, DWMWA_CLOAKED, byref(cloaked), ctypes.sizeof(cloaked))
        return int(result) == 0 and cloaked.value != 0

    def window_text(self, hwnd: int) -> str:
        length = int(self._u.GetWindowTextLengthW(hwnd))
        if length <= 0:
            return ""
        buffer = ctypes.create_unicode_buffer(length + 1)
        self._u.GetWindowTextW(hwnd, buffer, length + 1)
        return buffer.value

    def window_rect(self, hwnd: int) -> Box | None:
        rect = RECT()
        return rect.box() if self._u.GetWindowRect(hwnd, byref(rect)) else None

    def window_thread_process(self, hwnd: int) -> tuple[int, int]:
        pid = DWORD(0)
        thread = int(self._u.GetWindowThreadProcessId(hwnd, byref(pid)))
        return thread, int(pid.value)

    def process_image(self, pid: int) -> str | None:
        handle = self._k.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid)
        if not handle:
            return None
        try:
            size = DWORD(32768)
            buffer = ctypes.create_unicode_buffer(size.value)
            if not self._k.QueryFullProcessImageNameW(handle, 0, buffer, byref(size)):
                return None
            return buffer.value
        finally:
            self._k.CloseHandle(handle)

    def current_thread_id(self) -> int:
        return int(self._k.GetCurrentThreadId())

    def window_at(self, x: int, y: int) -> int:
        hwnd = self._u.WindowFromPoint(POINT(x, y))
        return int(self._u.GetAncestor(hwnd, GA_ROOT) or 0) if hwnd else 0

    def integrity_level(self, pid: int | None) -> int | None:
        process = (
            self._k.GetCurrentProcess()
            if pid is None
            else self._k.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid)
        )
        if not process:
            return None
        token = HANDLE()
        try:
            if not self.dlls.advapi32.OpenProcessToken(process, TOKEN_QUERY, byref(token)):
                return None
            try:
                return self._token_integrity(token)
            finally:
                self._k.CloseHandle(token)
        finally:
            if pid is not None:
                self._k.CloseHandle(process)

    def _token_integrity(self, token: HANDLE) -> int | None:
        advapi32 = self.dlls.advapi32
        needed = DWORD(0)
        advapi32.GetTokenInformation(token, TOKEN_INTEGRITY_LEVEL, None, 0, byref(needed))
        if not needed.value:
            return None
        buffer = ctypes.create_string_buffer(needed.value)
        if not advapi32.GetTokenInformation(token, TOKEN_INTEGRITY_LEVEL, buffer, needed, byref(needed)):
            return None
        sid = ctypes.cast(buffer, POINTER(c_void_p))[0]  # TOKEN_MANDATORY_LABEL.Label.Sid
        count = advapi32.GetSidSubAuthorityCount(sid)[0]
        return int(advapi32.GetSidSubAuthority(sid, count - 1)[0]) if count else None

    def attach_thread_input(self, attach_from: int, attach_to: int, attach: bool) -> bool:
        return bool(self._u.AttachThreadInput(attach_from, attach_to, attach))

    def set_foreground_window(self, hwnd: int) -> bool:
        return bool(self._u.SetForegroundWindow(hwnd))

    def bring_window_to_top(self, hwnd: int) -> bool:
        return bool(self._u.BringWindowToTop(hwnd))

    def show_window(self, hwnd: int, command: int) -> bool:
        return bool(self._u.ShowWindow(hwnd, command))

    def focused_window(self) -> int:
        hwnd = self.foreground_window()
        thread, _ = self.window_thread_process(hwnd) if hwnd else (0, 0)
        info = GUITHREADINFO()
        info.cbSize = ctypes.sizeof(GUITHREADINFO)
        if not thread or not self._u.GetGUIThreadInfo(thread, byref(info)):
            return 0
        return int(info.hwndFocus or 0)

    def child_window(self, parent: int, class_name: str) -> int:
        return int(self._u.FindWindowExW(parent, None, class_name, None) or 0)

    def control_at(self, x: int, y: int) -> ControlInfo | None:
        hwnd = self._u.WindowFromPoint(POINT(x, y))
        if not hwnd:
            return None
        buffer = ctypes.create_unicode_buffer(256)
        if not self._u.GetClassNameW(hwnd, buffer, len(buffer)):
            return None
        style = int(self._u.GetWindowLongW(hwnd, GWL_STYLE)) & 0xFFFFFFFF
        check = None
        if buffer.value.lower() == "button":
            answer = ULONG_PTR(0)
            if self._u.SendMessageTimeoutW(hwnd, BM_GETCHECK, 0, 0, SMTO_ABORTIFHUNG, CHECK_TIMEOUT_MS, byref(answer)):
                check = int(answer.value)
        return ControlInfo(buffer.value, style, check)

    def control_text(self, hwnd: int) -> str:
        answer = ULONG_PTR(0)
        if not self._u.SendMessageTimeoutW(hwnd, WM_GETTEXTLENGTH, 0, 0, SMTO_ABORTIFHUNG, 2000, byref(answer)):
            return ""
        buffer = ctypes.create_unicode_buffer(int(answer.value) + 1)
        address = ctypes.addressof(buffer)
        if not self._u.SendMessageTimeoutW(
            hwnd, WM_GETTEXT, len(buffer), address, SMTO_ABORTIFHUNG, 2000, byref(answer)
        ):
            return ""
        return buffer.value

    def session_id(self) -> int:
        session = DWORD(0)
        if not self._k.ProcessIdToSessionId(self._k.GetCurrentProcessId(), byref(session)):
            raise ctypes.WinError(ctypes.get_last_error())
        return int(session.value)

    # --- secure desktop -----------------------------------------------------------------------------
    def input_desktop_name(self) -> str:
        desktop = self._u.OpenInputDesktop(0, 0, DESKTOP_READOBJECTS)
        if not desktop:
            error = ctypes.get_last_error()
            if error == ERROR_ACCESS_DENIED:
                raise PermissionError(error, "OpenInputDesktop: access denied (a secure desktop is up)")
            raise ctypes.WinError(error)
        try:
            needed = DWORD(0)
            buffer = ctypes.create_unicode_buffer(256)
            if not self._u.GetUserObjectInformationW(desktop, UOI_NAME, buffer, ctypes.sizeof(buffer), byref(needed)):
                error = ctypes.get_last_error()
                if error == ERROR_ACCESS_DENIED:
                    raise PermissionError(error, "GetUserObjectInformationW: access denied")
                raise ctypes.WinError(error)
            return buffer.value
        finally:
            self._u.CloseDesktop(desktop)

    # --- keyboard layouts ---------------------------------------------------------------------------
    def keyboard_layout(self, thread_id: int) -> int:
        return int(self._u.GetKeyboardLayout(thread_id) or 0)

    def to_unicode(self, vk: int, scan: int, key_state: bytes, layout: int) -> tuple[str, bool]:
        buffer = ctypes.create_unicode_buffer(8)
        count = int(self._u.ToUnicodeEx(vk, scan, key_state, buffer, 8, TOUNICODE_KEEP_STATE, layout))
        if count < 0:  # a dead key: the buffer holds its spacing accent
            return buffer.value[:1], True
        return (ctypes.wstring_at(buffer, count) if count > 0 else ""), False

    def vk_for_char(self, char: str, layout: int) -> int | None:
        answer = int(self._u.VkKeyScanExW(char, layout))
        return None if answer == -1 else answer & 0xFF

    def key_toggled(self, vk: int) -> bool:
        return bool(int(self._u.GetKeyState(vk)) & 1)

    # --- accessibility ------------------------------------------------------------------------------
    def uia_element_at(self, x: int, y: int) -> UiaNode | None:
        return self.com.uia_element_at(x, y)

    def uia_focused(self) -> UiaNode | None:
        return self.com.uia_focused()

    def msaa_element_at(self, x: int, y: int) -> MsaaNode | None:
        return self.com.msaa_element_at(x, y)

    def msaa_window(self, hwnd: int) -> MsaaNode | None:
        return self.com.msaa_window(hwnd)

    def uia_window(self, hwnd: int) -> UiaNode | None:
        return self.com.uia_window(hwnd)

    def msaa_frame(self, hwnd: int) -> MsaaNode | None:
        return self.com.msaa_frame(hwnd)

    # --- hooks --------------------------------------------------------------------------------------
    def run_hooks(
        self,
        on_mouse: MouseHandler,
        on_key: KeyHandler,
        ready: Callable[[int], None],
        on_tick: Callable[[], bool],
        tick_ms: int,
    ) -> None:
        user32 = self._u

        def mouse_proc(code: int, wparam: int, lparam: int) -> int:
            if code == 0:
                info = ctypes.cast(lparam, POINTER(MSLLHOOKSTRUCT)).contents
                event = MouseHookEvent(
                    int(wparam), info.pt.x, info.pt.y, info.mouseData, info.flags, info.time, int(info.dwExtraInfo)
                )
                _guarded(on_mouse, event)
            return int(user32.CallNextHookEx(None, code, wparam, lparam))

        def key_proc(code: int, wparam: int, lparam: int) -> int:
            if code == 0:
                info = ctypes.cast(lparam, POINTER(KBDLLHOOKSTRUCT)).contents
                key = KeyHookEvent(
                    int(wparam), info.vkCode, info.scanCode, info.flags, info.time, int(info.dwExtraInfo)
                )
                _guarded(on_key, key)
            return int(user32.CallNextHookEx(None, code, wparam, lparam))

        mouse_callback = self.dlls.hook_proc(mouse_proc)  # kept referenced until the hooks are removed
        key_callback = self.dlls.hook_proc(key_proc)
        module = self._k.GetModuleHandleW(None)
        message = MSG()
        user32.PeekMessageW(byref(message), None, 0, 0, PM_NOREMOVE)  # this thread gets its message queue
        hooks: list[Any] = []

        def install() -> None:
            for hook in hooks:
                user32.UnhookWindowsHookEx(hook)
            hooks[:] = [
                user32.SetWindowsHookExW(WH_MOUSE_LL, mouse_callback, module, 0),
                user32.SetWindowsHookExW(WH_KEYBOARD_LL, key_callback, module, 0),
            ]
            if not all(hooks):
                raise ctypes.WinError(ctypes.get_last_error())

        timer = user32.SetTimer(None, 0, tick_ms, None)
        try:
            install()
            ready(self.current_thread_id())
            while int(user32.GetMessageW(byref(message), None, 0, 0)) > 0:
                if message.message == WM_TIMER and message.hwnd is None:
                    if on_tick():
                        install()
                    continue
                user32.TranslateMessage(byref(message))
                user32.DispatchMessageW(byref(message))
        finally:
            user32.KillTimer(None, timer)
            for hook in hooks:
                if hook:
                    user32.UnhookWindowsHookEx(hook)

    def post_quit(self, thread_id: int) -> bool:
        return bool(self._u.PostThreadMessageW(thread_id, WM_QUIT, 0, 0))


def _guarded(handler: Callable[[Any], None], event: Any) -> None:
    try:
        handler(event)
    except Exception:  # an exception must not cross back into Windows' hook chain
        logger.exception("input_hook_handler_failed")
