from __future__ import annotations

import base64

import pytest

from rpa_mcp.agent_sim import AgentCrashed, FaultPlan
from rpa_mcp.errors import Unauthenticated
from rpa_mcp.vision.images import decode_image

from .fake_server import Harness

pytestmark = pytest.mark.anyio

IMAGERIE = {"label": "Imagerie", "x": 436, "y": 24}


async def test_action_is_acknowledged_executed_and_reported_with_evidence(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent()
    await agent.poll_once()
    assert harness.server.kinds() == ["receipt", "start", "result"]
    result = harness.server.results[action_id]
    assert (result["success"], result["executed"], result["actual_position"]) == (True, True, [436, 24])
    assert result["window_title_before"].endswith("Dossier patient - Microsoft Edge")
    assert "Imagerie" in result["window_title"] and result["process_after"] == "msedge.exe"
    assert decode_image(base64.b64decode(result["screenshot_after"])).shape == (1080, 1920, 3)
    assert result["screenshot_before"] != result["screenshot_after"]
    assert harness.server.protocol_headers == ["2"]
    assert [e.state for e in agent.journal.entries()] == ["DONE"]
    assert agent.journal.unreported() == []
    assert harness.desktop.screen.id == "imagerie"


async def test_v1_agent_sends_no_protocol_header_and_no_acks(harness: Harness) -> None:
    harness.server.enqueue(target=IMAGERIE)
    await harness.agent(protocol_version=1).poll_once()
    assert harness.server.kinds() == ["result"]
    assert harness.server.protocol_headers == [None]


async def test_agent_resolves_a_label_only_target_with_its_own_vision(harness: Harness) -> None:
    action_id = harness.server.enqueue(target={"label": "Biologie"})
    await harness.agent().poll_once()
    assert harness.server.results[action_id]["actual_position"] == [672, 24]
    assert harness.desktop.screen.id == "biologie"


async def test_nothing_to_do_is_a_quiet_poll(harness: Harness) -> None:
    assert await harness.agent().poll_once() is None
    assert harness.server.messages == []


async def test_bad_token_is_refused_loudly(harness: Harness) -> None:
    harness.server.token = "another"
    with pytest.raises(Unauthenticated) as err:
        await harness.agent().poll_once()
    assert err.value.code == "unauthenticated"


# --- dedup and journal ----------------------------------------------------------------------
async def test_poll_retry_of_an_executed_attempt_resends_the_cached_result(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("lose_report", at=1))
    await agent.poll_once()
    assert harness.server.kinds() == ["receipt", "start"]  # the report never arrived
    await agent.poll_once()  # the outbox re-sends it before polling
    assert harness.server.kinds() == ["receipt", "start", "result"]
    assert harness.server.results[action_id]["success"] is True
    assert len(harness.desktop.agent_inputs()) == 1


async def test_same_attempt_delivered_twice_is_executed_once(harness: Harness) -> None:
    harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("lose_report", at=1, times=1))
    action = await agent.poll_once()
    assert action is not None
    await agent.handle(action)  # a duplicate delivery of the same attempt
    assert ("dedup_hit", f"{action.action_id}:{action.attempt_id}") in agent.events
    assert len(harness.desktop.agent_inputs()) == 1


