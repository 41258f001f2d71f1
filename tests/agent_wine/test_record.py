"""`rpa-agent record` in Wine: a person's clicks and typing on the test application reach the server's
shadow session as events with element names, and the session builds into a workflow."""

from __future__ import annotations

import pytest

from tests.agent_wine.conftest import WinApp
from tests.agent_wine.wine import WineError, wait_until

pytestmark = pytest.mark.wine
NAME = "Zoé Dupré"


def test_a_persons_work_is_recorded_and_built_into_steps(rpa_server, winapp: WinApp, wine_agent, drive) -> None:
    session = "rec-wine-fiche"
    recorder = wine_agent(rpa_server, "record", "--session-id", session)
    recorder.process.wait_line("recording session", timeout=90)
    shadow = rpa_server.services.shadow
    wait_until(lambda: shadow.traces.get_session(session), timeout=60, what="the first event on the server")
    drive([
        {"op": "person_click", **winapp.centre("name")},
        {"op": "person_type", "text": NAME},
        {"op": "person_click", **winapp.centre("urgent")},
        {"op": "person_click", **winapp.centre("save")},
    ])  # fmt: skip
    try:
        wait_until(lambda: winapp.events("saved"), timeout=30, what="the application's save")
    except WineError as exc:
        raise AssertionError(
            f"{exc}: the application logged {winapp.events()}; the recorder said:\n"
            + "\n".join(recorder.process.lines[-20:])
        ) from None
    clicks = wait_until(
        lambda: (found := [e for e in shadow.events(session) if e["type"] == "click"]) and len(found) >= 3 and found,
        timeout=60,
        what="three clicks on the server",
    )
    recorder.process.wait_line("typed", timeout=30)
    recorder.stop()

    events = shadow.events(session)
    assert [(e.get("element") or {}).get("name") for e in clicks] == ["Nom du patient", "Urgent", "Enregistrer"]
    assert [e["text"] for e in events if e["type"] == "type"] == [NAME]
    assert any(e["type"] == "focus" and e.get("window_title") == "Fiche patient — essai" for e in events)
    assert winapp.events("saved") == [{"event": "saved", "text": NAME, "urgent": True}]

    built = shadow.build(session, "Fiche patient", domain="soins")
    steps = built["workflow_ir"]["steps"]
    assert [s["action_type"] for s in steps][-1] == "click_anchor", steps
    assert any("Enregistrer" in s["intent"] for s in steps), [s["intent"] for s in steps]
    assert any(s["action_type"] == "type_text" and s["params"].get("text") == NAME for s in steps), steps
