"""Typed values that look like data are suggested as parameters; parameterize makes them {{name}} in the workflow."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.shadow.parameters import classify, date_pattern, suggest_name
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev

AT = {"window_title": "MédiDossier - Recherche patient - Microsoft Edge", "app": "msedge.exe", "locale": "fr-FR"}
FIELD = {"name": "Rechercher un patient", "role": "Edit", "automation_id": "patient-search"}
ROW = {"name": "DURAND Alice", "role": "DataItem", "automation_id": "row-0"}
RECORD = "MédiDossier - DURAND Alice - Synthèse - Microsoft Edge"


@pytest.mark.parametrize(
    ("value", "label", "kind"),
    [
        ("DURAND", None, "name"),
        ("DURAND Alice", None, "name"),
        ("Jean-Pierre Martin", None, "name"),
        ("alice", "Prénom", "name"),
        ("13/03/2025", None, "date"),
        ("2025-03-13", None, "date"),
        ("100234", None, "identifier"),
        ("IPP-100234", None, "identifier"),
        ("42", None, "number"),
        ("3,5", None, "number"),
        ("alice", "Commentaire", None),
        ("Patient vu ce jour, pas de plainte.", None, None),
        ("ligne 1\nligne 2", None, None),
    ],
)
def test_values_that_look_like_data_are_classified(value: str, label: str | None, kind: str | None) -> None:
    assert classify(value, label) == kind


def test_a_parameter_is_named_from_its_field() -> None:
    assert suggest_name("Rechercher un patient", "name", "fr") == "patient"
    assert suggest_name("Date de naissance", "date", "fr") == "date_de_naissance"
    assert suggest_name(None, "identifier", "fr") == "identifiant"
    assert suggest_name("Search patient", "name", "en", taken=["patient"]) == "patient_2"
    assert date_pattern("13/03/2025") == r"^\d{1,2}/\d{1,2}/\d{4}$"


def search_and_open(shadow: ShadowService) -> list[dict[str, Any]]:
    shadow.ingest(
        [
            ev("click", 1.0, x=900, y=225, element=FIELD, **AT),
            ev("type", 2.0, text="DURAND", element=FIELD, **AT),
            ev("key", 3.0, keys="Enter", element=FIELD, **AT),
            ev("double_click", 5.0, x=700, y=320, element=ROW, **AT),
            ev("focus", 5.5, window_title=RECORD, app="msedge.exe"),
        ]
    )
    return list(shadow.understanding("s1")["steps"])


def test_the_patients_name_is_suggested_as_a_parameter(shadow: ShadowService) -> None:
    search, record = search_and_open(shadow)
    assert search["suggestions"] == [
        {
            "action": "parameterize",
            "kind": "name",
            "name": "patient",
            "type": "string",
            "example": "DURAND",
            "reason": "'DURAND' ressemble à un nom : il changera sans doute d'une fois sur l'autre",
        }
    ]
    assert record["suggestions"][0]["kind"] == "record" and record["suggestions"][0]["name"] == "dossier"


def test_parameterize_makes_the_step_type_the_placeholder_and_the_ir_declare_it(shadow: ShadowService) -> None:
    search_and_open(shadow)
    done = shadow.feedback("s1", "parameterize", step_index=1, name="patient", description="Nom du patient")
    assert done["status"] == "feedback_applied"
    step = done["steps"][0]
    assert step["params"] == {"text": "{{patient}}", "submit_key": "enter"}
    assert step["intent"] == "Rechercher le patient '{{patient}}'"
    assert step["parameter"] == {
        "name": "patient",
        "type": "string",
        "example": "DURAND",
        "description": "Nom du patient",
    }
    assert step["suggestions"] == []
    ir = shadow.build("s1", "Ouvrir un dossier")["workflow_ir"]
    assert ir["parameters"] == [
        {"name": "patient", "type": "string", "example": "DURAND", "description": "Nom du patient", "required": True}
    ]
    assert ir["steps"][0]["params"]["text"] == "{{patient}}"


def test_a_row_chosen_by_its_label_becomes_a_parameter_without_the_demonstrations_pixels(
    shadow: ShadowService,
) -> None:
    search_and_open(shadow)
    step = shadow.feedback("s1", "parameterize", step_index=2, name="dossier")["steps"][1]
    target = step["target"]
    assert target["by_text"] == target["label"] == target["element"]["name"] == "{{dossier}}"
    assert not {"bbox", "anchor_ref", "x_pct", "y_pct"} & set(target)
    assert step["intent"] == "Ouvrir le dossier '{{dossier}}'"


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"step_index": 1, "name": "Patient!"}, "is not valid"),
        ({"step_index": 1, "name": "machine_id"}, "is reserved"),
        ({"step_index": 1, "name": "secret_x"}, "is reserved"),
        ({"step_index": 1}, "parameterize needs name"),
        ({"name": "patient"}, "needs step_index"),
        ({"step_index": 9, "name": "patient"}, "does not exist"),
    ],
)
def test_a_bad_parameterize_is_rejected_and_changes_nothing(
    shadow: ShadowService, args: dict[str, Any], reason: str
) -> None:
    before = search_and_open(shadow)
    rejected = shadow.feedback("s1", "parameterize", **args)
    assert rejected["status"] == "feedback_rejected" and reason in rejected["reason"]
    assert shadow.understanding("s1")["steps"] == before


def test_a_step_without_a_value_cannot_be_a_parameter(shadow: ShadowService) -> None:
    shadow.ingest([ev("key", 1.0, keys="ctrl+s", **AT)])
    rejected = shadow.feedback("s1", "parameterize", step_index=1, name="x")
    assert rejected["status"] == "feedback_rejected" and "no value" in rejected["reason"]


def test_one_name_stands_for_one_value(shadow: ShadowService) -> None:
    search_and_open(shadow)
    shadow.feedback("s1", "parameterize", step_index=1, name="patient")
    rejected = shadow.feedback("s1", "parameterize", step_index=2, name="patient")
    assert rejected["status"] == "feedback_rejected" and "already stands for 'DURAND'" in rejected["reason"]


def test_name_and_description_belong_to_parameterize_only(shadow: ShadowService) -> None:
    search_and_open(shadow)
    rejected = shadow.feedback("s1", "validate", name="patient")
    assert rejected["status"] == "feedback_rejected" and "only used with action=parameterize" in rejected["reason"]


def test_a_click_only_the_screen_named_and_the_window_title_then_names_chooses_a_record(make_service: Any) -> None:
    # No accessibility tree (a Tk grid): OCR reads "Marcel" under the click, and the window is then titled by it.
    from rpa_mcp.testing import FakeOcr
    from rpa_mcp.vision.ocr import OcrLine
    from tests.shadow.test_target_box import frame_b64

    before, after = "Pharmacie — Dispensation nominative", "Pharmacie — DUBOIS Marcel"
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Marcel", (130, 30, 60, 18), 0.97)]))
    service.ingest(
        [
            ev("screenshot", 0.5, screenshot=frame_b64(), screen_width=960, screen_height=540, window_title=before),
            ev("click", 1.0, x=400, y=300, window_title=before, locale="fr"),
            ev("click", 3.0, x=400, y=300, window_title=after, locale="fr"),
        ]
    )
    chosen, again = service.understanding("s1")["steps"]
    assert chosen["value"] == "Marcel" and again["value"] is None  # the title named it before the second click
    done = service.feedback("s1", "parameterize", step_index=1, name="prenom")
    assert done["status"] == "feedback_applied"
    assert done["steps"][0]["target"]["by_text"] == "{{prenom}}"
