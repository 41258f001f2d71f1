"""The agent core on an in-memory desktop and server: exactly once, the deadline, a person's hands, the OS."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from rpa_agent.core import wire
from rpa_agent.core.journal import Journal
from rpa_agent.core.wire import WireError
from rpa_agent.port import SystemDialog

from .fakes import FakeDesktop, FakeServer, handle_next, make_agent


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


@pytest.fixture
def desktop() -> FakeDesktop:
    return FakeDesktop()


@pytest.fixture
def journal() -> Journal:
    return Journal(":memory:")


def test_an_action_is_journaled_acked_executed_and_reported_with_its_screens(server, desktop, journal) -> None:
    server.action()
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("click", 10, 20, "left", 1)]
    assert server.kinds() == ["receipt", "start", "result"]
    result = server.results[0]
    assert (result["executed"], result["success"], result["actual_position"]) == (True, True, [10, 20])
    assert result["screenshot_before"] != result["screenshot_after"]
    assert result["window_title"] == "Dossier patient" and result["machine_id"] == "PC-1"
    assert journal.get("a1", "t1").state == "DONE"  # type: ignore[union-attr]


def test_the_same_attempt_delivered_twice_is_executed_once_and_its_result_sent_again(server, desktop, journal) -> None:
    first = server.action()
    agent = make_agent(server, desktop, journal)
    handle_next(agent)
    server.queue.append(first)
    handle_next(agent)
    assert len(desktop.input.sent) == 1
    assert [r["attempt_id"] for r in server.results] == ["t1", "t1"]


def test_after_a_restart_a_started_attempt_is_never_executed_again(server, desktop, tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    action = server.action()
    journal = Journal(path)
    journal.received("r1", "a1", "t1", action["not_after"])
    journal.started("a1", "t1")  # the agent died between its first input and its result
    journal.close()
    server.queue = [action]
    handle_next(make_agent(server, desktop, Journal(path)))
    assert desktop.input.sent == [] and server.results == []


def test_a_done_attempt_found_in_the_journal_after_a_restart_is_reported_not_executed(
    server, desktop, tmp_path: Path
) -> None:
    path = tmp_path / "journal.sqlite"
    action = server.action()
    handle_next(make_agent(server, desktop, Journal(path)))
    server.queue = [action]
    handle_next(make_agent(server, FakeDesktop(), Journal(path)))
    assert len(desktop.input.sent) == 1 and [r["executed"] for r in server.results] == [True, True]


def test_an_automatic_resend_of_an_action_that_ran_is_refused_as_outcome_unknown(server, desktop, journal) -> None:
    server.action(attempt_id="t1")
    agent = make_agent(server, desktop, journal)
    handle_next(agent)
    server.action(attempt_id="t2", resend=1)
    handle_next(agent)
    assert len(desktop.input.sent) == 1
    assert server.results[-1]["executed"] is False and server.results[-1]["error"].startswith("OUTCOME_UNKNOWN")


def test_a_person_retry_of_the_attempt_they_saw_is_executed_again(server, desktop, journal) -> None:
    server.action(attempt_id="t1")
    agent = make_agent(server, desktop, journal)
    handle_next(agent)
    server.action(attempt_id="t2", retry_of="t1")
    handle_next(agent)
    assert len(desktop.input.sent) == 2 and server.results[-1]["executed"] is True


def test_a_person_retry_never_covers_an_attempt_that_ran_after_the_one_they_saw(server, desktop, journal) -> None:
    agent = make_agent(server, desktop, journal)
    for attempt in ("t1", "t2"):
        server.action(attempt_id=attempt, retry_of="t1" if attempt == "t2" else None)
        handle_next(agent)
    server.action(attempt_id="t3", retry_of="t1")  # a stale consent: t2 ran since
    handle_next(agent)
    assert len(desktop.input.sent) == 2 and server.results[-1]["executed"] is False


def test_an_action_past_its_deadline_on_the_server_clock_is_not_executed(server, desktop, journal) -> None:
    skew = 3600.0  # this machine's clock is an hour behind the server's
    server_now = time.time() + skew
    server.action(server_now=server_now, not_after=server_now - 1)
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == []
    assert server.results[0]["error"].startswith("EXPIRED") and "start" not in server.kinds()


def test_the_deadline_is_read_on_the_server_clock_not_this_machines(server, desktop, journal) -> None:
    server_now = time.time() - 3600.0  # this machine's clock is an hour ahead: not_after is still to come
    server.action(server_now=server_now, not_after=server_now + 30)
    handle_next(make_agent(server, desktop, journal))
    assert len(desktop.input.sent) == 1 and server.results[0]["executed"] is True


def test_a_person_touching_the_desktop_between_actions_stops_the_replay_without_input(server, desktop, journal) -> None:
    agent = make_agent(server, desktop, journal)
    server.action(action_id="a1")
    handle_next(agent)
    desktop.watch.foreign_count += 3  # the person moved the mouse
    server.action(action_id="a2")
    handle_next(agent)
    assert len(desktop.input.sent) == 1
    last = server.results[-1]
    assert (last["executed"], last["human_takeover"]) == (False, True) and last["error"].startswith("HUMAN_TAKEOVER")


def person_moves_as_the_start_is_granted(server, desktop) -> None:
    """The person takes the mouse once the agent's check before input is passed, while the server grants the start."""

    def told(kind: str) -> None:
        if kind == "start":
            desktop.watch.foreign_count += 1

    server.on_message = told


def test_a_person_s_input_while_the_start_is_granted_stops_the_click_before_it_is_made(
    server, desktop, journal
) -> None:
    person_moves_as_the_start_is_granted(server, desktop)
    server.action()
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == []
    result = server.results[0]
    assert (result["executed"], result["human_takeover"]) == (False, True)
    assert result["error"].startswith("HUMAN_TAKEOVER")


