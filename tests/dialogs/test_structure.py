"""Generic kinds told by a dialog's shape: its buttons, its words of error or deletion, its error
icon, a file chooser's list and buttons; and the real tuning programs that needed them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.dialogs import DialogService
from rpa_mcp.dialogs.catalog import GENERIC_IDS
from rpa_mcp.dialogs.chooser_layout import file_chooser
from rpa_mcp.dialogs.locate.icons import has_error_icon
from rpa_mcp.dialogs.structure import kind_of
from rpa_mcp.vision.ocr import OcrLine
from tests.dialogs.test_thorough import PageOcr, blank, line

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs"


def never() -> bool:
    raise AssertionError("the icon is looked for only when the buttons could be an error's")


@pytest.mark.parametrize(
    "labels",
    [
        ["Save", "Discard All", "Don't Quit"],
        ["Enregistrer", "Ignorer tout"],
        ["Speichern", "Nicht speichern"],
        ["Enregistrer", "Ne pas tenir compte", "Annuler"],  # Qt's "Discard" in French
    ],
)
def test_a_save_button_beside_a_discard_button_is_a_save_changes_prompt(labels) -> None:
    shape = kind_of(labels, ["Some documents have not been saved"], never)
    assert shape is not None and shape.kind == "app-save-changes" and shape.decisive


def test_a_question_naming_a_deletion_answered_yes_or_no_is_a_deletion() -> None:
    shape = kind_of(["Non", "Oui"], ["Supprimer le rendez-vous du 14/03 ?"], never)
    assert shape is not None and shape.kind == "app-confirm-delete"
    assert kind_of(["No", "Yes"], ["Print the report?"], never) is None


@pytest.mark.parametrize(
    ("labels", "lines"),
    [
        (["Cancel Operation", "Lose Changes"], ["contains changes that have not", "been saved. Do you really want"]),
        (["Annuler", "Abandonner les modifications"], ["des modifications qui n'ont pas été enregistrées."]),
    ],
)
def test_a_discard_button_beside_cancel_under_words_of_unsaved_changes_is_a_save_changes_prompt(labels, lines) -> None:
    # no Save button: only the words say that something would be lost
    shape = kind_of(labels, lines, never)
    assert shape is not None and shape.kind == "app-save-changes"
    assert kind_of(labels, ["Apply the filter to the whole image?"], lambda: False) is None


@pytest.mark.parametrize(
    ("labels", "lines"),
    [
        (["企OK", "XCancel"], ["Exit from the editor?"]),  # what is not saved is lost: no word says so
        (["Oui", "Non"], ["Voulez-vous vraiment quitter ?"]),
        (["Exit", "Cancel"], ["Your data is not saved. Are you sure you want to exit?"]),  # leave or stay
        (["Terminer", "Annuler"], ["Les données ont été modifiées. Souhaitez-vous quitter sans les enregistrer ?"]),
    ],
)
def test_a_question_to_quit_answered_ok_or_yes_is_a_save_changes_prompt(labels, lines) -> None:
    shape = kind_of(labels, lines, never)
    assert shape is not None and shape.kind == "app-save-changes"
    # the same words with no question, or no answer to choose, are not asked
    assert kind_of(labels, [line.rstrip("?") for line in lines], never) is None
    assert kind_of(["Quit"], lines, lambda: False) is None


@pytest.mark.parametrize(
    ("labels", "lines"),
    [
        (["XCancel", "QK"], ["Unlock the signing key", "Enter the passphrase of the key.", "Passphrase:"]),
        (["XAnnuler", "Valider"], ["Saisissez la phrase secrète de la clé.", "Phrase secrète :"]),
        (["Annuler", "S'authentifier"], ["Mot de passe :"]),
    ],
)
def test_a_cancel_button_under_words_asking_for_a_password_is_a_credential_prompt(labels, lines) -> None:
    # a button's icon read as a letter before its label ("XCancel") is still that button
    shape = kind_of(labels, lines, never)
    assert shape is not None and shape.kind == "app-credential-prompt"
    assert kind_of(["Cancel", "OK"], ["Print the report?"], never) is None


@pytest.mark.parametrize(
    ("labels", "lines"),
    [
        (
            ["Replace", "Skip", "Cancel"],
            ["A file named \u201cbilan.txt\u201d already exists. Do you want to replace it?"],
        ),
        (["Remplacer", "Ignorer", "Annuler"], ["Le fichier « bilan.txt » existe déjà.", "Voulez-vous le remplacer ?"]),
        (["Qui", "●Non"], ["courrier.txt existe déjà.", "Voulez-vous l'écraser ?"]),  # "Oui" misread
        (["Overwrite", "Cancel"], ["The file bilan.txt already exists. Do you wish to overwrite it?"]),
        # the question's end not read yet (its lines cut at the box's first ones): "already" and Replace
        (["XCancel", "Replace"], ["bilan.tex", "bilan.txt", 'A file named "schema.dia" already']),
    ],
)
def test_words_of_a_file_that_exists_answered_replace_or_yes_no_are_an_overwrite_prompt(labels, lines) -> None:
    # "Ignorer" is also a discard button: without a save button beside it this is no save-changes prompt
    shape = kind_of(labels, lines, never)
    assert shape is not None and shape.kind == "app-file-overwrite" and shape.decisive
    assert kind_of(["Replace", "Cancel"], ["Find and replace in the document"], never) is None
    assert "app-file-overwrite" in GENERIC_IDS


def test_one_acknowledgement_under_words_of_an_error_is_an_error() -> None:
    shape = kind_of(["OK"], ["The file could not be written: permission denied."], never)
    assert shape is not None and shape.kind == "app-error"


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("Close", "Please choose an existing file!"),
        ("OK", "bilan.txt\nFile does not exist."),
        ("OK", "Le fichier « bilan.txt » n'existe pas."),
        ("Fermer", "Choisissez un fichier existant."),
        ("OK", "You do not have the permissions necessary to open the file."),
        ("OK", "Ce format de fichier n'est pas pris en charge."),
        ("Close", "bilan.odt is not a valid document."),
        ("OK", "Le fichier est corrompu."),
        ("OK", "/home/bilan.txt:\nDroits insuffisants pour ouvrir le fichier."),
        ("OK", "Cette opération a été interrompue :"),
        ("Close", "The transfer was interrupted."),
    ],
)
def test_one_acknowledgement_under_words_of_a_missing_or_unusable_file_is_an_error(label, words) -> None:
    shape = kind_of([label], words.split("\n"), never)
    assert shape is not None and shape.kind == "app-error"


def test_gtks_french_ok_valider_under_words_of_an_error_is_an_error() -> None:
    shape = kind_of(["Valider"], ["Le fichier ne peut pas être ouvert.", "Le fichier est peut-être corrompu."], never)
    assert shape is not None and shape.kind == "app-error"


def test_a_buttons_icon_read_as_a_glyph_of_another_script_is_no_part_of_its_label() -> None:
    shape = kind_of(["企OK"], ["The folder contents could not be displayed"], never)
    assert shape is not None and shape.kind == "app-error"
    assert kind_of(["企OKAY"], ["The folder contents could not be displayed"], never) is None


def test_one_acknowledgement_beside_an_error_icon_is_an_error_and_without_it_nothing() -> None:
    assert kind_of(["OK"], ["Le dossier est verrouillé."], lambda: True) == kind_of(["Fermer"], [], lambda: True)
    assert kind_of(["OK"], ["Le dossier est verrouillé."], lambda: True) is not None
    assert kind_of(["OK"], ["Le dossier est verrouillé."], lambda: False) is None
    assert kind_of(["OK", "Cancel"], ["Continue?"], never) is None


def test_every_kind_a_shape_gives_is_a_generic_kind_that_pauses(catalog) -> None:
    shapes = [
        kind_of(["Save", "Don't save"], [], never),
        kind_of(["Yes", "No"], ["Delete it?"], never),
        kind_of(["OK"], ["Error"], never),
        kind_of(["Cancel", "OK"], ["Password:"], never),
    ]
    for shape in shapes:
        assert shape is not None and shape.kind in GENERIC_IDS
        entry = catalog.get(shape.kind)
        assert entry is not None and entry.policy == "pause" and entry.app is None


def _files(x: int, top: int) -> list[OcrLine]:
    return [line(name, x, top + 24 * i, 110) for i, name in enumerate(("Biologie.csv", "notes.txt", "CR.odt"))]


def test_save_beside_cancel_under_a_list_of_files_is_a_save_chooser() -> None:
    read = [*_files(420, 160), line("Annuler", 1150, 860, 70), line("Enregistrer", 1240, 860, 90)]
    chooser = file_chooser(read, 1080)
    assert chooser is not None and chooser.kind == "file-save-as"
    assert chooser.bbox[1] == 160 and chooser.bbox[1] + chooser.bbox[3] == 878


def test_open_beside_cancel_under_the_columns_of_a_list_is_an_open_chooser() -> None:
    read = [line("Nom", 350, 20, 40), line("Taille Type Accédé", 1060, 20, 170)]
    read += [line("Annuler", 1051, 723, 66), line("Ouvrir", 1157, 728, 50)]
    chooser = file_chooser(read, 768)
    assert chooser is not None and chooser.kind == "file-open"


def test_save_and_cancel_without_a_list_of_files_are_no_chooser() -> None:
    read = [line("Compte rendu du jour.", 420, 160, 200), line("Annuler", 1150, 860, 70), line("Save", 1240, 860)]
    assert file_chooser(read, 1080) is None


def test_a_chooser_found_on_the_whole_frame_pauses(catalog) -> None:
    read = [line("Save File", 700, 30, 90), *_files(420, 160), line("Cancel", 1150, 860, 70)]
    service = DialogService(catalog, PageOcr([*read, line("Save", 1240, 860, 60)]))
    found = service.classify(blank(), thorough=True)
    assert found.dialog_id == "file-save-as" and found.path == "thorough"
    assert service.resolve(blank(), thorough=True).decision == "pause"


def _disc(color: tuple[int, int, int]) -> np.ndarray:
    area = np.full((120, 300, 3), 220, np.uint8)
    cv2.circle(area, (40, 60), 18, color, -1)
    cv2.rectangle(area, (30, 57), (50, 63), (255, 255, 255), -1)
    return area


def test_a_red_disc_with_a_white_mark_is_an_error_icon() -> None:
    assert has_error_icon(_disc((40, 40, 220)))


def test_a_blue_disc_a_red_banner_or_a_plain_box_is_none() -> None:
    banner = np.full((120, 300, 3), 220, np.uint8)
    banner[10:110, 10:290] = (40, 40, 220)
    assert not has_error_icon(_disc((220, 90, 30)))
    assert not has_error_icon(banner)
    assert not has_error_icon(np.full((120, 300, 3), 220, np.uint8))


def _frame_truth(folder: Path, file: str) -> dict[str, Any]:
    """A committed frame's entry in its program's manifest (its expected id, its window's title)."""
    raw = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return next(f for f in raw["frames"] if f["file"] == file)


def _tuning_frames(kind: str) -> list[tuple[Path, str]]:
    out = []
    for manifest in sorted(REAL.glob("*/manifest.json")):
        raw = json.loads(manifest.read_text(encoding="utf-8"))
        if raw["split"] == "tuning":  # held-out programs are measured, never asserted
            out += [(manifest.parent, f["file"]) for f in raw["frames"] if f["expected_id"] == kind]
    return out


@pytest.mark.parametrize(
    ("folder", "file"),
    [
        *[f for f in _tuning_frames("app-error") if "fluid" not in f[1]][:2],
        *[f for f in _tuning_frames("app-save-changes") if "gnumeric" in f[1]][:3],
        # geany's save question ("The file 'untitled' is not saved."): a new document's name is no
        # application's own word
        *[f for f in _tuning_frames("app-save-changes") if "geany" in f[1]],
        *[f for f in _tuning_frames("file-save-as") if "fluid" not in f[1]][:2],
        # FLTK's alert over its chooser, its chooser titled "Save To:" (greyed-out OK), Motif's save box
        *[f for f in _tuning_frames("app-error") if "fluid" in f[1]],
        *[f for f in _tuning_frames("file-save-as") if "-save-as-en-1920" in f[1] and f[0].name in ("fluid", "nedit")],
        # Qt's warning over its file dialog (a file name on a line of its own), its save-changes box in French
        *[f for f in _tuning_frames("app-error") if "texworks" in f[1]],
        *[f for f in _tuning_frames("app-save-changes") if "texworks" in f[1]],
        *_tuning_frames("app-credential-prompt"),
        # GTK 2's quit question (OK / Cancel, no word of saving); a prompt to lose changes with no Save button
        *[f for f in _tuning_frames("app-save-changes") if f[0].name in ("gmanedit", "mtpaint")][:4],
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_real_prompts_of_tuning_programs_get_their_generic_kind(real_service, folder, file) -> None:
    want = _frame_truth(folder, file)["expected_id"]
    found = real_service.classify(cv2.imread(str(folder / file)), thorough=True)
    assert found.dialog_id == want, found.notes
    assert real_service.resolve(cv2.imread(str(folder / file)), thorough=True).decision == "pause"


@pytest.mark.parametrize(
    ("title", "alert"),
    [
        ("dossier.gnumeric", False),
        ("notes.txt", False),
        ("absent.tex", False),
        ("compte-rendu.rtf", False),
        ("Diagram1.dia", False),  # a diagram's name in a save chooser's name field
        ("127.0.0.1:8080", True),
        ("intranet.chu.fr", True),
    ],
)
def test_a_file_name_is_no_origin_over_a_page_alert(catalog, title, alert) -> None:
    from rpa_mcp.dialogs.matching import Matcher

    assert ("browser-js-alert" in [e.id for e in Matcher(catalog).by_title(title)]) is alert


@pytest.mark.parametrize(
    ("lines", "alert"),
    [
        (["Look In:rpacap", "tournee.gpx"], False),  # Swing's chooser: a file of its list under its folder
        (["Save In:rpacap", "Images", "tour.gpx"], False),
        (["Images", "tour.gpx", "intranet.chu.fr"], False),  # two names with an extension: a list of files
        (["intranet.chu.fr", "Le dossier a été envoyé."], True),  # a page's origin heads its alert
        (["Alerte", "intranet.chu.fr says"], True),
    ],
)
def test_a_name_listed_under_another_line_is_no_origin_over_a_page_alert(catalog, lines, alert) -> None:
    from rpa_mcp.dialogs.matching import Matcher

    js = next(s for s in Matcher(catalog).score(lines, ["OK"]) if s.entry.id == "browser-js-alert")
    assert (js.title == 1.0) is alert


@pytest.mark.parametrize(
    ("folder", "file"),
    [
        f
        for kind in ("file-open", "file-save-as", "app-save-changes")
        for f in _tuning_frames(kind)
        if f[0].name == "gpsprune" and ("1366" in f[1] or "fr-1600" in f[1])
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_swings_file_chooser_and_quit_question_get_their_generic_kind(real_service, folder, file) -> None:
    # JFileChooser (Metal): "Look In:" / "Save In:" over a list of .gpx files, never a page's origin;
    # "Your data is not saved. Are you sure you want to exit?" Exit / Cancel
    want = _frame_truth(folder, file)["expected_id"]
    found = real_service.classify(cv2.imread(str(folder / file)), thorough=True)
    assert found.dialog_id == want, found.notes


@pytest.mark.parametrize(
    ("folder", "file"),
    [f for f in _tuning_frames("app-error") if f[0].name == "gpsprune"],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_swings_one_ok_error_box_is_identified_on_its_frame_alone(real_service, folder, file) -> None:
    # Metal's focus ring drawn tight round "OK": the button is found by its ring; "Fichier illisible" is an error
    found = real_service.classify(cv2.imread(str(folder / file)))
    assert found.dialog_id == "app-error" and found.path == "fast", found.notes


@pytest.mark.parametrize("text", ["Fichier illisible", "The file is unreadable", "Datei unlesbar"])
def test_a_file_that_cannot_be_read_under_one_ok_is_an_error(text) -> None:
    shape = kind_of(["OK"], [text], never)
    assert shape is not None and shape.kind == "app-error"


def test_a_message_box_without_title_words_is_found_from_its_buttons_up(catalog) -> None:
    read = [
        line("Le serveur est injoignable : l'envoi a échoué.", 760, 480, 380),
        line("OK", 1080, 560, 30),
        line("Compte rendu du jour.", 20, 120, 200),
    ]
    found = DialogService(catalog, PageOcr(read)).classify(blank(), thorough=True)
    assert found.dialog_id == "app-error" and found.path == "thorough" and found.confidence < 0.6


def test_an_ok_button_under_a_file_list_with_a_name_field_is_a_save_chooser() -> None:
    read = [line("Nom :", 140, 40, 50), line("Nom", 360, 130, 40), *_files(420, 160)]
    read += [line("Annuler", 1150, 860, 70), line("OK", 1240, 860, 30)]
    chooser = file_chooser(read, 1080)
    assert chooser is not None and chooser.kind == "file-save-as"
    assert file_chooser([r for r in read if r.text != "Nom :"], 1080).kind == "file-open"  # type: ignore[union-attr]


def test_a_question_naming_a_deletion_answered_ok_or_cancel_is_a_deletion() -> None:
    shape = kind_of(["Cancel", "OK"], ["Move file ordonnance-1403.txt to trash can?"], never)
    assert shape is not None and shape.kind == "app-confirm-delete"


def test_a_deletion_question_over_a_file_list_is_no_file_chooser(catalog) -> None:
    # a file manager's list behind its question: the question's words outrank the names read above it
    read = [*_files(420, 160), line("Move file ordonnance-1403.txt to trash can?", 300, 420, 420)]
    read += [line("Cancel", 400, 480, 60), line("OK", 640, 480, 30)]
    found = DialogService(catalog, PageOcr(read)).classify(blank(), thorough=True)
    assert found.dialog_id == "app-confirm-delete"


@pytest.mark.parametrize("label", ["New File Name:", "Save File As", "Save Image File", "Enregistrer l'image"])
def test_an_ok_chooser_with_a_new_name_field_or_a_save_as_title_is_a_save_chooser(label) -> None:
    read = [line(label, 20, 60, 120), *_files(420, 160), line("OK", 420, 860, 30), line("Cancel", 700, 860, 60)]
    chooser = file_chooser(read, 1080)
    assert chooser is not None and chooser.kind == "file-save-as"


def test_a_toolbar_read_as_one_line_behind_an_ok_chooser_is_no_save_title() -> None:
    read = [line("Save Save Undo Redo", 20, 60, 160), *_files(420, 160), line("OK", 420, 860, 30)]
    chooser = file_chooser([*read, line("Cancel", 700, 860, 60)], 1080)
    assert chooser is not None and chooser.kind == "file-open"


@pytest.mark.parametrize(
    ("folder", "file"),
    [f for f in _tuning_frames("file-save-as") if f[0].name == "mtpaint"],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_an_ok_chooser_whose_window_title_saves_is_a_save_chooser(real_service, folder, file) -> None:
    # a paint program's own file list: OK / Cancel; its title bar may be too small to read on the frame
    title = _frame_truth(folder, file)["window_title"]
    found = real_service.classify(cv2.imread(str(folder / file)), window_title=title, thorough=True)
    assert found.dialog_id == "file-save-as", found.notes


def test_an_ok_chooser_whose_faint_title_bar_the_whole_frame_misses_is_read_above_it(real_service) -> None:
    # mtpaint's save list at 1920x1080: its small title bar ("Save Image File") is read only on its own
    image = cv2.imread(str(REAL / "mtpaint" / "mtpaint-save-as-en-1920x1080.png"))
    found = real_service.classify(image, thorough=True)
    assert found.dialog_id == "file-save-as", found.notes
    opened = real_service.classify(cv2.imread(str(REAL / "mtpaint" / "mtpaint-open-en-1920x1080.png")), thorough=True)
    assert opened.dialog_id == "file-open", opened.notes


@pytest.mark.parametrize(
    ("folder", "file"),
    [f for f in _tuning_frames("app-error") if f[0].name == "jedit"],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_swings_error_box_in_either_language_is_an_error(real_service, folder, file) -> None:
    # jEdit's "I/O Error" / "Erreur I/O": "Droits insuffisants...", "a été interrompue", one OK
    found = real_service.classify(cv2.imread(str(folder / file)))
    assert found.dialog_id == "app-error", found.notes
    assert real_service.resolve(cv2.imread(str(folder / file))).decision == "pause"


def test_a_win32_chooser_stacks_cancel_under_save_beside_the_file_name_field() -> None:
    read = [line("File name:", 8, 187, 54), line("Save", 356, 187, 40), line("Files of type:", 8, 214, 68)]
    read += [line("Cancel", 354, 214, 44)]
    chooser = file_chooser(read, 1080)
    assert chooser is not None and chooser.kind == "file-save-as"
    # the same buttons stacked with no file name's field beside them are no chooser
    assert file_chooser([r for r in read if r.text != "File name:"], 1080) is None


@pytest.mark.parametrize(
    ("folder", "file"),
    [f for f in _tuning_frames("app-file-overwrite") if "nedit" in f[1]],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_message_box_in_front_of_its_save_box_is_the_dialog_named(real_service, folder, file) -> None:
    # Motif's prompt before a file is overwritten, drawn inside the save box that asked for it
    found = real_service.classify(cv2.imread(str(folder / file)))
    assert found.dialog_id == "app-file-overwrite" and found.path == "fast", found.notes


def _fltk_chooser(title: str, *, ok: bool) -> list[OcrLine]:
    """FLTK's chooser: its title, a list, the "Filename:" field read with what it shows, OK / Cancel
    one row under it (OK greyed out until a file is picked: not read)."""
    read = [line(title, 225, 271, 60), *_files(42, 340), line("Filename: Documents/", 30, 604, 206)]
    return [*read, *([line("OK", 332, 639, 33)] if ok else []), line("Cancel", 417, 639, 60)]


@pytest.mark.parametrize("ok", [True, False])
def test_a_file_name_field_is_in_open_boxes_too_and_a_save_to_title_makes_a_save_chooser(ok) -> None:
    opened = file_chooser(_fltk_chooser("Open:", ok=ok), 900)
    assert opened is not None and opened.kind == "file-open"
    saved = file_chooser(_fltk_chooser("Save To:", ok=ok), 900)
    assert saved is not None and saved.kind == "file-save-as"


def test_cancel_under_a_file_name_field_without_a_list_of_files_is_no_chooser() -> None:
    read = [line("Filename:", 30, 604, 90), line("Cancel", 417, 639, 60)]
    assert file_chooser(read, 900) is None
    # nor Cancel far below the field
    read = [*_files(42, 340), line("Filename:", 30, 604, 90), line("Cancel", 417, 800, 60)]
    assert file_chooser(read, 900) is None


@pytest.mark.parametrize(
    ("file", "title", "kind"),
    [
        ("fluid-save-as-en-1920x1080.png", "Save To:", "file-save-as"),
        ("fluid-open-en-1920x1080.png", "Open:", "file-open"),
    ],
)
def test_a_choosers_own_window_title_tells_an_open_chooser_from_a_save_one(real_service, file, title, kind) -> None:
    # FLTK's chooser at 1920x1080: its title bar and its greyed-out OK are not read; its window's title says
    image = cv2.imread(str(REAL / "fluid" / file))
    found = real_service.classify(image, window_title=title, process="fluid", thorough=True)
    assert found.dialog_id == kind, found.notes
    assert real_service.resolve(image, window_title=title, process="fluid", thorough=True).decision == "pause"


def test_fltks_alert_over_its_chooser_is_the_error_in_front(real_service) -> None:
    # "Please choose an existing file!" (Close) drawn over the open chooser, both placed against the
    # screen's left side: their borders meet in one column, which is no band of a larger panel
    image = cv2.imread(str(REAL / "fluid" / "fluid-file-not-found-en-1366x768.png"))
    found = real_service.classify(image, thorough=True)
    assert found.dialog_id == "app-error" and found.path == "fast", found.notes
    assert real_service.resolve(image, thorough=True).decision == "pause"


def test_a_question_titled_as_a_chooser_is_the_question(real_service) -> None:
    # Motif's "save before closing?" box titled "Save File": the title names no question, the words do
    image = cv2.imread(str(REAL / "nedit" / "nedit-save-changes-fr-1600x900.png"))
    found = real_service.classify(image, window_title="Save File", process="nedit", thorough=True)
    assert found.dialog_id == "app-save-changes", found.notes


def test_buttons_and_a_title_read_on_located_boxes_tell_a_chooser_the_full_frame_read_missed(catalog) -> None:
    from rpa_mcp.dialogs.apps import AppConfirmer
    from rpa_mcp.dialogs.thorough import classify_thorough

    # the whole frame's read misses the OK in its thick default frame and the faint title bar
    read = [r for r in _fltk_chooser("", ok=False) if r.text]
    service = DialogService(catalog, PageOcr(read))
    identifier, ocr = service.classifier.identifier, service.classifier.ocr
    assert classify_thorough(identifier, ocr, blank(), AppConfirmer(catalog, ocr, None)).dialog_id == "file-open"  # type: ignore[union-attr]
    seen = [line("OK", 332, 639, 33), line("Save To:", 8, 250, 480)]
    found = classify_thorough(identifier, ocr, blank(), AppConfirmer(catalog, ocr, None), seen=seen)
    assert found is not None and found.dialog_id == "file-save-as", found.notes
    assert "'OK' beside 'Cancel'" in found.notes[0]


def test_the_title_bar_above_a_located_box_is_read(shared_ocr) -> None:
    from rpa_mcp.dialogs.locate import score_candidates
    from rpa_mcp.dialogs.reading import title_bars

    # FLTK's chooser at 1920x1080: the locator finds its face, the window manager's title bar is above
    image = cv2.imread(str(REAL / "fluid" / "fluid-save-as-en-1920x1080.png"))
    titles = title_bars(shared_ocr, image, score_candidates(image)[:2])
    assert "Save To:" in [t.text for t in titles]


@pytest.mark.parametrize(("accept", "kind"), [("Save", "file-save-as"), ("Ouvrir", "file-open")])
def test_cancel_and_an_action_at_the_ends_of_a_header_bar_over_a_file_list_are_a_chooser(accept, kind) -> None:
    # GNOME's header bar: Cancel at the left end of the title row, the action at the right, 900 px apart
    read = [line("Annuler", 480, 210, 70), line(accept, 1380, 210, 60), line("Nom  Taille  Modifié", 760, 280, 300)]
    read += _files(760, 310)
    chooser = file_chooser(read, 1080)
    assert chooser is not None and chooser.kind == kind, chooser
    # the same two buttons over no list of files are no chooser
    assert file_chooser(read[:2], 1080) is None


def test_a_small_boxs_button_read_again_with_its_lines_is_no_title_of_it(real_service) -> None:
    # Tk's "Agenda" window (an "Open" button under two lines), uncovered when a prompt closes with its
    # window: read whole, its button is no "Open" title of a file chooser
    image = cv2.imread(str(REAL / "tk" / "tk-save-changes-after-en-1920x1080.png"))
    assert real_service.classify(image).dialog_id != "file-open"


@pytest.mark.parametrize(
    ("labels", "lines"),
    [
        (["Non", "Annuler", "Oui"], ["Question", 'Enregistrer "(sans titre)" ?']),  # gVim's terse French
        (["Yes", "No"], ["Save report.txt?"]),
        (["OK", "Cancel"], ["Do you want to save the prescription?"]),
    ],
)
def test_a_question_that_asks_to_save_answered_yes_or_no_is_a_save_changes_prompt(labels, lines) -> None:
    shape = kind_of(labels, lines, never)
    assert shape is not None and shape.kind == "app-save-changes", shape


@pytest.mark.parametrize(
    ("labels", "lines"),
    [
        (["Yes", "No"], ["Print the report?"]),  # no save verb
        (["Oui", "Non"], ["Le rapport a été enregistré dans Documents."]),  # no question
        (["Save", "Cancel"], ["Save report.txt?"]),  # no yes/no or ok/cancel pair answers it
    ],
)
def test_a_save_verb_outside_a_question_answered_yes_or_no_names_no_save_prompt(labels, lines) -> None:
    shape = kind_of(labels, lines, lambda: False)
    assert shape is None or shape.kind != "app-save-changes", shape


def test_a_short_line_with_a_warning_word_is_a_warning_title() -> None:
    from rpa_mcp.dialogs.structure import titled_as_warning

    assert titled_as_warning(["00", "VIM - ATTENTION", "Swap file already exists!"])
    assert titled_as_warning(["Avertissement"])
    # a sentence that mentions the word is no title
    assert not titled_as_warning(["Pay attention to the dosage of this drug before you continue"])


@pytest.mark.parametrize(
    "file",
    [f[1] for f in _tuning_frames("app-save-changes") if f[0].name == "gvim"],
)
def test_vims_own_save_question_is_a_save_changes_prompt(real_service, file) -> None:
    # 'Save changes to "Untitled"?' and the terse French 'Enregistrer "(sans titre)" ?', Yes / No / Cancel
    found = real_service.classify(cv2.imread(str(REAL / "gvim" / file)))
    assert found.dialog_id == "app-save-changes", found.notes


@pytest.mark.parametrize("file", [f[1] for f in _tuning_frames("unknown") if f[0].name == "gvim"])
def test_vims_swap_file_warning_is_a_dialog_that_names_no_entry(real_service, file) -> None:
    # "VIM - ATTENTION": "Swap file ... already exists!" over Open Read-Only / Edit anyway / Recover /
    # Quit / Abort; no shadow on a desktop without a compositor, yet no card of a page: a dialog, paused
    # (the French one at 1600x900 has the editor's text right under its bottom border: its outline does not
    # close, it is rebuilt from its body over the row of buttons tiling its width)
    image = cv2.imread(str(REAL / "gvim" / file))
    found = real_service.classify(image)
    assert found.found and found.dialog_id == "unknown" and found.bbox is not None, found.notes
    assert real_service.resolve(image).decision == "pause"


@pytest.mark.parametrize("file", [f[1] for f in _tuning_frames("app-error") if f[0].name == "xfig"])
def test_xfigs_error_window_over_its_browser_is_an_error(real_service, file) -> None:
    # "Xfig: Error messages": 'File prive.fig: Read access to file "prive.fig" is blocked.' over Dismiss / Clear,
    # in front of xfig's open browser. Its buttons' labels touch their thin frames and their outlines join their
    # neighbours' on the dilated edge map: the thorough path locates it on the undilated one (thin_framed), and
    # its title names an error over buttons that answer no question
    image = cv2.imread(str(REAL / "xfig" / file))
    found = real_service.classify(image, thorough=True)
    assert found.dialog_id == "app-error" and found.bbox is not None and found.bbox[1] < 20, found.notes
    assert real_service.resolve(image, thorough=True).decision == "pause"


def test_a_title_naming_an_error_over_buttons_that_answer_no_question_is_an_error() -> None:
    # a log window's buttons ("Dismiss" misread, "Clear") are no acknowledgement alone: its title names the error
    shape = kind_of(["Disniss", "Clear"], ["Xfig: Error messages", "File prive.fig:"], never)
    assert shape is not None and shape.kind == "app-error"
    assert kind_of(["Fermer", "Aide"], ["Erreurs"], never) is not None
    # buttons that answer a question, or an error named in a sentence, not a title: no error by its title
    assert kind_of(["Retry", "Cancel"], ["Error", "Retry the operation"], never) is None
    assert kind_of(["Apply", "Help"], ["Send an error report to the vendor when a program stops"], never) is None


@pytest.mark.parametrize("file", [f[1] for f in _tuning_frames("app-error") if f[0].name == "xfig"])
def test_a_file_name_behind_xfig_s_error_window_names_no_browser(real_service, file) -> None:
    # "prive.fig" in the chooser's list reads like a page's origin, yet no message starts under it: no
    # browser kind is named from it
    found = real_service.classify(cv2.imread(str(REAL / "xfig" / file)), thorough=True)
    assert not found.dialog_id.startswith("browser-"), found.notes


def test_a_quit_button_beside_cancel_under_words_of_unsaved_documents_is_a_save_changes_prompt() -> None:
    # GNUstep's question on quitting: "You have unsaved documents", Quit Anyway / Cancel / Review Unsaved
    shape = kind_of(["Quit Anyway", "Cancel", "Review Unsaved"], ["Quit", "You have unsaved documents"], never)
    assert shape is not None and shape.kind == "app-save-changes"
    assert kind_of(["Quit Anyway", "Cancel"], ["Quit", "The search is still running"], never) is None


def test_save_beside_dont_save_outranks_an_applications_entry_named_by_a_documents_name_alone(catalog) -> None:
    from rpa_mcp.dialogs.classification import ReadButton
    from rpa_mcp.dialogs.classifier import DialogClassifier
    from rpa_mcp.testing import ScriptedOcr

    classifier = DialogClassifier(catalog, ScriptedOcr())
    buttons = [
        ReadButton(label, (20 + 120 * i, 90, 100, 24)) for i, label in enumerate(("Don't Save", "Cancel", "Save"))
    ]
    # "Untitled" is a word of Notepad's entry, but every editor writes it: its title not read, the shape decides
    gnustep = classifier.match((10, 10, 400, 130), buttons, ["Close", "Untitled-1 has changed. Save?"])
    assert gnustep.dialog_id == "app-save-changes", gnustep.notes
    notepad = classifier.match((10, 10, 400, 130), buttons, ["Notepad", "Do you want to save changes to Untitled?"])
    assert notepad.dialog_id == "notepad-save-changes", notepad.notes


TEXTEDIT_OPEN: dict[str, str] = {}  # known misses, not fixed yet (strict xfail)


@pytest.mark.parametrize(
    "file",
    [
        pytest.param(
            f[1], marks=[pytest.mark.xfail(strict=True, reason=TEXTEDIT_OPEN[f[1]])] if f[1] in TEXTEDIT_OPEN else []
        )
        for kind in ("app-save-changes", "app-file-overwrite", "app-error", "file-open", "file-save-as")
        for f in _tuning_frames(kind)
        if f[0].name == "textedit"
    ],
)
def test_gnustep_panels_and_questions_get_their_generic_kind(real_service, file) -> None:
    # the overwrite question as wide as the save panel it covers, its buttons above the panel's, is read first;
    # "You have unsaved documents" over Quit Anyway / Cancel; "Untitled-1 has changed. Save?" (no Notepad)
    want = _frame_truth(REAL / "textedit", file)["expected_id"]
    image = cv2.imread(str(REAL / "textedit" / file))
    assert real_service.classify(image, thorough=True).dialog_id == want
    assert real_service.resolve(image, thorough=True).decision == "pause"


def test_a_located_box_naming_nothing_read_whole_is_a_chooser_by_its_layout(real_service) -> None:
    # wxWidgets' open dialog on GTK: GTK's chooser without a header bar, titled after the program
    # ("Select translation file"); located by its footer of buttons, its words name no entry
    file = REAL / "poedit" / "poedit-open-en-1920x1080.png"
    found = real_service.classify(cv2.imread(str(file)))
    assert found.found and found.dialog_id == "file-open" and found.path == "fast", found.notes
    assert found.bbox is not None and found.bbox[2] > 1000


def test_two_buttons_read_as_one_label_with_a_wide_gap_answer_as_both() -> None:
    # Double Commander's French delete question: "Ajoute à la file d'attente" runs into "Annuler" (Lazarus LCL);
    # fails on the old code: no Cancel read beside OK, no kind
    labels = ["Ajoute à la ile d'attente  Annuler", "OK"]
    lines = ['Déplacer le fichier/dossier "bilan.txt" sélectionné dans la', "corbeille ?"]
    shape = kind_of(labels, lines, never)
    assert shape is not None and shape.kind == "app-confirm-delete"
    assert kind_of(["Ajoute à la file d'attente Annuler", "OK"], lines, never) is None  # one gap: one label


def test_an_accept_buttons_icon_run_into_its_first_letter_still_names_the_chooser() -> None:
    # GTK 2's "Ouvrir" with its folder icon read "Quvrir"; fails on the old code: no accept button, no chooser
    read = [line("Nom", 350, 20, 40), line("Taille Type Accédé", 1060, 20, 170)]
    read += [line("Annuler", 1051, 723, 66), line("Quvrir", 1157, 728, 50)]
    chooser = file_chooser(read, 768)
    assert chooser is not None and chooser.kind == "file-open"


@pytest.mark.parametrize(
    ("folder", "file"),
    [
        f
        for kind in ("app-confirm-delete", "file-save-as", "file-open")
        for f in _tuning_frames(kind)
        if f[0].name == "doublecmd" and "fr-1600" in f[1]
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_lazarus_delete_question_and_gtk2_choosers_in_french_get_their_generic_kind(real_service, folder, file) -> None:
    # Double Commander (LCL on GTK 2): "Ajoute à la file d'attente" read into "Annuler"; the chooser under its
    # own title bar was taken for a band of the window behind; "Ouvrir" read "Quvrir". Fail on the old code.
    want = _frame_truth(folder, file)["expected_id"]
    found = real_service.classify(cv2.imread(str(folder / file)), thorough=True)
    assert found.dialog_id == want, found.notes


@pytest.mark.parametrize(
    ("folder", "file"),
    [f for f in _tuning_frames("file-save-as") if f[0].name in ("doublecmd", "wordpad") and "fr-1600" in f[1]],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_chooser_under_its_own_title_bar_is_located_and_named_by_it(real_service, folder, file) -> None:
    # its title bar's sides are the box's own (no band of the window behind); "Enregistrer" in it says it
    # saves where the accept button is not read (Wine's). Fails on the old code: nothing located, fast path
    found = real_service.classify(cv2.imread(str(folder / file)))
    assert found.dialog_id == "file-save-as" and found.path == "fast", found.notes
