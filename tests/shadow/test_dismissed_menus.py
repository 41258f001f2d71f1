"""A click whose menu was closed at once with Escape, the screen as it was: both steps suggested for removal."""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np

from rpa_mcp.shadow.dismissals import suggest_dismissals
from rpa_mcp.shadow.doubts import DOUBTED, REMOVAL_SUGGESTED
from rpa_mcp.testing import FakeOcr
from tests.shadow.conftest import ev

RECORD = "Demande - ROCHE Bérénice"
APP = {"window_title": RECORD, "app": "java", "locale": "fr-FR"}
HELP = {"name": "Aide", "role": "Menu"}
SEND = {"name": "Envoyer", "role": "Button"}


def frame(*, menu: bool = False, ticked: bool = False) -> str:
    image = np.full((540, 960, 3), 238, np.uint8)
    cv2.rectangle(image, (0, 0), (960, 24), (220, 220, 220), -1)
    if menu:  # the menu's items drawn under the menu bar
        cv2.rectangle(image, (300, 24), (460, 140), (255, 255, 255), -1)
    if ticked:  # a check box's tick: a few dozen pixels
        cv2.line(image, (100, 300), (106, 308), (0, 0, 0), 2)
        cv2.line(image, (106, 308), (116, 292), (0, 0, 0), 2)
    return base64.b64encode(cv2.imencode(".png", image)[1].tobytes()).decode("ascii")


def _menu_look(after: str) -> list[dict[str, Any]]:
    return [
        ev("click", 1.0, x=330, y=12, element=HELP, screenshot=frame(), **APP),
        ev("key", 2.5, keys="Escape", screenshot=frame(menu=True), **APP),
        ev("click", 4.0, x=800, y=500, element=SEND, screenshot=after, **APP),
    ]


def _undo_kinds(step: dict[str, Any]) -> list[str]:
    return [g["kind"] for g in step["suggestions"] if g["action"] == "undo"]


def test_a_menu_opened_and_closed_with_escape_is_suggested_for_removal_both_steps(make_service: Any) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[]))
    shadow.ingest(_menu_look(frame()))
    opened, escape, send = shadow.understanding("s1")["steps"]
    assert escape["action_type"] == "key_press"
    assert _undo_kinds(opened) == ["dismissed"] and _undo_kinds(escape) == ["dismissed"]
    assert REMOVAL_SUGGESTED in opened["doubts"] and opened["confidence"] <= DOUBTED
    assert escape["confidence"] <= DOUBTED
    assert "Échap" in opened["suggestions"][0]["reason"]
    assert _undo_kinds(send) == []


def test_a_click_and_escape_that_left_a_change_are_kept(make_service: Any) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[]))
    shadow.ingest(_menu_look(frame(ticked=True)))  # a tick of a few dozen pixels stayed
    steps = shadow.understanding("s1")["steps"]
    assert [_undo_kinds(s) for s in steps] == [[], [], []]


def test_nothing_is_suggested_before_the_screen_after_the_escape_is_known(make_service: Any) -> None:
    shadow = make_service(ocr=FakeOcr(lines=[]))
    shadow.ingest(_menu_look(frame())[:2])
    assert [_undo_kinds(s) for s in shadow.understanding("s1")["steps"]] == [[], []]
    shadow.ingest(_menu_look(frame())[2:])  # the next step brings the screen after the Escape
    assert [_undo_kinds(s) for s in shadow.understanding("s1")["steps"]] == [["dismissed"], ["dismissed"], []]


def _step(action: str, shot: str, **extra: Any) -> dict[str, Any]:
    return {
        "action_type": action,
        "status": "proposed",
        "evidence": "uia",
        "screenshot": f"rpa://screenshots/{shot}",
        "confidence": 0.9,
        "suggestions": [],
        "doubts": [],
        **extra,
    }


def test_only_a_click_then_escape_by_themselves_count() -> None:
    def same(a: str, b: str) -> bool:
        return True

    steps = [
        _step("type_text", "a", params={"text": "x"}),
        _step("key_press", "b", params={"keys": "escape"}),
        _step("click_anchor", "c"),
        _step("key_press", "d", params={"keys": "enter"}),  # another key than Escape
        _step("click_anchor", "e", status="validated"),  # a person validated it
        _step("key_press", "f", params={"keys": "escape"}),
        _step("click_anchor", "g"),
    ]
    suggest_dismissals(steps, same, "en")
    assert [s["suggestions"] for s in steps] == [[]] * 7
