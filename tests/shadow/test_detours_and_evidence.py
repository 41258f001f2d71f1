"""Detours are flagged for removal with their reason; what a step left behind is kept as its expected evidence."""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np

from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev

RECORD = "MédiDossier - DURAND Alice - Observations - Microsoft Edge"
MAIL = "Boîte de réception - Outlook"
EDGE = {"window_title": RECORD, "app": "msedge.exe", "locale": "fr-FR"}
OUTLOOK = {"window_title": MAIL, "app": "OUTLOOK.EXE"}
SAVE = {"name": "Enregistrer", "role": "Button", "automation_id": "save-note"}
TAB = {"name": "Imagerie", "role": "TabItem", "automation_id": "tab-2"}


def frame(*, toast: str | None = None, shade: int = 245) -> str:
    image = np.full((540, 960, 3), shade, np.uint8)
    cv2.rectangle(image, (280, 140), (740, 350), (255, 255, 255), -1)
    if toast:
        cv2.rectangle(image, (690, 450), (940, 500), (16, 124, 16), -1)
        cv2.putText(image, toast, (700, 480), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1)
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def mail_trip(t: float, **back: Any) -> list[dict[str, Any]]:
    return [
        ev("key", t, keys="alt+tab", **EDGE),
        ev("focus", t + 0.4, **OUTLOOK),
        ev("click", t + 3, x=200, y=190, element={"name": "Réunion de service", "role": "ListItem"}, **OUTLOOK),
        ev("key", t + 9, keys="alt+tab", **OUTLOOK),
        ev("focus", t + 9.4, **(EDGE | back)),
    ]


def test_a_trip_to_the_mail_and_back_is_one_step_suggested_for_removal_with_its_reason(shadow: ShadowService) -> None:
    shadow.ingest([ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *mail_trip(5.0)])
    shadow.ingest([ev("click", 20.0, x=1390, y=755, element=SAVE, **EDGE)])
    steps = shadow.understanding("s1")["steps"]
    assert [(s["intent"], s["events"]) for s in steps] == [
        ("Aller sur l'onglet 'Imagerie'", [0]),
        ("Détour par Outlook", [1, 2, 3, 4, 5]),
        ("Enregistrer", [6]),
    ]
    detour = steps[1]
    assert detour["action_type"] == "focus_window" and detour["target"]["window_title"] == RECORD
    assert detour["shape"] == "detour"
    (suggestion,) = detour["suggestions"]
    assert suggestion["action"] == "undo" and suggestion["kind"] == "detour"
    assert "Boîte de réception - Outlook" in suggestion["reason"] and "sans rien y changer" in suggestion["reason"]
    review = shadow.understanding("s1")["review"]
    assert review["suggestions"][0] == {"step_index": 2, **suggestion}


def test_a_trip_that_typed_something_is_not_a_detour(shadow: ShadowService) -> None:
    trip = mail_trip(5.0)
    trip.insert(3, ev("type", 6.0, text="OK, merci", element={"name": "Réponse", "role": "Edit"}, **OUTLOOK))
    shadow.ingest([ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *trip])
    steps = shadow.understanding("s1")["steps"]
    assert all(s["shape"] != "detour" for s in steps) and len(steps) > 2


def test_a_trip_that_comes_back_to_another_screen_is_not_a_detour(shadow: ShadowService) -> None:
    back = {"window_title": "MédiDossier - DURAND Alice - Synthèse - Microsoft Edge"}
    shadow.ingest([ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *mail_trip(5.0, **back)])
    assert all(s["shape"] != "detour" for s in shadow.understanding("s1")["steps"])


def test_a_detour_whose_screen_changed_meanwhile_is_not_suggested_for_removal(shadow: ShadowService) -> None:
    trip = mail_trip(5.0)
    trip[0]["screenshot"] = frame(shade=245)
    shadow.ingest([ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *trip])
    shadow.ingest([ev("click", 20.0, x=1390, y=755, element=SAVE, screenshot=frame(shade=200), **EDGE)])
    detour = shadow.understanding("s1")["steps"][1]
    assert detour["shape"] == "detour" and detour["suggestions"] == []


