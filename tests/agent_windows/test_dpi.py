from __future__ import annotations

from rpa_agent.windows.api import E_ACCESSDENIED, ERROR_ACCESS_DENIED
from rpa_agent.windows.dpi import make_dpi_aware

from .fake import FakeWin32


def test_per_monitor_v2_is_asked_first() -> None:
    win = FakeWin32()
    dpi = make_dpi_aware(win)
    assert (dpi.method, dpi.already_set, dpi.awareness) == ("SetProcessDpiAwarenessContext", False, "per-monitor")
    assert win.dpi_calls == ["context(-4)"]


def test_an_already_set_context_is_success_and_the_awareness_in_force_is_reported() -> None:
    win = FakeWin32(dpi_context_answer=False, dpi_context_error=ERROR_ACCESS_DENIED, dpi_now=1)
    dpi = make_dpi_aware(win)
    assert (dpi.method, dpi.already_set, dpi.awareness) == ("SetProcessDpiAwarenessContext", True, "system")
    assert win.dpi_calls == ["context(-4)"]  # not asked again in an older way
    assert not dpi.per_monitor


def test_shcore_is_tried_when_the_context_call_is_absent_and_e_accessdenied_is_success() -> None:
    win = FakeWin32(dpi_context_answer=AttributeError, dpi_shcore_answer=E_ACCESSDENIED)
    dpi = make_dpi_aware(win)
    assert (dpi.method, dpi.already_set) == ("SetProcessDpiAwareness", True)
    assert win.dpi_calls == ["context(-4)", "shcore(2)"]


def test_windows_7_falls_back_to_set_process_dpi_aware() -> None:
    win = FakeWin32(dpi_context_answer=AttributeError, dpi_shcore_answer=AttributeError, dpi_now=None)
    dpi = make_dpi_aware(win)
    assert (dpi.method, dpi.already_set, dpi.awareness) == ("SetProcessDPIAware", False, "unknown")


def test_a_real_failure_is_reported_as_none_without_raising() -> None:
    win = FakeWin32(
        dpi_context_answer=False, dpi_context_error=87, dpi_shcore_answer=-2147024809, dpi_legacy_answer=False
    )
    dpi = make_dpi_aware(win)
    assert dpi.method == "none"
    assert win.dpi_calls == ["context(-4)", "shcore(2)", "legacy"]
