"""The Windows backend of the agent: SendInput, mss, user32/kernel32, UI Automation with an MSAA
fallback, the secure-desktop check and low-level hooks, all through one ctypes boundary (`Win32`).

Loads on Windows' own embeddable CPython (standard library, ctypes and `mss` only)."""

from rpa_agent.windows.desktop import WindowsDesktop, open_desktop

__all__ = ["WindowsDesktop", "open_desktop"]  # the selfcheck: rpa_agent.windows.selfcheck
