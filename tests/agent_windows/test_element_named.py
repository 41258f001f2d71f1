from __future__ import annotations

import logging

import pytest
from rpa_agent.port import Element, NamedElements
from rpa_agent.windows.api import REGDB_E_CLASSNOTREG, ControlInfo
from rpa_agent.windows.desktop import WindowsDesktop
from rpa_agent.windows.named import MAX_NODES, STATE_SYSTEM_INVISIBLE
from rpa_agent.windows.windows import Win32Windows

from .fake import FakeMsaa, FakeProcessWindow, FakeUia, FakeWin32

ADMISSION, OTHER = 0x100, 0x200
TITLE = "Admission — DUPONT Jean"
BUTTON, EDIT, MENU_ITEM, PANE, WINDOW = 50000, 50004, 50011, 50033, 50032
SAVE_BOX = (400, 500, 90, 24)


def uia(name: str, control_type: int, *kids: FakeUia, box: tuple[int, int, int, int] = (0, 0, 80, 20)) -> FakeUia:
    return FakeUia(name, control_type, box_=box, kids=list(kids))


def admission_form(*extra: FakeUia) -> FakeUia:
    """The window's control view: a pane with a labelled field, two buttons (and what a test adds)."""
    pane = uia(
        "",
        PANE,
        uia("Nom du patient", EDIT),
        uia("Enregistrer", BUTTON, box=SAVE_BOX),
        uia("Annuler", BUTTON),
        *extra,
    )
    return uia(TITLE, WINDOW, uia("Fichier", MENU_ITEM), pane, box=(0, 0, 1024, 768))


def workstation(tree: FakeUia | None = None) -> FakeWin32:
    win = FakeWin32()
    win.windows[ADMISSION] = FakeProcessWindow(TITLE, 900, 9, r"C:\Hopital\admission.exe")
    win.windows[OTHER] = FakeProcessWindow("Messagerie", 901, 8, r"C:\Mail\mail.exe")
    win.foreground = ADMISSION
    win.uia_trees[ADMISSION] = tree or admission_form()
    win.uia_trees[OTHER] = admission_form()  # the same names in another application's window
    return win


def test_the_one_button_of_that_name_is_found_with_its_box() -> None:
    found = Win32Windows(workstation()).element_named("Enregistrer", "Button", TITLE)
    assert found == Element("Enregistrer", "Button", SAVE_BOX)


def test_a_field_is_found_by_its_label_and_a_menu_item_by_its_name() -> None:
    windows = Win32Windows(workstation())
    field = windows.element_named("Nom du patient", "Edit", TITLE)
    menu = windows.element_named("Fichier", "MenuItem", TITLE)
    assert field is not None and field.role == "Edit" and field.box == (0, 0, 80, 20)
    assert menu is not None and menu.name == "Fichier"


def test_two_elements_of_that_name_and_role_give_none() -> None:
    win = workstation(admission_form(uia("Enregistrer", BUTTON, box=(10, 700, 90, 24))))
    assert Win32Windows(win).element_named("Enregistrer", "Button", TITLE) is None


def test_an_element_of_that_name_with_another_role_is_not_the_one() -> None:
    assert Win32Windows(workstation()).element_named("Enregistrer", "MenuItem", TITLE) is None


def test_a_same_named_element_of_another_role_does_not_count_as_a_second() -> None:
    win = workstation(admission_form(uia("Enregistrer", MENU_ITEM, box=(10, 700, 90, 24))))
    assert Win32Windows(win).element_named("Enregistrer", "Button", TITLE) == Element("Enregistrer", "Button", SAVE_BOX)


def test_another_window_in_front_gives_none_and_its_tree_is_not_read() -> None:
    win = workstation()
    win.foreground = OTHER
    assert Win32Windows(win).element_named("Enregistrer", "Button", TITLE) is None
    assert win.uia_calls == 0


def test_nothing_in_front_gives_none() -> None:
    win = workstation()
    win.foreground = 0
    assert Win32Windows(win).element_named("Enregistrer", "Button", TITLE) is None


