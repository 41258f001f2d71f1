"""A workflow that types a secret ({{secret:...}}: never recorded) gets it from the start params, or is refused."""

from __future__ import annotations

import pytest

from rpa_mcp.errors import InvalidInput
from rpa_mcp.replay.service import ReplayService

STEPS = [
    {"index": 1, "action_type": "type_text", "params": {"text": "{{user}}"}},
    {"index": 2, "action_type": "type_text", "params": {"text": "{{secret:mot_de_passe}}", "secret": True}},
    {"index": 3, "action_type": "type_text", "params": {"text": "{{secret:code_pin}}", "secret": True}},
]


def test_a_secret_placeholder_without_its_value_is_refused_naming_every_missing_parameter(
    service: ReplayService,
) -> None:
    with pytest.raises(InvalidInput) as err:
        service.plan(STEPS, {"user": "dr.martin", "secret:code_pin": "0042"})
    assert err.value.code == "invalid-input"
    assert "'secret:mot_de_passe' (step 2)" in err.value.message
    assert err.value.details["missing_params"] == ["secret:mot_de_passe"]
    assert err.value.details["field"] == "params.secret:mot_de_passe"
    assert "0042" not in err.value.message


def test_secret_values_are_substituted_for_the_agent(service: ReplayService) -> None:
    planned = service.plan(STEPS, {"user": "dr.martin", "secret:mot_de_passe": "S3cr3t", "secret:code_pin": "0042"})
    assert [a["params"]["text"] for a in planned] == ["dr.martin", "S3cr3t", "0042"]
    assert planned[1]["params"]["secret"] is True


def test_an_ordinary_placeholder_left_empty_is_not_refused(service: ReplayService) -> None:
    planned = service.plan(STEPS[:1], {})
    assert planned[0]["params"]["text"] == "{{user}}"


def test_expected_window_titles_take_the_patient_replayed_but_never_a_secret(service: ReplayService) -> None:
    step = {
        "index": 1,
        "action_type": "click_anchor",
        "target": {"label": "Ouvrir le dossier"},
        "expected_window_before": "Easily — Recherche patient",
        "expected_window_after": "Easily — {{patient}} — Synthèse {{secret:code_pin}}",
    }
    planned = service.plan([step], {"patient": "MARTIN Jules", "secret:code_pin": "0042"})
    assert planned[0]["expected"]["window_after"] == "Easily — MARTIN Jules — Synthèse {{secret:code_pin}}"
    assert planned[0]["expected"]["window_before"] == "Easily — Recherche patient"


def test_a_step_that_types_a_secret_is_marked_secret_even_when_its_flag_is_missing(service: ReplayService) -> None:
    step = {"index": 1, "action_type": "type_text", "params": {"text": "PIN {{secret:code_pin}}"}}
    planned = service.plan([step], {"secret:code_pin": "0042"})
    assert planned[0]["params"] == {"text": "PIN 0042", "secret": True}  # hidden in previews, scrubbed at the end
