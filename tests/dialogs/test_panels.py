"""A floating panel without buttons (a toast, a notification) is a dialog only when its text names one."""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.dialogs import DialogService
from rpa_mcp.dialogs.apps import ReportedWindow
from rpa_mcp.testing import ScriptedOcr

from .test_locate import page, with_shadow

TOAST = (640, 40, 320, 64)


def toast_frame() -> np.ndarray:
    image = page(1)
    with_shadow(image, TOAST)
    cv2.putText(image, "Enregistre", (660, 64), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 120, 30), 2, cv2.LINE_AA)
    cv2.putText(image, "Observation saved", (660, 92), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (40, 40, 40), 1, cv2.LINE_AA)
    return image


def test_a_panel_whose_title_names_a_toast_is_that_toast(catalog) -> None:
    service = DialogService(catalog, ScriptedOcr(["Enregistré", "L'observation a été enregistrée."]))
    found = service.classify(
        toast_frame(), windows=[ReportedWindow("Easily — Dossier patient - Google Chrome", "chrome.exe")]
    )
    assert found.found and found.dialog_id == "easily-toast-saved" and found.policy == "skip"
    assert found.app == "easily" and found.app_confirmed_by == "window"


def test_the_same_toast_in_an_unconfirmed_application_is_not_skipped(catalog) -> None:
    service = DialogService(catalog, ScriptedOcr(["Enregistré", "L'observation a été enregistrée."]))
    found = service.classify(toast_frame(), windows=[ReportedWindow("Sans titre - Bloc-notes", "notepad.exe")])
    assert found.dialog_id != "easily-toast-saved" and found.policy == "pause"


def test_a_panel_whose_text_names_nothing_is_no_dialog(catalog) -> None:
    service = DialogService(catalog, ScriptedOcr(["Rapport mensuel", "Total : 42 séjours"]))
    found = service.classify(toast_frame())
    assert not found.found and found.dialog_id == "unknown"
    assert any("panel without buttons" in note for note in found.notes)
