"""A drop-down's opening click and its option are one select_option step; a check box click is set_checked."""

from __future__ import annotations

from typing import Any

from rpa_mcp.shadow.calibration import ASK_BELOW, Calibration
from rpa_mcp.shadow.ir import build_ir
from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.testing import FakeOcr
from rpa_mcp.vision.ocr import OcrLine
from tests.shadow.conftest import ev
from tests.shadow.test_target_box import frame_b64

FORM = "Pharmacie - Dispensation - Chromium"
AT = {"window_title": FORM, "app": "chromium", "locale": "fr-FR"}
COMBO = {"name": "Conditionnement", "role": "ComboBox", "automation_id": "packaging"}
UNDER = {"name": "Commentaire", "role": "Edit", "automation_id": "comment"}  # the page under the pop-up
OPTION = {"name": "Boîte", "role": "ListItem"}
BOX = {"name": "Urgent", "role": "CheckBox", "automation_id": "urgent"}
SAVE = {"name": "Enregistrer", "role": "Button"}


def steps_of(shadow: ShadowService, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shadow.ingest(events)
    return list(shadow.understanding("s1")["steps"])


def test_a_combo_click_then_an_option_click_is_one_select_option_step(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("click", 2.5, x=400, y=360, element=OPTION, **AT),
            ev("click", 4.0, x=900, y=700, element=SAVE, **AT),
        ],
    )
    assert [(s["action_type"], s["events"]) for s in steps] == [("select_option", [0, 1]), ("click_anchor", [2])]
    choice = steps[0]
    assert choice["intent"] == "Choisir 'Boîte' dans 'Conditionnement'"
    assert choice["params"] == {"option": "Boîte"} and choice["value"] == "Boîte"
    assert choice["target"]["by_text"] == "Conditionnement"  # the combo, not the option
    assert choice["post_conditions"][0] == {"kind": "option_shown", "text": "Boîte"}
    assert choice["confidence"] >= 0.8
    assert choice["step_class"] == "input"


def test_an_option_reported_as_the_page_element_under_the_pop_up_is_named_by_what_the_list_showed(
    make_service: Any,
) -> None:
    # The crop kept around the option click at (400, 360) is centred there: "Boîte" is the line under it.
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Boîte", (130, 30, 60, 18), 0.97)]))
    steps = steps_of(
        service,
        [
            ev("screenshot", 0.5, screenshot=frame_b64(), screen_width=960, screen_height=540, **AT),
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("click", 2.5, x=400, y=360, element=UNDER, **AT),
        ],
    )
    choice = steps[-1]
    assert choice["action_type"] == "select_option"
    assert choice["params"] == {"option": "Boîte"}
    assert "Commentaire" not in choice["intent"] and choice["target"]["by_text"] == "Conditionnement"


def test_an_option_nothing_read_is_kept_uncertain_and_asked_first(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [ev("click", 1.0, x=400, y=300, element=COMBO, **AT), ev("click", 2.5, x=400, y=360, element=UNDER, **AT)],
    )
    choice = steps[-1]
    assert choice["action_type"] == "select_option" and choice["params"] == {}
    assert choice["confidence"] < 0.8 and choice["shape"] == "uncertain"
    assert shadow.understanding("s1")["review"]["ask_first"] == [1]


def test_an_uncertain_step_stays_below_the_ask_first_line_whatever_the_calibration_table_says(make_service) -> None:
    sure_table = Calibration({"select_option|uia": (200, 200), "select_option|uia|uncertain": (200, 200)})
    service = make_service(calibration=sure_table)
    steps = steps_of(
        service,
        [ev("click", 1.0, x=400, y=300, element=COMBO, **AT), ev("click", 2.5, x=400, y=360, element=UNDER, **AT)],
    )
    assert steps[-1]["shape"] == "uncertain" and steps[-1]["confidence"] < ASK_BELOW


def test_the_combo_clicked_again_closes_its_list_and_the_next_click_is_a_step_of_its_own(
    shadow: ShadowService,
) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("click", 2.0, x=400, y=300, element=COMBO, **AT),
            ev("click", 5.0, x=900, y=700, element=SAVE, **AT),
        ],
    )
    assert [s["action_type"] for s in steps] == ["click_anchor", "click_anchor"]
    assert steps[1]["intent"] == "Enregistrer"


def test_escape_closes_the_list_without_a_choice(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("key", 1.5, keys="Escape", **AT),
            ev("click", 3.0, x=900, y=700, element=SAVE, **AT),
        ],
    )
    assert [s["action_type"] for s in steps] == ["click_anchor", "click_anchor"]


def test_the_pop_up_window_of_a_list_belongs_to_the_choice(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("focus", 1.2, window_title="", app="chromium"),
            ev("click", 2.5, x=400, y=360, element=OPTION, window_title="", app="chromium"),
            ev("focus", 2.6, window_title=FORM, app="chromium"),
        ],
    )
    assert [s["action_type"] for s in steps] == ["select_option"]
    assert steps[0]["params"] == {"option": "Boîte"}


def test_a_chosen_option_can_be_made_a_parameter_of_the_step(shadow: ShadowService) -> None:
    shadow.ingest(
        [ev("click", 1.0, x=400, y=300, element=COMBO, **AT), ev("click", 2.5, x=400, y=360, element=OPTION, **AT)]
    )
    shadow.feedback("s1", "parameterize", step_index=1, name="conditionnement")
    step = shadow.understanding("s1")["steps"][0]
    assert step["params"] == {"option": "{{conditionnement}}"}
    assert step["parameter"]["example"] == "Boîte"


