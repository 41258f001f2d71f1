"""Steps that set a control keep a value the replay can use."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rpa_mcp.competences.model import CompetenceStep


def step(action_type: str, **params: object) -> CompetenceStep:
    return CompetenceStep.model_validate({"index": 1, "intent": "x", "action_type": action_type, "params": params})


def test_a_set_checked_step_holds_its_wanted_state() -> None:
    assert step("set_checked", checked=True).params == {"checked": True}
    assert step("set_checked", checked="{{urgent}}").params == {"checked": "{{urgent}}"}
    with pytest.raises(ValidationError):
        step("set_checked")


def test_a_select_option_step_holds_a_text() -> None:
    assert step("select_option", option="Boîte").params == {"option": "Boîte"}
    assert step("select_option").params == {}  # an option nobody read: the replay pauses at that step
    with pytest.raises(ValidationError):
        step("select_option", option=3)
