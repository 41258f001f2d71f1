"""A browser's prompts named in any engine: WebKit's page dialogs ("JavaScript - <address>"), a
permission asked in a bar across the page (its buttons at the bar's far end), a browser's own question
on leaving an unsubmitted form; and GNOME Web's real frames (a tuning program) named so."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from rpa_mcp.dialogs import DialogService
from rpa_mcp.dialogs.chooser_layout import file_chooser
from rpa_mcp.testing import PageOcr
from rpa_mcp.vision.ocr import OcrLine

EPIPHANY = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs" / "epiphany"  # a tuning program


def _line(text: str, x: int, y: int, w: int, h: int = 28) -> OcrLine:
    return OcrLine(text, (x, y, w, h), 0.99)


def _thorough(catalog, lines: list[OcrLine]) -> str:
    service = DialogService(catalog, PageOcr(lines))
    return service.classify(np.full((1080, 1920, 3), 255, np.uint8), thorough=True).dialog_id


@pytest.mark.parametrize(
    ("title", "alert"),
    [
        ("JavaScript - http://127.0.0.1:44929/bio.html", True),
        ("javaScript - htp:/127.0.0.1:44929/bio.html", True),  # read so on a dimmed page
        ("JavaScript - intranet.chu.fr", True),
        ("JavaScript", False),
        ("JavaScript console", False),
    ],
)
def test_webkits_page_dialog_title_names_a_page_alert(catalog, title, alert) -> None:
    from rpa_mcp.dialogs.matching import Matcher

    assert ("browser-js-alert" in [e.id for e in Matcher(catalog).by_title(title)]) is alert


@pytest.mark.parametrize(
    "text",
    [
        "The page at http://127.0.0.1:37437 wants to show desktop notifications.",
        "The page at http://127.0.0.1:44929 want to show desktop notifcations.",  # as read at 1920x1080
    ],
)
def test_a_permission_bar_with_its_buttons_at_the_far_end_of_its_row_is_found(catalog, text) -> None:
    lines = [
        _line("http://127.0.0.1:37437/bio.html", 502, 8, 238),
        _line(text, 7, 100, 700),
        _line("Deny", 1730, 96, 52, 32),
        _line("Allow", 1820, 96, 54, 32),
        _line("Biologie", 6, 155, 158, 44),
    ]
    assert _thorough(catalog, lines) == "browser-perm-notifications"


def test_a_french_location_request_answered_interdire_is_found(catalog) -> None:
    lines = [
        _line("La page à l'adresse http://127.0.0.1:37753 demande à connaître votre localisation.", 13, 100, 560),
        _line("Interdire", 1700, 96, 90, 32),
        _line("Autoriser", 1810, 96, 90, 32),
    ]
    assert _thorough(catalog, lines) == "browser-perm-location"


@pytest.mark.parametrize(
    ("title", "body", "buttons"),
    [
        (
            "Do you want to leave this website?",
            "A form you modified has not been submitted.",
            ("Cancel", "Discard form"),
        ),
        (
            "Voulez-vous quitter ce site web ?",
            "Un formulaire que vous avez documenté n'a pas été soumis.",
            ("Annuler", "Abandonner le formulaire"),
        ),
    ],
)
def test_a_browsers_question_on_leaving_an_unsubmitted_form_is_leave_site(catalog, title, body, buttons) -> None:
    lines = [
        _line(title, 794, 474, 332),
        _line(body, 804, 502, 312),
        _line(buttons[0], 832, 554, 64),
        _line(buttons[1], 1006, 554, 104),
    ]
    assert _thorough(catalog, lines) == "browser-leave-site"


def test_web_addresses_over_ok_and_cancel_are_no_file_list() -> None:
    read = [
        _line("http://127.0.0.1:44929/bio.html", 502, 8, 238),
        _line("JavaScript - http://127.0.0.1:44929/bio.html", 780, 435, 354),
        _line("Reason for the change:", 876, 482, 164),
        _line("Cancel", 838, 627, 64),
        _line("OK", 1032, 629, 40),
    ]
    assert file_chooser(read, 1080) is None


def _frames() -> list[tuple[str, str]]:
    raw = json.loads((EPIPHANY / "manifest.json").read_text(encoding="utf-8"))
    return [(f["file"], f["expected_id"]) for f in raw["frames"] if "-en-1920x1080" not in f["file"]]


@pytest.mark.parametrize(("file", "want"), _frames(), ids=lambda v: v)
def test_gnome_webs_prompts_get_their_generic_kind(real_service, file, want) -> None:
    image = cv2.imread(str(EPIPHANY / file))
    assert real_service.classify(image, thorough=True).dialog_id == want
    assert real_service.resolve(image, thorough=True).decision == "pause"


# -- QtWebEngine (Falkon, a tuning program): Qt dialogs titled by the window manager, a pale permission bar --
FALKON = EPIPHANY.parent / "falkon"


@pytest.mark.parametrize(
    ("title", "alert"),
    [
        ("JavaScript alert - 127.0.0.1", True),
        ("Alerte JavaScript - 127.0.0.1", True),
        ("Javascript Confirm - http://127.0.0.1:41571/syn.html", True),
        ("Javascript Confirm - ... 0.0.1:37865/syn.html x", True),  # the window manager cut the middle out
        ("Javascript Confirm - .. 0.0.1:37865/syn.html x", True),  # read so
        ("JavaScript Prompt - intranet.chu.fr", True),
        ("JavaScript console - localhost", False),
        ("Javascript Confirm", False),
    ],
)
def test_qtwebengines_page_dialog_titles_name_a_page_alert(catalog, title, alert) -> None:
    from rpa_mcp.dialogs.matching import Matcher

    assert ("browser-js-alert" in [e.id for e in Matcher(catalog).by_title(title)]) is alert


def test_a_location_request_to_locate_your_position_is_found(catalog) -> None:
    lines = [
        _line("Allow 127.0.0.1 to locate your position?", 7, 100, 420),
        _line("Remember", 1640, 96, 90, 32),
        _line("Allow", 1740, 96, 54, 32),
        _line("Deny", 1820, 96, 52, 32),
    ]
    assert _thorough(catalog, lines) == "browser-perm-location"


def test_the_leave_question_asked_in_a_page_dialogs_box_is_leave_site(catalog) -> None:
    lines = [
        _line("JavaScript - http://127.0.0.1:41571/syn.html", 706, 420, 508),
        _line("Are you sure you want to leave this page? Changes that you", 780, 460, 420),
        _line("made may not be saved.", 780, 484, 180),
        _line("OK", 1040, 520, 40),
        _line("Cancel", 1110, 520, 64),
    ]
    assert _thorough(catalog, lines) == "browser-leave-site"


def _falkon_frames() -> list[tuple[str, str]]:
    # its download question ("Opening compte-rendu.txt": Open... / Save File, OK / Cancel) names no catalog
    # entry: one file named twice over OK / Cancel is no file chooser's list
    raw = json.loads((FALKON / "manifest.json").read_text(encoding="utf-8"))
    return [(f["file"], f["expected_id"]) for f in raw["frames"]]


@pytest.mark.parametrize(("file", "want"), _falkon_frames(), ids=lambda v: v)
def test_falkons_prompts_get_their_generic_kind(real_service, file, want) -> None:
    image = cv2.imread(str(FALKON / file))
    assert real_service.classify(image, thorough=True).dialog_id == want
    assert real_service.resolve(image, thorough=True).decision == "pause"


def test_a_page_dialog_under_its_title_bar_is_named_by_that_title(real_service) -> None:
    image = cv2.imread(str(FALKON / "falkon-confirm-en-1366x768.png"))  # the box located without its title bar
    found = real_service.classify(image)
    assert found.dialog_id == "browser-js-alert", found.notes
    assert any("title bar" in note for note in found.notes)
