"""A replay's outcome is one word a person can act on, computed from its actions alone."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.service import ReplayService
from tests.replay.kit import FakeAgent, JumpClock, Verdict, drain

pytestmark = pytest.mark.anyio

NOT_FOUND = {"success": False, "error": "not_found", "actual_position": None}


def workflow(*kinds: str) -> list[dict[str, Any]]:
    """One step per kind: 'nav' (a tab), 'save' (an irreversible button), 'odd' (a double click: scripted apart)."""
    out = []
    for i, kind in enumerate(kinds, start=1):
        if kind == "save":
            out.append(
                {
                    "index": i,
                    "intent": "Enregistrer",
                    "action_type": "click_anchor",
                    "target": {"label": "Enregistrer", "window_title": "MédiDossier"},
                }
            )
        elif kind == "odd":
            out.append(
                {
                    "index": i,
                    "intent": "Ouvrir",
                    "action_type": "double_click_anchor",
                    "target": {"label": "Ligne", "window_title": "MédiDossier"},
                }
            )
        else:
            out.append(
                {
                    "index": i,
                    "intent": f"Onglet {i}",
                    "action_type": "click_anchor",
                    "target": {"label": f"Onglet {i}", "window_title": "MédiDossier"},
                }
            )
    return out  # fmt: skip


async def start(service: ReplayService, steps: list[dict[str, Any]]) -> str:
    return await service.start(steps=steps, competence="c", version=1, machine_id="pc-1")


async def test_a_run_whose_every_outcome_was_seen_is_completed(
    service: ReplayService, agent: FakeAgent, clock: JumpClock
) -> None:
    rid = await start(service, workflow("nav", "save", "nav"))
    await drain(service, [agent], clock)
    status = service.status(rid)
    assert (status["state"], status["outcome"], status["steps_done"]) == (m.COMPLETED, "completed", 3)
    assert [e["index"] for e in status["irreversible_sent"]] == [2]


async def test_a_renamed_button_paused_at_the_last_step_is_not_counted_done(
    service: ReplayService, agent: FakeAgent, clock: JumpClock
) -> None:
    agent.result_for["double_click_anchor"] = NOT_FOUND
    rid = await start(service, workflow("nav", "nav", "odd"))
    await drain(service, [agent], clock)
    status = service.status(rid)
    assert status["state"] == m.PAUSED
    assert status["steps_done"] == 2  # not "3 of 3"
    assert status["current_action"]["index"] == 3
    assert status["outcome"] == "paused"
    assert status["if_stopped_now"] == "halted_before_effect"


async def test_an_abandoned_step_stays_the_current_action_not_the_next_one(
    service: ReplayService, agent: FakeAgent, clock: JumpClock
) -> None:
    agent.result_for["double_click_anchor"] = NOT_FOUND
    rid = await start(service, workflow("nav", "odd", "nav"))
    await drain(service, [agent], clock)
    status = service.status(rid)
    paused_id = status["pause_detail"]["action_id"]
    assert status["current_action"]["action_id"] == paused_id
    assert status["current_action"]["index"] == 2
    assert service.timeline(rid)["current_action_id"] == paused_id


async def test_abort_before_any_irreversible_step_is_halted_before_effect(
    service: ReplayService, agent: FakeAgent, clock: JumpClock
) -> None:
    agent.result_for["double_click_anchor"] = NOT_FOUND
    rid = await start(service, workflow("nav", "odd", "save"))
    await drain(service, [agent], clock)
    await service.answer(rid, "abort")
    status = service.status(rid)
    assert (status["state"], status["outcome"]) == (m.CANCELLED, "halted_before_effect")
    assert status["irreversible_sent"] == []


async def test_agent_killed_after_an_irreversible_start_requires_reconciliation_naming_it(
    service: ReplayService, agent: FakeAgent, clock: JumpClock
) -> None:
    rid = await start(service, workflow("nav", "save", "nav"))
    await agent.step()
    agent.faults.add("die_after_start")
    assert await agent.step() == "died_after_start"
    for _ in range(6):  # the agent stays silent: its lease runs out
        clock.advance(service.config.orphan_timeout_s)
        service.scan_once()
    status = service.status(rid)
    assert (status["state"], status["pause_reason"]) == (m.PAUSED, m.OUTCOME_UNKNOWN)
    assert status["if_stopped_now"] == "reconciliation_required"
    assert any("check the record of step 2" in line for line in status["what_you_can_do"])
    await service.answer(rid, "abort")
    status = service.status(rid)
    assert status["outcome"] == "reconciliation_required"
    assert [(e["index"], e["outcome_seen"]) for e in status["irreversible_sent"]] == [(2, False)]
    assert any("step 2" in line for line in status["what_you_can_do"])


async def test_cancel_while_an_irreversible_step_is_in_flight_waits_for_its_report(
    service: ReplayService, agent: FakeAgent, clock: JumpClock
) -> None:
    rid = await start(service, workflow("save", "nav"))
    agent.faults.add("heartbeat")
    assert await agent.step() == "running_long"
    await service.cancel(rid)
    assert service.status(rid)["outcome"] == "cancelled"  # not ended: the action in flight will tell
    await agent.finish_long()
    status = service.status(rid)
    assert status["outcome"] == "reconciliation_required"


async def test_an_unverified_step_not_declared_uncheckable_is_never_completed(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [Verdict(), Verdict("UNCERTAIN")]
    rid = await start(service, workflow("nav", "save"))
    await drain(service, [agent], clock, answer_pauses=True)  # a person answers skip
    status = service.status(rid)
    assert status["state"] == m.COMPLETED
    assert status["outcome"] == "reconciliation_required"
    assert status["unverified_steps"] == [2]


async def test_steps_declared_uncheckable_end_completed_unverified(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    steps = workflow("nav", "nav")
    steps[1]["uncheckable"] = True
    services.validator.script = [Verdict(), Verdict("SUCCESS", "NO_VISUAL_CHANGE")]
    rid = await start(service, steps)
    await drain(service, [agent], clock)
    status = service.status(rid)
    assert (status["outcome"], status["uncheckable_steps"], status["steps_done"]) == ("completed_unverified", [2], 1)


async def test_a_step_without_change_not_declared_uncheckable_halts_before_effect(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [Verdict(), Verdict("SUCCESS", "NO_VISUAL_CHANGE")]
    rid = await start(service, workflow("nav", "nav"))
    await drain(service, [agent], clock)
    assert service.status(rid)["outcome"] == "halted_before_effect"
