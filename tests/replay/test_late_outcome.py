"""A step proved by what its demonstration showed appear (a save's "Enregistré" banner) whose outcome comes late
(a server answering after the agent's still-screen wait) gets one later look (no input) that waits for the
screen to change; a step with such an outcome, or an irreversible one, is never a success with nothing changed
on the screen."""

from __future__ import annotations

from typing import Any

import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.service.later_look import LATE_WINDOW_WAIT_S, OUTCOME_MISSING, SCREEN_CHANGES_PARAM
from tests.replay.kit import (
    FakeAgent,
    JumpClock,
    Verdict,
    assert_clean,
    drain,
    later_looks,
    png_b64,
    replay_of,
    sent,
    the_step,
)

pytestmark = pytest.mark.anyio

SAVED = {"kind": "message", "text": "Demande enregistrée"}
LOOK_BEFORE = png_b64(120, 240)


async def save(
    service: ReplayService, agent: FakeAgent, outcome: dict[str, str] | None = SAVED, label: str = "Envoyer la demande"
) -> str:
    """A click on `label` (not strictly checked) whose demonstration showed `outcome` appear."""
    agent.result_for["screenshot_evidence"] = {"screenshot_before": LOOK_BEFORE, "actual_position": None}
    plan = [
        {
            "index": 0,
            "intent": f"Cliquer sur '{label}'",
            "action_type": "click_anchor",
            "target": {"label": label, "window_title": "MédiDossier"},
            "expected_window_before": "MédiDossier",
            "expected_window_after": "MédiDossier",
            "expected_outcome": outcome,
        }
    ]
    return await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")


def missing() -> Verdict:
    return Verdict("FAILURE", "UNEXPECTED_OUTCOME", rule=OUTCOME_MISSING)


async def test_an_outcome_shown_after_the_wait_is_seen_by_a_later_look_and_the_step_completes(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [missing(), Verdict("SUCCESS")]
    rid = await save(service, agent)
    assert await agent.step() == "done"
    step = the_step(service, rid, "click_anchor")
    assert (step.state, step.outcome) == (m.HELD, m.AWAITING_LATER_LOOK)
    assert replay_of(service, rid).state == m.RUNNING
    [look] = later_looks(service, rid)
    assert look.params == {"seconds": LATE_WINDOW_WAIT_S, SCREEN_CHANGES_PARAM: True}
    assert look.seq < step.seq and look.expected["looks_at"] == step.action_id

    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.COMPLETED, (replay.pause_reason, replay.pause_detail)
    step = the_step(service, rid, "click_anchor")
    assert (step.outcome, step.verdict["verdict"]) == ("success", "SUCCESS")
    assert step.verdict["later_look"]["first_verdict"]["failure_category"] == "UNEXPECTED_OUTCOME"
    assert sent(agent, step.action_id) == 1 and sent(agent, look.action_id) == 1
    assert_clean(service, [agent])


async def test_an_outcome_still_missing_at_the_later_look_pauses(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [missing(), missing()]
    rid = await save(service, agent)
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED
    assert (replay.pause_detail or {})["failure_category"] == "UNEXPECTED_OUTCOME"
    assert len(later_looks(service, rid)) == 1 and sent(agent, the_step(service, rid, "click_anchor").action_id) == 1


async def test_a_step_whose_outcome_never_came_and_that_changed_nothing_pauses_never_completes(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    # before: a click not strictly checked that changed nothing went on with a warning, and the run completed
    # though the save the demonstration showed never happened
    services.validator.script = [Verdict("FAILURE", "NO_VISUAL_CHANGE"), Verdict("FAILURE", "NO_VISUAL_CHANGE")]
    rid = await save(service, agent)
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.VALIDATION_FAILED, replay.state
    assert (replay.pause_detail or {})["failure_category"] == "NO_VISUAL_CHANGE"
    assert len(later_looks(service, rid)) == 1 and sent(agent, the_step(service, rid, "click_anchor").action_id) == 1
    assert_clean(service, [agent])


async def test_a_message_the_demonstration_did_not_show_pauses_at_once_without_a_look(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_OUTCOME", rule="unexpected-outcome")]
    rid = await save(service, agent)
    await drain(service, [agent], clock)
    assert replay_of(service, rid).state == m.PAUSED and later_looks(service, rid) == []
    assert services.validator.calls == ["click_anchor"]


async def test_an_irreversible_step_that_changed_nothing_pauses_though_its_demonstration_showed_no_outcome(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [Verdict("FAILURE", "NO_VISUAL_CHANGE"), Verdict("FAILURE", "NO_VISUAL_CHANGE")]
    rid = await save(service, agent, None, label="Valider la dispensation")
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and (replay.pause_detail or {})["failure_category"] == "NO_VISUAL_CHANGE"
    assert len(later_looks(service, rid)) == 1 and sent(agent, the_step(service, rid, "click_anchor").action_id) == 1


@pytest.mark.parametrize(
    "outcome",
    [None, {"kind": "field_value", "text": "Urgent"}],
    ids=["no outcome shown", "a field's value, which may hold already"],
)
async def test_a_step_no_appearing_outcome_proves_still_goes_on_with_a_warning_when_nothing_changed(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock, outcome: dict[str, str] | None
) -> None:
    services.validator.script = [Verdict("FAILURE", "NO_VISUAL_CHANGE")]
    rid = await save(service, agent, outcome, label="Afficher le détail")  # a navigation step
    await drain(service, [agent], clock)
    assert replay_of(service, rid).state == m.COMPLETED and later_looks(service, rid) == []
    step = the_step(service, rid, "click_anchor")
    assert (step.outcome, step.warning) == ("success_with_warning", "no_screen_change")