def test_a_person_s_input_while_the_start_is_granted_cuts_the_wait_short(server, desktop, journal) -> None:
    person_moves_as_the_start_is_granted(server, desktop)
    server.action(action_type="wait", target=None, params={"duration_s": 0.5})
    handle_next(make_agent(server, desktop, journal))
    result = server.results[0]  # not carried out: the wait is waited again once a person resumes
    assert (result["executed"], result["human_takeover"]) == (False, True)
    assert result["error"].startswith("HUMAN_TAKEOVER")


def test_a_system_prompt_on_screen_is_reported_and_never_touched(server, desktop, journal) -> None:
    desktop.windows.prompt = SystemDialog("uac", "consent.exe", "Contrôle de compte d'utilisateur")
    server.action()
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == []
    result = server.results[0]
    assert result["system_dialog"] == {"kind": "uac", "process": "consent.exe", "title": desktop.windows.prompt.title}
    assert result["executed"] is False and "start" not in server.kinds()


def test_a_start_refused_by_the_server_is_not_executed(server, desktop, journal) -> None:
    server.proceed = False
    server.action()
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and server.results[0]["error"].startswith("NOT_STARTED")


def test_typing_clicks_the_field_then_replaces_its_content(server, desktop, journal) -> None:
    server.action(action_type="type_text", params={"text": "BERNARD"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("click", 10, 20, "left", 1), ("combo", "ctrl+a"), ("type", "BERNARD")]


def test_a_label_is_resolved_by_the_server_on_the_agents_screenshot(server, desktop, journal) -> None:
    server.resolve = {"resolved": True, "x": 33, "y": 44, "method": "memory"}
    server.action(target={"label": "Imagerie", "spec": {"bbox": [1, 2, 3, 4]}})
    handle_next(make_agent(server, desktop, journal))
    body = dict(server.sent)["resolve_target"]
    assert body["target_spec"]["label"] == "Imagerie" and body["machine_id"] == "PC-1"
    assert desktop.input.sent == [("click", 33, 44, "left", 1)]


def test_a_label_the_server_cannot_find_is_not_clicked(server, desktop, journal) -> None:
    server.action(target={"label": "Imagerie", "rel_x": 0.5, "rel_y": 0.5})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and server.results[0]["error"].startswith("target_not_resolved")


@pytest.mark.parametrize(
    "fields",
    [
        {"irreversible": True, "target": {"rel_x": 0.5, "rel_y": 0.5}},
        {"target": {"rel_x": 0.5, "rel_y": 0.5, "spec": {"identity": "MARTIN Paul"}}},
    ],
    ids=["irreversible", "record-selecting"],
)
def test_a_step_that_must_not_be_clicked_at_its_recorded_position_alone_is_refused(
    server, desktop, journal, fields
) -> None:
    server.action(**fields)
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and server.results[0]["error"].startswith("target_not_resolved")


def test_a_step_with_nothing_to_find_is_clicked_at_its_recorded_position(server, desktop, journal) -> None:
    server.action(target={"rel_x": 0.5, "rel_y": 0.5})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [("click", 32, 24, "left", 1)]


def test_a_focus_step_brings_the_recorded_window_to_the_front(server, desktop, journal) -> None:
    server.action(action_type="focus_window", target={"window_title": "Imagerie"})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.windows.front == 2 and server.results[0]["window_title"] == "Imagerie"


def test_an_action_that_breaks_the_wire_contract_is_refused_and_reported(server, desktop, journal) -> None:
    server.action(target={"x": "ten", "y": 20})
    lines: list[str] = []
    handle_next(make_agent(server, desktop, journal, lines))
    assert desktop.input.sent == []
    assert server.results[0]["error"].startswith("INVALID_ACTION") and "data.target" in server.results[0]["error"]
    assert any("breaks the wire contract" in line for line in lines)


def test_an_action_with_an_unknown_field_is_refused() -> None:
    with pytest.raises(WireError) as caught:
        wire.next_action(FakeServer().action(surprise=True))
    assert caught.value.field == "data"


def test_a_result_the_agent_would_send_is_checked_against_the_schema() -> None:
    with pytest.raises(WireError) as caught:
        wire.outgoing("result", {"replay_id": "r", "action_id": "a", "attempt_id": "t", "success": "yes"})
    assert caught.value.field == "data.success"


def test_an_unknown_key_name_is_refused_before_any_input(server, desktop, journal) -> None:
    server.action(action_type="key_combo", params={})
    handle_next(make_agent(server, desktop, journal))
    assert desktop.input.sent == [] and server.results[0]["error"].startswith("INVALID_ACTION")


def test_the_servers_identity_check_time_is_the_steps_identity_phase(server, desktop, journal) -> None:
    server.resolve = {
        "resolved": True,
        "x": 33,
        "y": 44,
        "method": "ocr",
        "tried": [{"method": "memory", "identity_ms": 2.5}, {"method": "ocr", "identity_ms": 4.0}],
    }
    server.action(target={"label": "DURAND Jean", "spec": {"identity": "DURAND Jean"}})
    handle_next(make_agent(server, desktop, journal))
    phases = server.results[0]["phases_ms"]
    assert phases["identity"] == 6.5 and "resolve" in phases


def test_a_step_without_identity_has_no_identity_phase(server, desktop, journal) -> None:
    server.resolve = {"resolved": True, "x": 33, "y": 44, "method": "ocr", "tried": [{"method": "ocr"}]}
    server.action(target={"label": "Imagerie"})
    handle_next(make_agent(server, desktop, journal))
    assert "identity" not in server.results[0]["phases_ms"]