async def test_journal_survives_a_restart_and_prevents_re_execution(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    first = harness.agent(faults=FaultPlan().add("lose_report", at=1))
    action = await first.poll_once()
    first.journal.close()
    restarted = harness.agent()  # new process, same journal file
    assert len(restarted.dedup) == 1
    await restarted.flush_outbox()
    assert harness.server.results[action_id]["attempt_id"] == action.attempt_id
    await restarted.handle(action)  # the server hands the same attempt out again
    assert len(harness.desktop.agent_inputs()) == 1


async def test_agent_dying_mid_action_reports_outcome_unknown_after_restart(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    with pytest.raises(AgentCrashed):
        await harness.agent(faults=FaultPlan().add("die_mid_action", at=1)).poll_once()
    assert len(harness.desktop.agent_inputs()) == 1  # the click happened
    await harness.agent().poll_once()  # restarted: the same attempt is still in flight
    result = harness.server.results[action_id]
    assert result["error"].startswith("OUTCOME_UNKNOWN")
    assert (result["success"], result["executed"], result["error_retryable"]) == (False, True, False)
    assert len(harness.desktop.agent_inputs()) == 1


async def test_agent_dying_after_start_never_clicks_and_never_retries(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    with pytest.raises(AgentCrashed):
        await harness.agent(faults=FaultPlan().add("die_after_start", at=1)).poll_once()
    assert harness.server.kinds() == ["receipt", "start"]
    assert harness.desktop.agent_inputs() == []
    harness.server.resend(action_id)  # even if the server resends it
    await harness.agent().poll_once()
    assert harness.server.results[action_id]["error"].startswith("OUTCOME_UNKNOWN")
    assert harness.desktop.agent_inputs() == []


async def test_disconnect_after_receive_lets_a_resend_execute_once(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    with pytest.raises(AgentCrashed):
        await harness.agent(faults=FaultPlan().add("disconnect_after_receive", at=1)).poll_once()
    assert harness.server.kinds() == ["receipt"]  # received, never started
    attempt = harness.server.resend(action_id)
    await harness.agent().poll_once()
    assert harness.server.results[action_id]["attempt_id"] == attempt
    assert harness.server.results[action_id]["executed"] is True
    assert len(harness.desktop.agent_inputs()) == 1


async def test_resend_of_an_executed_non_idempotent_action_is_not_executed_again(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("lose_report", at=1, times=0))
    await agent.poll_once()
    harness.server.resend(action_id)
    agent.faults = FaultPlan()
    await agent.poll_once()
    result = harness.server.results[action_id]
    assert result["executed"] is False and result["warning"].startswith("ALREADY_EXECUTED")
    assert len(harness.desktop.agent_inputs()) == 1


async def test_resend_of_an_idempotent_action_is_executed(harness: Harness) -> None:
    action_id = harness.server.enqueue("switch_tab", target=IMAGERIE, idempotent=True)
    agent = harness.agent(faults=FaultPlan().add("lose_report", at=1, times=0))
    await agent.poll_once()
    harness.server.resend(action_id)
    agent.faults = FaultPlan()
    await agent.poll_once()
    assert harness.server.results[action_id]["executed"] is True
    assert [e for e, _ in agent.events].count("executing") == 2
    assert len(harness.desktop.agent_inputs()) == 2


# --- the rest of the fault plan -----------------------------------------------------------------
async def test_dropped_poll_answer_is_fetched_again_and_executed_once(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("drop_poll_answer", at=1))
    assert await agent.poll_once() is None
    assert harness.server.messages == []
    await agent.poll_once()
    assert harness.server.results[action_id]["attempt_id"] == f"{action_id}-a1"
    assert len(harness.desktop.agent_inputs()) == 1


async def test_lost_report_answer_makes_the_agent_resend_and_the_server_sees_a_duplicate(harness: Harness) -> None:
    harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("lose_report_ack", at=1))
    await agent.poll_once()
    assert len(agent.journal.unreported()) == 1
    await agent.flush_outbox()
    assert harness.server.kinds().count("result") == 2
    assert agent.events[-1][0] == "report_duplicate"
    assert agent.journal.unreported() == []


async def test_delayed_report_waits_without_heartbeats(harness: Harness) -> None:
    harness.server.enqueue(target=IMAGERIE)
    await harness.agent(faults=FaultPlan().add("delay_report", value=45.0)).poll_once()
    assert harness.sleep.calls == [45.0]
    assert harness.server.kinds() == ["receipt", "start", "result"]


async def test_duplicate_report_is_sent_twice(harness: Harness) -> None:
    harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("duplicate_report"))
    await agent.poll_once()
    assert harness.server.kinds().count("result") == 2
    assert ("report_duplicated" in [e for e, _ in agent.events]) is True


async def test_stale_attempt_report_names_the_older_attempt(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    with pytest.raises(AgentCrashed):
        await harness.agent(faults=FaultPlan().add("disconnect_after_receive", at=1)).poll_once()
    harness.server.resend(action_id)
    agent = harness.agent(faults=FaultPlan().add("stale_attempt"))
    await agent.poll_once()
    results = harness.server.acks("result")
    assert [r["attempt_id"] for r in results] == [f"{action_id}-a1", f"{action_id}-a2"]
    assert ("stale_report_sent", f"{action_id}:{action_id}-a1") in agent.events


async def test_clock_skew_does_not_expire_a_valid_action(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE, ttl_s=30)
    await harness.agent(faults=FaultPlan().add("clock_skew", value=3600.0)).poll_once()
    assert harness.server.results[action_id]["executed"] is True


async def test_expired_action_is_not_executed(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE, ttl_s=30)
    harness.server.clock.advance(31)
    await harness.agent(faults=FaultPlan().add("clock_skew", value=-3600.0)).poll_once()
    result = harness.server.results[action_id]
    assert result["error"].startswith("EXPIRED") and result["executed"] is False
    assert harness.server.kinds() == ["receipt", "result"]  # never started
    assert harness.desktop.agent_inputs() == []


async def test_long_action_sends_heartbeats_that_the_server_accepts(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    await harness.agent(faults=FaultPlan().add("slow_action", value=3.5)).poll_once()
    heartbeats = harness.server.acks("heartbeat")
    assert [h["progress"] for h in heartbeats] == [0.286, 0.571, 0.857]
    assert harness.sleep.calls == [1.0, 1.0, 1.0, 0.5]
    assert harness.server.results[action_id]["success"] is True


async def test_human_takeover_is_reported_without_any_input(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    await harness.agent(faults=FaultPlan().add("human_takeover")).poll_once()
    result = harness.server.results[action_id]
    assert (result["human_takeover"], result["executed"]) == (True, False)
    assert harness.desktop.agent_inputs() == []


async def test_system_dialog_is_reported_from_its_process_without_any_input(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    await harness.agent(faults=FaultPlan().add("system_dialog")).poll_once()
    result = harness.server.results[action_id]
    uac = next(d for d in harness.desktop.spec.dialogs if d.id == "uac")
    assert result["system_dialog"] == {"kind": "uac", "process": "consent.exe", "title": uac.window_title}
    assert result["executed"] is False
    assert harness.desktop.agent_inputs() == []
    assert "start" not in harness.server.kinds()


async def test_non_retryable_error_is_reported_as_such(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    await harness.agent(faults=FaultPlan().add("non_retryable_error")).poll_once()
    result = harness.server.results[action_id]
    assert (result["success"], result["error_retryable"], result["executed"]) == (False, False, False)


async def test_poison_action_kills_the_agent_every_time_and_is_never_executed(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    faults = FaultPlan().add("poison", action_id=action_id, times=0)
    for _ in range(3):
        with pytest.raises(AgentCrashed):
            await harness.agent(faults=faults).poll_once()
        harness.server.resend(action_id)
    assert harness.desktop.agent_inputs() == []
    assert action_id not in harness.server.results


async def test_start_refused_by_the_server_means_no_input(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    harness.server.proceed_on_start = False
    await harness.agent().poll_once()
    result = harness.server.results[action_id]
    assert result["executed"] is False and result["error"].startswith("NOT_STARTED")
    assert harness.desktop.agent_inputs() == []


async def test_run_stops_after_max_actions(harness: Harness) -> None:
    for _ in range(3):
        harness.server.enqueue(target=IMAGERIE)
    await harness.agent().run(max_actions=3)
    assert len(harness.server.results) == 3


# --- the incident workflow end to end ---------------------------------------------------------
async def test_incident_workflow_saves_through_the_confirmation_and_stops_at_the_uac(harness: Harness) -> None:
    s = harness.server
    ids = [
        s.enqueue(target=IMAGERIE),
        s.enqueue(target={"label": "Dossier patient", "x": 200, "y": 24}),
        s.enqueue(target={"label": "Observations"}),
        s.enqueue("type_text", target={"x": 800, "y": 650}, params={"text": "Patiente vue ce jour."}),
        s.enqueue(target={"label": "Enregistrer", "x": 278, "y": 732}),
        s.enqueue(target={"label": "Confirmer"}),  # the auto dialog, answered by the server
        s.enqueue(target={"label": "Dossier patient", "x": 200, "y": 24}),
    ]
    await harness.agent().run(max_actions=len(ids))
    titles = [s.results[i].get("window_title") for i in ids]
    assert "Imagerie" in titles[0] and "Observation" in titles[3]
    assert [s.results[i]["executed"] for i in ids] == [True] * 6 + [False]
    assert s.results[ids[6]]["system_dialog"]["kind"] == "uac"
    assert harness.desktop.field_value("note") == "Patiente vue ce jour."
    assert harness.desktop.screen.id == "observation_saved"


async def test_resend_after_an_attempt_that_injected_nothing_is_executed(harness: Harness) -> None:
    action_id = harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent(faults=FaultPlan().add("system_dialog"))
    await agent.poll_once()
    harness.desktop.close_dialog()  # the person answered the UAC prompt
    harness.server.resend(action_id)
    await agent.poll_once()
    assert harness.server.results[action_id]["executed"] is True
    assert harness.desktop.screen.id == "imagerie"


async def test_person_using_the_desktop_between_actions_is_not_a_takeover(harness: Harness) -> None:
    harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent()
    harness.desktop.click(5, 5, source="human")
    await agent.poll_once()
    assert [r["human_takeover"] for r in harness.server.acks("result")] == [False]


@pytest.mark.parametrize(
    ("action_type", "target", "params", "expected"),
    [
        ("click_anchor", {"label": "Observations"}, {}, ("click", "goto:observation")),
        ("switch_tab", {"rel_x": 436 / 1919, "rel_y": 24 / 1079}, {}, ("click", "goto:imagerie")),
        ("double_click_anchor", {"x": 436, "y": 24}, {}, ("double_click", "goto:imagerie")),
        ("right_click_anchor", {"x": 436, "y": 24}, {}, ("right_click", "none")),
        ("keyboard_shortcut", None, {"keys": "ctrl+t"}, ("key", "none")),
        ("scroll", None, {"direction": "down", "amount": 3}, ("scroll", "none")),
    ],
)
async def test_validator_matrix_action_types_become_desktop_input(
    harness: Harness, action_type: str, target: dict | None, params: dict, expected: tuple[str, str]
) -> None:
    action_id = harness.server.enqueue(action_type, target=target, params=params)
    await harness.agent().poll_once()
    assert harness.server.results[action_id]["executed"] is True
    assert [(e.kind, e.effect) for e in harness.desktop.agent_inputs()] == [expected]


async def test_save_without_a_target_presses_its_keys_and_raises_the_confirmation(harness: Harness) -> None:
    harness.desktop.goto("observation")
    action_id = harness.server.enqueue("save", target={"window_title": "MédiDossier"}, params={"keys": "ctrl+s"})
    await harness.agent().poll_once()
    assert harness.server.results[action_id]["executed"] is True
    assert harness.desktop.top_dialog is not None and harness.desktop.top_dialog.dialog_id == "easily-save-confirm"


async def test_type_text_with_a_submit_key_types_then_presses_it(harness: Harness) -> None:
    harness.desktop.goto("observation")
    harness.server.enqueue("type_text", target={"x": 800, "y": 650}, params={"text": "RAS", "submit_key": "tab"})
    await harness.agent().poll_once()
    inputs = [(e.kind, e.text) for e in harness.desktop.agent_inputs()]
    assert inputs == [("click", None), ("key", "ctrl+a"), ("type", "RAS"), ("key", "tab")]  # the field's text replaced
    assert harness.desktop.field_value("note") == "RAS"


async def test_unsupported_action_is_refused_without_input(harness: Harness) -> None:
    action_id = harness.server.enqueue("upload_file", params={"path": "C:/x.pdf"})
    await harness.agent().poll_once()
    result = harness.server.results[action_id]
    assert result["error"].startswith("UNSUPPORTED_ACTION") and result["executed"] is False
    assert result["error_retryable"] is False


async def test_the_agent_says_in_plain_words_what_it_does(harness: Harness, caplog) -> None:
    import logging

    caplog.set_level(logging.INFO, logger="rpa_mcp.agent_sim")
    harness.server.enqueue(target=IMAGERIE)
    agent = harness.agent()
    await agent.poll_once()
    said = [r.getMessage() for r in caplog.records if r.name.startswith("rpa_mcp.agent_sim")]
    assert said[0].startswith("connected to http://rpa.test as machine ws-cardio-01 (protocol v2)")
    assert any(line.startswith("received step 1: click 'Imagerie'") for line in said)
    assert any(line.startswith("executed step 1: click 'Imagerie'") for line in said)
    assert any(line.startswith("reported a success of step 1") and line.endswith(": accepted") for line in said)


async def test_a_wait_is_carried_out_and_reported_executed(harness: Harness) -> None:
    action_id = harness.server.enqueue("wait", params={"duration_ms": 1}, idempotent=True)
    await harness.agent().poll_once()
    result = harness.server.results[action_id]
    assert (result["success"], result["executed"]) == (True, True)  # done, though no input was injected
