"""Every transport fault, driven at the service level: lost, delayed and duplicated messages on both
sides, disconnects, crashes mid-action, expired leases, clock skew, restarts. A test's letter (a)-(u)
numbers the fault it drives; the last ones are extra cases.

Each test ends with a drain and the checker: lost = 0, executed twice = 0, reported from
nowhere = 0, every action ACKED/ABANDONED or in a PAUSED replay with its reason.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from rpa_mcp.replay import model as m
from rpa_mcp.replay.wire import ActionResult, ReceiptAck, StartAck
from tests.replay.kit import (
    SHOT_AFTER,
    SHOT_BEFORE,
    FakeAgent,
    Verdict,
    assert_clean,
    drain,
    make_service,
    make_services,
    steps,
)

pytestmark = pytest.mark.anyio


async def start(service, n=3, machine="pc-1", **kw):
    return await service.start(
        steps=kw.pop("plan", None) or steps(n, **kw), competence="demo", version=1, machine_id=machine
    )


def state(service, rid):
    return service.store.get_replay(rid)


def action(service, rid, i=0):
    return service.store.actions(rid)[i]


async def start_and_dispatch(service, n):
    """Start a replay of `n` steps and hand its first action to a v2 agent (nothing is acked yet)."""
    rid = await start(service, n)
    return rid, await service.next_action("pc-1", protocol_version=2)


async def start_and_step_with_fault(service, agent, fault, n):
    """Start a replay of `n` steps and let the agent take one cycle with `fault` switched on."""
    rid = await start(service, n)
    agent.faults.add(fault)
    await agent.step()
    return rid


def outlive_the_lease(service, clock):
    """Let the 30 s lease of the action in flight run out and let the watchdog scan once."""
    clock.advance(31)
    return service.scan_once()


def agent_executed(agent, rid, p):
    """Book `p` as received and executed by the agent, as if it ran it off stage."""
    agent.received.add((rid, p.action_id, p.attempt_id))
    agent.executions.append((rid, p.action_id, p.attempt_id))


def successful_report(rid, p, **extra):
    """The agent's report that attempt `p` succeeded, with both screenshots."""
    return ActionResult(
        replay_id=rid,
        action_id=p.action_id,
        attempt_id=p.attempt_id,
        success=True,
        screenshot_before=SHOT_BEFORE,
        screenshot_after=SHOT_AFTER,
        **extra,
    )


async def test_a_happy_replay_completes_with_every_action_acked_once(service, agent, clock):
    rid = await start(service, 4)
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    acts = service.store.actions(rid)
    assert [(a["origin"], a["state"]) for a in acts] == [("workflow", m.ACKED)] * 4 + [("closing", m.ACKED)]
    assert sorted(a for _r, a, _t in agent.executions) == sorted(a["action_id"] for a in acts)  # each one once
    assert_clean(service, [agent])


async def test_a_poll_that_times_out_returns_nothing_and_dispatches_nothing(service, agent, clock):
    assert await service.next_action("pc-1", wait=0.01) is None
    rid = await start(service, 1)
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_a_long_poll_returns_as_soon_as_an_action_is_enqueued(service):
    got = []

    async def poll():
        got.append(await service.next_action("pc-1", wait=30))

    async with anyio.create_task_group() as tg:
        tg.start_soon(poll)
        await anyio.wait_all_tasks_blocked()
        await start(service, 1)
    assert got[0] is not None and got[0].action_type == "click_anchor"


async def test_b_client_disconnect_after_receiving_is_resent_with_a_new_attempt_and_executed_once(
    service, agent, clock
):
    rid = await start_and_step_with_fault(service, agent, "die_after_receive", 2)
    first = action(service, rid)["attempt_id"]
    clock.advance(31)
    assert service.scan_once() == 1
    await drain(service, [agent], clock)
    acts = service.store.actions(rid)
    assert acts[0]["state"] == m.ACKED and acts[0]["attempt_id"] != first and acts[0]["resends"] == 1
    assert_clean(service, [agent])


