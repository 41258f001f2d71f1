"""A box's frame: a main window (minimize, maximize, close) is no dialog; a dialog cut by the bottom of
the screen (dragged low, under the taskbar) is one, identified from its title, and never clicked."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rpa_mcp.dialogs import DialogService
from rpa_mcp.dialogs.apps import ReportedWindow
from rpa_mcp.dialogs.classifier import Classification, DialogClassifier, ReadButton
from rpa_mcp.dialogs.locate import find_modal, iou
from rpa_mcp.dialogs.locate.edges import edge_map
from rpa_mcp.dialogs.locate.frames import caption_buttons, clipped_below
from rpa_mcp.dialogs.resolver import DialogResolver
from rpa_mcp.testing import ScriptedOcr

from .test_locate import with_shadow

WIDTH, HEIGHT, TASKBAR = 1000, 700, 48
DIALOG = (300, 500, 400, 200)  # its lower part is under the taskbar


def text(img: np.ndarray, words: str, x: int, y: int, scale: float = 0.5) -> None:
    cv2.putText(img, words, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20), 1, cv2.LINE_AA)


def desktop(*, taskbar: bool = True) -> np.ndarray:
    img = np.full((HEIGHT, WIDTH, 3), (130, 80, 30), np.uint8)
    cv2.rectangle(img, (80, 40), (900, 560), (250, 250, 250), -1)  # a window behind
    cv2.rectangle(img, (80, 40), (900, 560), (90, 90, 90), 1)
    text(img, "Documents", 100, 62)
    return img


def with_taskbar(img: np.ndarray) -> np.ndarray:
    cv2.rectangle(img, (0, HEIGHT - TASKBAR), (WIDTH - 1, HEIGHT - 1), (235, 235, 235), -1)
    for i in range(6):
        cv2.rectangle(img, (380 + 44 * i, HEIGHT - 38), (408 + 44 * i, HEIGHT - 10), (200, 120, 40), -1)
    return img


def dialog_at(img: np.ndarray, box: tuple[int, int, int, int]) -> None:
    """A Windows message box: a title bar with a close cross, a body, a grey footer with two buttons."""
    x, y, w, h = box
    cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (200, 150, 90), 1)
    text(img, "Supprimer le fichier", x + 12, y + 22)
    cv2.line(img, (x + w - 22, y + 10), (x + w - 12, y + 20), (20, 20, 20), 1)
    cv2.line(img, (x + w - 22, y + 20), (x + w - 12, y + 10), (20, 20, 20), 1)
    text(img, "Voulez-vous vraiment supprimer ce fichier ?", x + 60, y + 70)
    text(img, "CR_2024-03-12.docx", x + 100, y + 100)
    cv2.rectangle(img, (x + 1, y + h - 46), (x + w - 1, y + h - 1), (240, 240, 240), -1)
    for bx in (x + w - 180, x + w - 90):
        cv2.rectangle(img, (bx, y + h - 36), (bx + 76, y + h - 12), (225, 225, 225), -1)
        cv2.rectangle(img, (bx, y + h - 36), (bx + 76, y + h - 12), (110, 110, 110), 1)


def clipped_dialog(*, taskbar: bool = True) -> np.ndarray:
    img = desktop()
    if taskbar:
        dialog_at(img, DIALOG)
        return with_taskbar(img)
    x, _, w, h = DIALOG
    dialog_at(img, (x, HEIGHT - h + 60, w, h))  # runs off the frame's bottom edge
    return np.ascontiguousarray(img[:HEIGHT])


def test_a_dialog_under_the_taskbar_is_a_candidate_cut_by_it():
    region = find_modal(clipped_dialog())
    assert region is not None and "clipped" in region.evidence and region.buttonless
    assert region.buttons == ()  # they are under the taskbar
    x, y, w, _ = DIALOG
    assert iou(region.bbox, (x, y, w, HEIGHT - TASKBAR - y)) >= 0.85


def test_a_dialog_that_runs_off_the_bottom_of_the_frame_is_a_candidate():
    region = find_modal(clipped_dialog(taskbar=False))
    assert region is not None and "clipped" in region.evidence


def test_what_the_taskbar_does_not_cut_is_no_clipped_candidate():
    # a complete card well above the taskbar, and a flat block of the wallpaper the taskbar cuts
    img = desktop()
    cv2.rectangle(img, (300, 420), (700, 560), (255, 255, 255), -1)
    cv2.rectangle(img, (300, 420), (700, 560), (150, 150, 150), 1)
    text(img, "Rapport mensuel", 312, 442)
    cv2.rectangle(img, (150, 580), (450, HEIGHT - TASKBAR), (60, 150, 160), -1)
    img = with_taskbar(img)
    edges = edge_map(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert not clipped_below(edges, (300, 420, 401, 141))  # its bottom border ends it
    assert not clipped_below(edges, (150, 580, 301, HEIGHT - TASKBAR - 580))  # no title in it
    assert find_modal(img) is None


def test_a_clipped_dialog_is_identified_from_its_title_and_paused(catalog):
    ocr = ScriptedOcr(["Supprimer le fichier", "Voulez-vous vraiment supprimer définitivement ce fichier ?"])
    decision = DialogService(catalog, ocr).resolve(clipped_dialog())
    assert decision.dialog_id == "windows-confirm-delete" and decision.decision == "pause"
    assert any("runs off the screen" in note for note in decision.classification.notes)


def test_a_clipped_panel_whose_title_names_nothing_is_no_dialog(catalog):
    found = DialogService(catalog, ScriptedOcr(["Rapport mensuel", "Total : 42 séjours"])).classify(clipped_dialog())
    assert not found.found


class _Seen:
    """A classifier that saw `found` (the resolver's rules on its own)."""

    def __init__(self, found: Classification) -> None:
        self.found = found

    def classify(self, image: np.ndarray | None, **_: object) -> Classification:
        return self.found


@pytest.mark.parametrize("buttons", [(), (ReadButton("Annuler", (600, 600, 80, 24)),)])
def test_an_auto_dialog_whose_button_cannot_be_seen_pauses(catalog, buttons):
    entry = catalog.get("easily-save-confirm")
    assert entry is not None and entry.policy == "auto"
    seen = Classification(
        entry.id,
        entry,
        0.99,
        "screenshot",
        bbox=(300, 500, 400, 152),
        buttons=buttons,
        app="easily",
        app_confirmed_by="window",
    )
    resolver = DialogResolver(catalog, _Seen(seen))  # type: ignore[arg-type]  # a stand-in classifier
    decision = resolver.resolve(clipped_dialog())
    assert decision.decision == "pause" and decision.click_at is None
    assert ("none of its buttons" if not buttons else "not found exactly once") in decision.reason


# --- a main window: minimize, maximize and close --------------------------------------------------------
def window_with_a_status_bar(*, captions: bool, y: int = 120) -> np.ndarray:
    """An editor window 600x400: title bar, text, a status bar whose cells are framed like buttons."""
    img = np.full((HEIGHT + 400, WIDTH, 3), (130, 80, 30), np.uint8)
    x, w, h = 200, 600, 400
    cv2.rectangle(img, (x, y), (x + w, y + h), (255, 255, 255), -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), (90, 90, 90), 1)
    cv2.rectangle(img, (x + 1, y + 1), (x + w - 1, y + 30), (32, 32, 32), -1)
    cv2.putText(img, "notes.txt - Bloc-notes", (x + 12, y + 21), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
    right = x + w - 23  # centre of the close button; caption buttons are 46 px wide
    cv2.line(img, (right - 5, y + 10), (right + 5, y + 20), (255, 255, 255), 1)  # close
    cv2.line(img, (right - 5, y + 20), (right + 5, y + 10), (255, 255, 255), 1)
    if captions:
        cv2.rectangle(img, (right - 51, y + 10), (right - 41, y + 20), (255, 255, 255), 1)  # maximize
        cv2.line(img, (right - 97, y + 15), (right - 87, y + 15), (255, 255, 255), 1)  # minimize
    text(img, "Transmissions - cardiologie", x + 12, y + 70)
    for cx in (x + 300, x + 400, x + 500):  # status bar cells with a frame, above the bottom edge
        cv2.rectangle(img, (cx, y + h - 34), (cx + 80, y + h - 10), (235, 235, 235), -1)
        cv2.rectangle(img, (cx, y + h - 34), (cx + 80, y + h - 10), (120, 120, 120), 1)
        text(img, "UTF-8", cx + 14, y + h - 16, 0.45)
    return np.ascontiguousarray(img[:HEIGHT])


def test_a_window_with_minimize_maximize_and_close_is_no_candidate():
    edges = edge_map(cv2.cvtColor(window_with_a_status_bar(captions=True), cv2.COLOR_BGR2GRAY))
    assert caption_buttons(edges, (200, 120, 601, 401))
    assert find_modal(window_with_a_status_bar(captions=True)) is None


def test_the_same_box_with_a_close_cross_only_is_a_dialog():
    image = window_with_a_status_bar(captions=False)
    edges = edge_map(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert not caption_buttons(edges, (200, 120, 601, 401))
    region = find_modal(image)
    assert region is not None and "buttons" in region.evidence and iou(region.bbox, (200, 120, 601, 401)) >= 0.9


def test_a_main_window_dragged_under_the_taskbar_is_no_candidate():
    for captions in (True, False):
        image = with_taskbar(window_with_a_status_bar(captions=captions, y=420))
        region = find_modal(image)
        if captions:
            assert region is None
        else:  # the same frame with a close cross only: a dialog cut by the taskbar
            assert region is not None and "clipped" in region.evidence


# --- a button drawn as a link ----------------------------------------------------------------------------
def test_a_button_drawn_as_a_link_counts_as_that_button(catalog):
    classifier = DialogClassifier(catalog, ScriptedOcr())
    buttons = [ReadButton("Annuler", (600, 600, 200, 32))]
    # the title is under another window: the heading's end, the body, and the links are what is read
    lines = ["qu'il s'agit bien de vous", "en tant que Anne ROUX.", "J'ai oublié mon code confidentiel"]
    without = classifier.match((400, 300, 456, 294), buttons, lines)
    with_link = classifier.match((400, 300, 456, 294), buttons, [*lines, "Plus de choix"])
    assert without.dialog_id == "unknown"
    assert with_link.dialog_id == "windows-hello" and [b.label for b in with_link.buttons] == ["Annuler"]


# --- a button beside another button ----------------------------------------------------------------------
EASILY = ReportedWindow("Easily — Dossier patient - Microsoft Edge", "msedge.exe")


def test_a_button_that_appears_beside_another_is_no_toast(catalog):
    before = np.full((HEIGHT, WIDTH, 3), 250, np.uint8)
    after = before.copy()
    for x, label, fill in ((300, "Enregistrer", (190, 100, 20)), (470, "Annuler", (255, 255, 255))):
        cv2.rectangle(after, (x, 500), (x + 150, 558), fill, -1)
        cv2.rectangle(after, (x, 500), (x + 150, 558), (120, 120, 120), 1)
        text(after, label, x + 20, 530)
    found = DialogService(catalog, ScriptedOcr(["Enregistrer"])).classify(after, previous=before)
    assert not found.found
    alone = after.copy()
    alone[495:565, 460:630] = 250  # the same button without its neighbour: a compact new box, read
    found = DialogService(catalog, ScriptedOcr(["Enregistré", "L'observation a été enregistrée."])).classify(
        alone, previous=before, windows=[EASILY]
    )
    assert found.found and found.dialog_id == "easily-toast-saved"
    floating = after.copy()
    with_shadow(floating, (300, 500, 150, 58))  # the box beside the button casts a shadow: it floats
    text(floating, "Enregistre", 320, 530)
    found = DialogService(catalog, ScriptedOcr(["Enregistré", "L'observation a été enregistrée."])).classify(
        floating, windows=[EASILY]
    )
    assert found.found and found.dialog_id == "easily-toast-saved"
