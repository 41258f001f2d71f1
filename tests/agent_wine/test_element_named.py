"""The one element of the window in front called by a name (`NamedElements`), from Wine's MSAA tree: on the
Win32 test application and on Wine's notepad, by the packaged agent's own backend."""

from __future__ import annotations

import pytest

from tests.agent_wine.conftest import WinApp
from tests.agent_wine.wine import WineDesktop

pytestmark = pytest.mark.wine


def named(name: str, role: str, window_title: str) -> dict[str, str]:
    return {"op": "element_named", "name": name, "role": role, "window_title": window_title}


def test_a_button_and_a_field_are_found_by_name_in_the_window_in_front(winapp: WinApp, drive) -> None:
    _, save, field, menu, elsewhere = drive([
        {"op": "wait_foreground", "title": "Fiche patient"},
        named("Enregistrer", "Button", "Fiche patient — {{*}}"),
        named("Nom du patient", "Edit", "Fiche patient — essai"),
        named("Enregistrer", "MenuItem", "Fiche patient — essai"),
        named("Enregistrer", "Button", "Bloc-notes"),
    ])  # fmt: skip
    assert (save["role"], save["name"], save["box"]) == ("Button", "Enregistrer", winapp.ready["controls"]["save"])
    assert (field["role"], field["box"]) == ("Edit", winapp.ready["controls"]["name"])
    assert menu is None and elsewhere is None  # another role; another window's title


def test_a_button_of_notepads_find_dialog_is_found_by_name(wine_desktop: WineDesktop, drive) -> None:
    """Wine's oleacc has no menu bar object (OBJID_MENU): notepad's menu items are out of MSAA's reach there,
    its dialogs' buttons are not."""
    notepad = wine_desktop.start(["notepad"])
    try:
        _, _, front, cancel, in_notepad = drive([
            {"op": "wait_foreground", "title": "Bloc-notes"},  # Wine speaks the desktop's language (LANG=fr)
            {"op": "combo", "keys": "ctrl+f"},
            {"op": "wait_foreground", "title": "Recherche"},
            named("Annuler", "Button", "Recherche"),
            named("Annuler", "Button", "{{*}} - Bloc-notes"),
        ])  # fmt: skip
        assert front is not None and front["title"] == "Recherche", front
        assert cancel is not None and (cancel["name"], cancel["role"]) == ("Annuler", "Button"), cancel
        x, y, w, h = cancel["box"]
        left, top, width, height = front["box"]
        assert w > 0 and h > 0 and left <= x and x + w <= left + width and top <= y and y + h <= top + height
        assert in_notepad is None  # the dialog is in front, not notepad's own window
    finally:
        notepad.stop()
