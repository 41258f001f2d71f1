"""One more look at the workstation's screen after the last step, before a replay says `completed`: a dialog
that came late (a browser's permission prompt, an application's late error box) pauses the replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.rows import ActionRow, ReplayRow
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.service.server_actions import MAX_CLOSING_LOOKS
from tests.replay.kit import FakeAgent, JumpClock, Verdict, assert_clean, drain, make_service, make_services, steps

pytestmark = pytest.mark.anyio


def closing(service: ReplayService, rid: str) -> list[ActionRow]:
    return [a for a in service.store.actions(rid) if a.origin == "closing"]


def replay_of(service: ReplayService, rid: str) -> ReplayRow:
    replay = service.store.get_replay(rid)
    assert replay is not None
    return replay


def action_of(service: ReplayService, rid: str, action_id: str) -> ActionRow:
    action = service.store.get_action(rid, action_id)
    assert action is not None
    return action


async def test_the_last_step_done_the_replay_completes_only_once_the_closing_look_is_acked(
    service: ReplayService, services: Any, agent: FakeAgent
) -> None:
    rid = await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    assert closing(service, rid) == []  # nothing queued up front: the look comes after the last step
    assert await agent.step() == "done"
    assert await agent.step() == "done"  # the last step
    replay = replay_of(service, rid)
    assert replay.state == m.RUNNING and replay.finished_at is None and services.ledger.ended == []
    [look] = closing(service, rid)
    last = service.store.actions(rid)[1]
    assert last.state == m.ACKED and look.state == m.PENDING
    assert (look.action_id, look.action_type, look.params) == (
        f"{rid[3:11]}-end",
        "screenshot_evidence",
        {"seconds": 1.0},
    )
    assert look.seq == last.seq + 1 and look.step_index == last.step_index and not look.server_side
    status = service.status(rid)
    assert (status["state"], status["steps_done"], status["done"], status["steps_total"]) == ("running", 2, 2, 2)

    agent.faults.add("heartbeat")  # the agent holds the look in flight: its screenshot is not sent yet
    assert await agent.step() == "running_long"
    sent = agent.pending_start
    assert sent is not None and (sent.action_id, sent.action_type) == (look.action_id, "screenshot_evidence")
    assert sent.params == {"seconds": 1.0}
    assert action_of(service, rid, look.action_id).state == m.DISPATCHED
    assert replay_of(service, rid).state == m.RUNNING and services.ledger.ended == []

    await agent.finish_long()  # the screen, no dialog on it
    assert action_of(service, rid, look.action_id).state == m.ACKED
    status = service.status(rid)
    assert (status["state"], status["outcome"], status["steps_done"], status["done"]) == (
        "completed",
        "completed",
        2,
        2,
    )
    assert [e["outcome"] for e in services.ledger.ended] == ["completed"]
    assert services.validator.calls == ["click_anchor", "click_anchor", "screenshot_evidence"]
    assert await agent.step() == "idle"  # nothing after the look
    assert_clean(service, [agent])


async def test_a_dialog_in_the_closing_looks_screenshot_pauses_the_replay_which_does_not_say_completed(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    # as in test_supervision: the validator sees an unexpected dialog on the screen, the resolver says pause
    services.validator.by_type["screenshot_evidence"] = Verdict("FAILURE", "UNEXPECTED_DIALOG")
    rid = await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.UNEXPECTED_DIALOG, replay
    assert replay.outcome is None and replay.finished_at is None
    detail = replay.pause_detail or {}
    assert detail["dialog_id"] == "easily-save-confirm" and services.dialogs.calls == 1
    [look] = closing(service, rid)
    assert look.state == m.HELD and look.outcome == "dialog" and detail["action_id"] == look.action_id
    status = service.status(rid)
    assert status["state"] == m.PAUSED and status["outcome"] != "completed" and status["steps_done"] == 2
    assert status["current_action"]["action_id"] == look.action_id
    assert services.ledger.ended == []  # the run has not ended
    assert await agent.step() == "idle"  # nothing is sent while the dialog waits for a person
    assert_clean(service, [agent])


async def test_the_closing_look_is_queued_once_when_two_replicas_advance_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = make_services(tmp_path)
    one, two = make_service(services), make_service(services)
    agent = FakeAgent(one, clock=services.clock)
    rid = await one.start(steps=steps(1), competence="c", version=1, machine_id="pc-1")
    assert await agent.step() == "done"  # the last step, acked through replica one: the look is queued
    [look] = closing(one, rid)

    two._advance(rid)  # advanced again, on either replica: the look is already there
    one._advance(rid)
    assert closing(one, rid) == [look] and replay_of(one, rid).state == m.RUNNING

    # replica two read the queue before replica one queued the look: both find nothing open, no look made
    before = [a for a in two.store.actions(rid) if a.origin != "closing"]
    monkeypatch.setattr(two.store, "first_open_action", lambda _rid: None)
    monkeypatch.setattr(two.store, "actions", lambda _rid: before)
    two._advance(rid)  # its insert of the same look is a no-op, and it does not complete the replay
    assert closing(one, rid) == [look] and replay_of(one, rid).state == m.RUNNING

    await drain(one, [agent], services.clock)
    assert replay_of(one, rid).state == m.COMPLETED
    assert [a for _r, a, _t in agent.executions].count(look.action_id) == 1
    assert [e["outcome"] for e in services.ledger.ended] == ["completed"]
    assert_clean(one, [agent])


async def test_a_replay_of_server_side_actions_only_completes_without_a_look(tmp_path: Path) -> None:
    class Decide:
        def run(self, action_type: str, params: dict[str, Any], variables: dict[str, Any]) -> str:
            return "GHM 05M09"

    services = make_services(tmp_path, server_actions=Decide())
    service = make_service(services)
    agent = FakeAgent(service, clock=services.clock)
    plan = [{"index": 1, "intent": "decide", "action_type": "t2a_decision", "params": {"variable": "ghm"}}]
    rid = await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")
    replay = replay_of(service, rid)
    assert replay.state == m.COMPLETED and replay.variables["ghm"] == "GHM 05M09"
    assert [(a.origin, a.action_type) for a in service.store.actions(rid)] == [("workflow", "t2a_decision")]
    assert await agent.step() == "idle" and agent.executions == []  # nothing was sent to the workstation
    assert [e["outcome"] for e in services.ledger.ended] == ["completed"]


async def test_a_person_answering_the_closing_looks_dialog_is_followed_by_another_look_before_completed(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.by_type["screenshot_evidence"] = Verdict("FAILURE", "UNEXPECTED_DIALOG")
    rid = await service.start(steps=steps(2), competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    [first] = closing(service, rid)
    assert replay_of(service, rid).pause_reason == m.UNEXPECTED_DIALOG

    await service.answer(rid, "click:Oui")  # an input on a screen no look has seen after it
    del services.validator.by_type["screenshot_evidence"]  # the dialog is gone: the next look sees a clean screen
    assert await agent.step() == "done"  # the person's click
    [answer] = [a for a in service.store.actions(rid) if a.action_type == "dialog_button"]
    assert answer.state == m.ACKED and answer.seq > first.seq
    replay = replay_of(service, rid)
    assert replay.state == m.RUNNING and services.ledger.ended == [], replay.state  # not completed yet
    looks = closing(service, rid)
    assert len(looks) == 2 and looks[0].action_id == first.action_id, looks
    second = looks[1]
    assert second.seq > answer.seq and second.state == m.PENDING and second.action_type == "screenshot_evidence"
    assert second.action_id != first.action_id

    assert await agent.step() == "done"  # the second look: no dialog on the screen
    status = service.status(rid)
    assert (status["state"], status["outcome"], status["steps_done"]) == ("completed", "completed", 2)
    assert services.validator.calls[-2:] == ["dialog_button", "screenshot_evidence"]
    assert [e["outcome"] for e in services.ledger.ended] == ["completed"]
    assert await agent.step() == "idle"
    assert_clean(service, [agent])


async def test_a_dialog_seen_again_at_the_second_look_pauses_again(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.by_type["screenshot_evidence"] = Verdict("FAILURE", "UNEXPECTED_DIALOG")
    rid = await service.start(steps=steps(1), competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    await service.answer(rid, "click:Oui")  # the application answers with another box: still seen
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.UNEXPECTED_DIALOG, replay
    looks = closing(service, rid)
    assert len(looks) == 2 and (replay.pause_detail or {})["action_id"] == looks[1].action_id
    assert services.ledger.ended == []
    assert_clean(service, [agent])


async def test_a_dialog_answered_by_the_policy_at_the_closing_look_is_followed_by_another_look(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    services.validator.script = [Verdict(), Verdict("FAILURE", "UNEXPECTED_DIALOG")]  # the step, then the look
    services.dialogs.decision = "auto"
    rid = await service.start(steps=steps(1), competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    assert replay_of(service, rid).state == m.COMPLETED
    kinds = [(a.origin, a.action_type) for a in sorted(service.store.actions(rid), key=lambda a: a.seq)]
    assert kinds[-3:] == [
        ("closing", "screenshot_evidence"),
        ("dialog", "dialog_button"),  # the policy's click on the box the look saw
        ("closing", "screenshot_evidence"),  # and a look at the screen after it
    ], kinds
    assert services.validator.calls[-2:] == ["dialog_button", "screenshot_evidence"]
    assert_clean(service, [agent])


async def test_a_dialog_the_policy_answers_that_keeps_coming_back_pauses_after_three_looks(
    service: ReplayService, services: Any, agent: FakeAgent, clock: JumpClock
) -> None:
    # the step passes, then every look sees the dialog again and the policy answers it again
    services.validator.script = [Verdict()] + [Verdict("FAILURE", "UNEXPECTED_DIALOG"), Verdict()] * 10
    services.dialogs.decision = "auto"
    rid = await service.start(steps=steps(1), competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    replay = replay_of(service, rid)
    assert replay.state == m.PAUSED and replay.pause_reason == m.UNEXPECTED_DIALOG, replay
    assert "came back" in (replay.pause_detail or {})["reason"]
    assert len(closing(service, rid)) == MAX_CLOSING_LOOKS
    answers = [a for a in service.store.actions(rid) if a.action_type == "dialog_button"]
    assert len(answers) == MAX_CLOSING_LOOKS  # each look's dialog answered once, then no more answers
    assert services.ledger.ended == []
    assert_clean(service, [agent])
