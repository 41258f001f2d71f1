"""Noise on one element folds into one step named by its effect; typing becomes one step holding the final text."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.shadow.service import ShadowService
from rpa_mcp.shadow.textedit import final_text
from tests.shadow.conftest import ev

SEARCH = "MédiDossier - Recherche patient - Microsoft Edge"
RECORD = "MédiDossier - DURAND Alice - Synthèse - Microsoft Edge"
AT = {"window_title": SEARCH, "app": "msedge.exe", "locale": "fr-FR"}
ROW = {"name": "DURAND Alice", "role": "DataItem", "automation_id": "row-0"}
ROW2 = {"name": "DURAND Marc", "role": "DataItem", "automation_id": "row-1"}
FIELD = {"name": "Rechercher un patient", "role": "Edit", "automation_id": "patient-search"}
NOTE = {"name": "Observation", "role": "Edit", "automation_id": "note"}


def steps_of(shadow: ShadowService, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shadow.ingest(events)
    return list(shadow.understanding("s1")["steps"])


def test_select_click_context_menu_dismissed_and_double_click_on_a_row_are_one_open_record_step(
    shadow: ShadowService,
) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=700, y=320, element=ROW, **AT),
            ev("right_click", 2.0, x=702, y=321, element=ROW, **AT),
            ev("key", 3.0, keys="Escape", **AT),
            ev("double_click", 4.0, x=701, y=320, element=ROW, **AT),
            ev("focus", 4.6, window_title=RECORD, app="msedge.exe"),
        ],
    )
    assert [(s["intent"], s["action_type"], s["events"]) for s in steps] == [
        ("Ouvrir le dossier 'DURAND Alice'", "double_click_anchor", [0, 1, 2, 3, 4])
    ]
    assert steps[0]["shape"] == "collapsed" and steps[0]["value"] == "DURAND Alice"
    assert steps[0]["expected"] == {"window_title": RECORD}


def test_repeated_clicks_on_one_element_are_one_step(shadow: ShadowService) -> None:
    button = {"name": "Rechercher", "role": "Button", "automation_id": "search-button"}
    steps = steps_of(shadow, [ev("click", t, x=1390, y=225, element=button, **AT) for t in (1.0, 2.0, 3.5)])
    assert [(s["intent"], s["action_type"], s["events"]) for s in steps] == [("Rechercher", "click_anchor", [0, 1, 2])]


def test_two_quick_clicks_on_one_spot_are_a_double_click(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow, [ev("click", 1.0, x=700, y=320, element=ROW, **AT), ev("click", 1.2, x=701, y=320, element=ROW, **AT)]
    )
    assert [s["action_type"] for s in steps] == ["double_click_anchor"]


def test_a_selection_replaced_at_once_by_another_row_is_one_step_on_the_last_row(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=700, y=320, element=ROW, **AT),
            ev("click", 3.0, x=700, y=376, element=ROW2, **AT),
            ev("double_click", 4.0, x=700, y=376, element=ROW2, **AT),
        ],
    )
    assert [(s["intent"], s["events"]) for s in steps] == [("Ouvrir 'DURAND Marc'", [0, 1, 2])]
    assert steps[0]["target"]["by_text"] == "DURAND Marc"


def test_a_menu_item_chosen_after_a_right_click_keeps_both_steps(shadow: ShadowService) -> None:
    item = {"name": "Ouvrir le dossier", "role": "MenuItem", "automation_id": "menu-0"}
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=700, y=320, element=ROW, **AT),
            ev("right_click", 2.0, x=700, y=320, element=ROW, **AT),
            ev("click", 3.0, x=760, y=340, element=item, **AT),
        ],
    )
    assert [(s["intent"], s["action_type"]) for s in steps] == [
        ("Clic droit sur 'DURAND Alice'", "right_click_anchor"),
        ("Choisir 'Ouvrir le dossier' dans le menu", "click_anchor"),
    ]


def test_a_context_menu_opened_and_dismissed_alone_is_suggested_for_removal(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow, [ev("right_click", 1.0, x=700, y=320, element=ROW, **AT), ev("key", 2.0, keys="escape", **AT)]
    )
    assert steps[0]["shape"] == "noise"
    assert [(x["action"], x["kind"]) for x in steps[0]["suggestions"]] == [("undo", "noise")]


def test_typing_bursts_with_corrections_make_one_step_with_the_final_text(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=900, y=225, element=FIELD, **AT),
            ev("type", 2.0, text="DUR", element=FIELD, **AT),
            ev("type", 14.0, text="ANX", element=FIELD, **AT),  # a pause longer than the idle gap
            ev("key", 15.0, keys="Backspace", element=FIELD, **AT),
            ev("type", 15.5, text="D", element=FIELD, **AT),
            ev("key", 16.0, keys="Enter", element=FIELD, **AT),
            ev("focus", 16.4, window_title="MédiDossier - Résultats - Microsoft Edge", app="msedge.exe"),
        ],
    )
    assert len(steps) == 1
    step = steps[0]
    assert step["intent"] == "Rechercher le patient 'DURAND'"
    assert step["params"] == {"text": "DURAND", "submit_key": "enter"}
    assert step["value"] == "DURAND" and step["shape"] == "inferred"


def test_enter_then_more_typing_in_the_same_field_is_a_line_break(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("click", 1.0, x=900, y=400, element=NOTE, **AT),
            ev("type", 2.0, text="Vu ce jour.", element=NOTE, **AT),
            ev("key", 3.0, keys="Enter", element=NOTE, **AT),
            ev("type", 4.0, text="RAS.", element=NOTE, **AT),
            ev("click", 6.0, x=1390, y=755, element={"name": "Enregistrer", "role": "Button"}, **AT),
        ],
    )
    assert [s["intent"] for s in steps] == ["Saisir l'observation", "Enregistrer"]
    assert steps[0]["params"] == {"text": "Vu ce jour.\nRAS."}


def test_enter_in_a_field_the_element_says_is_multi_line_is_a_line_break_at_once(shadow: ShadowService) -> None:
    area = NOTE | {"role": "Document"}
    steps = steps_of(
        shadow,
        [
            ev("type", 2.0, text="Ligne 1", element=area, **AT),
            ev("key", 3.0, keys="Enter", element=area, **AT),
            ev("click", 6.0, x=1390, y=755, element={"name": "Valider", "role": "Button"}, **AT),
        ],
    )
    assert steps[0]["params"] == {"text": "Ligne 1\n"} and steps[0]["shape"] == "plain"


def test_enter_in_a_single_line_field_submits_the_step(shadow: ShadowService) -> None:
    combo = {"name": "Service", "role": "ComboBox", "automation_id": "svc"}
    steps = steps_of(
        shadow,
        [
            ev("type", 2.0, text="Cardiologie", element=combo, **AT),
            ev("key", 3.0, keys="Enter", element=combo, **AT),
            ev("type", 4.0, text="x", element=combo, **AT),
        ],
    )
    assert [s["params"] for s in steps] == [{"text": "Cardiologie", "submit_key": "enter"}, {"text": "x"}]


def test_tab_presses_that_lead_to_typing_belong_to_the_typing_step(shadow: ShadowService) -> None:
    steps = steps_of(
        shadow,
        [
            ev("key", 1.0, keys="Tab", **AT),
            ev("key", 1.5, keys="Tab", **AT),
            ev("type", 2.0, text="MARTIN", element=FIELD, **AT),
            ev("key", 3.0, keys="Enter", element=FIELD, **AT),
        ],
    )
    assert [(s["intent"], s["events"]) for s in steps] == [("Rechercher le patient 'MARTIN'", [0, 1, 2, 3])]
    assert steps[0]["target"]["by_text"] == "Rechercher un patient"


def test_a_tab_press_followed_by_nothing_typed_stays_a_key_step(shadow: ShadowService) -> None:
    steps = steps_of(shadow, [ev("key", 1.0, keys="Tab", **AT), ev("click", 2.0, x=700, y=320, element=ROW, **AT)])
    assert [s["action_type"] for s in steps] == ["key_press", "click_anchor"]


@pytest.mark.parametrize(
    ("keys", "text"),
    [
        (["type:10935", "left", "left", "left", "type:0"], "100935"),
        (["type:abc", "home", "delete", "end", "type:d"], "bcd"),
        (["type:abc", "ctrl+a", "type:x"], "x"),
        (["type:ab", "enter*", "type:c", "backspace", "backspace"], "ab"),
        (["type:un\r\ndeux", "up", "end", "type:!"], "un!\r\ndeux"),
        (["type:un deux", "ctrl+backspace", "type:trois"], "un trois"),
        (["type:abc", "shift+left", "shift+left", "type:X"], "aX"),
    ],
)
def test_the_final_text_follows_the_cursor(keys: list[str], text: str) -> None:
    events, newlines = [], set()
    for i, k in enumerate(keys):
        if k.startswith("type:"):
            events.append((i, {"type": "type", "text": k[5:]}))
        else:
            events.append((i, {"type": "key", "keys": k.rstrip("*")}))
            if k.endswith("*"):
                newlines.add(i)
    assert final_text(events, newlines) == (text, True)


def test_a_paste_without_its_text_makes_the_text_uncertain(shadow: ShadowService) -> None:
    assert final_text([(0, {"type": "type", "text": "a"}), (1, {"type": "key", "keys": "ctrl+v"})]) == ("a", False)
    steps = steps_of(
        shadow,
        [ev("type", 1.0, text="DUR", element=FIELD, **AT), ev("key", 2.0, keys="ctrl+v", element=FIELD, **AT)],
    )
    assert steps[0]["shape"] == "uncertain"
