from __future__ import annotations

from rpa_agent.port import Frame
from rpa_agent.windows.api import REGDB_E_CLASSNOTREG
from rpa_agent.windows.selfcheck import selfcheck

from .fake import DESKTOP_WINDOW, FakeMsaa, FakeProcessWindow, FakeUia, FakeWin32

SCREEN = Frame(4, 2, b"\x10\x20\x30\xff" * 8)


def wine_like() -> FakeWin32:
    win = FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=FakeMsaa("Nom: Dupont Jean", 0x2A), focus=10)
    win.windows[10] = FakeProcessWindow("Dossier de Dupont Jean", 900, 9, r"C:\windows\notepad.exe")
    win.foreground = 10
    return win


def test_selfcheck_reports_each_capability_and_passes_with_warnings_under_wine() -> None:
    report = selfcheck(wine_like(), grabber=lambda: SCREEN)
    status = {c.name: c.status for c in report.checks}
    assert status == {
        "python": "ok", "session": "ok", "dpi_awareness": "ok", "virtual_screen": "ok", "screenshot": "ok",
        "input_desktop": "ok", "system_dialog": "ok", "foreground_window": "ok", "ui_automation": "warn",
        "msaa": "ok", "input_hooks": "ok",
    }  # fmt: skip
    assert report.ok
    assert "4x2" in report.text()


def test_with_nothing_in_front_msaa_is_checked_on_the_desktop_window() -> None:
    win = wine_like()
    win.foreground = win.focus = 0
    checks = {c.name: c for c in selfcheck(win, grabber=lambda: SCREEN, hooks=False).checks}
    assert checks["foreground_window"].status == "warn"
    assert checks["msaa"].status == "ok" and "desktop window" in checks["msaa"].detail
    assert win.msaa_windows_asked == [DESKTOP_WINDOW]


def test_selfcheck_never_prints_an_element_name_or_a_window_title() -> None:
    text = selfcheck(wine_like(), grabber=lambda: SCREEN).text()
    assert "Dupont" not in text


def test_selfcheck_shows_ui_automation_and_the_secure_desktop_when_present() -> None:
    win = wine_like()
    win.uia_error, win.uia = None, FakeUia("Rechercher", 50004)
    win.desktop = "Winlogon"
    status = {c.name: (c.status, c.detail) for c in selfcheck(win, grabber=lambda: SCREEN, hooks=False).checks}
    assert status["ui_automation"][0] == "ok" and "Edit" in status["ui_automation"][1]
    assert status["input_desktop"] == ("warn", "Winlogon")
    assert status["system_dialog"][0] == "warn"


def test_an_agent_run_as_a_service_fails_the_selfcheck() -> None:
    win = wine_like()
    win.session = 0
    report = selfcheck(win, grabber=lambda: SCREEN, hooks=False)
    assert [c.name for c in report.checks if c.status == "fail"] == ["session"]


def test_a_black_screenshot_is_a_warning() -> None:
    report = selfcheck(wine_like(), grabber=lambda: Frame(2, 2, bytes(16)), hooks=False)
    assert report.ok
    assert [c.name for c in report.checks if c.status == "warn"] == ["screenshot", "ui_automation"]


def test_a_check_that_breaks_fails_the_selfcheck() -> None:
    def broken() -> Frame:
        raise OSError("BitBlt failed")

    report = selfcheck(wine_like(), grabber=broken, hooks=False)
    assert not report.ok
    assert [c.name for c in report.checks if c.status == "fail"] == ["screenshot"]