async def test_c_lost_report_is_resent_by_the_agent_and_counted_once(service, agent, clock):
    rid = await start_and_step_with_fault(service, agent, "lose_report", 2)
    assert action(service, rid)["state"] == m.DISPATCHED
    agent.faults.discard("drop_report")
    await agent.flush()
    assert action(service, rid)["state"] == m.ACKED
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_d_a_report_racing_the_watchdog_is_fenced_and_the_action_still_runs_once(service, agent, clock):
    rid, first = await start_and_dispatch(service, 1)  # received, never started
    await service.receipt(ReceiptAck(replay_id=rid, action_id=first.action_id, attempt_id=first.attempt_id))
    outlive_the_lease(service, clock)  # orphan, never started -> resend allowed
    await drain(service, [agent], clock)
    # a report for the fenced first attempt arrives late: stored as late, changes nothing
    late = await service.report(successful_report(rid, first))
    assert late.status == "late"
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_e_and_extra_agent_dying_after_start_pauses_outcome_unknown_and_is_not_resent(service, agent, clock):
    rid = await start_and_step_with_fault(service, agent, "die_after_start", 2)
    outlive_the_lease(service, clock)
    replay = state(service, rid)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.OUTCOME_UNKNOWN
    agent.restart()
    for _ in range(5):
        await agent.step()
        outlive_the_lease(service, clock)
    assert action(service, rid)["dispatches"] == 1  # never resent
    assert len(agent.executions) == 1
    assert_clean(service, [agent])
    status = service.status(rid)
    assert status["pause_reason"] == m.OUTCOME_UNKNOWN and "skip" in " ".join(status["what_you_can_do"])


async def test_f_server_restart_mid_replay_loses_nothing_and_leases_resume(tmp_path: Path):
    services = make_services(tmp_path)
    service = make_service(services)
    agent = FakeAgent(service, clock=services.clock)
    rid = await start(service, 3)
    await agent.step()
    agent.faults.add("die_after_receive")
    await agent.step()  # second action received, then the agent and the server die
    in_flight = action(service, rid, 1)
    services.db.close()
    # "kill -9": a new process opens the same file
    services2 = make_services(tmp_path, clock=services.clock)
    service2 = make_service(services2)
    after = service2.store.get_action(rid, in_flight["action_id"])
    assert after["state"] == m.DISPATCHED and after["lease_until"] == in_flight["lease_until"]
    agent2 = FakeAgent(service2, clock=services.clock)
    agent2.journal = agent.journal
    assert service2.scan_once() == 0  # the persisted lease is still running
    services.clock.advance(31)
    assert service2.scan_once() == 1
    await drain(service2, [agent2], services.clock)
    assert service2.store.get_replay(rid)["state"] == m.COMPLETED
    agent2.executions = agent.executions + agent2.executions
    agent2.received |= agent.received
    assert_clean(service2, [agent2])


async def test_g_concurrent_polls_from_one_machine_never_get_two_actions(service, clock):
    rid = await start(service, 3)
    polls = [await service.next_action("pc-1", protocol_version=2) for _ in range(5)]
    assert len({(p.action_id, p.attempt_id) for p in polls}) == 1
    # two processes with the same identity: only the first start may proceed
    p = polls[0]
    first = await service.started(StartAck(replay_id=rid, action_id=p.action_id, attempt_id=p.attempt_id))
    second = await service.started(StartAck(replay_id=rid, action_id=p.action_id, attempt_id=p.attempt_id))
    assert first.proceed and not second.proceed and second.status == "duplicate"
    assert await service.next_action("pc-1", protocol_version=2) is None  # started: nothing else in flight


async def test_h_duplicate_reports_are_recorded_once(service, clock):
    rid = await start(service, 2)
    p = await service.next_action("pc-1")
    result = successful_report(rid, p, actual_position=[5, 5])
    statuses = [(await service.report(result)).status for _ in range(10)]
    assert statuses[0] == "accepted" and set(statuses[1:]) == {"duplicate"}
    accepted = [r for r in service.store.reports(rid) if r["kind"] == "result" and r["status"] == "accepted"]
    assert len(accepted) == 1


async def test_h_concurrent_duplicate_reports_are_recorded_once(service):
    rid = await start(service, 1)
    p = await service.next_action("pc-1")
    result = successful_report(rid, p)
    out = []

    async def send():
        out.append((await service.report(result)).status)

    async with anyio.create_task_group() as tg:
        for _ in range(10):
            tg.start_soon(send)
    assert out.count("accepted") == 1


