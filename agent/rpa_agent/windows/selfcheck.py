"""`rpa-agent selfcheck`: what this Windows workstation gives the agent, for a hospital's IT to run
and send back. It reads, never types or clicks, and reports no element name or value (they may
show patient data): only roles and whether a name was found.

    python -m rpa_agent.windows.selfcheck [--json] [--drill]

`--drill` also types and clicks (see `rpa_agent.windows.drill`): for a test machine only.
"""

from __future__ import annotations

import io
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Literal

from rpa_agent.windows.api import UiaUnavailable, Win32
from rpa_agent.windows.desktop import WindowsDesktop
from rpa_agent.windows.screen import Grabber

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str


@dataclass
class Report:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(check.status != "fail" for check in self.checks)

    def add(self, name: str, probe: Callable[[], tuple[Status, str]]) -> None:
        try:
            status, detail = probe()
        except Exception as exc:  # a check that breaks is a finding, not a crash
            status, detail = "fail", f"{type(exc).__name__}: {exc}"
        self.checks.append(Check(name, status, detail))

    def text(self) -> str:
        lines = [f"{check.status.upper():4}  {check.name}: {check.detail}" for check in self.checks]
        lines.append("selfcheck: " + ("passed" if self.ok else "FAILED"))
        return "\n".join(lines)


def selfcheck(win: Win32 | None = None, grabber: Grabber | None = None, *, hooks: bool = True) -> Report:
    """Run every check against `win` (the real boundary when None) and return the report."""
    if win is None:
        from rpa_agent.windows.win32 import NativeWin32

        win = NativeWin32()
    desktop = WindowsDesktop(win, grabber)
    report = Report()
    report.add("python", lambda: ("ok", f"{platform.python_version()} {platform.machine()} on {platform.platform()}"))
    report.add("session", lambda: _session(win))
    report.add("dpi_awareness", lambda: _dpi(desktop))
    report.add("virtual_screen", lambda: ("ok", "x, y, width, height = {}, {}, {}, {}".format(*win.virtual_screen())))
    report.add("screenshot", lambda: _screenshot(desktop))
    report.add("input_desktop", lambda: _input_desktop(win))
    report.add("system_dialog", lambda: _system_dialog(desktop))
    report.add("foreground_window", lambda: _foreground(desktop))
    report.add("ui_automation", lambda: _uia(win))
    report.add("msaa", lambda: _msaa(win))
    if hooks:
        report.add("input_hooks", lambda: _hooks(desktop))
    return report


def _session(win: Win32) -> tuple[Status, str]:
    session = win.session_id()
    if session == 0:
        return "fail", "session 0 (a service): the person's desktop is out of reach; start the agent at log-on"
    return "ok", f"interactive session {session}"


def _dpi(desktop: WindowsDesktop) -> tuple[Status, str]:
    dpi = desktop.dpi
    detail = f"{dpi.awareness} via {dpi.method}" + (" (already set)" if dpi.already_set else "")
    return ("ok" if dpi.per_monitor else "warn"), detail


def _screenshot(desktop: WindowsDesktop) -> tuple[Status, str]:
    started = time.perf_counter()
    frame = desktop.screen.grab()
    grab_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    size = len(desktop.screen.png(frame))
    png_ms = (time.perf_counter() - started) * 1000
    blank = frame.pixels.count(0) == len(frame.pixels)
    detail = f"{frame.width}x{frame.height} at {frame.origin}, grab {grab_ms:.0f} ms"
    detail += f", PNG {size} bytes in {png_ms:.0f} ms"
    if blank:  # a locked or disconnected session, or a desktop with nothing drawn yet
        return "warn", detail + " (all black: is the session locked or disconnected?)"
    return "ok", detail


def _input_desktop(win: Win32) -> tuple[Status, str]:
    try:
        name = win.input_desktop_name()
    except PermissionError:
        return "warn", "access denied: a secure desktop is up (UAC, Ctrl+Alt+Del or the lock screen)"
    return ("ok" if name.lower() == "default" else "warn"), name


def _system_dialog(desktop: WindowsDesktop) -> tuple[Status, str]:
    dialog = desktop.windows.system_dialog()
    if dialog is None:
        return "ok", "none in front"
    return "warn", f"{dialog.kind} ({dialog.process or 'no process'}: {dialog.title or 'no title'})"


def _foreground(desktop: WindowsDesktop) -> tuple[Status, str]:
    window = desktop.windows.foreground()
    if window is None:
        return "warn", "no foreground window"
    return "ok", f"{window.process or 'unknown executable'} (pid {window.pid}), title of {len(window.title)} characters"


def _uia(win: Win32) -> tuple[Status, str]:
    try:
        node = win.uia_focused()
    except UiaUnavailable as exc:
        return "warn", f"{exc}: element names come from MSAA"
    if node is None:
        return "ok", "available (no focused element)"
    from rpa_agent.windows.elements import from_uia

    element = from_uia(node)
    return "ok", f"available; focused element: {element.role}, name {'found' if element.name else 'empty'}"


def _msaa(win: Win32) -> tuple[Status, str]:
    from rpa_agent.windows.elements import from_msaa

    hwnd = win.focused_window() or win.foreground_window()
    which = "focused window"
    if not hwnd:  # nothing in front (a desktop just opened): oleacc answers for the desktop itself
        hwnd, which = win.desktop_window(), "no window in front; desktop window"
    node = win.msaa_window(hwnd) if hwnd else None
    if node is None:
        return "warn", f"no accessible object for the {which}"
    element = from_msaa(node)
    return "ok", f"{which}: {element.role}, name {'found' if element.name else 'empty'}"


def _hooks(desktop: WindowsDesktop) -> tuple[Status, str]:
    desktop.watch.start()
    desktop.watch.stop()
    return "ok", "low-level mouse and keyboard hooks installed and removed"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if isinstance(sys.stdout, io.TextIOWrapper):  # a pipe on Windows is cp1252: never fail on a character
        sys.stdout.reconfigure(errors="backslashreplace")
    if "--drill" in args:  # types and clicks into a notepad of its own: never on a workstation in use
        from rpa_agent.windows.drill import drill

        report = drill()
    else:
        report = selfcheck()
    if "--json" in args:
        print(json.dumps({"ok": report.ok, "checks": [asdict(c) for c in report.checks]}, indent=2))
    else:
        print(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
