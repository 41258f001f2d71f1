"""`rpa-mcp bench apps` scoring: proposed steps against the steps written beforehand, and their confidence."""

from __future__ import annotations

from typing import Any

from rpa_mcp.bench.app_specs import Run
from rpa_mcp.bench.apps import calibration, score
from rpa_mcp.bench.step_time import kind_split

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


def test_the_time_of_each_kind_of_step_is_its_median_over_the_runs() -> None:
    def marks(kind: str, resolve: float, inject: float, settle: float) -> dict[str, Any]:
        injected = resolve + inject
        return {
            "action_type": kind,
            "shot": 0.0,
            "resolved": resolve,
            "injected": injected,
            "settled": injected + settle,
        }

    def run(click_resolve: float, click_settle: float) -> Run:
        steps = [marks("click_anchor", click_resolve, 0.01, click_settle), marks("type_text", 0.4, 0.3, 0.4)]
        return Run(("a",), "g", "complete", 1.0, 2, marks=steps)

    lines = kind_split([run(0.2, 0.5), run(0.4, 0.7)])
    assert lines[1].split() == ["click_anchor", "300", "/", "10", "/", "600", "(2", "steps)"]
    assert lines[2].split()[:6] == ["type_text", "400", "/", "300", "/", "400"]