async def test_i_resend_of_an_executed_non_idempotent_action_is_answered_from_the_agent_cache(service, agent, clock):
    rid, p = await start_and_dispatch(service, 1)
    # the agent executed it (journal DONE), the server re-sends the same attempt on a retried poll
    agent.received.add((rid, p.action_id, p.attempt_id))
    agent._remember(agent.key(p), {"state": "RECEIVED"})
    agent.executions.append((rid, p.action_id, p.attempt_id))
    agent._finish(p)
    agent.outbox.clear()
    assert await agent.step() == "dedup_report"
    assert action(service, rid)["state"] == m.ACKED
    assert len(agent.executions) == 1
    assert await agent.step() == "done"  # the closing look after the last step
    assert state(service, rid)["state"] == m.COMPLETED
    assert [a[1] for a in agent.executions] == [p.action_id, action(service, rid, 1)["action_id"]]
    assert_clean(service, [agent])


async def test_j_pause_while_in_flight_accepts_the_report_and_dispatches_nothing_more(service, agent, clock):
    rid, p = await start_and_dispatch(service, 3)
    await service.pause(rid)
    agent_executed(agent, rid, p)
    await service.report(successful_report(rid, p))
    assert action(service, rid)["state"] == m.ACKED
    assert await service.next_action("pc-1") is None
    assert state(service, rid)["state"] == m.PAUSED
    await service.resume(rid)  # (o) resume -> next action
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_k_cancel_while_in_flight_records_the_late_report_and_dispatches_nothing(service, agent, clock):
    rid, p = await start_and_dispatch(service, 3)
    await service.cancel(rid)
    agent_executed(agent, rid, p)
    ack = await service.report(successful_report(rid, p))
    assert ack.status == "accepted" and ack.replay_state == m.CANCELLED
    acts = service.store.actions(rid)
    assert acts[0]["state"] == m.ACKED and acts[0]["outcome"] == "success_after_cancel"
    assert [a["state"] for a in acts[1:]] == [m.ABANDONED, m.ABANDONED]
    assert await service.next_action("pc-1") is None
    assert_clean(service, [agent])


async def test_k_cancel_then_silent_agent_abandons_the_in_flight_action(service, clock):
    rid, _ = await start_and_dispatch(service, 2)
    await service.cancel(rid)
    outlive_the_lease(service, clock)
    assert all(a["state"] == m.ABANDONED for a in service.store.actions(rid))


async def test_l_max_resends_reached_abandons_and_pauses_need_help(service, clock):
    rid = await start(service, 2)
    for _ in range(3):  # 1 dispatch + 2 resends, each received then lost
        p = await service.next_action("pc-1", protocol_version=2)
        assert p is not None
        await service.receipt(ReceiptAck(replay_id=rid, action_id=p.action_id, attempt_id=p.attempt_id))
        outlive_the_lease(service, clock)
    a = action(service, rid)
    assert a["state"] == m.ABANDONED and a["resends"] == 2 and a["dispatches"] == 3
    replay = state(service, rid)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.PAUSED_NEED_HELP
    assert await service.next_action("pc-1") is None


async def test_m_report_for_unknown_replay_or_action_is_unknown(service):
    ack = await service.report(ActionResult(replay_id="rp_nope", action_id="x", attempt_id="y", success=True))
    assert ack.status == "unknown"
    rid = await start(service, 1)
    ack = await service.report(ActionResult(replay_id=rid, action_id="nope", attempt_id="y", success=True))
    assert ack.status == "unknown"
    a = action(service, rid)
    ack = await service.report(
        ActionResult(replay_id=rid, action_id=a["action_id"], attempt_id="at_forged", success=True)
    )
    assert ack.status == "unknown" and action(service, rid)["state"] == m.PENDING


async def test_n_stale_attempt_report_changes_nothing(service, agent, clock):
    rid, old = await start_and_dispatch(service, 1)
    outlive_the_lease(service, clock)
    new = await service.next_action("pc-1", protocol_version=2)
    assert new.attempt_id != old.attempt_id
    ack = await service.report(successful_report(rid, old))
    assert ack.status == "late" and action(service, rid)["state"] == m.DISPATCHED
    from rpa_mcp.replay.wire import Heartbeat

    hb = await service.heartbeat(Heartbeat(replay_id=rid, action_id=old.action_id, attempt_id=old.attempt_id))
    assert hb.status == "late"