def test_a_click_on_an_unticked_box_is_set_checked_true(shadow: ShadowService) -> None:
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=420, element={**BOX, "states": ["focusable"]}, **AT)])
    assert [(s["action_type"], s["params"], s["intent"]) for s in steps] == [
        ("set_checked", {"checked": True}, "Cocher 'Urgent'")
    ]
    assert steps[0]["post_conditions"][0] == {"kind": "checked", "text": "checked"}


def test_a_click_on_a_ticked_box_is_set_checked_false(shadow: ShadowService) -> None:
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=420, element={**BOX, "states": ["checked"]}, **AT)])
    assert [(s["action_type"], s["params"], s["intent"]) for s in steps] == [
        ("set_checked", {"checked": False}, "Décocher 'Urgent'")
    ]


def test_a_box_whose_state_was_not_reported_is_asked_first(shadow: ShadowService) -> None:
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=420, element=BOX, **AT)])
    assert steps[0]["action_type"] == "set_checked" and steps[0]["params"] == {"checked": True}
    assert steps[0]["confidence"] < 0.8


def test_a_box_read_after_its_release_and_again_unchanged_is_asked_first(shadow: ShadowService) -> None:
    # under load the recorder read the box after GTK had ticked it: 'checked' is the state after the click
    late = {**BOX, "states": ["checked"], "checked_late": True, "checked_after": True}
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=420, element=late, **AT)])
    assert steps[0]["params"] == {"checked": True}  # the second reading, never the flip of a late first one
    assert steps[0]["confidence"] < ASK_BELOW


def test_a_box_read_late_whose_second_reading_differs_is_sure(shadow: ShadowService) -> None:
    late = {**BOX, "states": [], "checked_late": True, "checked_after": True}
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=420, element=late, **AT)])
    assert steps[0]["params"] == {"checked": True} and steps[0]["confidence"] >= ASK_BELOW


def test_a_box_read_late_and_never_again_is_asked_first(shadow: ShadowService) -> None:
    late = {**BOX, "states": ["checked"], "checked_late": True}
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=420, element=late, **AT)])
    assert steps[0]["action_type"] == "set_checked" and steps[0]["confidence"] < ASK_BELOW


def test_a_box_read_at_press_that_did_not_flip_is_asked_first(shadow: ShadowService) -> None:
    unflipped = {**BOX, "states": [], "checked_after": False}
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=420, element=unflipped, **AT)])
    assert steps[0]["params"] == {"checked": True} and steps[0]["confidence"] < ASK_BELOW
    flipped = {**BOX, "states": [], "checked_after": True}
    shadow_steps = steps_of(shadow, [ev("click", 3.0, x=300, y=420, element=flipped, **AT)])
    assert shadow_steps[-1]["params"] == {"checked": True} and shadow_steps[-1]["confidence"] >= ASK_BELOW


def test_a_radio_button_is_always_set_by_its_click(shadow: ShadowService) -> None:
    radio = {"name": "Voie orale", "role": "RadioButton"}
    steps = steps_of(shadow, [ev("click", 1.0, x=300, y=460, element=radio, **AT)])
    assert steps[0]["params"] == {"checked": True} and steps[0]["confidence"] >= 0.8


def test_the_ir_keeps_the_option_and_the_state(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("click", 2.5, x=400, y=360, element=OPTION, **AT),
            ev("click", 4.0, x=300, y=420, element={**BOX, "states": []}, **AT),
        ],
    )
    ir = build_ir(steps, name="t", domain="d", session_id="s1", machine_id=None, created_at=0.0)
    assert [(s["action_type"], s["params"]) for s in ir["steps"]] == [
        ("select_option", {"option": "Boîte"}),
        ("set_checked", {"checked": True}),
    ]


def test_going_to_another_application_with_the_list_open_chooses_nothing(shadow: ShadowService) -> None:
    mail = {"window_title": "Messagerie - Outlook", "app": "outlook.exe"}
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("focus", 2.0, **mail),
            ev("click", 3.0, x=400, y=360, element={"name": "Boîte de réception", "role": "TreeItem"}, **mail),
        ],
    )
    assert "select_option" not in [s["action_type"] for s in steps]


def test_an_option_reached_with_the_arrows_and_enter_is_one_select_option_read_in_the_combo_after(
    make_service: Any,
) -> None:
    service = make_service(ocr=FakeOcr(lines=[OcrLine("Boîte", (4, 3, 60, 18), 0.97)]))
    combo = {**COMBO, "bbox": [330, 288, 160, 26]}
    steps = steps_of(
        service,
        [
            ev("screenshot", 0.5, screenshot=frame_b64(), screen_width=960, screen_height=540, **AT),
            ev("click", 1.0, x=400, y=300, element=combo, **AT),
            ev("key", 1.5, keys="down", **AT),
            ev("key", 1.8, keys="down", **AT),
            ev("key", 2.1, keys="enter", **AT),
            ev("screenshot", 2.5, screenshot=frame_b64(), screen_width=960, screen_height=540, **AT),
            ev("click", 4.0, x=900, y=500, element=SAVE, **AT),
        ],
    )
    assert [s["action_type"] for s in steps] == ["select_option", "click_anchor"], steps
    choice = steps[0]
    assert choice["events"] == [1, 2, 3, 4] and choice["params"] == {"option": "Boîte"}
    assert choice["intent"] == "Choisir 'Boîte' dans 'Conditionnement'"
    assert choice["confidence"] < ASK_BELOW  # read on the screen after, not seen under a click: asked first


def test_an_open_list_left_with_escape_after_the_arrows_chooses_nothing(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=400, y=300, element=COMBO, **AT),
            ev("key", 1.5, keys="down", **AT),
            ev("key", 2.0, keys="escape", **AT),
            ev("click", 4.0, x=900, y=500, element=SAVE, **AT),
        ],
    )
    assert "select_option" not in [s["action_type"] for s in steps]
