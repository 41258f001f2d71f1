"""A replay checks the post-condition and the identity of the run's patient, not the demonstration's."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.replay import model as m
from tests.replay.kit import FakeAgent, drain

pytestmark = pytest.mark.anyio

DECLARED = [{"name": "patient", "type": "string", "example": "FAURE", "description": "", "required": True}]
STEPS: list[dict[str, Any]] = [
    {
        "index": 1,
        "intent": "Ouvrir le dossier '{{patient}}'",
        "action_type": "click_anchor",
        "target": {"label": "{{patient}}", "rel_x": 0.2, "rel_y": 0.3},
        "identity": "{{patient}} 02/11/1962",
        "expected_outcome": {"kind": "window_title", "text": "Admission — {{patient}}", "source": "demonstration"},
    },
    {
        "index": 2,
        "intent": "Valider",
        "action_type": "click_anchor",
        "target": {"label": "Valider"},
        "expected_outcome": {"kind": "message", "text": "Dispensation de {{patient}} enregistrée"},
    },
]


async def test_the_outcome_and_the_identity_take_the_runs_patient(service: Any, services: Any, clock: Any) -> None:
    seen: list[Any] = []
    validate = services.validator.validate

    def recording(
        action_type: str, before: Any, after: Any, target: Any = None, expected: Any = None, *a: Any, **k: Any
    ) -> Any:
        seen.append((action_type, expected))
        return validate(action_type, before, after, target, expected, *a, **k)

    services.validator.validate = recording
    agent = FakeAgent(service, clock=clock)
    rid = await service.start(
        steps=STEPS, competence="c", version=1, machine_id="pc-1", params={"patient": "MOREL"}, declared=DECLARED
    )
    first = service.store.actions(rid)[0]
    assert first["target"]["identity"] == "MOREL 02/11/1962" and first["target"]["identity_values"] == ["MOREL"]
    await drain(service, [agent], clock)
    assert service.store.get_replay(rid)["state"] == m.COMPLETED
    assert [(t, e.outcome_kind, e.outcome_text) for t, e in seen] == [
        ("click_anchor", "window_title", "Admission — MOREL"),
        ("click_anchor", "message", "Dispensation de MOREL enregistrée"),
        ("screenshot_evidence", None, None),  # the closing look after the last step expects no outcome of its own
    ]


async def test_a_record_whose_identity_did_not_match_pauses_with_nothing_executed(service: Any, clock: Any) -> None:
    agent = FakeAgent(service, clock=clock)
    agent.result_for["click_anchor"] = {
        "executed": False,
        "success": False,
        "error": "IDENTITY_MISMATCH: expected 'MOREL 02/11/1962', the target reads 'FAURE Celine 02/11/1962'",
        "error_retryable": False,
    }
    rid = await service.start(
        steps=STEPS, competence="c", version=1, machine_id="pc-1", params={"patient": "MOREL"}, declared=DECLARED
    )
    await drain(service, [agent], clock)
    replay = service.store.get_replay(rid)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.PAUSED_NEED_HELP
    assert replay["pause_detail"]["failure_category"] == "IDENTITY_MISMATCH"
    assert replay["pause_detail"]["executed"] is False and "FAURE" in replay["pause_detail"]["error"]
    assert agent.executions == []
