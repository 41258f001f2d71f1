"""A small Win32 application for the Wine tier: one window, an Edit, a Button and a CheckBox, made with
ctypes only (the embeddable Python has no tkinter), that logs its effects as JSON lines.

    python.exe winapp.py LOG [TITLE]

Runs in Wine's (or Windows') own Python, never imported by the tests. Each line of LOG is one event:
`{"event": "ready", "hwnd": ..., "controls": {"name": [x, y, w, h], ...}}` once the window shows;
`{"event": "saved", "text": ..., "urgent": ...}` per click on "Enregistrer" (the text read back from
the Edit with WM_GETTEXT); `{"event": "urgent", "checked": ...}` per toggle of the CheckBox;
`{"event": "closed"}` when the window closes. The label "Nom du patient" stands before the Edit, so
MSAA names the Edit after it, as on Windows.
"""

from __future__ import annotations

import ctypes
import json
import sys
from ctypes import wintypes

user32 = ctypes.WinDLL("user32", use_last_error=True)
kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)

LRESULT = ctypes.c_ssize_t
WNDPROC = ctypes.WINFUNCTYPE(LRESULT, wintypes.HWND, wintypes.UINT, wintypes.WPARAM, wintypes.LPARAM)

WS_OVERLAPPEDWINDOW, WS_VISIBLE, WS_CHILD, WS_TABSTOP, WS_BORDER = 0x00CF0000, 0x10000000, 0x40000000, 0x10000, 0x800000
ES_AUTOHSCROLL, BS_PUSHBUTTON, BS_AUTOCHECKBOX = 0x80, 0x0, 0x3
WM_DESTROY, WM_COMMAND, WM_GETTEXT, WM_GETTEXTLENGTH, WM_SETFONT = 0x0002, 0x0111, 0x000D, 0x000E, 0x0030
BN_CLICKED, BM_GETCHECK, BST_CHECKED = 0, 0x00F0, 1
SW_SHOW, COLOR_WINDOW = 5, 5
ID_NAME, ID_SAVE, ID_URGENT = 101, 102, 103


class WNDCLASSW(ctypes.Structure):
    _fields_ = [
        ("style", wintypes.UINT),
        ("lpfnWndProc", WNDPROC),
        ("cbClsExtra", ctypes.c_int),
        ("cbWndExtra", ctypes.c_int),
        ("hInstance", wintypes.HINSTANCE),
        ("hIcon", wintypes.HICON),
        ("hCursor", wintypes.HANDLE),
        ("hbrBackground", wintypes.HBRUSH),
        ("lpszMenuName", wintypes.LPCWSTR),
        ("lpszClassName", wintypes.LPCWSTR),
    ]


user32.DefWindowProcW.argtypes = [wintypes.HWND, wintypes.UINT, wintypes.WPARAM, wintypes.LPARAM]
user32.DefWindowProcW.restype = LRESULT
user32.SendMessageW.argtypes = [wintypes.HWND, wintypes.UINT, wintypes.WPARAM, wintypes.LPARAM]
user32.SendMessageW.restype = LRESULT
user32.CreateWindowExW.argtypes = [
    wintypes.DWORD, wintypes.LPCWSTR, wintypes.LPCWSTR, wintypes.DWORD, ctypes.c_int, ctypes.c_int,
    ctypes.c_int, ctypes.c_int, wintypes.HWND, wintypes.HMENU, wintypes.HINSTANCE, wintypes.LPVOID,
]  # fmt: skip
user32.CreateWindowExW.restype = wintypes.HWND
user32.GetDlgItem.argtypes = [wintypes.HWND, ctypes.c_int]
user32.GetDlgItem.restype = wintypes.HWND
user32.RegisterClassW.argtypes = [ctypes.POINTER(WNDCLASSW)]
user32.GetMessageW.argtypes = [ctypes.POINTER(wintypes.MSG), wintypes.HWND, wintypes.UINT, wintypes.UINT]
user32.IsDialogMessageW.argtypes = [wintypes.HWND, ctypes.POINTER(wintypes.MSG)]
user32.TranslateMessage.argtypes = [ctypes.POINTER(wintypes.MSG)]
user32.DispatchMessageW.argtypes = [ctypes.POINTER(wintypes.MSG)]
user32.DispatchMessageW.restype = LRESULT
user32.ShowWindow.argtypes = [wintypes.HWND, ctypes.c_int]
user32.UpdateWindow.argtypes = [wintypes.HWND]
user32.SetForegroundWindow.argtypes = [wintypes.HWND]
user32.GetWindowRect.argtypes = [wintypes.HWND, ctypes.POINTER(wintypes.RECT)]
user32.PostQuitMessage.argtypes = [ctypes.c_int]
kernel32.GetModuleHandleW.argtypes = [wintypes.LPCWSTR]
kernel32.GetModuleHandleW.restype = wintypes.HMODULE
gdi32 = ctypes.WinDLL("gdi32", use_last_error=True)
gdi32.CreateFontW.argtypes = [ctypes.c_int] * 5 + [wintypes.DWORD] * 8 + [wintypes.LPCWSTR]
gdi32.CreateFontW.restype = wintypes.HFONT


