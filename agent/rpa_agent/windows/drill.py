"""The input drill: the backend's primitives exercised end to end on a notepad of its own.

It opens notepad, brings it to the front, clicks into its text, types Unicode text and reads it
back through WM_GETTEXT, selects and replaces it with a key combination, reads the element under
the pointer, compares screenshots and checks that the input hooks saw the agent's own events as
the agent's. It types and clicks: run it on a test machine (the Wine tier, a workstation set
aside), never on one in use.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

from rpa_agent.port import Box, Frame, RawInput
from rpa_agent.windows.api import Win32
from rpa_agent.windows.desktop import WindowsDesktop
from rpa_agent.windows.screen import Grabber
from rpa_agent.windows.selfcheck import Report, Status

DRILL_TEXT = "Zoë Œuvre é ✓ 日本 𝄞"
POLL_S = 0.1


def wait_for(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True


def launch_notepad() -> Callable[[], None]:
    """Start notepad; the answer ends it."""
    notepad = subprocess.Popen(["notepad.exe"])
    return notepad.kill


def drill(
    win: Win32 | None = None,
    *,
    text: str = DRILL_TEXT,
    timeout_s: float = 20.0,
    grabber: Grabber | None = None,
    launch: Callable[[], Callable[[], None]] = launch_notepad,
) -> Report:
    if win is None:
        from rpa_agent.windows.win32 import NativeWin32

        win = NativeWin32()
    desktop = WindowsDesktop(win, grabber)
    report = Report()
    seen: list[RawInput] = []
    desktop.watch.add_listener(seen.append)
    desktop.watch.start()
    end = launch()
    try:
        _run(desktop, win, report, text, seen, timeout_s)
    finally:
        end()
        desktop.close()
    return report


def _run(desktop: WindowsDesktop, win: Win32, report: Report, text: str, seen: list[RawInput], timeout: float) -> None:
    found: list[int] = []

    def notepad_window() -> bool:
        found[:] = [w.handle for w in desktop.windows.windows() if (w.process or "").lower() == "notepad.exe"]
        return bool(found)

    if not wait_for(notepad_window, timeout):
        report.add("notepad", lambda: ("fail", "no notepad window appeared"))
        return
    hwnd = found[0]
    edit = win.child_window(hwnd, "Edit")
    box = win.window_rect(edit) if edit else None
    report.add("notepad", lambda: ("ok" if box else "fail", f"window 0x{hwnd:x}, text control 0x{edit:x}"))
    if box is None:
        return
    report.add("activate", lambda: _activate(desktop, hwnd))
    x, y = box[0] + box[2] // 2, box[1] + box[3] // 2
    before = desktop.screen.grab()
    foreign_before = desktop.watch.foreign_count  # a person's (or Wine's own pointer) events before the drill's input
    desktop.input.click(x, y)
    desktop.input.type_text(text)
    typed = wait_for(lambda: win.control_text(edit) == text, timeout)
    report.add("type_text", lambda: _compare("typed and read back", text, win.control_text(edit), typed))
    desktop.input.combo("ctrl+a")
    desktop.input.type_text("ok")
    replaced = wait_for(lambda: win.control_text(edit) == "ok", timeout)
    report.add("combo", lambda: _compare("ctrl+a then typed", "ok", win.control_text(edit), replaced))
    report.add("element_at", lambda: _element(desktop, x, y))
    after = desktop.screen.grab()
    report.add("screen_changed", lambda: _changed(desktop, before, after, box))
    report.add("foreground", lambda: _foreground(desktop, hwnd))
    desktop.hooks.flush()
    report.add("watch", lambda: _watch(desktop, seen, foreign_before))


def _activate(desktop: WindowsDesktop, hwnd: int) -> tuple[Status, str]:
    done = desktop.windows.activate(hwnd)
    front = desktop.windows.foreground()
    return ("ok" if done and front and front.handle == hwnd else "fail"), f"activate -> {done}"


def _compare(what: str, expected: str, got: str, ok: bool) -> tuple[Status, str]:
    return ("ok" if ok else "fail"), f"{what}: {got!a}" + ("" if ok else f" (expected {expected!a})")


def _element(desktop: WindowsDesktop, x: int, y: int) -> tuple[Status, str]:
    element = desktop.windows.element_at(x, y)
    if element is None:
        return "fail", "nothing under the pointer"
    status: Status = "ok" if element.role in ("Edit", "Document") else "warn"
    return status, f"{element.role} {element.name!a}, value {element.value!a}"


def _changed(desktop: WindowsDesktop, before: Frame, after: Frame, box: Box) -> tuple[Status, str]:
    share = desktop.screen.changed(before, after, box)
    return ("ok" if share > 0 else "fail"), f"{share:.2%} of the text control's pixels changed"


def _foreground(desktop: WindowsDesktop, hwnd: int) -> tuple[Status, str]:
    front = desktop.windows.foreground()
    if front is None or front.handle != hwnd:
        return "fail", f"foreground is {front}"
    return "ok", f"{front.title!r} ({front.process}, pid {front.pid})"


def _watch(desktop: WindowsDesktop, seen: list[RawInput], foreign_before: int) -> tuple[Status, str]:
    ours = [raw for raw in seen if not raw.foreign]
    foreign = desktop.watch.foreign_count - foreign_before
    detail = f"{len(seen)} events seen, {len(ours)} the agent's; a person's during the drill: {foreign}"
    detail += f" (before it: {foreign_before})"
    return ("ok" if ours and not foreign else "fail"), detail
