from __future__ import annotations

import logging

import pytest
from rpa_agent.port import Element
from rpa_agent.windows.api import REGDB_E_CLASSNOTREG, ControlInfo
from rpa_agent.windows.elements import STATE_SYSTEM_CHECKED, STATE_SYSTEM_PROTECTED, Accessibility

from .fake import FakeMsaa, FakeUia, FakeWin32


def test_ui_automation_gives_the_name_the_control_type_name_and_the_value() -> None:
    win = FakeWin32(uia=FakeUia("Nom du patient", 50004, value_="Dupont"), msaa=FakeMsaa("wrong"))
    element = Accessibility(win).element_at(100, 200)
    assert element == Element("Nom du patient", "Edit", (10, 20, 100, 30), is_password=False, value="Dupont")


def test_an_unknown_control_type_is_custom() -> None:
    win = FakeWin32(uia=FakeUia("x", 59999))
    assert Accessibility(win).element_at(0, 0) == Element("x", "Custom", (10, 20, 100, 30), value=None)


def test_a_uia_password_field_is_masked_and_its_value_never_read() -> None:
    node = FakeUia("Mot de passe", 50004, password=True, value_="secret")
    element = Accessibility(FakeWin32(uia=node)).element_at(1, 1)
    assert element is not None and element.is_password and element.value is None
    assert node.value_reads == 0


def test_without_ui_automation_msaa_answers_and_uia_is_not_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    win = FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=FakeMsaa("OK", 0x2B))
    access = Accessibility(win)
    with caplog.at_level(logging.WARNING):
        first = access.element_at(5, 5)
        second = access.element_at(6, 6)
        focused = access.focused_element()
    assert first == second == Element("OK", "Button", (10, 20, 100, 30), value=None)
    assert focused is None  # no focused window in the fake: nothing to ask MSAA about
    assert win.uia_calls == 1
    assert access.uia_available is False
    assert len([r for r in caplog.records if "ui_automation_unavailable" in r.getMessage()]) == 1


def test_an_msaa_protected_field_is_a_masked_password_and_its_value_never_read() -> None:
    node = FakeMsaa("Password", 0x2A, state_=STATE_SYSTEM_PROTECTED | 0x4, value_="secret")
    win = FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=node, focus=42)
    element = Accessibility(win).focused_element()
    assert element == Element("Password", "Edit", (10, 20, 100, 30), is_password=True, value=None)
    assert node.value_reads == 0


def test_msaa_roles_are_named_as_ui_automation_names_them() -> None:
    win = FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=FakeMsaa("Accept", 0x2C, value_=None))
    element = Accessibility(win).element_at(0, 0)
    assert element is not None and element.role == "CheckBox"


def test_an_msaa_check_box_says_its_state_and_a_button_none() -> None:
    ticked = FakeMsaa("Urgent", 0x2C, state_=STATE_SYSTEM_CHECKED)
    element = Accessibility(FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=ticked)).element_at(0, 0)
    assert element is not None and element.checked is True
    blank = Accessibility(FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=FakeMsaa("Urgent", 0x2C))).element_at(0, 0)
    assert blank is not None and blank.checked is False
    button = FakeMsaa("OK", 0x2B, state_=STATE_SYSTEM_CHECKED)  # a pressed button is not a box
    element = Accessibility(FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=button)).element_at(0, 0)
    assert element is not None and element.checked is None


def test_nothing_under_the_point_is_none() -> None:
    assert Accessibility(FakeWin32(uia=None)).element_at(0, 0) is None


@pytest.mark.parametrize(("toggle", "checked"), [(1, True), (0, False), (2, None), (None, None)])
def test_a_ui_automation_check_box_says_its_toggle_state(toggle: int | None, checked: bool | None) -> None:
    box = FakeUia("Urgent", control_type_=50002, toggle=toggle)  # CheckBox; 2: indeterminate, None: no pattern
    element = Accessibility(FakeWin32(uia=box)).element_at(0, 0)
    assert element is not None and (element.role, element.checked) == ("CheckBox", checked)


def test_a_ui_automation_button_has_no_checked_state_even_with_a_toggle_pattern() -> None:
    toggle_button = FakeUia("Gras", control_type_=50000, toggle=1)
    element = Accessibility(FakeWin32(uia=toggle_button)).element_at(0, 0)
    assert element is not None and element.checked is None


@pytest.mark.parametrize(
    ("control", "role", "checked"),
    [
        (ControlInfo("Button", 0x50010000), "Button", None),  # BS_PUSHBUTTON
        (ControlInfo("Button", 0x50010003, check=1), "CheckBox", True),  # BS_AUTOCHECKBOX, ticked
        (ControlInfo("Button", 0x50010003, check=0), "CheckBox", False),
        (ControlInfo("Button", 0x50010006, check=2), "CheckBox", None),  # BS_AUTO3STATE, indeterminate
        (ControlInfo("BUTTON", 0x50010009, check=1), "RadioButton", True),
        (ControlInfo("Edit", 0x50810080), "Edit", None),
        (ControlInfo("MyAppCanvas", 0x50000000), "Pane", None),  # not a standard control: as MSAA said
        (None, "Pane", None),
    ],
)
def test_an_msaa_client_is_named_by_its_standard_controls_class(
    control: ControlInfo | None, role: str, checked: bool | None
) -> None:
    client = FakeMsaa("Urgent", 0x0A)  # ROLE_SYSTEM_CLIENT, as Wine's oleacc answers for a button
    element = Accessibility(FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=client, control=control)).element_at(0, 0)
    assert element is not None and (element.name, element.role, element.checked) == ("Urgent", role, checked)


def test_an_msaa_push_button_is_never_renamed_by_its_class() -> None:
    button = FakeMsaa("OK", 0x2B)
    win = FakeWin32(uia_error=REGDB_E_CLASSNOTREG, msaa=button, control=ControlInfo("Button", 0x50010003, check=1))
    element = Accessibility(win).element_at(0, 0)
    assert element is not None and (element.role, element.checked) == ("Button", None)