async def test_p_server_side_actions_run_once_and_are_never_resent(service, services, agent, clock):
    from rpa_mcp.vision.ocr import OcrLine

    services.ocr.lines = [OcrLine("Dupont Jean", (0, 0, 10, 5), 0.99)]
    plan = [
        *steps(1),
        {
            "index": 1,
            "intent": "read name",
            "action_type": "extract_text",
            "target": {"bbox": [0, 0, 16, 16]},
            "params": {"variable": "name"},
        },
    ]
    rid = await start(service, plan=plan)
    await drain(service, [agent], clock)
    acts = service.store.actions(rid)
    assert acts[1]["state"] == m.ACKED and acts[1]["dispatches"] == 1 and acts[1]["max_resends"] == 0
    assert state(service, rid)["variables"]["name"] == "Dupont Jean"
    assert all(a[1] != acts[1]["action_id"] for a in agent.executions)
    assert_clean(service, [agent])


async def test_p_a_failing_server_side_action_pauses_and_is_not_retried(service, services, agent, clock):
    plan = [*steps(1), {"index": 1, "intent": "decide", "action_type": "t2a_decision"}]
    rid = await start(service, plan=plan)
    await drain(service, [agent], clock)
    replay = state(service, rid)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.SERVER_ACTION_FAILED
    assert (
        replay["pause_detail"]["error"] == "t2a_decision cannot run: no language model is configured: set RPA_LLM_URL"
    )
    assert action(service, rid, 1)["dispatches"] == 1
    assert_clean(service, [agent])


