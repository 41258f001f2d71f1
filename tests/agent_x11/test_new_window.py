"""The harness tells a browser's new window from the windows that were there before it started, even
when the X server gives the new window the id a window of a browser that just quit had."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rpa_agent.x11.windows import WindowInfo

from rpa_mcp.desktop_rig.harness import DesktopError, VirtualDisplay

WID = 0x1600001


def window(pid: int) -> WindowInfo:
    return WindowInfo(WID, "Recherche patient - Chromium", pid, "chromium", "chromium", (0, 0, 1280, 800))


class Windows:
    """What _NET_CLIENT_LIST shows: `before` until the browser is started, then `after`."""

    def __init__(self, before: list[WindowInfo], after: list[WindowInfo]) -> None:
        self.shown, self.after = before, after

    def windows(self) -> list[WindowInfo]:
        return list(self.shown)

    def client_list(self) -> list[int]:
        return [info.wid for info in self.shown]


class Process:
    returncode = None

    def poll(self) -> None:
        return None


def display(tmp_path: Path, windows: Windows, monkeypatch: pytest.MonkeyPatch) -> VirtualDisplay:
    desk = VirtualDisplay(workdir=tmp_path)
    desk._windows = windows

    def spawn(argv: list[str], **_kw: Any) -> Process:
        windows.shown = windows.after
        return Process()

    monkeypatch.setattr(desk, "spawn", spawn)
    return desk


def test_a_new_window_with_the_id_of_a_closed_one_is_the_new_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = display(tmp_path, Windows([window(pid=111)], [window(pid=222)]), monkeypatch)
    browser = desk.chromium("http://127.0.0.1:1/", wait_title="Recherche patient", timeout=5)
    assert browser.wid == WID


def test_a_window_that_was_there_before_is_never_taken_for_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = display(tmp_path, Windows([window(pid=111)], [window(pid=111)]), monkeypatch)
    with pytest.raises(DesktopError, match="no new window"):
        desk.chromium("http://127.0.0.1:1/", wait_title="Recherche patient", timeout=0.1)
