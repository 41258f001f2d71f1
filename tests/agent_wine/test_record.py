"""`rpa-agent record` in Wine: a person's clicks and typing on the test application reach the server's
shadow session as events with element names, and the session builds into a workflow."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.agent_wine.conftest import WinApp
from tests.agent_wine.wine import WineError, wait_until

pytestmark = pytest.mark.wine
NAME = "Zoé Dupré"
Drive = Callable[[list[dict[str, Any]]], list[Any]]


def test_a_persons_work_is_recorded_and_built_into_steps(rpa_server, winapp: WinApp, wine_agent, drive) -> None:
    session = "rec-wine-fiche"
    recorder = wine_agent(rpa_server, "record", "--session-id", session)
    recorder.process.wait_line("recording session", timeout=90)
    shadow = rpa_server.services.shadow
    wait_until(lambda: shadow.traces.get_session(session), timeout=60, what="the first event on the server")
    person_clicked = [person_clicks(drive, winapp, "name", None)]
    drive([{"op": "person_type", "text": NAME}])
    person_clicked += [person_clicks(drive, winapp, "urgent", "urgent"), person_clicks(drive, winapp, "save", "saved")]
    if not winapp.events("saved"):
        raise AssertionError(
            f"the application never saved: it logged {winapp.events()}; the recorder said:\n"
            + "\n".join(recorder.process.lines[-20:])
        )
    clicks = wait_until(
        lambda: (
            (found := [e for e in shadow.events(session) if e["type"] == "click"])
            and len(found) >= sum(person_clicked)
            and found
        ),
        timeout=60,
        what="every click of the person on the server",
    )
    recorder.process.wait_line("typed", timeout=30)
    recorder.stop()

    events = shadow.events(session)
    names = ["Nom du patient", "Urgent", "Enregistrer"]
    assert [(e.get("element") or {}).get("name") for e in clicks] == [
        name for name, times in zip(names, person_clicked, strict=True) for _ in range(times)
    ]
    assert [e["text"] for e in events if e["type"] == "type"] == [NAME]
    assert any(e["type"] == "focus" and e.get("window_title") == "Fiche patient — essai" for e in events)
    assert winapp.events("saved") == [{"event": "saved", "text": NAME, "urgent": True}]

    built = shadow.build(session, "Fiche patient", domain="soins")
    steps = built["workflow_ir"]["steps"]
    assert [s["action_type"] for s in steps][-1] == "click_anchor", steps
    assert any("Enregistrer" in s["intent"] for s in steps), [s["intent"] for s in steps]
    assert any(s["action_type"] == "type_text" and s["params"].get("text") == NAME for s in steps), steps
    assert [s["params"] for s in steps if s["action_type"] == "set_checked"] == [{"checked": True}], steps


def person_clicks(drive: Drive, winapp: WinApp, control: str, answer: str | None) -> int:
    """A person clicks `control` and, when the application shows no `answer` within 10 s (a click Wine
    lost under load), clicks once more, as a person would. How many clicks the person made."""
    before = len(winapp.events(answer)) if answer else 0
    for times in (1, 2):
        drive([{"op": "person_click", **winapp.centre(control)}])
        if answer is None:
            return times
        try:
            wait_until(lambda: len(winapp.events(answer)) > before, timeout=10, what=f"the application's {answer}")
            return times
        except WineError:
            continue
    return 2
