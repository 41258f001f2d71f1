"""A file chooser shows more than a title and Cancel: a list of files, its columns, a name field or a path.

A question about one file (a browser's download: "Opening compte-rendu.txt", "Open..." / "Save File", OK /
Cancel) names that file in its title and its words and offers choices titled like a chooser: no chooser.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from rpa_mcp.dialogs import DialogService
from rpa_mcp.dialogs.chooser_layout import file_chooser
from rpa_mcp.dialogs.choosers import CHOOSERS, bare_chooser, chooser_body
from tests.dialogs.test_thorough import PageOcr, blank, line

FILES = ["bilan.txt", "courrier.txt", "Biologie.csv"]


def _download_question() -> list:
    read = [line("Opening compte-rendu.txt", 593, 202, 181), line("You have chosen to open", 494, 232, 160)]
    read += [line("compte-rendu.txt", 524, 257, 143), line("which is: HTML document", 534, 282, 170)]
    read += [line("What should Falkon do with this file?", 494, 327, 230), line("Open...", 546, 361, 50)]
    return [*read, line("Save File", 546, 390, 60), line("OK", 720, 426, 51), line("Cancel", 794, 426, 74)]


def test_one_file_named_in_a_title_and_in_words_over_ok_cancel_is_no_chooser() -> None:
    assert file_chooser(_download_question(), 768) is None


def test_a_chooser_titled_by_one_of_its_files_still_lists_them() -> None:
    read = [line("Save bilan.txt", 700, 30, 110), *(line(f, 420, 160 + 24 * i, 110) for i, f in enumerate(FILES))]
    chooser = file_chooser([*read, line("Cancel", 1150, 860, 70), line("OK", 1240, 860, 30)], 1080)
    assert chooser is not None and chooser.kind == "file-save-as" and "3 file names" in chooser.why


def test_a_download_question_read_on_the_whole_frame_is_no_chooser(catalog) -> None:
    # its "Save File" choice reads as a chooser's title over OK / Cancel; its file is named twice
    service = DialogService(catalog, PageOcr(_download_question()))
    assert service.classify(blank(), thorough=True).dialog_id not in CHOOSERS
    assert service.resolve(blank(), thorough=True).decision == "pause"


@pytest.mark.parametrize(
    "body",
    [
        [line(f, 420, 160 + 24 * i, 110) for i, f in enumerate(FILES)],  # a list of files
        [line("Name", 420, 130, 40), line("Size Modified", 900, 130, 120)],  # its columns
        [line("Name:", 600, 200, 50), line("Nom du fichier :", 600, 240, 120)],  # a name's field
    ],
    ids=["files", "columns", "name-field"],
)
def test_a_chooser_titled_save_file_over_its_list_a_field_or_columns_is_still_a_chooser(catalog, body) -> None:
    read = [line("Save File", 700, 30, 90), *body, line("Cancel", 1150, 330, 70), line("Save", 1240, 330, 60)]
    assert DialogService(catalog, PageOcr(read)).classify(blank(), thorough=True).dialog_id == "file-save-as"


@pytest.mark.parametrize(
    ("lines", "whole", "bare"),
    [
        (["Save File"], ["Opening compte-rendu.txt", "compte-rendu.txt", "Open...", "Save File"], True),
        (["Save File"], ["Save File", "bilan.txt", "courrier.txt"], False),  # its list read with the box whole
        (["Open:", "Show: FLUID Files"], ["Open:", "bilan.fl", "dossier.fl", "Filename: /srv/dossiers/"], False),
        (["Ouvrir un fichier", "Autres emplacements"], [], False),  # a chooser's own words (body keywords)
    ],
)
def test_a_box_named_a_chooser_by_its_words_is_read_whole_for_its_body(catalog, lines, whole, bare) -> None:
    entry = catalog.get("file-open")
    ocr = PageOcr([line(text, 10, 10 + 30 * i) for i, text in enumerate(whole)])
    assert bare_chooser(ocr, blank(), entry, (0, 0, 400, 300), lines) is bare


@pytest.mark.parametrize(
    ("lines", "body"),
    [
        (FILES[:2], True),
        (["Nom du fichier :"], True),
        (["D:\\Comptes\\2026"], True),
        (["/srv/dossiers/2026"], True),
        (["Name", "Size"], True),
        (["Opening compte-rendu.txt", "compte-rendu.txt"], False),  # one file, twice
        (["compte-rendu.txt", "compte-rendu.txt"], False),
        (["Open...", "Save File", "What should Falkon do with this file?"], False),
        (["http://127.0.0.1/syn.html", "compte-rendu.txt"], False),  # a page's address is no listed file
    ],
)
def test_what_a_chooser_shows_besides_its_title_and_buttons(lines, body) -> None:
    assert chooser_body(lines) is body


REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs"  # tuning programs only


@pytest.mark.parametrize(
    ("program", "file"),
    [
        # a file named twice (its name field, its list) or in the title over few files: still a list
        ("gpsprune", "gpsprune-save-as-fr-1600x900.png"),
        ("poedit", "poedit-save-as-en-1366x768.png"),
        ("gedit@125", "gedit-save-as-en-1920x1080@125.png"),
        ("kwrite@125", "kwrite-open-en-1920x1080@125.png"),
        ("texworks", "texworks-open-fr-1600x900.png"),
        ("gmanedit", "gmanedit-open-en-1366x768.png"),
    ],
)
def test_real_choosers_of_tuning_programs_stay_choosers(real_service, program, file) -> None:
    raw = json.loads((REAL / program / "manifest.json").read_text(encoding="utf-8"))
    assert raw["split"] == "tuning"
    want = next(f["expected_id"] for f in raw["frames"] if f["file"] == file)
    found = real_service.classify(cv2.imread(str(REAL / program / file)), thorough=True)
    assert found.dialog_id == want, found.notes
