"""`rpa-mcp bench apps` scoring: proposed steps against the steps written beforehand, and their confidence."""

from __future__ import annotations

from typing import Any

from rpa_mcp.bench.apps import calibration, score

EXPECTED = (
    ("type_text", "Nom", "DURAND"),
    ("select_option", "Service", "Cardiologie"),
    ("click", "Enregistrer", None),
)


def _step(kind: str, label: str, confidence: float, **params: Any) -> dict[str, Any]:
    return {"action_type": kind, "target": {"label": label}, "params": params, "confidence": confidence}


def test_steps_are_matched_in_order_by_kind_and_label_and_their_values_checked() -> None:
    steps = [
        _step("type_text", "Nom", 0.95, text="DURAND"),
        _step("select_option", "Service", 0.9, option="Urgences"),
        _step("click_anchor", "Enregistrer", 0.9),
    ]
    learning = score(steps, EXPECTED)
    assert (learning.found, learning.exact, learning.valued) == (3, 1, 2)
    assert learning.misses == ["select_option 'Service': value 'Urgences'"]


def test_a_wrong_step_above_the_ask_first_line_shows_in_the_calibration_figure() -> None:
    steps = [
        _step("type_text", "Nom", 0.95, text="DURAND"),
        _step("select_option", "Service", 0.9, option="Urgences"),  # wrong value, confident: not asked
        _step("click_anchor", "Commentaire", 0.4),  # a stray click, asked first
        _step("click_anchor", "Enregistrer", 0.85),
    ]
    line = calibration(score(steps, EXPECTED), EXPECTED)
    assert "right at >= 0.8 2/3" in line
    assert "wrong steps asked first 1/2" in line


def test_every_wrong_step_below_the_line_is_reported_as_asked_first() -> None:
    steps = [_step("type_text", "Nom", 0.95, text="DURAND"), _step("click_anchor", "Commentaire", 0.3)]
    line = calibration(score(steps, EXPECTED), EXPECTED)
    assert "right at >= 0.8 1/1" in line
    assert "wrong steps asked first 1/1" in line
