"""What a step showed becomes its post-condition; a record chosen keeps its identity; both follow the parameters."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.replay.service.planning import Planning
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.validation.text import text_contains
from tests.shadow.conftest import ev

AT = {"window_title": "MédiDossier - Recherche patient - Microsoft Edge", "app": "msedge.exe", "locale": "fr-FR"}
FIELD = {"name": "Rechercher un patient", "role": "Edit", "automation_id": "patient-search"}
ROW = {"name": "FAURE Céline 02/11/1962", "role": "DataItem", "automation_id": "row-0"}
RECORD = "Admission — FAURE Céline - MédiDossier - Microsoft Edge"
EDGE = {"window_title": RECORD, "app": "msedge.exe", "locale": "fr-FR"}
VALIDER = {"name": "Valider", "role": "Button"}


def admission(shadow: ShadowService) -> list[dict[str, Any]]:
    shadow.ingest(
        [
            ev("click", 1.0, x=900, y=225, element=FIELD, **AT),
            ev("type", 2.0, text="FAURE", element=FIELD, **AT),
            ev("key", 3.0, keys="Enter", element=FIELD, **AT),
            ev("double_click", 5.0, x=700, y=320, element=ROW, **AT),
            ev("focus", 5.5, window_title=RECORD, app="msedge.exe"),
            ev("click", 8.0, x=1140, y=605, element=VALIDER, **EDGE),
            ev("focus", 8.4, element={"name": "Admission de FAURE enregistrée", "role": "ToolTip"}, **EDGE),
        ]
    )
    return list(shadow.understanding("s1")["steps"])


def test_the_title_and_the_banner_a_step_led_to_are_its_outcome(shadow: ShadowService) -> None:
    _search, record, valider = admission(shadow)
    assert record["expected_outcome"] == {"kind": "window_title", "text": RECORD, "source": "demonstration"}
    assert valider["expected_outcome"] == {
        "kind": "message",
        "text": "Admission de FAURE enregistrée",
        "source": "demonstration",
    }


def test_a_row_chosen_keeps_the_identity_the_person_saw(shadow: ShadowService) -> None:
    search, record, valider = admission(shadow)
    assert record["identity"] == "FAURE Céline 02/11/1962"
    assert search["identity"] is None and valider["identity"] is None


def test_the_patient_made_a_parameter_is_templated_in_titles_outcomes_and_identity(shadow: ShadowService) -> None:
    admission(shadow)
    shadow.feedback("s1", "parameterize", step_index=1, name="patient")
    ir = shadow.build("s1", "Admission")["workflow_ir"]
    record, valider = ir["steps"][1], ir["steps"][2]
    assert record["expected_outcome"]["text"] == "Admission — {{patient}} {{*}} - MédiDossier - Microsoft Edge"
    assert record["identity"] == "{{patient}} {{*}} 02/11/1962"
    assert record["target"]["label"] == record["target"]["by_text"] == "{{patient}}"
    assert not {"bbox", "anchor_ref", "x_pct", "y_pct"} & set(record["target"])
    assert valider["expected_outcome"]["text"] == "Admission de {{patient}} enregistrée"
    assert valider["expected_window_before"] == "Admission — {{patient}} {{*}} - MédiDossier - Microsoft Edge"


def test_a_run_for_another_patient_expects_that_patient(shadow: ShadowService, tmp_path: Any) -> None:
    admission(shadow)
    shadow.feedback("s1", "parameterize", step_index=1, name="patient")
    ir = shadow.build("s1", "Admission")["workflow_ir"]
    planned = Planning.plan(_planner(), ir["steps"], {"patient": "MOREL"}, ir["parameters"])
    outcome = planned[1]["expected"]["outcome"]["text"]
    assert text_contains("Admission — MOREL Jean - MédiDossier - Microsoft Edge", outcome)
    assert not text_contains(RECORD, outcome)  # the demonstrated patient is not the run's
    assert planned[1]["target"]["identity_values"] == ["MOREL"]
    assert planned[2]["expected"]["outcome"]["text"] == "Admission de MOREL enregistrée"


def test_the_person_sets_or_clears_a_steps_outcome(shadow: ShadowService) -> None:
    admission(shadow)
    done = shadow.feedback("s1", "set_outcome", step_index=3, outcome_text="Patient admis", outcome_kind="message")
    assert done["status"] == "feedback_applied"
    assert done["steps"][2]["expected_outcome"] == {"kind": "message", "text": "Patient admis", "source": "person"}
    cleared = shadow.feedback("s1", "clear_outcome", step_index=2)["steps"][1]
    assert cleared["expected_outcome"] is None
    ir = shadow.build("s1", "Admission")["workflow_ir"]
    assert ir["steps"][1]["expected_outcome"] is None and ir["steps"][2]["expected_outcome"]["source"] == "person"


@pytest.mark.parametrize(
    ("action", "args", "reason"),
    [
        ("set_outcome", {"step_index": 1}, "needs outcome_text"),
        ("set_outcome", {"outcome_text": "x"}, "needs step_index"),
        ("set_outcome", {"step_index": 1, "outcome_text": "x", "outcome_kind": "toast"}, "unknown outcome_kind"),
        ("clear_outcome", {"step_index": 1, "outcome_text": "x"}, "takes only step_index"),
        ("validate", {"outcome_text": "x"}, "only used with action=set_outcome"),
    ],
)
def test_a_bad_outcome_feedback_is_rejected_and_changes_nothing(
    shadow: ShadowService, action: str, args: dict[str, Any], reason: str
) -> None:
    before = admission(shadow)
    rejected = shadow.feedback("s1", action, **args)
    assert rejected["status"] == "feedback_rejected" and reason in rejected["reason"]
    assert rejected["steps"] == before


def _planner() -> Any:
    from types import SimpleNamespace

    from rpa_mcp.replay import model as m
    from rpa_mcp.settings import Settings

    return SimpleNamespace(config=m.ReplayConfig.from_settings(Settings()))


def _png(panel: bool) -> str:
    import base64

    import cv2
    import numpy as np

    image = np.full((540, 960, 3), 235, np.uint8)
    cv2.rectangle(image, (0, 0), (960, 40), (90, 60, 30), -1)
    if panel:  # the application's own form, opened over the page
        cv2.rectangle(image, (280, 100), (740, 420), (255, 255, 255), -1)
        cv2.rectangle(image, (280, 100), (740, 420), (80, 80, 80), 2)
        cv2.putText(image, "Nouvelle dispensation", (300, 140), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (20, 20, 20), 2)
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def test_a_form_the_application_opened_in_its_window_is_the_steps_outcome(make_service: Any) -> None:
    from rpa_mcp.testing import FakeOcr
    from rpa_mcp.vision.ocr import OcrLine

    shadow = make_service(ocr=FakeOcr(lines=[OcrLine("Nouvelle dispensation", (16, 20, 260, 26), 0.97)]))
    button = {"name": "Dispenser", "role": "Button"}
    shadow.ingest(
        [
            ev("click", 1.0, x=100, y=300, element=button, screenshot=_png(False), **EDGE),
            ev("screenshot", 2.0, screenshot=_png(True), **EDGE),
        ]
    )
    step = shadow.understanding("s1")["steps"][0]
    assert {"kind": "dialog_opened", "text": "Nouvelle dispensation"} in step["post_conditions"]
    assert step["expected_outcome"] == {"kind": "dialog", "text": "Nouvelle dispensation", "source": "demonstration"}


@pytest.mark.parametrize("label", ["Confirmer le RDV", "Save Changes", "OK", "Imprimer le PDF"])
def test_a_button_s_capitalised_words_are_an_action_not_a_record(label: str) -> None:
    from rpa_mcp.shadow.postconditions import identity_of

    button = {"label": label, "element": {"name": label, "role": "Button"}}
    assert identity_of("click_anchor", button, None) is None
    # a button that a parameter chooses is a record still
    assert identity_of("click_anchor", button, {"name": "patient"}) == label


def test_a_patient_named_on_a_row_or_by_the_screen_alone_is_still_a_record() -> None:
    from rpa_mcp.shadow.postconditions import identity_of

    assert identity_of("click_anchor", {"label": "LEGRAND Aurélie"}, None) == "LEGRAND Aurélie"
    row = {"label": "Aurélie", "element": {"name": "LEGRAND Aurélie 12/03/1950", "role": "DataItem"}}
    assert identity_of("click_anchor", row, None) == "LEGRAND Aurélie 12/03/1950"
