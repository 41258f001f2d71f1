"""Which scored entry names a dialog: a named application's entry or the generic kind of the same words."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from rpa_mcp.dialogs.catalog import DialogCatalog
from rpa_mcp.dialogs.matching import CONTAINED, EntryScore
from rpa_mcp.dialogs.naming import specific_over_generic

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs"


def _scores(catalog: DialogCatalog, *, generic_title: float, notepad_title: float) -> list[EntryScore]:
    generic, notepad = catalog.get("app-save-changes"), catalog.get("notepad-save-changes")
    assert generic is not None and notepad is not None
    # the generic kind on top; Notepad's entry shares its buttons and finds one of its words ("untitled")
    top = EntryScore(generic, 0.97, generic_title, 1.0, 1.0, "Save Document?" if generic_title else None)
    named = EntryScore(notepad, 0.75, notepad_title, 1.0, 1.0, "Notepad" if notepad_title else None)
    return [top, named]


def test_a_dialog_titled_as_the_generic_kind_is_not_named_by_an_application_words(catalog) -> None:
    # LibreOffice's "Save Document?" asking about "Untitled 1": no Notepad title read, the generic title is
    assert specific_over_generic(_scores(catalog, generic_title=1.0, notepad_title=0.0), whole_frame=False) is None


def test_the_application_entry_stands_with_its_own_title_or_when_no_title_is_read(catalog) -> None:
    with_title = _scores(catalog, generic_title=1.0, notepad_title=1.0)
    assert specific_over_generic(with_title, whole_frame=False) is with_title[1]
    untitled = _scores(catalog, generic_title=0.0, notepad_title=0.0)  # a title bar hidden or not read
    assert specific_over_generic(untitled, whole_frame=False) is untitled[1]
    # the generic title only inside a sentence ("Do you want to save changes to Untitled?"): no title line
    inside = _scores(catalog, generic_title=CONTAINED, notepad_title=0.0)
    assert specific_over_generic(inside, whole_frame=False) is inside[1]
    assert specific_over_generic(untitled, whole_frame=True) is None  # across a whole frame: its title too


def test_by_title_leaves_out_a_toolkits_punctuation_after_the_title(catalog) -> None:
    from rpa_mcp.dialogs.matching import Matcher

    matcher = Matcher(catalog)
    assert [e.id for e in matcher.by_title("Open:")] == ["file-open"]
    assert [e.id for e in matcher.by_title("Save As...")] == ["file-save-as"]
    assert matcher.by_title("Save Document?")[0].id == "app-save-changes"  # a question mark is the title's own


@pytest.mark.parametrize("tag", ["en-1920x1080", "fr-1600x900", "en-1366x768"])
def test_libreoffices_save_document_prompt_is_the_generic_kind(real_service, tag) -> None:
    # "Save changes to document "Untitled 1" before closing?": no Notepad there, whatever "untitled" says
    image = cv2.imread(str(REAL / "writer" / f"writer-save-changes-{tag}.png"))
    found = real_service.classify(image)
    assert found.dialog_id == "app-save-changes", found.notes
    assert real_service.resolve(image).decision == "pause"
