from __future__ import annotations

from rpa_agent.port import Window
from rpa_agent.windows.api import KeyInput
from rpa_agent.windows.windows import Win32Windows

from .fake import FakeProcessWindow, FakeWin32


def workstation() -> FakeWin32:
    win = FakeWin32()
    win.windows[10] = FakeProcessWindow(
        "Sans titre - Bloc-notes", 900, 9, r"C:\Windows\notepad.exe", rect=(5, 5, 400, 300)
    )
    win.windows[11] = FakeProcessWindow("", 901, 8, r"C:\Windows\explorer.exe")  # no title
    win.windows[12] = FakeProcessWindow("Hidden", 902, 7, None, visible=False)
    win.windows[13] = FakeProcessWindow("Dossier patient – Edge", 903, 6, r"C:\Program Files\Edge\msedge.exe")
    win.foreground = 13
    return win


def test_the_foreground_window_has_its_title_pid_and_executable() -> None:
    window = Win32Windows(workstation()).foreground()
    assert window == Window(13, "Dossier patient – Edge", 903, "msedge.exe", box=(0, 0, 800, 600))


def test_the_window_list_holds_visible_windows_with_titles() -> None:
    assert [w.handle for w in Win32Windows(workstation()).windows()] == [10, 13]


def test_the_stacked_windows_are_the_shown_ones_top_most_first_with_their_boxes() -> None:
    win = workstation()
    win.windows[14] = FakeProcessWindow("Réduite", 904, 5, None, minimised=True)
    win.windows[15] = FakeProcessWindow("Paramètres", 905, 4, None, rect=(0, 0, 1920, 1080), cloaked=True)
    stacked = Win32Windows(win).stacked()
    assert [w.handle for w in stacked] == [10, 13]  # EnumWindows' z-order; hidden, untitled, minimised, cloaked out
    assert stacked[0].box == (5, 5, 400, 300)


def test_activation_that_windows_allows_needs_no_dance() -> None:
    win = workstation()
    assert Win32Windows(win).activate(10) is True
    assert win.foreground == 10 and win.attached == [] and win.sent == []


def test_a_refused_activation_attaches_presses_alt_detaches_and_succeeds() -> None:
    win = workstation()
    win.refuse_foreground = True
    announced: list[list[str]] = []
    assert Win32Windows(win, announce=announced.append).activate(10) is True
    assert win.attached == [(1, 6, True), (1, 6, False)]
    assert [(e.vk, e.flags) for e in win.sent if isinstance(e, KeyInput)] == [(0x12, 0), (0x12, 2)]
    assert announced == [["key_press", "key_release"]]


def test_an_activation_that_stays_refused_is_reported_as_failed() -> None:
    win = workstation()
    assert Win32Windows(win).activate(999) is False  # a window that is gone
    assert win.foreground == 13
    assert win.attached[-1][2] is False  # never left attached


def test_keyboard_at_needs_a_focused_control_in_the_foreground_window_under_the_point() -> None:
    win = workstation()
    win.foreground, win.focus = 10, 55
    windows = Win32Windows(win)
    assert windows.keyboard_at(100, 100) is True
    assert windows.keyboard_at(500, 100) is False
    win.focus = 0
    assert windows.keyboard_at(100, 100) is False
