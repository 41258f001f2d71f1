"""The operating system's own prompts: the secure desktop (UAC, Ctrl+Alt+Del, the lock screen) and
consent.exe / CredentialUIBroker.exe in front. Detected and reported, never touched."""

from __future__ import annotations

import ntpath

from rpa_agent.port import SystemDialog
from rpa_agent.windows.api import Win32

PROMPT_PROCESSES = {"consent.exe": "uac", "credentialuibroker.exe": "credential"}


def system_dialog(win: Win32) -> SystemDialog | None:
    """The input desktop first (a secure desktop denies us access or is not "Default"), then the
    foreground window's executable."""
    try:
        desktop = win.input_desktop_name()
    except PermissionError:
        return SystemDialog(kind="uac", process=None, title="secure desktop (access denied)")
    if desktop.lower() != "default":
        return SystemDialog(kind="uac", process=None, title=f"secure desktop ({desktop or 'unnamed'})")
    hwnd = win.foreground_window()
    if not hwnd:
        return None
    _, pid = win.window_thread_process(hwnd)
    image = win.process_image(pid) if pid else None
    process = ntpath.basename(image) if image else None
    kind = PROMPT_PROCESSES.get((process or "").lower())
    if kind == "uac":
        return SystemDialog(kind="uac", process=process, title=win.window_text(hwnd) or None)
    if kind == "credential":
        return SystemDialog(kind="credential", process=process, title=win.window_text(hwnd) or None)
    return None
