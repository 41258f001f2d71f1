from __future__ import annotations

import base64

import pytest

from rpa_mcp.dialogs import DeclaredModal, DialogClassifier, DialogResolver, ReadButton
from rpa_mcp.dialogs.apps import ReportedWindow
from rpa_mcp.errors import InvalidInput
from rpa_mcp.testing import ScriptedOcr

from .helpers import synthetic_dialog

EASILY = ReportedWindow("Easily — Dossier patient - Microsoft Edge", "msedge.exe")
SAVE_CONFIRM = ["Annuler", "Confirmer", "Confirmer l'enregistrement", "Confirmez-vous l'enregistrement ?"]


def resolver(catalog, texts, *, enabled=True):
    return DialogResolver(catalog, DialogClassifier(catalog, ScriptedOcr(texts)), enabled=enabled)


def test_an_auto_dialog_is_answered_by_clicking_the_centre_of_its_button(catalog):
    image, buttons = synthetic_dialog(2)
    decision = resolver(catalog, SAVE_CONFIRM).resolve(image, windows=[EASILY])
    assert decision.decision == "auto" and decision.dialog_id == "easily-save-confirm"
    assert decision.classification.app_confirmed_by == "window"
    x, y, w, h = buttons[1]
    assert decision.button.label == "Confirmer"
    assert abs(decision.click_at[0] - (x + w // 2)) <= 3 and abs(decision.click_at[1] - (y + h // 2)) <= 3


def test_a_pause_comes_with_a_reason_and_a_png_crop_of_the_dialog(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(
        catalog, ["Yes", "No", "User Account Control", "Do you want to allow this app to make changes to your device?"]
    ).resolve(image)
    assert decision.decision == "pause" and decision.dialog_id == "windows-uac"
    assert "person" in decision.reason
    assert base64.b64decode(decision.crop_png_base64).startswith(b"\x89PNG")


def test_a_web_page_showing_a_uac_title_is_paused_like_the_real_one(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(
        catalog, ["Annuler", "Confirmer", "Confirmer l'enregistrement", "User Account Control"]
    ).resolve(image, process="msedge.exe")
    assert decision.decision == "pause" and decision.dialog_id == "windows-uac"


def test_an_agent_reported_consent_exe_is_decisive(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(catalog, ["Annuler", "Confirmer", "Confirmer l'enregistrement"]).resolve(
        image, window_title="Confirmer l'enregistrement", process="C:\\Windows\\System32\\consent.exe"
    )
    assert decision.decision == "pause" and decision.dialog_id == "windows-uac"


def test_an_unknown_dialog_pauses(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(catalog, ["OK", "Cancel", "Confirmation", "Are you sure?"]).resolve(image)
    assert decision.decision == "pause" and decision.dialog_id == "unknown"


def test_the_auto_button_missing_from_the_screen_pauses(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(
        catalog, ["Annuler", "Fermer", "Confirmer l'enregistrement", "Confirmez-vous l'enregistrement ?"]
    ).resolve(image)
    assert decision.decision == "pause"


def test_a_declared_pause_wins_over_a_catalog_auto(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(catalog, ["Annuler", "Confirmer", "Confirmer l'enregistrement"]).resolve(
        image, declared_modals=[DeclaredModal(dialog_id="easily-save-confirm", policy="pause")], windows=[EASILY]
    )
    assert decision.decision == "pause" and decision.policy_source == "declaration"


def test_a_prompt_with_buttons_is_never_skipped(catalog):
    image, _ = synthetic_dialog(1)
    decision = resolver(catalog, ["Pas maintenant", "Traduire cette page ?", "Google Traduction"]).resolve(
        image, window_title="Easily - Google Chrome", process="chrome.exe"
    )
    assert decision.decision == "pause" and decision.dialog_id == "browser-translate-prompt"


def test_switching_the_resolver_off_pauses_instead_of_guessing(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(catalog, ["Annuler", "Confirmer", "Confirmer l'enregistrement"], enabled=False).resolve(image)
    assert decision.decision == "pause" and "switched off" in decision.reason


def test_a_refused_declaration_raises_before_anything_is_read(catalog):
    image, _ = synthetic_dialog(2)
    ocr = ScriptedOcr(["Yes", "No", "User Account Control"])
    r = DialogResolver(catalog, DialogClassifier(catalog, ocr))
    with pytest.raises(InvalidInput) as err:
        r.resolve(image, declared_modals=[DeclaredModal(dialog_id="easily-clinical-warning", policy="skip")])
    assert err.value.details["field"] == "declared_modals[0].policy"
    assert ocr.calls == 0


@pytest.mark.parametrize(
    ("title", "process", "expected"),
    [
        ("User Account Control", None, "windows-uac"),
        ("Contrôle de compte d’utilisateur", None, "windows-uac"),
        ("Mise à jour", "consent.exe", "windows-uac"),
        ("Bloc-notes", None, "notepad-save-changes"),
        ("LabConnect.exe - Application Error", None, "app-error"),
        ("medidossier.ch-valmont.fr wants to", None, "browser-perm-microphone"),
        ("Windows Security", "CredentialUIBroker.exe", "windows-hello"),
        ("Totally new window", None, "unknown"),
        ("Bloc-notes", "notepad.exe", "notepad-save-changes"),
        (None, "consent.exe", "windows-uac"),
        (None, "C:\\Windows\\System32\\smartscreen.exe", "windows-smartscreen"),
        # an application or browser process alone names no dialog: it hosts windows of every kind
        (None, "notepad.exe", "unknown"),
        (None, "msedge.exe", "unknown"),
        ("MédiDossier - Dossier patient - Microsoft Edge", "msedge.exe", "unknown"),
        ("Document1 - Word", "WINWORD.EXE", "unknown"),
        (None, "explorer.exe", "unknown"),
    ],
)
def test_the_title_fast_path(catalog, title, process, expected):
    found = DialogClassifier(catalog, ScriptedOcr()).classify_title(title, process)
    assert found.dialog_id == expected


def test_a_business_modal_in_the_browser_is_not_taken_for_a_browser_update(catalog):
    # integration: the app's own save confirmation, reported with the browser's window title and process
    image, buttons = synthetic_dialog(2)
    decision = resolver(
        catalog, ["Annuler", "Confirmer", "Confirmer l'enregistrement", "Confirmez-vous l'enregistrement ?"]
    ).resolve(image, window_title="MédiDossier - Dossier patient - Microsoft Edge", process="msedge.exe")
    assert decision.dialog_id == "easily-save-confirm" and decision.decision == "auto", decision.reason
    x, y, w, h = buttons[1]
    assert (
        decision.button.label == "Confirmer"
        and x <= decision.click_at[0] <= x + w
        and y <= decision.click_at[1] <= y + h
    )


def test_a_browser_window_without_a_readable_dialog_is_never_skipped_as_an_update(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(catalog, ["OK", "Annuler", "Attention", "Valeur hors norme"]).resolve(
        image, window_title="MédiDossier - Microsoft Edge", process="msedge.exe"
    )
    assert decision.dialog_id != "edge-update" and decision.decision == "pause"


def test_a_process_hosting_only_system_dialogs_keeps_an_answerable_dialog_from_being_clicked(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(catalog, SAVE_CONFIRM).resolve(image, process="explorer.exe", windows=[EASILY])
    # Easily's prompt is drawn by its browser: a window explorer.exe runs is not it (the generic kind, paused)
    assert decision.dialog_id == "app-save-changes" and decision.decision == "pause"
    assert any("run by explorer.exe" in note for note in decision.classification.notes)


def test_a_skip_on_which_title_and_screenshot_disagree_pauses(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(
        catalog, ["Annuler", "Confirmer", "Confirmer l'enregistrement", "Confirmez-vous l'enregistrement ?"]
    ).resolve(image, window_title="Update Microsoft Edge")
    assert decision.decision == "pause"


def test_an_unknown_box_without_buttons_is_reported_with_a_low_confidence(catalog):
    classifier = DialogClassifier(catalog, ScriptedOcr())
    with_buttons = classifier.match((10, 10, 300, 120), [ReadButton("OK", (200, 90, 60, 24))], ["COMPTE-RENDU"])
    without = classifier.match((10, 10, 300, 120), [], ["COMPTE-RENDU", "Radiographie thoracique de face"])
    assert with_buttons.dialog_id == without.dialog_id == "unknown"
    assert without.confidence <= 0.5 < with_buttons.confidence


# --- an application's own answers only inside that application ------------------------------------------
OTHER_SAVE_PROMPT = ["Enregistrer", "Ne pas enregistrer", "Annuler", "Enregistrer les modifications ?"]


@pytest.mark.parametrize(
    "windows",
    [
        [],
        [ReportedWindow("rapport.odt - LibreOffice Writer", "soffice.bin")],
        [ReportedWindow("Sans titre 1 - gedit", "gedit")],
        [ReportedWindow("Easily — Dossier patient - Microsoft Edge", None)],  # a title without its process
        [ReportedWindow(None, "msedge.exe")],  # a process without its title
    ],
)
def test_another_applications_save_prompt_is_never_the_easily_save_confirmation(catalog, windows):
    image, _ = synthetic_dialog(3)
    decision = resolver(catalog, OTHER_SAVE_PROMPT).resolve(image, windows=windows)
    assert decision.dialog_id == "app-save-changes" and decision.decision == "pause", decision.reason


def test_easilys_confirmation_outside_a_confirmed_easily_pauses_as_the_generic_kind(catalog):
    image, _ = synthetic_dialog(2)
    decision = resolver(catalog, SAVE_CONFIRM).resolve(image, window_title="Bloc-notes", process="notepad.exe")
    assert decision.decision == "pause" and decision.dialog_id == "app-save-changes"
    assert decision.classification.app_confirmed_by == "none"
    assert any("easily-save-confirm" in note for note in decision.classification.notes)


def test_a_declared_auto_of_an_applications_entry_needs_that_application(catalog):
    image, _ = synthetic_dialog(3)
    texts = ["Enregistrer", "Abandonner", "Annuler", "Modifications non enregistrées", "Elles seront perdues."]
    declared = [DeclaredModal(dialog_id="easily-unsaved-changes", policy="auto", button="save")]
    outside = resolver(catalog, texts).resolve(image, declared_modals=declared)
    assert outside.decision == "pause" and "easily" in outside.reason
    inside = resolver(catalog, texts).resolve(image, declared_modals=declared, windows=[EASILY])
    assert inside.decision == "auto" and inside.dialog_id == "easily-unsaved-changes", inside.reason
