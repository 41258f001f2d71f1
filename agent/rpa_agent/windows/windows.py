"""Top-level windows, the foreground window, activation, and the port's `Windows` as a whole."""

from __future__ import annotations

import logging
import ntpath

from rpa_agent.port import Element, SystemDialog, Window
from rpa_agent.windows import keys, named, secure
from rpa_agent.windows.api import KEYEVENTF_KEYUP, KeyInput, Win32
from rpa_agent.windows.elements import Accessibility
from rpa_agent.windows.input import Announce

logger = logging.getLogger(__name__)

SW_RESTORE = 9


class Win32Windows:
    """The port's `Windows` (and the optional `KeyboardFocus`, `NamedElements`) over user32 and kernel32."""

    def __init__(self, win: Win32, announce: Announce | None = None) -> None:
        self._win = win
        self._announce = announce or (lambda kinds: None)
        self.accessibility = Accessibility(win)

    def describe(self, hwnd: int) -> Window:
        _, pid = self._win.window_thread_process(hwnd)
        image = self._win.process_image(pid) if pid else None
        return Window(
            handle=hwnd,
            title=self._win.window_text(hwnd),
            pid=pid or None,
            process=ntpath.basename(image) if image else None,
            box=self._win.window_rect(hwnd),
        )

    def foreground(self) -> Window | None:
        hwnd = self._win.foreground_window()
        return self.describe(hwnd) if hwnd else None

    def windows(self) -> list[Window]:
        """Visible top-level windows that have a title, in z-order (front first)."""
        found = []
        for hwnd in self._win.enum_windows():
            if self._win.is_window_visible(hwnd) and self._win.window_text(hwnd):
                found.append(self.describe(hwnd))
        return found

    def stacked(self) -> list[Window]:
        """The windows shown, top-most first: EnumWindows' z-order; minimised, cloaked (a suspended Store
        app, another virtual desktop: user32 calls them visible) and untitled ones left out."""
        win = self._win
        shown = [
            h for h in win.enum_windows() if win.is_window_visible(h) and not win.is_iconic(h) and not win.is_cloaked(h)
        ]
        return [self.describe(h) for h in shown if win.window_text(h)]

    def activate(self, handle: int) -> bool:
        """SetForegroundWindow; when Windows' foreground lock refuses, attach to the foreground thread's
        input and press Alt (which lifts the lock), then try again. True only when it is in front."""
        win = self._win
        if win.is_iconic(handle):
            win.show_window(handle, SW_RESTORE)
        if win.set_foreground_window(handle) and win.foreground_window() == handle:
            return True
        ours = win.current_thread_id()
        theirs, _ = win.window_thread_process(win.foreground_window())
        attached = bool(theirs) and theirs != ours and win.attach_thread_input(ours, theirs, True)
        try:
            alt = win.scan_code(keys.VK_MENU)
            self._announce(["key_press", "key_release"])
            win.send_input([KeyInput(keys.VK_MENU, alt, 0), KeyInput(keys.VK_MENU, alt, KEYEVENTF_KEYUP)])
            win.set_foreground_window(handle)
            win.bring_window_to_top(handle)
        finally:
            if attached:
                win.attach_thread_input(ours, theirs, False)
        if win.foreground_window() == handle:
            return True
        logger.warning("activate_refused: window 0x%x is not in front (foreground lock)", handle)
        return False

    def element_at(self, x: int, y: int) -> Element | None:
        return self.accessibility.element_at(x, y)

    def focused_element(self) -> Element | None:
        return self.accessibility.focused_element()

    def element_named(self, name: str, role: str, window_title: str) -> Element | None:
        return named.element_named(self._win, self.accessibility, name, role, window_title)

    def system_dialog(self) -> SystemDialog | None:
        return secure.system_dialog(self._win)

    def keyboard_at(self, x: int, y: int) -> bool:
        """The keyboard focus is in the foreground window's thread, and (x, y) is inside that window."""
        hwnd = self._win.foreground_window()
        box = self._win.window_rect(hwnd) if hwnd else None
        if box is None or not self._win.focused_window():
            return False
        left, top, width, height = box
        return left <= x < left + width and top <= y < top + height
