"""ctypes declarations of the Win32 boundary: types, structures, constants and the DLLs with their
prototypes (argtypes and restype set for every function). The DLLs are loaded when a `Dlls` is made,
so this module imports on any platform."""

from __future__ import annotations

import ctypes
import functools
import sys
from ctypes import POINTER, c_int, c_long, c_size_t, c_ssize_t, c_uint, c_ushort, c_void_p, c_wchar_p
from typing import Any

from rpa_agent.port import Box

BOOL = c_int
DWORD = ctypes.c_uint32
WORD = c_ushort
LONG = ctypes.c_int32
ULONG_PTR = c_size_t
WPARAM = c_size_t
LPARAM = c_ssize_t
LRESULT = c_ssize_t
HANDLE = c_void_p


class POINT(ctypes.Structure):
    _fields_ = [("x", LONG), ("y", LONG)]


class RECT(ctypes.Structure):
    _fields_ = [("left", LONG), ("top", LONG), ("right", LONG), ("bottom", LONG)]

    def box(self) -> Box:
        return (self.left, self.top, self.right - self.left, self.bottom - self.top)


class MOUSEINPUT(ctypes.Structure):
    _fields_ = [
        ("dx", LONG),
        ("dy", LONG),
        ("mouseData", DWORD),
        ("dwFlags", DWORD),
        ("time", DWORD),
        ("dwExtraInfo", ULONG_PTR),
    ]


class KEYBDINPUT(ctypes.Structure):
    _fields_ = [("wVk", WORD), ("wScan", WORD), ("dwFlags", DWORD), ("time", DWORD), ("dwExtraInfo", ULONG_PTR)]


class HARDWAREINPUT(ctypes.Structure):
    _fields_ = [("uMsg", DWORD), ("wParamL", WORD), ("wParamH", WORD)]


class _INPUTUNION(ctypes.Union):
    _fields_ = [("mi", MOUSEINPUT), ("ki", KEYBDINPUT), ("hi", HARDWAREINPUT)]


class INPUT(ctypes.Structure):
    _fields_ = [("type", DWORD), ("u", _INPUTUNION)]


INPUT_MOUSE, INPUT_KEYBOARD = 0, 1


class MSLLHOOKSTRUCT(ctypes.Structure):
    _fields_ = [("pt", POINT), ("mouseData", DWORD), ("flags", DWORD), ("time", DWORD), ("dwExtraInfo", ULONG_PTR)]


class KBDLLHOOKSTRUCT(ctypes.Structure):
    _fields_ = [("vkCode", DWORD), ("scanCode", DWORD), ("flags", DWORD), ("time", DWORD), ("dwExtraInfo", ULONG_PTR)]


class MSG(ctypes.Structure):
    _fields_ = [
        ("hwnd", HANDLE),
        ("message", c_uint),
        ("wParam", WPARAM),
        ("lParam", LPARAM),
        ("time", DWORD),
        ("pt", POINT),
        ("lPrivate", DWORD),
    ]


class LASTINPUTINFO(ctypes.Structure):
    _fields_ = [("cbSize", c_uint), ("dwTime", DWORD)]


class GUITHREADINFO(ctypes.Structure):
    _fields_ = [
        ("cbSize", DWORD),
        ("flags", DWORD),
        ("hwndActive", HANDLE),
        ("hwndFocus", HANDLE),
        ("hwndCapture", HANDLE),
        ("hwndMenuOwner", HANDLE),
        ("hwndMoveSize", HANDLE),
        ("hwndCaret", HANDLE),
        ("rcCaret", RECT),
    ]


SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN, SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN = 76, 77, 78, 79
DWMWA_CLOAKED = 14
PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
TOKEN_QUERY = 0x0008
TOKEN_INTEGRITY_LEVEL = 25  # TOKEN_INFORMATION_CLASS.TokenIntegrityLevel
GA_ROOT = 2
DESKTOP_READOBJECTS = 0x0001
UOI_NAME = 2
WH_KEYBOARD_LL, WH_MOUSE_LL = 13, 14
WM_QUIT = 0x0012
WM_TIMER = 0x0113
WM_GETTEXT, WM_GETTEXTLENGTH = 0x000D, 0x000E
SMTO_ABORTIFHUNG = 0x0002
GWL_STYLE = -16
BM_GETCHECK = 0x00F0
CHECK_TIMEOUT_MS = 500
PM_NOREMOVE = 0
TOUNICODE_KEEP_STATE = 0x4  # Windows 10 1607+: ToUnicodeEx leaves the keyboard state (dead keys) alone


def _declare(dll: Any, name: str, restype: Any, *argtypes: Any) -> None:
    function = getattr(dll, name)
    function.restype = restype
    function.argtypes = list(argtypes)


class Dlls:
    """user32, kernel32, shcore, ole32, oleaut32, oleacc with their prototypes (Windows only)."""

    def __init__(self) -> None:
        if sys.platform != "win32":
            raise OSError("the Windows backend needs Windows (or Wine)")
        self.user32 = ctypes.WinDLL("user32", use_last_error=True)
        self.kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        self.hook_proc = ctypes.WINFUNCTYPE(LRESULT, c_int, WPARAM, LPARAM)
        self.enum_proc = ctypes.WINFUNCTYPE(BOOL, HANDLE, LPARAM)
        u, k = self.user32, self.kernel32
        _declare(u, "SendInput", c_uint, c_uint, POINTER(INPUT), c_int)
        _declare(u, "MapVirtualKeyW", c_uint, c_uint, c_uint)
        _declare(u, "GetSystemMetrics", c_int, c_int)
        _declare(u, "GetCursorPos", BOOL, POINTER(POINT))
        _declare(u, "SetProcessDPIAware", BOOL)
        _declare(u, "GetForegroundWindow", HANDLE)
        _declare(u, "EnumWindows", BOOL, self.enum_proc, LPARAM)
        _declare(u, "IsWindowVisible", BOOL, HANDLE)
        _declare(u, "IsIconic", BOOL, HANDLE)
        _declare(u, "GetWindowTextLengthW", c_int, HANDLE)
        _declare(u, "GetWindowTextW", c_int, HANDLE, c_wchar_p, c_int)
        _declare(u, "GetClassNameW", c_int, HANDLE, c_wchar_p, c_int)
        _declare(u, "GetWindowLongW", c_long, HANDLE, c_int)
        _declare(u, "GetWindowRect", BOOL, HANDLE, POINTER(RECT))
        _declare(u, "GetWindowThreadProcessId", DWORD, HANDLE, POINTER(DWORD))
        _declare(u, "AttachThreadInput", BOOL, DWORD, DWORD, BOOL)
        _declare(u, "SetForegroundWindow", BOOL, HANDLE)
        _declare(u, "BringWindowToTop", BOOL, HANDLE)
        _declare(u, "ShowWindow", BOOL, HANDLE, c_int)
        _declare(u, "GetGUIThreadInfo", BOOL, DWORD, POINTER(GUITHREADINFO))
        _declare(u, "FindWindowExW", HANDLE, HANDLE, HANDLE, c_wchar_p, c_wchar_p)
        _declare(u, "SendMessageTimeoutW", LRESULT, HANDLE, c_uint, WPARAM, LPARAM, c_uint, c_uint, POINTER(ULONG_PTR))
        _declare(u, "OpenInputDesktop", HANDLE, DWORD, BOOL, DWORD)
        _declare(u, "GetUserObjectInformationW", BOOL, HANDLE, c_int, c_void_p, DWORD, POINTER(DWORD))
        _declare(u, "CloseDesktop", BOOL, HANDLE)
        _declare(u, "GetKeyboardLayout", HANDLE, DWORD)
        _declare(u, "ToUnicodeEx", c_int, c_uint, c_uint, ctypes.c_char_p, c_wchar_p, c_int, c_uint, HANDLE)
        _declare(u, "GetKeyState", ctypes.c_short, c_int)
        _declare(u, "VkKeyScanExW", ctypes.c_short, ctypes.c_wchar, HANDLE)
        _declare(u, "SetWindowsHookExW", HANDLE, c_int, self.hook_proc, HANDLE, DWORD)
        _declare(u, "CallNextHookEx", LRESULT, HANDLE, c_int, WPARAM, LPARAM)
        _declare(u, "UnhookWindowsHookEx", BOOL, HANDLE)
        _declare(u, "GetMessageW", BOOL, POINTER(MSG), HANDLE, c_uint, c_uint)
        _declare(u, "PeekMessageW", BOOL, POINTER(MSG), HANDLE, c_uint, c_uint, c_uint)
        _declare(u, "TranslateMessage", BOOL, POINTER(MSG))
        _declare(u, "DispatchMessageW", LRESULT, POINTER(MSG))
        _declare(u, "PostThreadMessageW", BOOL, DWORD, c_uint, WPARAM, LPARAM)
        _declare(u, "SetTimer", ULONG_PTR, HANDLE, ULONG_PTR, c_uint, c_void_p)
        _declare(u, "KillTimer", BOOL, HANDLE, ULONG_PTR)
        _declare(u, "GetLastInputInfo", BOOL, POINTER(LASTINPUTINFO))
        _declare(k, "OpenProcess", HANDLE, DWORD, BOOL, DWORD)
        _declare(k, "QueryFullProcessImageNameW", BOOL, HANDLE, DWORD, c_wchar_p, POINTER(DWORD))
        _declare(k, "CloseHandle", BOOL, HANDLE)
        _declare(k, "GetCurrentThreadId", DWORD)
        _declare(k, "GetTickCount", DWORD)
        _declare(k, "GetCurrentProcess", HANDLE)
        _declare(u, "WindowFromPoint", HANDLE, POINT)
        _declare(u, "GetAncestor", HANDLE, HANDLE, c_uint)
        self.advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)
        a = self.advapi32
        _declare(a, "OpenProcessToken", BOOL, HANDLE, DWORD, POINTER(HANDLE))
        _declare(a, "GetTokenInformation", BOOL, HANDLE, c_int, c_void_p, DWORD, POINTER(DWORD))
        _declare(a, "GetSidSubAuthorityCount", POINTER(ctypes.c_ubyte), c_void_p)
        _declare(a, "GetSidSubAuthority", POINTER(DWORD), c_void_p, DWORD)
        _declare(k, "GetCurrentProcessId", DWORD)
        _declare(k, "ProcessIdToSessionId", BOOL, DWORD, POINTER(DWORD))
        _declare(k, "GetModuleHandleW", HANDLE, c_wchar_p)
        # Absent on older Windows: looked up when called (AttributeError then).
        self.optional_user32 = {
            "SetProcessDpiAwarenessContext": (BOOL, [c_ssize_t]),
            "GetThreadDpiAwarenessContext": (c_ssize_t, []),
            "GetAwarenessFromDpiAwarenessContext": (c_int, [c_ssize_t]),
        }

    def optional(self, name: str) -> Any:
        restype, argtypes = self.optional_user32[name]
        function = getattr(self.user32, name)
        function.restype, function.argtypes = restype, argtypes
        return function

    @functools.cached_property
    def dwmapi(self) -> Any:
        """dwmapi.dll, loaded on first use; None where it is absent (then no window is cloaked)."""
        try:
            dll = ctypes.WinDLL("dwmapi", use_last_error=True)
        except OSError:
            return None
        _declare(dll, "DwmGetWindowAttribute", c_long, HANDLE, DWORD, c_void_p, DWORD)  # the raw HRESULT
        return dll

    def shcore(self) -> Any:
        try:
            dll = ctypes.WinDLL("shcore", use_last_error=True)
        except OSError as exc:  # Windows 7
            raise AttributeError("shcore.dll") from exc
        _declare(dll, "SetProcessDpiAwareness", c_long, c_int)  # c_long: the raw HRESULT, never raised
        return dll