def test_a_title_template_matches_the_window_of_another_record() -> None:
    windows = Win32Windows(workstation())
    assert windows.element_named("Enregistrer", "Button", "Admission — {{*}}") == Element(
        "Enregistrer", "Button", SAVE_BOX
    )
    assert windows.element_named("Enregistrer", "Button", "Pharmacie — {{*}}") is None


def test_an_element_off_screen_or_without_a_box_is_not_shown() -> None:
    hidden = FakeUia("Enregistrer", BUTTON, box_=(0, 0, 90, 24), offscreen=True)
    flat = FakeUia("Enregistrer", BUTTON, box_=(0, 0, 0, 0))
    boxless = FakeUia("Enregistrer", BUTTON, box_=None)
    win = workstation(admission_form(hidden, flat, boxless))
    assert Win32Windows(win).element_named("Enregistrer", "Button", TITLE) == Element("Enregistrer", "Button", SAVE_BOX)


def test_the_walk_stops_at_the_node_cap_and_answers_none() -> None:
    crowd = [uia(f"Ligne {n}", 50007) for n in range(MAX_NODES + 500)]
    root = uia(TITLE, WINDOW, uia("Enregistrer", BUTTON, box=SAVE_BOX), *crowd)
    assert Win32Windows(workstation(root)).element_named("Enregistrer", "Button", TITLE) is None
    assert root.handed <= MAX_NODES  # at most one node more than the cap allows was ever asked for


def test_a_tree_of_exactly_the_cap_is_walked_whole() -> None:
    crowd = [uia(f"Ligne {n}", 50007) for n in range(MAX_NODES - 2)]
    root = uia(TITLE, WINDOW, *crowd, uia("Enregistrer", BUTTON, box=SAVE_BOX))
    assert Win32Windows(workstation(root)).element_named("Enregistrer", "Button", TITLE) == Element(
        "Enregistrer", "Button", SAVE_BOX
    )


def test_a_com_failure_mid_walk_gives_none_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    broken = uia("", PANE)
    broken.failure = OSError("GetFirstChildElement failed (HRESULT 0x80040201)")
    win = workstation(admission_form(broken))
    with caplog.at_level(logging.DEBUG, logger="rpa_agent.windows.named"):
        assert Win32Windows(win).element_named("Enregistrer", "Button", TITLE) is None
    assert [r.levelno for r in caplog.records if "element_named_failed" in r.getMessage()] == [logging.DEBUG]


def msaa(name: str, role: int, *kids: FakeMsaa, state: int = 0, box: tuple[int, int, int, int] = SAVE_BOX) -> FakeMsaa:
    return FakeMsaa(name, role, state_=state, box_=box, kids=list(kids))


def test_without_ui_automation_the_msaa_tree_answers_with_its_menu_bar() -> None:
    win = workstation()
    win.uia_error = REGDB_E_CLASSNOTREG
    menu_bar = msaa("Application", 0x02, msaa("Fichier", 0x0C), msaa("Edition", 0x0C))
    win.msaa_frames[ADMISSION] = msaa(TITLE, 0x09, menu_bar, msaa(TITLE, 0x0A))
    windows = Win32Windows(win)
    assert windows.element_named("Edition", "MenuItem", TITLE) == Element("Edition", "MenuItem", SAVE_BOX)
    assert windows.accessibility.uia_available is False


def test_an_msaa_client_over_a_standard_button_is_named_a_button_and_an_invisible_one_is_not_shown() -> None:
    win = workstation()
    win.uia_error = REGDB_E_CLASSNOTREG
    win.control = ControlInfo("Button", 0)  # Wine's oleacc says "client" for a push button
    button = msaa("OK", 0x09, msaa("OK", 0x0A))
    hidden = msaa("OK", 0x09, msaa("OK", 0x0A, state=STATE_SYSTEM_INVISIBLE), state=STATE_SYSTEM_INVISIBLE)
    win.msaa_frames[ADMISSION] = msaa(TITLE, 0x09, msaa(TITLE, 0x0A, button, hidden), box=(0, 0, 1024, 768))
    assert Win32Windows(win).element_named("OK", "Button", TITLE) == Element("OK", "Button", SAVE_BOX)


def test_the_windows_backend_offers_named_elements_to_the_core() -> None:
    assert isinstance(WindowsDesktop(workstation()).windows, NamedElements)
