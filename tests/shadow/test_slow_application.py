"""A slow application changes its window seconds after the action that asked for it: that change is the
action's effect, not a step — when nothing else was done meanwhile and the window is the same application's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev

SEARCH = "Easily — Recherche patient – Chromium"
RECORD = "Easily — DURAND Alice — Dossier – Chromium"
AT = {"app": "chromium", "locale": "fr"}
OPEN = {"name": "Ouvrir le dossier", "role": "Link"}
SAVE = {"name": "Enregistrer", "role": "Button"}


def _steps(shadow: ShadowService, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shadow.ingest(events)
    steps: list[dict[str, Any]] = shadow.understanding("s1")["steps"]
    return steps


def test_a_record_window_retitled_seconds_after_the_click_is_that_clicks_effect(shadow: ShadowService) -> None:
    steps = _steps(
        shadow,
        [
            ev("click", 1.0, x=300, y=250, element=OPEN, window_title=SEARCH, **AT),
            ev("focus", 1.4, window_title="Chargement… – Chromium", **AT),
            ev("focus", 5.8, window_title=RECORD, **AT),  # the record loaded 4.8 s after the click
            ev("click", 9.0, x=900, y=700, element=SAVE, window_title=RECORD, **AT),
        ],
    )
    assert [(s["intent"], s["events"]) for s in steps] == [("Ouvrir le dossier", [0, 1, 2]), ("Enregistrer", [3])]
    assert steps[0]["window_after"] == RECORD and steps[0]["expected"]["window_title"] == RECORD


def _typed(text: str) -> list[dict[str, Any]]:
    """A click in the search field, then `text` typed into it."""
    field = {"name": "Nom du patient", "role": "Edit"}
    return [
        ev("click", 1.0, x=300, y=200, element=field, window_title=SEARCH, **AT),
        ev("type", 1.5, text=text, window_title=SEARCH, **AT),
    ]


def test_a_window_the_application_opens_late_after_enter_is_the_typing_steps_effect(shadow: ShadowService) -> None:
    steps = _steps(
        shadow,
        [
            *_typed("DURAND"),
            ev("key", 2.0, keys="enter", window_title=SEARCH, **AT),
            ev("focus", 9.0, window_title=RECORD, **AT),
        ],
    )
    assert len(steps) == 1 and steps[0]["events"] == [0, 1, 2, 3] and steps[0]["window_after"] == RECORD


def test_a_late_window_change_is_no_effect_of_typing_still_going_on(shadow: ShadowService) -> None:
    steps = _steps(shadow, [*_typed("DUR"), ev("focus", 6.0, window_title=RECORD, **AT)])
    assert [s["events"] for s in steps] == [[0, 1], [2]] and steps[1]["action_type"] == "focus_window"


def test_another_applications_window_or_a_change_past_the_idle_gap_stays_a_step(shadow: ShadowService) -> None:
    reminder = {"window_title": "1 rappel", "app": "OUTLOOK.EXE"}
    steps = _steps(
        shadow,
        [
            ev("click", 1.0, x=300, y=250, element=OPEN, window_title=SEARCH, **AT),
            ev("focus", 5.0, **reminder),  # another program's window, 4 s later: not what the click did
            ev("click", 30.0, x=300, y=250, element=SAVE, window_title=SEARCH, **AT),
            ev("focus", 45.0, window_title=RECORD, **AT),  # the same application, 15 s later
        ],
    )
    assert [s["events"] for s in steps] == [[0], [1], [2], [3]]
    assert [s["action_type"] for s in steps] == ["click_anchor", "focus_window", "click_anchor", "focus_window"]


def test_a_late_change_reported_before_the_click_that_made_it_goes_to_that_click(shadow: ShadowService) -> None:
    tab = {"name": "Observations", "role": "TabItem"}
    observations = "Easily — DURAND Alice — Observations – Chromium"
    steps = _steps(
        shadow,
        [
            ev("click", 1.0, x=900, y=700, element=SAVE, window_title=RECORD, **AT),
            ev("focus", 5.0, window_title=observations, **AT),  # sent first: the click was still being looked up
            ev("click", 5.3, x=300, y=250, element=tab, window_title=RECORD, **AT),
        ],
    )
    assert [(s["intent"], s["events"]) for s in steps] == [
        ("Enregistrer", [0]),
        ("Aller sur l'onglet 'Observations'", [1, 2]),
    ]
    assert steps[1]["window_after"] == observations


def test_a_late_effect_survives_a_restart_of_the_observer(make_service: Callable[..., ShadowService]) -> None:
    make_service().ingest(
        [
            ev("click", 1.0, x=900, y=700, element=SAVE, window_title=RECORD, **AT),
            ev("focus", 5.0, window_title="Easily — DURAND Alice — Observations – Chromium", **AT),
        ]
    )
    again = make_service()
    again.ingest(
        [ev("click", 5.3, x=300, y=250, element={"name": "Observations", "role": "TabItem"}, window_title=RECORD, **AT)]
    )
    assert [s["events"] for s in again.understanding("s1")["steps"]] == [[0], [1, 2]]
