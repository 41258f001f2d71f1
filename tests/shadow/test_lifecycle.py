"""Session resolution, start/stop semantics, and a restart that loses nothing."""

from __future__ import annotations

import pytest

from rpa_mcp.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev, play


def test_start_resolves_the_session_of_the_only_machine(shadow: ShadowService) -> None:
    shadow.ingest([ev("focus", 1.0, window_title="A", session="sess_a", machine="PC-1")])
    result = shadow.start()
    assert (result["status"], result["session_id"]) == ("shadow_started", "sess_a")


def test_start_with_no_session_asks_the_person_to_do_something_first(shadow: ShadowService) -> None:
    with pytest.raises(PreconditionFailed) as err:
        shadow.start()
    assert err.value.code == "precondition-failed"
    assert "do something on the workstation first" in err.value.message


def test_start_with_several_machines_lists_them(shadow: ShadowService) -> None:
    shadow.ingest(
        [
            ev("focus", 1.0, window_title="A", session="sa", machine="PC-1"),
            ev("focus", 1.0, window_title="B", session="sb", machine="PC-2"),
        ]
    )
    with pytest.raises(InvalidInput) as err:
        shadow.start()
    assert err.value.details["field"] == "session_id"
    assert {m["machine_id"] for m in err.value.details["machines"]} == {"PC-1", "PC-2"}
    assert "PC-1" in err.value.message and "PC-2" in err.value.message


def test_start_of_an_unknown_session_is_not_found(shadow: ShadowService) -> None:
    with pytest.raises(NotFound):
        shadow.start("sess_never_seen")


def test_a_second_start_says_already_observing_and_resets_nothing(shadow: ShadowService) -> None:
    shadow.ingest([ev("focus", 1.0, window_title="A")])
    shadow.start("s1")
    shadow.ingest([ev("click", 20.0, x=1, y=1, element={"name": "OK"})])
    again = shadow.start("s1")
    assert again["status"] == "already_observing"
    assert [s["intent"] for s in shadow.understanding("s1")["steps"]] == ["Click 'OK'"]


def test_stop_when_not_observing_is_a_conflict(shadow: ShadowService) -> None:
    shadow.ingest([ev("focus", 1.0, window_title="A")])
    shadow.stop("s1")
    with pytest.raises(Conflict) as err:
        shadow.stop("s1")
    assert err.value.code == "conflict"
    assert err.value.details["reason"] == "not_observing"
    assert "not observing" in err.value.message


def test_events_after_stop_are_stored_but_not_observed(shadow: ShadowService) -> None:
    shadow.ingest([ev("click", 1.0, x=1, y=1, element={"name": "A"})])
    shadow.stop("s1")
    shadow.ingest([ev("click", 2.0, x=1, y=1, element={"name": "B"})])
    assert len(shadow.events("s1")) == 2
    assert [s["intent"] for s in shadow.understanding("s1")["steps"]] == ["Click 'A'"]


def test_reset_forgets_the_understanding_and_the_next_events_start_afresh(shadow: ShadowService) -> None:
    shadow.ingest([ev("click", 1.0, x=1, y=1, element={"name": "A"})])
    shadow.reset("s1")
    assert shadow.understanding("s1")["steps"] == []
    shadow.ingest([ev("click", 2.0, x=1, y=1, element={"name": "B"})])
    assert [s["intent"] for s in shadow.understanding("s1")["steps"]] == ["Click 'B'"]


def test_a_restart_loses_nothing(make_service) -> None:
    first = make_service()
    sid, expected = play(first, "open_record_imagerie")
    first.feedback(sid, "correct", step_index=1, new_intent="Aller dans MédiDossier")
    before = first.understanding(sid)

    second = make_service()  # a new Database on the same file, a new service
    after = second.understanding(sid)
    assert after["steps"] == before["steps"]
    assert after["mode"] == "observing"
    assert second.history(sid)[0]["action"] == "correct"
    # the observation goes on where it was
    second.ingest(
        [
            {
                "session_id": sid,
                "machine_id": "DESKTOP-DOM01",
                "ts": 1741772600.0,
                "type": "key",
                "keys": "ctrl+p",
                "window_title": "PACS",
            }
        ]
    )
    assert second.stop(sid)["steps_count"] == len(expected["steps"]) + 1


def test_a_restart_mid_typing_keeps_the_open_step(make_service) -> None:
    first = make_service()
    first.ingest([ev("click", 1.0, x=1, y=1, element={"name": "Nom"}), ev("type", 2.0, text="DUR")])
    second = make_service()
    second.ingest([ev("type", 3.0, text="AND")])
    steps = second.understanding("s1")["steps"]
    assert [(s["intent"], s["params"]["text"]) for s in steps] == [("Type 'DURAND' in 'Nom'", "DURAND")]