def test_a_detour_back_to_an_unchanged_screen_keeps_its_suggestion(shadow: ShadowService) -> None:
    trip = mail_trip(5.0)
    trip[0]["screenshot"] = frame()
    shadow.ingest([ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *trip])
    shadow.ingest([ev("click", 20.0, x=1390, y=755, element=SAVE, screenshot=frame(), **EDGE)])
    assert shadow.understanding("s1")["steps"][1]["suggestions"][0]["kind"] == "detour"


def test_a_toast_read_after_a_save_is_the_steps_expected_text(make_service) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[OcrLine("Observation enregistrée", (10, 20, 200, 24), 0.97)]))
    shadow.ingest(
        [
            ev("click", 1.0, x=1390, y=755, element=SAVE, screenshot=frame(), **EDGE),
            ev("screenshot", 2.5, screenshot=frame(toast="Observation enregistree"), **EDGE),
        ]
    )
    step = shadow.understanding("s1")["steps"][0]
    assert step["post_conditions"] == [{"kind": "toast", "text": "Observation enregistrée"}]
    assert step["expected"] == {"text": "Observation enregistrée"}
    ir = shadow.build("s1", "Enregistrer une observation")["workflow_ir"]
    assert ir["steps"][0]["expected"] == {"text": "Observation enregistrée"}


def test_an_error_message_is_not_kept_as_expected_evidence(make_service) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[OcrLine("Erreur : champ obligatoire", (10, 20, 200, 24), 0.97)]))
    shadow.ingest(
        [
            ev("click", 1.0, x=1390, y=755, element=SAVE, screenshot=frame(), **EDGE),
            ev("screenshot", 2.5, screenshot=frame(toast="Erreur"), **EDGE),
        ]
    )
    assert shadow.understanding("s1")["steps"][0]["expected"] == {}


def test_a_notification_the_agent_reports_is_kept(shadow: ShadowService) -> None:
    toast = {"name": "Rendez-vous créé", "role": "ToolTip"}
    shadow.ingest(
        [
            ev("click", 1.0, x=1390, y=755, element={"name": "Valider", "role": "Button"}, **EDGE),
            ev("focus", 1.8, element=toast, **EDGE),  # the agent saw a notification appear
        ]
    )
    assert shadow.understanding("s1")["steps"][0]["expected"] == {"text": "Rendez-vous créé"}


def test_a_dialog_the_step_closed_and_the_title_after_are_kept(shadow: ShadowService) -> None:
    dialog = "Nouveau rendez-vous - MédiDossier - Microsoft Edge"
    shadow.ingest(
        [
            ev("click", 1.0, x=1600, y=135, element={"name": "Nouveau rendez-vous", "role": "Button"}, **EDGE),
            ev("focus", 1.5, window_title=dialog, app="msedge.exe"),
            ev("click", 4.0, x=1140, y=605, element={"name": "Valider", "role": "Button"}, window_title=dialog),
            ev("focus", 4.5, window_title=RECORD, app="msedge.exe"),
        ]
    )
    steps = shadow.understanding("s1")["steps"]
    assert steps[0]["post_conditions"] == [{"kind": "window_title", "text": dialog}]
    assert steps[1]["post_conditions"] == [
        {"kind": "dialog_closed", "text": dialog},
        {"kind": "window_title", "text": RECORD},
    ]
    assert steps[1]["expected"] == {"window_title": RECORD}


def test_typing_that_only_marks_the_file_unsaved_is_no_evidence(shadow: ShadowService) -> None:
    notepad = {"app": "notepad.exe"}
    shadow.ingest(
        [
            ev("type", 1.0, text="abc", window_title="cr.txt - Bloc-notes", **notepad),
            ev("focus", 1.2, window_title="*cr.txt - Bloc-notes", **notepad),
            ev("key", 3.0, keys="ctrl+s", window_title="*cr.txt - Bloc-notes", **notepad),
            ev("focus", 3.3, window_title="cr.txt - Bloc-notes", **notepad),
        ]
    )
    typing, save = shadow.understanding("s1")["steps"]
    assert typing["expected"] == {}
    assert save["expected"] == {"window_title": "cr.txt - Bloc-notes"}


