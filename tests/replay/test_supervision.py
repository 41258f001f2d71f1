"""Supervision loop: validator verdicts, dialogs, strict actions, switched-off collaborators."""

from __future__ import annotations

from pathlib import Path

import pytest

from rpa_mcp.dialogs.apps import ReportedWindow
from rpa_mcp.replay import model as m
from tests.replay.kit import FakeAgent, Verdict, assert_clean, drain, make_service, make_services, steps

pytestmark = pytest.mark.anyio


async def run(service, agent, clock, plan):
    rid = await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    return rid, service.store.get_replay(rid), service.store.actions(rid)


async def test_an_unexpected_dialog_with_an_auto_decision_inserts_the_button_click_next(
    service, services, agent, clock
):
    services.dialogs.decision = "auto"
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    _rid, replay, acts = await run(service, agent, clock, steps(2))
    assert replay["state"] == m.COMPLETED
    assert [a["action_type"] for a in acts if a["origin"] != "closing"] == [
        "click_anchor",
        "dialog_button",
        "click_anchor",
    ]
    assert [(a["origin"], a["state"]) for a in acts[3:]] == [("closing", m.ACKED)]  # the look after the last step
    assert (
        acts[1]["origin"] == "dialog" and acts[1]["target"]["x"] == 100 and acts[0]["outcome"] == "success_dialog_auto"
    )
    assert_clean(service, [agent])


async def test_an_unexpected_dialog_with_a_pause_decision_pauses_with_the_dialog(service, services, agent, clock):
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    rid, replay, acts = await run(service, agent, clock, steps(2))
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.UNEXPECTED_DIALOG
    assert replay["pause_detail"]["dialog_id"] == "easily-save-confirm"
    await service.answer(rid, "click:Oui")
    await drain(service, [agent], clock)
    acts = service.store.actions(rid)
    assert service.store.get_replay(rid)["state"] == m.COMPLETED
    assert [a["origin"] for a in acts] == ["workflow", "person", "workflow", "closing"]
    assert_clean(service, [agent])


async def test_a_skip_decision_continues_with_a_warning(service, services, agent, clock):
    services.dialogs.decision = "skip"
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    _rid, replay, acts = await run(service, agent, clock, steps(2))
    assert replay["state"] == m.COMPLETED and "left open" in acts[0]["warning"]


async def test_with_the_dialog_resolver_switched_off_an_unexpected_dialog_pauses(tmp_path: Path):
    services = make_services(tmp_path, settings={"dialog_resolver_enabled": False})
    services.dialogs.decision = "auto"  # would click, if it were asked
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    service = make_service(services)
    _, replay, _ = await run(service, FakeAgent(service, clock=services.clock), services.clock, steps(2))
    assert replay["pause_reason"] == m.UNEXPECTED_DIALOG and services.dialogs.calls == 0
    assert "switched off" in replay["pause_detail"]["why"]


async def test_a_strict_click_without_screen_change_pauses_without_being_sent_again(service, services, agent, clock):
    # the agent never runs a click's input twice (it would answer OUTCOME_UNKNOWN), and a click that showed
    # nothing may still have acted (an application slow to draw a save): the run pauses on what was seen
    services.validator.by_type["click_anchor"] = Verdict("FAILURE", "NO_VISUAL_CHANGE")
    _rid, replay, acts = await run(service, agent, clock, steps(1, success_strict=True))
    assert replay["pause_reason"] == m.VALIDATION_FAILED and acts[0]["dispatches"] == 1
    assert acts[0]["state"] == m.HELD and replay["pause_detail"]["failure_category"] == "NO_VISUAL_CHANGE"


async def test_a_strict_idempotent_action_without_screen_change_is_sent_again_then_pauses(
    service, services, agent, clock
):
    services.validator.by_type["set_checked"] = Verdict("FAILURE", "NO_VISUAL_CHANGE")
    plan = steps(1, "set_checked", params={"checked": True}, success_strict=True)
    _rid, replay, acts = await run(service, agent, clock, plan)
    assert replay["pause_reason"] == m.VALIDATION_FAILED and acts[0]["dispatches"] == 3
    assert acts[0]["state"] == m.HELD


async def test_a_non_strict_action_without_screen_change_goes_on_with_a_warning(service, services, agent, clock):
    services.validator.by_type["click_anchor"] = Verdict("FAILURE", "NO_VISUAL_CHANGE")
    _rid, replay, acts = await run(service, agent, clock, steps(2))
    assert replay["state"] == m.COMPLETED
    workflow = [a for a in acts if a["origin"] != "closing"]
    assert len(workflow) == 2 and {a["warning"] for a in workflow} == {"no_screen_change"}
    assert acts[0]["outcome"] == "success_with_warning"


