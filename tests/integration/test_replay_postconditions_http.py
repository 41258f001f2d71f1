"""Over real HTTP with the reference agent on the incident desktop and the real validator: a step whose
demonstration showed an outcome is done only when that outcome is seen again."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.replay import model as m
from tests.integration.test_replay_http import OBSERVATIONS, call, drive, edge, promote, reference_agent, start_replay
from tests.integration.test_replay_http import workflow as make_workflow

pytestmark = pytest.mark.anyio


def observations(**outcome: Any) -> dict[str, Any]:
    return {**OBSERVATIONS, "expected_outcome": outcome}


async def test_a_step_whose_outcome_is_seen_again_completes(stack: Any) -> None:
    step = observations(kind="window_title", text=edge("Observation"))
    name = promote(stack, make_workflow("Observations (vue)", step))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = reference_agent(http)
        await drive(stack, agent, replay_id)
    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    assert status["state"] == m.COMPLETED
    assert any(c["checker"] == "OutcomeChecker" and c["score"] == 1.0 for c in status["actions"][0]["checkers"])


async def test_a_screen_that_changed_without_the_demonstrated_outcome_pauses(stack: Any) -> None:
    """The click works (the page changes) but the banner the demonstration showed never comes."""
    name = promote(stack, make_workflow("Observations (bannière)", observations(text="Observation enregistrée")))
    llm = await stack.mcp("operator")
    async with stack.http() as http:
        replay_id = await start_replay(stack, llm, name)
        agent = reference_agent(http)
        await drive(stack, agent, replay_id)
    status = await call(llm, "get_replay_status", {"replay_id": replay_id})
    assert status["state"] == m.PAUSED and status["pause_reason"] == m.VALIDATION_FAILED
    assert status["pause_detail"]["failure_category"] == "UNEXPECTED_OUTCOME"
    assert status["current_action"]["verdict"] == "FAILURE"
    assert [e.label for e in agent.desktop.agent_inputs()] == ["Observations"]  # one click, then a person