def test_a_window_change_reported_just_before_the_click_that_made_it_is_that_clicks_effect(
    shadow: ShadowService,
) -> None:
    synthese = "Easily — DURAND Alice — Synthèse – Chromium"
    observations = "Easily — DURAND Alice — Observations – Chromium"
    tab = {"name": "Observations", "role": "TabItem"}
    at = {"app": "chromium", "locale": "fr"}
    shadow.ingest(
        [
            ev("focus", 1.0, window_title=synthese, **at),
            ev("focus", 5.0, window_title=observations, **at),  # sent first: the click was still being looked up
            ev("click", 5.3, x=300, y=250, element=tab, window_title=synthese, **at),
            ev("click", 20.0, x=300, y=250, element={"name": "Synthèse", "role": "TabItem"}, window_title=observations),
            ev("focus", 20.5, window_title=synthese, **at),
        ]
    )
    steps = shadow.understanding("s1")["steps"]
    assert [(s["intent"], s["events"]) for s in steps] == [
        (f"Passer à la fenêtre '{synthese}'", [0]),
        ("Aller sur l'onglet 'Observations'", [1, 2]),
        ("Aller sur l'onglet 'Synthèse'", [3, 4]),
    ]
    assert steps[1]["window_after"] == observations and all(s["shape"] != "detour" for s in steps)


def test_alt_tab_to_another_window_of_the_same_application_and_back_is_a_detour(shadow: ShadowService) -> None:
    search = "Easily — Recherche patient – Chromium"
    mail = "Messagerie - Boîte de réception – Chromium"
    at = {"app": "chromium", "locale": "fr"}
    shadow.ingest(
        [
            ev("focus", 1.0, window_title=search, **at),
            ev("key", 3.0, keys="alt+tab", window_title=search, **at),
            ev("focus", 3.5, window_title=mail, **at),
            ev(
                "click", 5.0, x=200, y=150, element={"name": "Planning des gardes", "role": "Button"}, window_title=mail
            ),
            ev("key", 9.0, keys="alt+tab", window_title=mail, **at),
            ev("focus", 9.4, window_title=search, **at),
            ev("click", 12.0, x=300, y=300, element={"name": "Rechercher", "role": "Button"}, window_title=search),
        ]
    )
    steps = shadow.understanding("s1")["steps"]
    assert [s["shape"] for s in steps] == ["plain", "detour", "plain"]
    assert (
        steps[1]["events"] == [1, 2, 3, 4, 5] and steps[1]["intent"] == "Détour par 'Messagerie - Boîte de réception'"
    )


def test_typing_that_goes_on_in_the_same_field_after_a_detour_stays_one_step(shadow: ShadowService) -> None:
    note = {"name": "Observation", "role": "Edit", "automation_id": "note"}
    shadow.ingest(
        [
            ev("click", 1.0, x=900, y=400, element=note, **EDGE),
            ev("type", 2.0, text="Pas de fièvre.", element=note, **EDGE),
            ev("key", 3.0, keys="Enter", element=note, **EDGE),
            *mail_trip(4.0),
            ev("type", 16.0, text="Sortie demain.", element=note, **EDGE),
            ev("click", 20.0, x=1390, y=755, element=SAVE, **EDGE),
        ]
    )
    steps = shadow.understanding("s1")["steps"]
    assert [(s["intent"], s["events"]) for s in steps] == [
        ("Saisir l'observation", [0, 1, 2, 8]),
        ("Détour par Outlook", [3, 4, 5, 6, 7]),
        ("Enregistrer", [9]),
    ]
    assert steps[0]["params"] == {"text": "Pas de fièvre.\nSortie demain."}


def test_a_click_on_an_unnamed_spot_that_changed_nothing_is_suggested_for_removal(make_service: Any) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[]))  # no text around the click either
    shadow.ingest(
        [
            ev("click", 1.0, x=930, y=520, screenshot=frame(), **EDGE),  # nothing under it, nothing named
            ev("click", 3.0, x=1390, y=755, element=SAVE, screenshot=frame(), **EDGE),
        ]
    )
    stray, save = shadow.understanding("s1")["steps"]
    assert [(g["action"], g["kind"]) for g in stray["suggestions"]] == [("undo", "stray")]
    assert not [g for g in save["suggestions"] if g["action"] == "undo"]


def test_a_click_on_an_unnamed_spot_that_changed_the_screen_is_kept_without_suggestion(make_service: Any) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[]))
    shadow.ingest(
        [
            ev("click", 1.0, x=930, y=520, screenshot=frame(), **EDGE),
            ev("click", 3.0, x=1390, y=755, element=SAVE, screenshot=frame(shade=200), **EDGE),
        ]
    )
    assert shadow.understanding("s1")["steps"][0]["suggestions"] == []
