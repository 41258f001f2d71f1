"""The thorough path: a single frame whose fast path finds no dialog is read whole, and a dialog is
found by its words and buttons (no outline needed)."""

from __future__ import annotations

import numpy as np

from rpa_mcp.dialogs import DialogService
from rpa_mcp.testing import PageOcr
from rpa_mcp.vision.ocr import OcrLine


def line(text: str, x: int, y: int, w: int = 120) -> OcrLine:
    return OcrLine(text, (x, y, w, 18), 0.99)


PAGE = [line("Fichier", 20, 40, 50), line("Compte rendu du jour.", 20, 120, 200)]
PROMPT = [
    line("Enregistrer les modifications ?", 700, 400, 260),
    line("Si vous n'enregistrez pas, les modifications seront perdues.", 700, 440, 420),
    line("Enregistrer", 700, 520, 90),
    line("Ne pas enregistrer", 810, 520, 140),
    line("Annuler", 970, 520, 70),
]


def blank() -> np.ndarray:
    return np.full((1080, 1920, 3), 250, np.uint8)


def test_a_dialog_without_an_outline_is_found_by_its_words_and_buttons(catalog) -> None:
    service = DialogService(catalog, PageOcr([*PAGE, *PROMPT]))
    found = service.classify(blank(), thorough=True)
    assert found.found and found.dialog_id == "app-save-changes"
    assert found.path == "thorough" and found.region_found_by == "words"
    assert [b.label for b in found.buttons] == ["Enregistrer", "Ne pas enregistrer", "Annuler"]
    decision = service.resolve(blank(), thorough=True)
    assert decision.decision == "pause"


def test_the_thorough_path_never_answers_or_ignores_anything(catalog) -> None:
    words = [
        line("Confirmer l'enregistrement", 700, 400, 220),
        line("Confirmez-vous l'enregistrement de l'observation ?", 700, 440, 380),
        line("Annuler", 800, 500, 70),
        line("Confirmer", 900, 500, 80),
        line("Easily Dossier Patient Informatisé — CH de Valmont", 20, 90, 400),
    ]
    service = DialogService(catalog, PageOcr(words))
    decision = service.resolve(blank(), thorough=True)
    assert decision.decision == "pause" and decision.classification.confidence < 0.6


def test_page_text_far_from_its_buttons_is_no_dialog(catalog) -> None:
    page = [line("Modifications non enregistrées", 600, 230, 200), line("Enregistrer", 224, 715, 100)]
    found = DialogService(catalog, PageOcr(page)).classify(blank(), thorough=True)
    assert not found.found and found.path == "thorough"


def test_without_the_thorough_flag_or_with_a_frame_before_the_frame_is_not_read_whole(catalog) -> None:
    ocr = PageOcr([*PAGE, *PROMPT])
    service = DialogService(catalog, ocr)
    assert not service.classify(blank()).found
    assert not service.classify(blank(), previous=blank(), thorough=True).found


def test_a_button_read_alone_counts_where_the_whole_frame_misread_it(catalog) -> None:
    from rpa_mcp.dialogs.apps import AppConfirmer
    from rpa_mcp.dialogs.thorough import classify_thorough

    files = [line(name, 460, 230 + 25 * i, 100) for i, name in enumerate(("bilan.tex", "bilan.txt", "notes.txt"))]
    read = [line("Name", 460, 206, 50), *files, line("Cancel", 880, 650, 84), line("Qpen", 985, 654, 69)]
    ocr = PageOcr(read)
    service = DialogService(catalog, ocr)
    identifier = service.classifier.identifier
    confirm = AppConfirmer(catalog, ocr, blank())
    assert classify_thorough(identifier, ocr, blank(), confirm) is None  # "Qpen" is no button
    # the chooser's accept button read alone on its located box: "Open", where the frame read "Qpen"
    seen = [OcrLine("open", (985, 652, 69, 32), 1.0)]
    found = classify_thorough(identifier, ocr, blank(), confirm, seen=seen)
    assert found is not None and found.dialog_id == "file-open"


def test_an_origin_alone_heads_its_alert_s_message(catalog) -> None:
    alert = [
        line("intranet.chu.fr", 700, 400, 140),
        line("Le dossier a été enregistré.", 700, 440, 220),
        line("OK", 900, 500, 40),
    ]
    found = DialogService(catalog, PageOcr(alert)).classify(blank(), thorough=True)
    assert found.dialog_id == "browser-js-alert", found.notes


def test_a_file_name_in_a_list_over_a_chooser_s_buttons_names_no_browser(catalog) -> None:
    # a figure's name in a file list (its neighbours hidden) over a chooser's Cancel / Open: it looks like
    # an origin, but no message starts under it, no browser drew it
    frame = [
        line('Read access to file "prive.fig" is blocked.', 18, 51, 308),
        line("prive.fig", 55, 272, 72),
        line("Picture", 1, 285, 36),
        line("Current Dir", 68, 520, 86),
        line("Cancel", 174, 649, 51),
        line("Open", 256, 648, 41),
    ]
    found = DialogService(catalog, PageOcr(frame)).classify(blank(), thorough=True)
    assert not found.dialog_id.startswith("browser-"), (found.dialog_id, found.notes)


def test_a_toolbar_of_labelled_buttons_heads_no_dialog(catalog) -> None:
    # a window's toolbar ("Open  Save  Validate") over a one-OK error box: the toolbar's labels, read as
    # buttons and as a chooser's title, are no chooser; the box under them is the error
    frame = [
        line("Open", 50, 65, 40),
        line("Save", 145, 65, 40),
        line("Validate", 255, 65, 70),
        line("Open", 50, 265, 40),
        line("Save", 145, 265, 40),
        line("The file cannot be opened.", 680, 620, 260),
        line("The file may be either corrupted or in a format not recognized by the program.", 560, 650, 520),
        line("OK", 790, 705, 30),
    ]
    found = DialogService(catalog, PageOcr(frame)).classify(blank(), thorough=True)
    assert found.dialog_id == "app-error", (found.dialog_id, found.notes)
