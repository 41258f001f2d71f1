"""Per-monitor DPI awareness, set once at start, so that every coordinate is a physical pixel.

Tried in order: SetProcessDpiAwarenessContext(PER_MONITOR_AWARE_V2) (Windows 10 1703+),
SetProcessDpiAwareness(PROCESS_PER_MONITOR_DPI_AWARE) (Windows 8.1+), SetProcessDPIAware (Vista+).
An "already set" answer (ERROR_ACCESS_DENIED, E_ACCESSDENIED: a manifest or an earlier call decided)
is success: the awareness in force is then read back and reported.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from rpa_agent.windows.api import E_ACCESSDENIED, ERROR_ACCESS_DENIED, Win32

logger = logging.getLogger(__name__)

DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2 = -4
PROCESS_PER_MONITOR_DPI_AWARE = 2
AWARENESS_NAMES = {0: "unaware", 1: "system", 2: "per-monitor"}


@dataclass(frozen=True)
class DpiAwareness:
    method: str  # the call that answered: "SetProcessDpiAwarenessContext", ..., or "none"
    already_set: bool
    awareness: str  # "per-monitor", "system", "unaware", "unknown"

    @property
    def per_monitor(self) -> bool:
        return self.awareness == "per-monitor"


def make_dpi_aware(win: Win32) -> DpiAwareness:
    """Ask for per-monitor awareness; never raises (an unaware agent still works on a 100 % screen)."""
    answer = _ask(win)
    current = _read(win)
    if answer is None:
        logger.warning("dpi_awareness_not_set: no DPI call succeeded; coordinates may be scaled (%s)", current)
        return DpiAwareness("none", False, current)
    method, already = answer
    result = DpiAwareness(method, already, current)
    logger.info("dpi_awareness: %s via %s%s", current, method, " (already set)" if already else "")
    return result


def _ask(win: Win32) -> tuple[str, bool] | None:
    try:
        if win.set_dpi_awareness_context(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2):
            return "SetProcessDpiAwarenessContext", False
        if win.last_error() == ERROR_ACCESS_DENIED:
            return "SetProcessDpiAwarenessContext", True
    except AttributeError:
        pass  # before Windows 10 1703
    try:
        hresult = win.set_process_dpi_awareness(PROCESS_PER_MONITOR_DPI_AWARE)
        if hresult == 0:
            return "SetProcessDpiAwareness", False
        if hresult == E_ACCESSDENIED:
            return "SetProcessDpiAwareness", True
    except AttributeError:
        pass  # before Windows 8.1 (no shcore)
    try:
        if win.set_process_dpi_aware():
            return "SetProcessDPIAware", False
    except AttributeError:
        pass
    return None


def _read(win: Win32) -> str:
    try:
        value = win.dpi_awareness()
    except AttributeError:
        value = None
    return AWARENESS_NAMES.get(value, "unknown") if value is not None else "unknown"
