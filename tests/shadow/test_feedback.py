"""The person's corrections: each kind, the argument rules, rejections that change nothing, history."""

from __future__ import annotations

import pytest

from rpa_mcp.errors import NotFound
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev


@pytest.fixture
def three(shadow: ShadowService) -> ShadowService:
    shadow.ingest(
        [
            ev("click", 1.0, x=1, y=1, element={"name": "Patients"}),
            ev("click", 2.0, x=1, y=1, element={"name": "Rechercher"}),
            ev("type", 3.0, text="DURAND"),
            ev("key", 4.0, keys="enter"),
            ev("click", 5.0, x=1, y=1, element={"name": "Imagerie"}),
        ]
    )
    return shadow


def intents(shadow: ShadowService) -> list[str]:
    return [s["intent"] for s in shadow.understanding("s1")["steps"]]


def test_validate_without_a_step_validates_all(three: ShadowService) -> None:
    result = three.feedback("s1", "validate")
    assert result["status"] == "feedback_applied"
    assert {s["status"] for s in result["steps"]} == {"validated"}


def test_validate_one_step(three: ShadowService) -> None:
    steps = three.feedback("s1", "validate", step_index=2)["steps"]
    assert [s["status"] for s in steps] == ["proposed", "validated", "proposed"]


def test_correct_replaces_the_intent_and_keeps_the_inferred_one(three: ShadowService) -> None:
    step = three.feedback("s1", "correct", step_index=2, new_intent="Rechercher X")["steps"][1]
    assert (step["intent"], step["status"], step["confidence"]) == ("Rechercher X", "corrected", 1.0)
    assert step["original_intent"] == "Search for 'DURAND'"
    assert step["action_type"] == "type_text"


def test_undo_removes_a_step_and_renumbers(three: ShadowService) -> None:
    steps = three.feedback("s1", "undo", step_index=1)["steps"]
    assert [(s["index"], s["intent"]) for s in steps] == [(1, "Search for 'DURAND'"), (2, "Click 'Imagerie'")]


def test_cancel_drops_everything_and_build_says_cancelled(three: ShadowService) -> None:
    assert three.feedback("s1", "cancel")["steps"] == []
    assert three.build("s1", "x")["status"] == "cancelled"
    again = three.feedback("s1", "validate")
    assert again["status"] == "feedback_rejected" and "cancelled" in again["reason"]


def test_merge_next_joins_a_step_with_the_next_one(three: ShadowService) -> None:
    steps = three.feedback("s1", "merge_next", step_index=1)["steps"]
    assert len(steps) == 2
    assert steps[0]["events"] == [0, 1, 2, 3]
    assert steps[0]["status"] == "proposed"


def test_split_cuts_a_step_at_an_event(three: ShadowService) -> None:
    steps = three.feedback("s1", "split", step_index=2, at_event_index=2)["steps"]
    assert [s["events"] for s in steps] == [[0], [1], [2, 3], [4]]
    assert [s["intent"] for s in steps][1:3] == ["Rechercher", "Type 'DURAND'"]


@pytest.mark.parametrize(
    ("action", "args", "reason_part"),
    [
        ("correct", {"step_index": 1}, "new_intent"),
        ("correct", {"step_index": 1, "new_intent": "   "}, "new_intent"),
        ("correct", {"new_intent": "x"}, "step_index"),
        ("undo", {}, "step_index"),
        ("merge_next", {}, "step_index"),
        ("split", {"step_index": 2}, "at_event_index"),
        ("undo", {"step_index": 9}, "does not exist"),
        ("validate", {"step_index": 0}, "does not exist"),
        ("merge_next", {"step_index": 3}, "last step"),
        ("split", {"step_index": 2, "at_event_index": 1}, "first event"),
        ("split", {"step_index": 2, "at_event_index": 4}, "not in step 2"),
        ("undo", {"step_index": 1, "new_intent": "x"}, "only used with action=correct"),
        ("validate", {"at_event_index": 1}, "only used with action=split"),
        ("cancel", {"step_index": 1}, "do not give step_index"),
        ("explode", {}, "unknown action"),
    ],
)
def test_a_feedback_that_does_not_apply_is_rejected_with_the_reason_and_changes_nothing(
    three: ShadowService, action: str, args: dict, reason_part: str
) -> None:
    before = three.understanding("s1")["steps"]
    result = three.feedback("s1", action, **args)
    assert result["status"] == "feedback_rejected"
    assert reason_part in result["reason"]
    assert result["steps"] == before
    assert three.understanding("s1")["steps"] == before


def test_feedback_on_an_empty_session_is_rejected(shadow: ShadowService) -> None:
    shadow.ingest([ev("focus", 1.0, window_title="A")])
    shadow.feedback("s1", "undo", step_index=1)
    result = shadow.feedback("s1", "validate")
    assert result["status"] == "feedback_rejected" and "no steps" in result["reason"]


def test_feedback_on_an_unknown_session_is_not_found(shadow: ShadowService) -> None:
    with pytest.raises(NotFound) as err:
        shadow.feedback("nope", "validate")
    assert err.value.code == "not-found"


def test_the_history_shows_each_feedback_in_order(three: ShadowService) -> None:
    three.feedback("s1", "correct", step_index=2, new_intent="Rechercher le patient")
    three.feedback("s1", "undo", step_index=7)
    three.feedback("s1", "validate")
    history = three.history("s1")
    assert [(h["action"], h["outcome"]) for h in history] == [
        ("correct", "applied"),
        ("undo", "rejected"),
        ("validate", "applied"),
    ]
    assert history[0]["args"] == {"step_index": 2, "new_intent": "Rechercher le patient"}
    assert "does not exist" in history[1]["reason"]
    assert history[2]["summary"] == "all steps validated"