async def test_a_server_side_decision_runs_through_the_runner_it_was_given(tmp_path):
    class Decide:
        def __init__(self) -> None:
            self.calls: list[tuple[str, dict, dict]] = []

        def run(self, action_type, params, variables):
            self.calls.append((action_type, params, variables))
            return "GHM 05M09"

    runner = Decide()
    services = make_services(tmp_path, server_actions=runner)
    service = make_service(services)
    agent = FakeAgent(service, clock=services.clock)
    plan = [*steps(1), {"index": 1, "intent": "decide", "action_type": "t2a_decision", "params": {"variable": "ghm"}}]
    rid = await start(service, plan=plan)
    await drain(service, [agent], services.clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert runner.calls[0][0] == "t2a_decision" and state(service, rid)["variables"]["ghm"] == "GHM 05M09"


async def test_q_completion_purges_retry_bookkeeping(service, agent, clock):
    rid = await start_and_step_with_fault(service, agent, "die_after_receive", 2)
    outlive_the_lease(service, clock)
    assert service.store.count_attempts(rid) >= 1
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert service.store.count_attempts(rid) == 0
    assert_clean(service, [agent])


async def test_r_v1_client_completes_and_a_missing_report_is_outcome_unknown(service, clock):
    agent = FakeAgent(service, version=1, clock=clock)
    rid = await start(service, 2)
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert not [r for r in service.store.reports(rid) if r["kind"] in ("receipt", "start")]
    rid2 = await start(service, 1)
    await service.next_action("pc-1", protocol_version=1)  # v1 agent received it and went silent
    outlive_the_lease(service, clock)
    replay = state(service, rid2)
    assert replay["pause_reason"] == m.OUTCOME_UNKNOWN and action(service, rid2)["dispatches"] == 1


async def test_s_client_clock_skew_changes_nothing(service, clock):
    agent = FakeAgent(service, clock=clock, skew_s=300)
    rid = await start(service, 2)
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_s_a_wall_clock_jump_causes_no_resend_storm(service, clock):
    rid, _ = await start_and_dispatch(service, 1)
    clock.jump_wall(3600)
    assert service.scan_once() == 0
    clock.jump_wall(-7200)
    clock.advance(31)
    assert service.scan_once() == 1  # leases still expire on the server's monotonic time
    assert action(service, rid)["state"] == m.ORPHAN


async def test_t_heartbeats_extend_the_lease_of_a_long_action(service, agent, clock):
    rid = await start(service, 1)
    agent.faults.add("heartbeat")
    assert await agent.step() == "running_long"
    for _ in range(6):
        clock.advance(20)
        assert (await agent.heartbeat()).status == "accepted"
        assert service.scan_once() == 0
    await agent.finish_long()
    assert action(service, rid)["state"] == m.ACKED and state(service, rid)["state"] == m.RUNNING
    assert await agent.step() == "done"  # the closing look after the last step
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_t_when_heartbeats_stop_the_started_action_pauses_outcome_unknown(service, agent, clock):
    rid = await start_and_step_with_fault(service, agent, "heartbeat", 1)
    clock.advance(20)
    await agent.heartbeat()
    clock.advance(31)
    assert service.scan_once() == 1
    assert state(service, rid)["pause_reason"] == m.OUTCOME_UNKNOWN


async def test_u_validator_overrides_agent_success_to_failure_with_evidence(service, services, agent, clock):
    rid = await start(service, 3)
    services.validator.script = [
        Verdict(),
        Verdict("FAILURE", "WRONG_APPLICATION", 0.9, [{"checker": "TitleBarChecker", "said": "Edge"}]),
    ]
    await drain(service, [agent], clock)
    replay = state(service, rid)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.VALIDATION_FAILED
    a = action(service, rid, 1)
    assert a["state"] == m.HELD and a["verdict"]["failure_category"] == "WRONG_APPLICATION"
    status = service.status(rid)
    assert status["current_action"]["failure_category"] == "WRONG_APPLICATION"
    assert status["current_action"]["evidence"][0]["mime_type"] == "image/png"
    assert_clean(service, [agent])
    await service.answer(rid, "skip")
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED


async def test_two_watchdogs_racing_resend_each_orphan_once(tmp_path: Path):
    services = make_services(tmp_path)
    one, two = make_service(services), make_service(services)
    rid, _ = await start_and_dispatch(one, 1)
    services.clock.advance(31)
    assert one.scan_once() + two.scan_once() == 1
    a = one.store.actions(rid)[0]
    assert a["state"] == m.ORPHAN and a["resend_allowed"] == 1 and a["resends"] == 0


async def test_out_of_order_report_for_a_later_action_is_unknown(service, agent, clock):
    rid, _ = await start_and_dispatch(service, 2)
    later = action(service, rid, 1)
    ack = await service.report(
        ActionResult(replay_id=rid, action_id=later["action_id"], attempt_id="at_guess", success=True)
    )
    assert ack.status == "unknown" and action(service, rid, 1)["state"] == m.PENDING


async def test_poison_action_retries_retryable_errors_then_pauses(service, agent, clock):
    rid = await start(service, 2)
    agent.result_for["click_anchor"] = {"success": False, "error": "target not found", "error_retryable": True}
    await drain(service, [agent], clock)
    a = action(service, rid)
    assert a["state"] == m.ABANDONED and a["dispatches"] == 3
    assert state(service, rid)["pause_reason"] == m.PAUSED_NEED_HELP
    assert_clean(service, [agent])


async def test_non_retryable_agent_error_pauses_at_once(service, agent, clock):
    rid = await start(service, 2)
    agent.result_for["click_anchor"] = {"success": False, "error": "target_not_resolved", "error_retryable": False}
    await drain(service, [agent], clock)
    assert action(service, rid)["dispatches"] == 1
    assert state(service, rid)["pause_reason"] == m.PAUSED_NEED_HELP
    assert_clean(service, [agent])


async def test_expired_action_is_never_started_by_the_agent(service, agent, clock):
    rid, p = await start_and_dispatch(service, 1)
    clock.advance(45)  # the answer sat in a proxy: not_after passed
    ack = await service.started(StartAck(replay_id=rid, action_id=p.action_id, attempt_id=p.attempt_id))
    assert not ack.proceed
    service.scan_once()
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_system_dialog_mid_replay_pauses_without_input_and_resumes(service, agent, clock):
    rid = await start(service, 3)
    await agent.step()
    agent.faults.add("system_dialog")
    await agent.step()
    replay = state(service, rid)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.SYSTEM_DIALOG
    assert len(agent.executions) == 1
    assert_clean(service, [agent])
    await service.resume(rid)
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_human_takeover_pauses_and_resume_revalidates_the_screen(service, agent, clock):
    rid = await start(
        service,
        2,
        plan=[
            {"index": 0, "intent": "a", "action_type": "click_anchor", "expected_window_before": "MédiDossier"},
            {"index": 1, "intent": "b", "action_type": "click_anchor", "expected_window_before": "MédiDossier"},
        ],
    )
    agent.result_for["click_anchor"] = {"human_takeover": True, "window_title": "Outlook"}
    await agent.step()
    assert state(service, rid)["pause_reason"] == m.HUMAN_TAKEOVER
    from rpa_mcp.errors import PreconditionFailed

    with pytest.raises(PreconditionFailed) as err:
        await service.resume(rid)
    assert err.value.code == "precondition-failed"
    import numpy as np

    await service.resume(rid, screenshot=np.zeros((16, 16, 3), np.uint8), window_title="Medidossier")
    agent.result_for.clear()
    await drain(service, [agent], clock)
    assert state(service, rid)["state"] == m.COMPLETED
    assert_clean(service, [agent])


async def test_a_takeover_during_an_action_judged_a_dialog_is_said_beside_the_dialog(services, service, agent):
    """The person's input came while the action ran, and their window in front may be what looks like a dialog:
    the pause names the dialog (its action needs an answer) and says a person was using the desktop."""
    services.validator.by_type["click_anchor"] = Verdict("FAILURE", "UNEXPECTED_DIALOG")
    rid = await start(service, 2)
    agent.result_for["click_anchor"] = {"human_takeover": True, "window_title": "PACS"}
    await agent.step()
    replay = state(service, rid)
    assert replay["pause_reason"] == m.UNEXPECTED_DIALOG and replay["pause_detail"]["human_takeover"] is True


async def test_terminal_actions_are_immutable(service, agent, clock):
    rid = await start(service, 1)
    await drain(service, [agent], clock)
    a = action(service, rid)
    assert not service.store.update_action(
        rid,
        a["action_id"],
        expect_states=(m.PENDING, m.DISPATCHED, m.ORPHAN, m.HELD),
        expect_attempt=a["attempt_id"],
        now=0,
        state=m.PENDING,
    )
    from rpa_mcp.errors import Conflict

    with pytest.raises(Conflict):
        await service.resume(rid)


async def test_every_decision_leaves_one_json_log_line_with_ids(service, agent, clock, caplog):
    import json
    import logging

    caplog.set_level(logging.INFO, logger="rpa_mcp.replay")
    rid = await start(service, 1)
    await drain(service, [agent], clock)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "rpa_mcp.replay"]
    events = {line["event"] for line in lines if line["replay_id"] == rid}
    assert {
        "replay_started",
        "dispatch",
        "receipt",
        "start",
        "report",
        "verify",
        "transition",
        "replay_completed",
    } <= events
    assert all({"replay_id", "action_id", "attempt_id", "event"} <= set(line) for line in lines)


