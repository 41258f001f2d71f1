"""The desktop benchmark's learned workflow, given the patient and the note as parameters: every place the
demonstrated patient's name shows becomes `{{patient}}`, the window each step acts in included (the agent
types only into the step's window: a run for another patient would otherwise stop at its first typing)."""

from __future__ import annotations

from rpa_mcp.desktop_rig.scenario import Observation, with_parameters

TAUGHT = Observation("DURAND Alice", "Patient calme, douleur 2/10.")
RECORD = "Easily — DURAND Alice — Observations – Chromium"


def test_the_patient_s_name_becomes_a_parameter_wherever_a_step_shows_it() -> None:
    ir = {
        "steps": [
            {
                "action_type": "type_text",
                "target": {"label": "Texte de l'observation", "window_title": RECORD},
                "params": {"text": TAUGHT.note},
                "expected_window_before": RECORD,
                "expected_window_after": RECORD,
                "expected_outcome": {"kind": "window_title", "text": "DURAND Alice"},
            }
        ]
    }
    [step] = with_parameters(ir, TAUGHT)["steps"]
    templated = "Easily — {{patient}} — Observations – Chromium"
    assert step["target"]["window_title"] == templated
    assert (step["expected_window_before"], step["expected_window_after"]) == (templated, templated)
    assert step["params"]["text"] == "{{note}}" and step["expected_outcome"]["text"] == "{{patient}}"
    assert ir["steps"][0]["target"]["window_title"] == RECORD  # the learned workflow itself is left as it was
