"""An application's own entry never names a dialog whose own window the agent reports run by another
program: the same words there give the generic kind (which pauses). System dialogs and the generic kinds
are drawn on behalf of any program: no owner contradicts them."""

from __future__ import annotations

import pytest

from rpa_mcp.dialogs import DialogCatalog, DialogClassifier, ReadButton
from rpa_mcp.dialogs.apps import AppConfirmer, ReportedWindow
from rpa_mcp.testing import ScriptedOcr

NOTEPAD_LINES = ["Notepad", "Do you want to save changes to Untitled?"]
NOTEPAD_BUTTONS = [
    ReadButton("Save", (40, 120, 80, 26)),
    ReadButton("Don't Save", (130, 120, 100, 26)),
    ReadButton("Cancel", (240, 120, 80, 26)),
]


def _match(catalog: DialogCatalog, owner: str | None):
    classifier = DialogClassifier(catalog, ScriptedOcr())
    windows = [ReportedWindow("Notepad", owner)] if owner else []
    confirm = AppConfirmer(catalog, ScriptedOcr(), None, windows, owner=owner)
    return classifier.match((10, 10, 360, 160), NOTEPAD_BUTTONS, NOTEPAD_LINES, confirm=confirm)


@pytest.mark.parametrize("owner", [None, "notepad.exe", r"C:\Windows\System32\NOTEPAD.EXE"])
def test_notepads_prompt_is_notepads_when_its_window_is_or_is_not_said(catalog, owner) -> None:
    assert _match(catalog, owner).dialog_id == "notepad-save-changes"


@pytest.mark.parametrize("owner", ["geany", "/usr/bin/mousepad", "WINWORD.EXE"])
def test_the_same_prompt_drawn_by_another_program_is_the_generic_kind(catalog, owner) -> None:
    found = _match(catalog, owner)
    assert found.dialog_id == "app-save-changes" and found.policy == "pause"
    assert any("notepad-save-changes" in n and "run by" in n for n in found.notes), found.notes


def test_a_window_title_naming_an_application_entry_is_not_taken_from_another_program(catalog) -> None:
    classifier = DialogClassifier(catalog, ScriptedOcr())
    assert classifier.classify_title("Notepad", "notepad.exe").dialog_id == "notepad-save-changes"
    other = classifier.classify_title("Notepad", "geany")
    assert other.dialog_id == catalog.unknown.id
    assert any("run by geany" in n for n in other.notes), other.notes


@pytest.mark.parametrize(
    ("dialog_id", "owner", "contradicted"),
    [
        ("windows-file-replace", "notepad.exe", False),  # a system dialog, shown for any program
        ("app-error", "geany", False),  # a generic kind
        ("app-save-changes", "geany", False),
        ("easily-required-field", "geany", True),  # an application's pause entry: its processes are its app's
        ("easily-required-field", "msedge.exe", False),
        ("office-save-changes", "EXCEL.EXE", False),
        ("office-save-changes", "notepad.exe", True),
        ("chrome-update", "chromium", False),  # its application's processes count too
    ],
)
def test_which_entries_an_owner_contradicts(catalog, dialog_id, owner, contradicted) -> None:
    entry = catalog.get(dialog_id)
    assert entry is not None
    confirm = AppConfirmer(catalog, ScriptedOcr(), None, owner=owner)
    assert (confirm.contradicts(entry) is not None) is contradicted
    assert AppConfirmer(catalog, ScriptedOcr(), None).contradicts(entry) is None  # no owner said: no contradiction