class App:
    def __init__(self, log_path: str, title: str) -> None:
        self.log_path, self.title = log_path, title
        self.hwnd: int = 0
        self.proc = WNDPROC(self.wndproc)  # kept alive as long as the window

    def log(self, **event: object) -> None:
        with open(self.log_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(event, ensure_ascii=False) + "\n")

    def text_of(self, control: int) -> str:
        """The control's text as the application sees it: WM_GETTEXT, as a save would read it."""
        child = user32.GetDlgItem(self.hwnd, control)
        size = user32.SendMessageW(child, WM_GETTEXTLENGTH, 0, 0) + 1
        buf = ctypes.create_unicode_buffer(size)
        user32.SendMessageW(child, WM_GETTEXT, size, ctypes.addressof(buf))
        return buf.value

    def checked(self) -> bool:
        return bool(user32.SendMessageW(user32.GetDlgItem(self.hwnd, ID_URGENT), BM_GETCHECK, 0, 0) == BST_CHECKED)

    def wndproc(self, hwnd: int, msg: int, wparam: int, lparam: int) -> int:
        if msg == WM_COMMAND and (wparam >> 16) & 0xFFFF == BN_CLICKED:
            control = wparam & 0xFFFF
            if control == ID_SAVE:
                self.log(event="saved", text=self.text_of(ID_NAME), urgent=self.checked())
            elif control == ID_URGENT:
                self.log(event="urgent", checked=self.checked())
            return 0
        if msg == WM_DESTROY:
            self.log(event="closed")
            user32.PostQuitMessage(0)
            return 0
        return int(user32.DefWindowProcW(hwnd, msg, wparam, lparam))

    def create(self) -> None:
        instance = kernel32.GetModuleHandleW(None)
        cls = WNDCLASSW(
            lpfnWndProc=self.proc,
            hInstance=instance,
            hCursor=user32.LoadCursorW(None, ctypes.c_void_p(32512)),  # IDC_ARROW
            hbrBackground=wintypes.HBRUSH(COLOR_WINDOW + 1),
            lpszClassName="RpaTestApp",
        )
        if not user32.RegisterClassW(ctypes.byref(cls)):
            raise ctypes.WinError(ctypes.get_last_error())
        style = WS_OVERLAPPEDWINDOW | WS_VISIBLE
        self.hwnd = user32.CreateWindowExW(
            0, "RpaTestApp", self.title, style, 40, 30, 1000, 640, None, None, instance, None
        )
        if not self.hwnd:
            raise ctypes.WinError(ctypes.get_last_error())
        font = gdi32.CreateFontW(-22, 0, 0, 0, 400, 0, 0, 0, 1, 0, 0, 5, 0, "Tahoma")  # large: read by OCR too
        child = WS_CHILD | WS_VISIBLE
        controls = [
            ("STATIC", "Nom du patient", child, 40, 44, 200, 32, 0),
            ("EDIT", "", child | WS_TABSTOP | WS_BORDER | ES_AUTOHSCROLL, 250, 40, 460, 36, ID_NAME),
            ("BUTTON", "Urgent", child | WS_TABSTOP | BS_AUTOCHECKBOX, 250, 100, 240, 36, ID_URGENT),
            ("BUTTON", "Enregistrer", child | WS_TABSTOP | BS_PUSHBUTTON, 250, 170, 200, 48, ID_SAVE),
        ]
        for klass, text, style, x, y, w, h, ident in controls:
            menu = wintypes.HMENU(ident)
            handle = user32.CreateWindowExW(0, klass, text, style, x, y, w, h, self.hwnd, menu, instance, None)
            user32.SendMessageW(handle, WM_SETFONT, font, 1)
        user32.ShowWindow(self.hwnd, SW_SHOW)
        user32.UpdateWindow(self.hwnd)
        user32.SetForegroundWindow(self.hwnd)

    def boxes(self) -> dict[str, list[int]]:
        """Each control's box on screen (x, y, w, h), for the test to aim at."""
        out = {}
        for name, ident in (("name", ID_NAME), ("save", ID_SAVE), ("urgent", ID_URGENT)):
            rect = wintypes.RECT()
            user32.GetWindowRect(user32.GetDlgItem(self.hwnd, ident), ctypes.byref(rect))
            out[name] = [rect.left, rect.top, rect.right - rect.left, rect.bottom - rect.top]
        return out

    def run(self) -> int:
        self.create()
        self.log(event="ready", hwnd=int(self.hwnd), title=self.title, controls=self.boxes())
        msg = wintypes.MSG()
        while user32.GetMessageW(ctypes.byref(msg), None, 0, 0) > 0:
            if not user32.IsDialogMessageW(self.hwnd, ctypes.byref(msg)):  # Tab moves between controls
                user32.TranslateMessage(ctypes.byref(msg))
                user32.DispatchMessageW(ctypes.byref(msg))
        return 0


if __name__ == "__main__":
    sys.exit(App(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "Fiche patient — essai").run())
