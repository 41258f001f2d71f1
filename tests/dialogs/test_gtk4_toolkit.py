"""GTK 4 and libadwaita (tests/fixtures/real_programs/gtk4, a tuning program): libadwaita's message dialog,
GTK 4's message dialogs and its file choosers, drawn by adwaita-1-demo, gtk4-demo and gtk4-print-editor."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

GTK4 = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs" / "gtk4"


def _frames() -> list[tuple[str, str]]:
    raw = json.loads((GTK4 / "manifest.json").read_text(encoding="utf-8"))
    return [(f["file"], f["expected_id"]) for f in raw["frames"]]


@pytest.mark.parametrize(("file", "want"), _frames(), ids=lambda v: v)
def test_gtk4s_prompts_get_their_generic_kind(real_service, file, want) -> None:
    image = cv2.imread(str(GTK4 / file))
    assert real_service.resolve(image, thorough=True).decision == "pause"
    assert real_service.classify(image, thorough=True).dialog_id == want


@pytest.mark.parametrize(
    ("labels", "saves"),
    [
        (["CancelSave"], True),  # GTK 4's Cancel and Save touching, read as one
        (["Cancel", "Save"], True),
        (["AnnulerEnregistrer"], True),
        (["CancelOpen"], False),
        (["Cancel", "Open"], False),
        (["Save", "Open"], False),
        (["Cancel"], False),
    ],
)
def test_a_choosers_accept_button_that_saves_is_read_through_a_cancel_touching_it(labels, saves) -> None:
    from rpa_mcp.dialogs.structure import accepts_to_save

    assert accepts_to_save(labels) is saves


def _choosers() -> list[tuple[str, str, str, str]]:
    raw = json.loads((GTK4 / "manifest.json").read_text(encoding="utf-8"))
    return [
        (f["file"], f["expected_id"], f["window_title"], f["process"])
        for f in raw["frames"]
        if f["expected_id"] in ("file-open", "file-save-as")
    ]


@pytest.mark.parametrize(("file", "want", "title", "process"), _choosers(), ids=lambda v: v)
def test_a_choosers_save_button_outranks_its_window_title_of_an_open_chooser(
    real_service, file, want, title, process
) -> None:
    """GTK 4's save chooser titled "Select file" by its program (an open chooser's title): its accept
    button read tells which; an open chooser so titled stays one."""
    image = cv2.imread(str(GTK4 / file))
    found = real_service.classify(image, window_title=title, process=process)
    assert found.dialog_id == want, found.notes
    assert real_service.resolve(image, window_title=title, process=process).decision == "pause"