async def test_resource_updates_are_notified_on_each_change(service, services, agent, clock):
    rid = await start(service, 1)
    await drain(service, [agent], clock)
    assert services.notifier.uris.count(f"rpa://replays/{rid}") >= 3


async def test_the_watchdog_loop_scans_and_stops_when_told(service, clock):
    from rpa_mcp.replay.service import run_watchdog

    rid, _ = await start_and_dispatch(service, 1)
    clock.advance(31)
    stop = anyio.Event()
    stop.set()
    await run_watchdog(service, stop)  # stop already set: returns without scanning
    assert action(service, rid)["state"] == m.DISPATCHED
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(run_watchdog, service, stop)
        await anyio.wait_all_tasks_blocked()
        stop.set()
    assert action(service, rid)["state"] == m.ORPHAN


async def test_retry_after_max_resends_sends_a_fresh_copy_and_skip_goes_on(service, agent, clock):
    rid = await start(service, 2)
    agent.result_for["click_anchor"] = {"success": False, "error": "not found", "error_retryable": True}
    await drain(service, [agent], clock)
    first = action(service, rid)
    assert first["state"] == m.ABANDONED
    agent.result_for.clear()
    await service.answer(rid, "retry")
    await drain(service, [agent], clock)
    acts = service.store.actions(rid)
    assert state(service, rid)["state"] == m.COMPLETED
    assert acts[0]["state"] == m.ABANDONED and acts[1]["origin"] == "person" and acts[1]["state"] == m.ACKED
    assert acts[2]["state"] == m.ACKED  # the next workflow action was not touched by the retry
    rid2 = await start(service, 2)
    agent.result_for["click_anchor"] = {"success": False, "error": "not found", "error_retryable": True}
    await drain(service, [agent], clock)
    agent.result_for.clear()
    await service.answer(rid2, "skip")
    await drain(service, [agent], clock)
    acts = service.store.actions(rid2)
    assert [(a["origin"], a["state"]) for a in acts] == [
        ("workflow", m.ABANDONED),
        ("workflow", m.ACKED),
        ("closing", m.ACKED),
    ] and acts[1]["outcome"] == "success"
    assert_clean(service, [agent])
