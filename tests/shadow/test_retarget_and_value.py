"""Corrections that change what is replayed: another element of the step's screenshot (by its text or
by a point on it), and the value a step types, chooses or leaves ticked."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.shadow.service import ShadowService
from tests.screens import ASSETS
from tests.shadow.conftest import ev, play


def tab_session(service: ShadowService) -> tuple[str, dict[str, Any]]:
    sid, _ = play(service, "open_record_imagerie")
    step = service.understanding(sid)["steps"][-1]
    assert step["action_type"] == "switch_tab" and step["target"]["label"] == "Imagerie"
    assert step["screenshot"].startswith("rpa://screenshots/")
    return sid, step


def label_centre(label: str) -> tuple[int, int]:
    x, y, w, h = ASSETS.frame("dossier").tab(label).label_bbox
    return x + w // 2, y + h // 2


def test_a_step_retargeted_by_its_text_acts_on_that_element_where_it_stood(make_service, shared_ocr) -> None:
    service = make_service(ocr=shared_ocr)
    sid, before = tab_session(service)
    done = service.feedback(sid, "retarget", step_index=before["index"], target_label="Biologie")
    assert done["status"] == "feedback_applied", done.get("reason")
    step = done["steps"][-1]
    target = step["target"]
    assert (target["label"], target["by_text"], step["status"]) == ("Biologie", "Biologie", "corrected")
    assert "Biologie" in step["intent"] and "Imagerie" not in step["intent"]
    x, y = label_centre("Biologie")
    bx, by, bw, bh = target["bbox"]
    assert bx <= x <= bx + bw and by <= y <= by + bh, target["bbox"]
    assert target["x_pct"] == pytest.approx(x / 1920, abs=0.02) and "element" not in target
    assert "anchor_ref" not in target  # the crop of the demonstrated element no longer names the target
    ir = service.build(sid, "Biologie")["workflow_ir"]
    assert ir["steps"][-1]["target"]["label"] == "Biologie"


def test_a_step_retargeted_by_a_point_takes_the_text_there(make_service, shared_ocr) -> None:
    service = make_service(ocr=shared_ocr)
    sid, before = tab_session(service)
    step = service.feedback(sid, "retarget", step_index=before["index"], target_point=label_centre("Prescriptions"))
    assert step["status"] == "feedback_applied", step.get("reason")
    assert step["steps"][-1]["target"]["label"] == "Prescriptions"


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"target_label": "Radiothérapie"}, "not on step"),  # not on the screenshot: never guessed
        ({"target_point": (960, 700)}, "no text within"),  # an empty area of the page
        ({"target_point": (5000, 10)}, "outside step"),
        ({}, "needs target_label"),
    ],
)
def test_a_retarget_that_cannot_be_found_is_refused_and_changes_nothing(
    make_service, shared_ocr, args: dict[str, Any], reason: str
) -> None:
    service = make_service(ocr=shared_ocr)
    sid, before = tab_session(service)
    refused = service.feedback(sid, "retarget", step_index=before["index"], **args)
    assert refused["status"] == "feedback_rejected" and reason in refused["reason"], refused["reason"]
    assert refused["steps"][-1]["target"] == before["target"]


@pytest.fixture
def form(shadow: ShadowService) -> ShadowService:
    shadow.ingest(
        [
            ev("click", 1.0, x=40, y=40, element={"name": "Nom du patient", "role": "Edit"}),
            ev("type", 2.0, text="DURAND"),
            ev("key", 3.0, keys="tab"),
            ev("click", 4.0, x=80, y=80, element={"name": "Urgent", "role": "check box"}, extras={"checked": True}),
            ev("click", 5.0, x=90, y=90, element={"name": "Enregistrer", "role": "push button"}),
        ]
    )
    return shadow


def kinds(shadow: ShadowService) -> list[str]:
    return [s["action_type"] for s in shadow.understanding("s1")["steps"]]


def test_the_person_sets_what_a_typing_step_types(form: ShadowService) -> None:
    typing = kinds(form).index("type_text") + 1
    step = form.feedback("s1", "set_value", step_index=typing, value="DUPONT")["steps"][typing - 1]
    assert step["params"]["text"] == "DUPONT" and step["value"] == "DUPONT" and step["status"] == "corrected"
    assert "DURAND" not in step["intent"]
    ir = form.build("s1", "Fiche")["workflow_ir"]
    assert ir["steps"][typing - 1]["params"]["text"] == "DUPONT"


def test_the_person_sets_the_state_a_check_box_step_leaves(form: ShadowService) -> None:
    if "set_checked" not in kinds(form):
        pytest.fail(f"the check box click was not learned as set_checked: {kinds(form)}")
    box = kinds(form).index("set_checked") + 1
    step = form.feedback("s1", "set_value", step_index=box, checked=False)["steps"][box - 1]
    assert step["params"]["checked"] is False
    assert {"kind": "checked", "text": "unchecked"} in step["post_conditions"]


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"value": "x", "checked": True}, "one of value"),
        ({}, "one of value"),
        ({"value": "   "}, "it is empty"),
        ({"checked": True, "on": "type_text"}, "not a check box"),
        ({"value": "x", "on": "click_anchor"}, "only a typing"),
    ],
)
def test_a_bad_set_value_is_refused_and_changes_nothing(form: ShadowService, args: dict[str, Any], reason: str) -> None:
    on = args.pop("on", "type_text")
    index = kinds(form).index(on) + 1
    before = form.understanding("s1")["steps"]
    refused = form.feedback("s1", "set_value", step_index=index, **args)
    assert refused["status"] == "feedback_rejected" and reason in refused["reason"], refused["reason"]
    assert refused["steps"] == before


def test_a_parameterised_value_is_not_overwritten(form: ShadowService) -> None:
    typing = kinds(form).index("type_text") + 1
    assert form.feedback("s1", "parameterize", step_index=typing, name="patient")["status"] == "feedback_applied"
    refused = form.feedback("s1", "set_value", step_index=typing, value="DUPONT")
    assert refused["status"] == "feedback_rejected" and "{{patient}}" in refused["reason"]
