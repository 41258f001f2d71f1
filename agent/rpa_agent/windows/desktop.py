"""The Windows backend assembled: one `Desktop` over one `Win32` boundary."""

from __future__ import annotations

import logging

from rpa_agent.port import Input, Screen, Watch, Windows
from rpa_agent.windows.api import Win32
from rpa_agent.windows.dpi import DpiAwareness, make_dpi_aware
from rpa_agent.windows.hooks import HookWatch
from rpa_agent.windows.input import SendInputDevice
from rpa_agent.windows.screen import Grabber, MssScreen
from rpa_agent.windows.windows import Win32Windows

logger = logging.getLogger(__name__)


class WindowsDesktop:
    """The port's `Desktop` for Windows. DPI awareness is set first: every later coordinate, grab
    and window box is then in physical pixels."""

    name = "windows"

    def __init__(self, win: Win32, grabber: Grabber | None = None) -> None:
        self.win = win
        self.dpi: DpiAwareness = make_dpi_aware(win)
        self.hooks = HookWatch(win)
        self.watch: Watch = self.hooks
        self.input: Input = SendInputDevice(win, announce=self.hooks.expect)
        self.windows: Windows = Win32Windows(win, announce=self.hooks.expect)
        self.screen: Screen = MssScreen(grabber, desktop_box=win.virtual_screen)

    def close(self) -> None:
        self.watch.stop()


def open_desktop() -> WindowsDesktop:
    """The real backend (Windows or Wine): ctypes boundary, mss screenshots."""
    from rpa_agent.windows.win32 import NativeWin32

    desktop = WindowsDesktop(NativeWin32())
    logger.info("windows_desktop_ready: dpi %s (%s)", desktop.dpi.awareness, desktop.dpi.method)
    return desktop
