"""A person's `retry` is a new attempt the agent executes; the watchdog's resend never is.

Answering `retry` to a pause gave "OUTCOME_UNKNOWN: attempt … already ran": the agent refused every
new attempt of an action it had run. The person has looked at the screen: `retry_of` names the attempt
they saw, and the agent runs the action again when nothing ran since.
"""

from __future__ import annotations

import pytest

from rpa_mcp.agent_sim import FaultPlan

from .fake_server import Harness

pytestmark = pytest.mark.anyio

IMAGERIE = {"label": "Imagerie", "x": 436, "y": 24}


async def test_a_person_retry_of_an_executed_action_is_executed_again(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("lose_report", at=1, times=0))
    await agent.poll_once()
    seen = harness.server.attempts[action_id][0]
    harness.desktop.goto("dossier")  # the person looked at the screen (and put it back)
    retry = harness.server.resend(action_id, retry_of=seen)
    agent.faults = FaultPlan()
    await agent.poll_once()
    result = harness.server.results[action_id]
    assert (result["attempt_id"], result["executed"], result["success"]) == (retry, True, True)
    assert len(harness.desktop.agent_inputs()) == 2 and harness.desktop.screen.id == "imagerie"


async def test_an_automatic_resend_of_an_executed_action_is_still_not_executed(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("lose_report", at=1, times=0))
    await agent.poll_once()
    harness.server.resend(action_id)
    agent.faults = FaultPlan()
    await agent.poll_once()
    assert harness.server.results[action_id]["executed"] is False
    assert len(harness.desktop.agent_inputs()) == 1


async def test_a_person_retry_never_covers_an_attempt_that_ran_after_the_one_they_saw(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("lose_report", at=1, times=0))
    await agent.poll_once()
    first = harness.server.attempts[action_id][0]
    second = harness.server.resend(action_id, retry_of=first)
    await agent.poll_once()  # the person's retry ran (its report lost too)
    assert len(harness.desktop.agent_inputs()) == 2
    harness.server.resend(action_id, retry_of=first)  # a stale consent: the second attempt ran since
    agent.faults = FaultPlan()
    await agent.poll_once()
    assert harness.server.results[action_id]["executed"] is False and second != first
    assert len(harness.desktop.agent_inputs()) == 2