async def test_an_uncertain_verdict_pauses_unverified(service, services, agent, clock):
    services.validator.script = [Verdict("UNCERTAIN")]
    _, replay, acts = await run(service, agent, clock, steps(2))
    assert replay["pause_reason"] == m.UNVERIFIED and acts[0]["state"] == m.HELD


async def test_with_the_validator_switched_off_nothing_is_reported_as_a_verified_success(tmp_path: Path):
    services = make_services(tmp_path, settings={"validator_v2_enabled": False})
    service = make_service(services)
    agent = FakeAgent(service, clock=services.clock)
    _rid, replay, acts = await run(service, agent, services.clock, steps(2))
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.UNVERIFIED
    assert acts[0]["outcome"] == "unverified" and acts[0]["state"] == m.HELD
    assert services.validator.calls == []  # switched off: never asked


async def test_a_report_without_screenshots_is_never_a_verified_success(service, agent, clock):
    agent.result_for["click_anchor"] = {"screenshot_before": None, "screenshot_after": None}
    _, replay, _acts = await run(service, agent, clock, steps(1))
    assert replay["pause_reason"] == m.UNVERIFIED


async def test_a_crashing_validator_pauses(service, services, agent, clock):
    services.validator.error = RuntimeError("boom")
    _, replay, _ = await run(service, agent, clock, steps(1))
    assert replay["pause_reason"] == m.UNVERIFIED


async def test_a_system_dialog_after_input_holds_the_action_for_a_person(service, agent, clock):
    from rpa_mcp.replay.wire import SystemDialog

    agent.result_for["click_anchor"] = {"system_dialog": SystemDialog(kind="windows_hello", process="x.exe")}
    rid, replay, acts = await run(service, agent, clock, steps(2))
    assert replay["pause_reason"] == m.SYSTEM_DIALOG and acts[0]["state"] == m.HELD
    with pytest.raises(Exception) as err:
        await service.resume(rid)
    assert err.value.code == "precondition-failed"


async def test_answer_retry_sends_the_held_action_again(service, services, agent, clock):
    services.validator.script = [Verdict("FAILURE", "WRONG_TARGET")]
    rid, _replay, _ = await run(service, agent, clock, steps(1))
    await service.answer(rid, "retry")
    await drain(service, [agent], clock)
    acts = service.store.actions(rid)
    assert service.store.get_replay(rid)["state"] == m.COMPLETED and acts[0]["dispatches"] == 2


async def test_answer_abort_cancels(service, services, agent, clock):
    services.validator.script = [Verdict("FAILURE", "WRONG_TARGET")]
    rid, _, _ = await run(service, agent, clock, steps(2))
    await service.answer(rid, "abort")
    assert service.store.get_replay(rid)["state"] == m.CANCELLED
    assert_clean(service, [agent])


async def test_an_in_page_modal_is_resolved_from_its_pixels_not_from_the_browser_window_it_sits_in(
    service, services, agent, clock
):
    # the browser stays in front (same title before and after): "msedge.exe" says nothing about the dialog
    services.dialogs.decision = "auto"
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    agent.result_for["click_anchor"] = {"window_title_before": "MédiDossier", "process_after": "msedge.exe"}
    await run(service, agent, clock, steps(1))
    assert services.dialogs.context["window_title"] is None and services.dialogs.context["process"] is None
    # ...but the browser window in front still confirms which application shows the modal
    assert services.dialogs.context["windows"] == [ReportedWindow("MédiDossier", "msedge.exe")]


async def test_a_dialog_in_its_own_window_is_resolved_with_that_window_title_and_process(
    service, services, agent, clock
):
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    agent.result_for["click_anchor"] = {"window_title_before": "Bureau", "process_after": "notepad.exe"}
    await run(service, agent, clock, steps(1))
    assert services.dialogs.context["window_title"] == "MédiDossier"
    assert services.dialogs.context["process"] == "notepad.exe"


async def test_a_success_is_validated_without_evidence_crops_unless_the_agent_saw_no_change(
    service, services, agent, clock
):
    _, replay, _ = await run(service, agent, clock, steps(1))
    assert replay["state"] == m.COMPLETED and services.validator.calls == ["click_anchor", "screenshot_evidence"]
    assert services.validator.crops == ["unless_success", "unless_success"]  # the step, then the closing look
    agent.result_for["click_anchor"] = {"warning": "no_screen_change"}
    await run(service, agent, clock, steps(1))
    clicks = [c for t, c in zip(services.validator.calls, services.validator.crops, strict=True) if t == "click_anchor"]
    assert clicks == ["unless_success", "always"]  # the retry or the pause shows the validator's crops


