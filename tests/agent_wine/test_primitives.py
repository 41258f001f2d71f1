"""The agent's Windows backend in Wine's Python, one primitive at a time, on Wine's notepad and on a
Win32 test application that logs what it receives (its log is the truth, not the backend's word)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.agent_wine.conftest import WinApp
from tests.agent_wine.wine import WineDesktop, wait_until, windows_path

pytestmark = pytest.mark.wine
TEXT = "Zoë Œuvre é ✓ 日本 😀"  # Latin-1, beyond it, a symbol, CJK and a character outside the BMP


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_typing_and_clicks_reach_the_application_exactly_once(winapp: WinApp, drive) -> None:
    drive([
        {"op": "click", **winapp.centre("name")},
        {"op": "type", "text": TEXT},
        {"op": "click", **winapp.centre("urgent")},
        {"op": "click", **winapp.centre("save")},
        {"op": "click", **winapp.centre("urgent")},  # a last effect: every earlier one is logged before it
    ])  # fmt: skip
    wait_until(lambda: len(winapp.events("urgent")) == 2, timeout=30, what=f"the second toggle {winapp.events()}")
    saved = winapp.events("saved")
    assert saved == [{"event": "saved", "text": TEXT, "urgent": True}]  # read back with WM_GETTEXT
    assert [e["checked"] for e in winapp.events("urgent")] == [True, False]


def test_the_foreground_window_has_its_title_process_and_box(winapp: WinApp, drive) -> None:
    (front,) = drive([{"op": "wait_foreground", "title": "Fiche patient"}])
    assert front["title"] == "Fiche patient — essai"
    assert (front["process"], front["pid"] is not None) == ("python.exe", True)
    x, y, _, _ = winapp.ready["controls"]["name"]
    left, top, width, height = front["box"]
    assert left <= x < left + width and top <= y < top + height


def test_the_windows_shown_are_stacked_top_most_first_with_their_boxes(winapp: WinApp, drive) -> None:
    front, stacked = drive([{"op": "wait_foreground", "title": "Fiche patient"}, {"op": "stacked"}])
    assert stacked and (stacked[0]["title"], stacked[0]["box"]) == (front["title"], front["box"])
    assert all(w["title"] for w in stacked)  # untitled (and minimised, cloaked) windows are left out


def test_element_names_and_roles_come_from_msaa(winapp: WinApp, drive) -> None:
    edit, button, box = drive([
        {"op": "element_at", **winapp.centre("name")},
        {"op": "element_at", **winapp.centre("save")},
        {"op": "element_at", **winapp.centre("urgent")},
    ])  # fmt: skip
    assert (edit["role"], edit["name"], edit["is_password"]) == ("Edit", "Nom du patient", False)
    # Wine 8's oleacc says only ROLE_SYSTEM_CLIENT for a button's window: the control's class and style
    # name it, and BM_GETCHECK gives the box's state (Windows' oleacc gives PUSHBUTTON and CHECKBUTTON itself)
    assert (button["role"], button["name"], button["checked"]) == ("Button", "Enregistrer", None)
    assert (box["role"], box["name"], box["checked"]) == ("CheckBox", "Urgent", False)
    for element, control in ((edit, "name"), (button, "save"), (box, "urgent")):
        assert element["box"] == winapp.ready["controls"][control]  # the application's own GetWindowRect


def test_a_screenshot_is_the_whole_desktop_in_physical_pixels(winapp: WinApp, drive, wine_desktop: WineDesktop) -> None:
    shot = wine_desktop.folder("shots") / "desktop.png"
    (size,) = drive([{"op": "grab", "path": windows_path(shot)}])
    assert tuple(size) == png_size(shot) == (1280, 800)


def test_notepad_takes_unicode_text_and_shows_it_to_msaa(wine_desktop: WineDesktop, drive) -> None:
    notepad = wine_desktop.start(["notepad"])
    try:
        front, _, focused = drive([
            {"op": "wait_foreground", "title": "Bloc-notes"},  # Wine speaks the desktop's language (LANG=fr)
            {"op": "type", "text": TEXT},
            {"op": "wait_focused_value", "value": TEXT},
        ])  # fmt: skip
        assert (front["title"], front["process"]) == ("(sans titre) - Bloc-notes", "notepad.exe"), front
        assert (focused["role"], focused["value"]) == ("Edit", TEXT), focused
    finally:
        notepad.stop()
