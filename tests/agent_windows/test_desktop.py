from __future__ import annotations

from rpa_agent import port
from rpa_agent.windows import WindowsDesktop, api

from .fake import FakeWin32, mouse


def test_the_windows_desktop_implements_the_port_and_is_dpi_aware_first() -> None:
    win = FakeWin32()
    desktop: port.Desktop = WindowsDesktop(win)
    assert desktop.name == "windows"
    assert win.dpi_calls == ["context(-4)"]
    assert isinstance(desktop.windows, port.KeyboardFocus)


def test_what_the_agent_types_is_not_a_takeover_even_when_windows_drops_the_tag() -> None:
    win = FakeWin32()
    desktop = WindowsDesktop(win)
    desktop.input.click(10, 10)
    for event in win.sent:
        message = {api.MOUSEEVENTF_LEFTDOWN: api.WM_LBUTTONDOWN, api.MOUSEEVENTF_LEFTUP: api.WM_LBUTTONUP}
        flags = event.flags if isinstance(event, api.MouseInput) else 0
        desktop.hooks.on_mouse(mouse(message.get(flags, api.WM_MOUSEMOVE), flags=api.LLMHF_INJECTED))
    assert desktop.watch.foreign_count == 0
    desktop.hooks.on_mouse(mouse(api.WM_LBUTTONDOWN))  # a person's click
    assert desktop.watch.foreign_count == 1
    desktop.close()