async def test_the_validator_knows_the_workflow_own_windows_with_the_run_values(service, services, agent, clock):
    plan = steps(2)
    plan[0]["expected_window_after"] = "Admission — {{patient}} {{*}}"
    plan[1]["expected_window_before"] = "Dossiers — Recherche"
    rid = await service.start(steps=plan, competence="c", version=1, machine_id="pc-1", params={"patient": "MOREL"})
    await drain(service, [agent], clock)
    assert service.store.get_replay(rid)["state"] == m.COMPLETED
    assert services.validator.expected[0].own_windows == ("Admission — MOREL {{*}}", "Dossiers — Recherche")


async def test_the_workflow_own_window_coming_in_front_does_not_name_the_dialog(service, services, agent, clock):
    services.validator.script = [Verdict("FAILURE", "UNEXPECTED_DIALOG")]
    plan = steps(1)
    plan[0]["expected_window_after"] = "Admission — {{patient}} {{*}}"
    agent.result_for["click_anchor"] = {
        "window_title_before": "Dossiers — Recherche",
        "window_title": "Admission — MOREL Jean",
        "process_after": "admission",
    }
    await service.start(steps=plan, competence="c", version=1, machine_id="pc-1", params={"patient": "MOREL"})
    await drain(service, [agent], clock)
    assert services.dialogs.context["window_title"] is None and services.dialogs.context["process"] is None


async def test_typed_text_is_checked_in_the_field_where_the_agent_found_it(service, services, agent, clock):
    plan = steps(1, "type_text", params={"text": "LEFEBVRE"})
    plan[0]["target"] |= {"bbox": [40, 50, 60, 20], "rel_x": 0.25, "rel_y": 0.25}  # recorded click at (60, 60)
    agent.result_for["type_text"] = {"actual_position": [150, 160]}  # the window moved: found 90 px right, 100 down
    await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    assert services.validator.targets[0].bbox == (130, 150, 60, 20)


async def test_typed_text_without_a_recorded_click_is_checked_around_the_click_outside_its_box(
    service, services, agent, clock
):
    plan = steps(1, "type_text", params={"text": "LEFEBVRE"})
    plan[0]["target"] |= {"bbox": [40, 50, 60, 20]}
    agent.result_for["type_text"] = {"actual_position": [150, 160]}
    await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    assert services.validator.targets[0].bbox == (120, 150, 60, 20)


async def test_a_chosen_option_is_checked_as_the_runs_value_where_the_agent_clicked(service, services, agent, clock):
    plan = steps(1, "select_option", params={"option": "{{packaging}}"})
    plan[0]["target"] |= {"bbox": [40, 50, 160, 24]}
    await service.start(steps=plan, competence="c", version=1, machine_id="pc-1", params={"packaging": "Boîte"})
    await drain(service, [agent], clock)
    assert services.validator.expected[0].text == "Boîte"
    assert service.store.actions(service.store.list_replays()[0]["replay_id"])[0]["idempotent"] == 1


async def test_a_box_is_checked_on_the_state_the_agent_read_after(service, services, agent, clock):
    plan = steps(1, "set_checked", params={"checked": True})
    agent.result_for["set_checked"] = {"output": {"checked": True}}
    await service.start(steps=plan, competence="c", version=1, machine_id="pc-1")
    await drain(service, [agent], clock)
    expected = services.validator.expected[0]
    assert expected.has_output and expected.output == {"checked": True}
    assert expected.json_schema["properties"]["checked"] == {"const": True}


async def test_a_box_whose_state_the_agent_did_not_report_has_nothing_to_show_for_it(service, services, agent, clock):
    await service.start(steps=steps(1, "set_checked", params={"checked": False}), competence="c", version=1,
                        machine_id="pc-1")  # fmt: skip
    await drain(service, [agent], clock)
    assert not services.validator.expected[0].has_output


async def test_text_typed_that_the_screen_never_showed_pauses_instead_of_going_on(service, services, agent, clock):
    # typed beside the field (on its label): nothing changed; the next step (a search button) must not run
    services.validator.by_type["type_text"] = Verdict("FAILURE", "NO_VISUAL_CHANGE")
    plan = [*steps(1, "type_text", params={"text": "LEROY"}), *steps(1)]
    _rid, replay, acts = await run(service, agent, clock, plan)
    assert replay["state"] == m.PAUSED and replay["pause_reason"] == m.VALIDATION_FAILED
    [typed] = [a for a in acts if a["action_type"] == "type_text"]
    assert typed["state"] == m.HELD  # sent again at most as often as allowed (the field's content is replaced)
    assert typed["dispatches"] == 1 + typed["resends"] and typed["resends"] <= typed["max_resends"]
    # one later look at the screen (no input) before the pause; the search button never pressed
    assert [a["action_type"] for a in acts if a["state"] == m.ACKED] == ["screenshot_evidence"]
