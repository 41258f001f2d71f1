"""Evidence that a step may be wrong puts it below the ask-first line, whatever its kind's record.

Seen on applications the confidence table never saw: a date field named by its mask ("jj/mm/aaaa"), a
drop-down's opening click kept as a plain click (its option nowhere), a detour the server itself
suggested removing and a click on a drawn control that changed nothing, all at 0.91 or more.
"""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.shadow.calibration import ASK_BELOW
from rpa_mcp.shadow.doubts import names_nothing
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.testing import FakeOcr
from tests.shadow.conftest import ev
from tests.shadow.test_detours_and_evidence import EDGE, SAVE, TAB, frame, mail_trip

SCREEN = {"window_title": "Laboratoire - Demande d'examens", "app": "chromium", "locale": "fr-FR"}


def _asked_first(shadow: ShadowService, index: int) -> dict[str, Any]:
    understanding = shadow.understanding("s1")
    step = understanding["steps"][index]
    assert step["confidence"] < ASK_BELOW
    assert step["index"] in understanding["review"]["ask_first"]
    return step


@pytest.mark.parametrize("label", ["/", "jj/mm/aaaa", "ij/mm/aaaa", "hh:mm", "— choisir —", "-- select --", ":"])
def test_a_mask_a_placeholder_or_a_mark_names_nothing(label: str) -> None:
    assert names_nothing(label)


@pytest.mark.parametrize("label", ["Date de prélèvement", "Nom", "N° IPP", "Choisir un service", "Service"])
def test_a_real_label_names_something(label: str) -> None:
    assert not names_nothing(label)


def test_a_field_named_by_its_mask_is_asked_about_first(shadow: ShadowService) -> None:
    field = {"name": "jj/mm/aaaa", "role": "Edit"}
    shadow.ingest(
        [
            ev("click", 1.0, x=300, y=330, element=field, **SCREEN),
            ev("type", 2.0, text="05/12/2026", element=field, **SCREEN),
            ev("click", 4.0, x=300, y=400, element={"name": "Enregistrer", "role": "Button"}, **SCREEN),
        ]
    )
    step = _asked_first(shadow, 0)
    assert step["action_type"] == "type_text" and step["doubts"] == ["label_not_a_name"]
    assert shadow.understanding("s1")["steps"][1]["doubts"] == []


def test_a_drop_down_whose_option_was_not_seen_is_asked_about_first(shadow: ShadowService) -> None:
    combo = {"name": "Service", "role": "Combo Box"}
    shadow.ingest(
        [
            ev("click", 1.0, x=300, y=300, element=combo, **SCREEN),
            ev("click", 4.0, x=300, y=400, element={"name": "Enregistrer", "role": "Button"}, **SCREEN),
        ]
    )
    step = _asked_first(shadow, 0)
    assert step["action_type"] == "select_option" and not step["params"].get("option")
    assert step["doubts"] == ["control_value_not_captured"]


def test_a_detour_the_server_suggests_removing_is_asked_about_first(shadow: ShadowService) -> None:
    trip = mail_trip(5.0)
    trip[0]["screenshot"] = frame()
    shadow.ingest([ev("click", 1.0, x=900, y=205, element=TAB, **EDGE), *trip])
    shadow.ingest([ev("click", 20.0, x=1390, y=755, element=SAVE, screenshot=frame(), **EDGE)])
    step = _asked_first(shadow, 1)
    assert step["shape"] == "detour" and step["doubts"] == ["removal_suggested"]


def test_a_click_on_text_that_is_no_control_and_changed_nothing_is_asked_about_first(make_service: Any) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[]))
    drawn = {"name": "Patient à jeun", "role": "Text"}
    shadow.ingest(
        [
            ev("click", 1.0, x=930, y=520, element=drawn, screenshot=frame(), **EDGE),
            ev("click", 3.0, x=1390, y=755, element=SAVE, screenshot=frame(), **EDGE),
        ]
    )
    step = _asked_first(shadow, 0)
    assert step["doubts"] == ["click_changed_nothing"]


def test_a_click_on_text_that_changed_the_screen_keeps_its_confidence(make_service: Any) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[]))
    drawn = {"name": "Chercher", "role": "Text"}
    shadow.ingest(
        [
            ev("click", 1.0, x=930, y=520, element=drawn, screenshot=frame(), **EDGE),
            ev("click", 3.0, x=1390, y=755, element=SAVE, screenshot=frame(shade=200), **EDGE),
        ]
    )
    assert shadow.understanding("s1")["steps"][0]["doubts"] == []


def test_a_click_on_text_after_which_a_few_lines_appeared_keeps_its_confidence(make_service: Any) -> None:
    # a search button drawn as text: its results are a few lines, far less than 1 % of the screen
    shadow = make_service(ocr=FakeOcr(lines=[]))
    drawn = {"name": "Chercher", "role": "Text"}
    image = cv2.imdecode(np.frombuffer(base64.b64decode(frame()), np.uint8), cv2.IMREAD_COLOR)
    cv2.putText(image, "DUBOIS Marcel", (300, 200), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1)
    results = base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")
    shadow.ingest(
        [
            ev("click", 1.0, x=930, y=520, element=drawn, screenshot=frame(), **EDGE),
            ev("click", 3.0, x=1390, y=755, element=SAVE, screenshot=results, **EDGE),
        ]
    )
    assert shadow.understanding("s1")["steps"][0]["doubts"] == []


def test_a_check_box_whose_state_the_recorder_did_not_report_says_why_it_is_asked_first(
    shadow: ShadowService,
) -> None:
    shadow.ingest(
        [
            ev("click", 1.0, x=300, y=300, element={"name": "Urgent", "role": "check box"}, **SCREEN),
            ev("click", 4.0, x=300, y=400, element={"name": "Enregistrer", "role": "Button"}, **SCREEN),
        ]
    )
    step = _asked_first(shadow, 0)
    assert step["action_type"] == "set_checked" and step["params"] == {"checked": True}  # assumed
    assert step["doubts"] == ["control_value_not_captured"]
    step = shadow.feedback("s1", "set_value", step_index=1, checked=True)["steps"][0]
    assert step["doubts"] == []
