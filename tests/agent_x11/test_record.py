"""`rpa-agent record` streams what a person really does on the desktop as shadow events."""

from __future__ import annotations

import json
import time

import pytest

from rpa_mcp.desktop_rig.harness import AgentProcess, wait_until
from rpa_mcp.desktop_rig.person import Person, drawn_text
from tests.agent_x11.conftest import AGENT_TOKEN

pytestmark = pytest.mark.desktop
MACHINE = "poste-x11-01"


def test_a_persons_clicks_typing_and_windows_reach_the_server_with_passwords_masked(desktop, rpa_server):
    browser = desktop.desk.chromium(f"{desktop.app.url}/login", wait_title="Connexion")
    session = "rec-login-search"
    recorder = AgentProcess(
        desktop.desk,
        ["record", "--url", rpa_server.url, "--token", AGENT_TOKEN, "--machine-id", MACHINE, "--session-id", session],
    )
    seen = {"click": 0, "key": 0}

    def pace(gesture: str) -> None:  # a person looks at the screen before going on
        seen[gesture] += 1
        recorder.wait_count("click at" if gesture == "click" else "key ", seen[gesture])

    # a link is clicked once it is drawn: the recorder names a click by the screen before it
    drawn = drawn_text(desktop.desk, rpa_server.services.ocr)
    looked: list[str] = []

    def sees(name: str, box: tuple[int, int, int, int]) -> bool:
        looked.append(name)
        return drawn(name, box)

    person = Person(desktop.desk, pace=pace, sees=sees)
    shadow = rpa_server.services.shadow
    begun = time.time()
    try:
        recorder.wait_line("recording session")
        wait_until(lambda: shadow.traces.get_session(session), timeout=30, what="the first (focus) event on the server")
        mark = desktop.effects.mark
        person.click_field("Identifiant", "entry")
        person.type("infirmiere1")
        person.click_field("Mot de passe", "password text")
        person.type("s3cret!")
        person.press("enter")
        desktop.effects.wait_for(lambda es: any(e.kind == "login" for e in es), since=mark)
        desktop.desk.wait_foreground(lambda w: "Recherche patient" in w.title)
        person.click_field("Rechercher un patient", "entry")
        person.type("DURAND Alice")
        person.press("enter")
        desktop.effects.wait_for(lambda es: any(e.kind == "search" for e in es), since=mark)
        person.click("Ouvrir le dossier")
        desktop.effects.wait_for(lambda es: any(e.kind == "open_record" for e in es), since=mark)
        person.click("Observations", "page tab")
        desktop.effects.wait_for(lambda es: any(e.kind == "tab" for e in es), since=mark)
        person.find("DURAND Alice — Observations")  # the header names the tab shown, as the title does
        recorder.wait_line("'Observations'")
        ended = time.time()
    finally:
        person.close()
        status = recorder.stop()
        browser.process.terminate()
    assert status == 0, "\n".join(recorder.lines[-10:])
    assert {"Ouvrir le dossier", "Observations"} <= set(looked), looked  # clicked once seen drawn
    assert "accepted, 0 refused" in recorder.lines[-1], "\n".join(recorder.lines)

    events = shadow.events(session)
    stored = json.dumps(events, ensure_ascii=False)
    assert "s3cret!" not in stored  # the password never left the workstation
    assert "s3cret" not in "\n".join(recorder.lines)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "focus" and events[0]["app"] == "chromium" and "Connexion" in events[0]["window_title"]
    clicks = [e for e in events if e["type"] == "click"]
    names = [(e.get("element") or {}).get("name") for e in clicks]
    # A link that navigates at once may be gone from the accessibility tree when it is looked up:
    # then no element is sent and the server names the step from OCR of the screenshot (checked below).
    assert names[3] in ("Ouvrir le dossier", None)
    assert [n for i, n in enumerate(names) if i != 3] == [
        "Identifiant",
        "Mot de passe",
        "Rechercher un patient",
        "Observations",
    ]
    assert all(e.get("screenshot_ref") or e.get("screenshot") or e.get("screenshot_id") for e in clicks), clicks[
        0
    ].keys()
    typed = [e for e in events if e["type"] == "type"]
    assert [t["text"] for t in typed if not t.get("masked")] == ["infirmiere1", "DURAND Alice"]
    assert [t.get("masked") for t in typed] == [None, True, None]
    assert any(e["type"] == "key" and e["keys"] == "enter" for e in events)
    titles = {e.get("window_title") for e in events if e["type"] == "focus"}
    assert any("Recherche patient" in (t or "") for t in titles) and any("DURAND Alice" in (t or "") for t in titles)
    # each event is dated when it happened, not when the recorder got round to sending it
    stamps = [e["ts"] for e in events if e["type"] not in ("focus", "screenshot")]
    assert stamps == sorted(stamps) and begun <= stamps[0] and stamps[-1] <= ended
    # and last, once the recording stopped, the screen the last input left, dated when it was taken
    assert kinds[-1] == "screenshot" and kinds.count("screenshot") == 1 and events[-1]["ts"] >= stamps[-1]
    record_opened = next(e["ts"] for e in events if e["type"] == "focus" and "DURAND Alice" in e["window_title"])
    assert clicks[3]["ts"] < record_opened <= ended  # the record opened after the click that opened it

    steps = shadow.understanding(session)["steps"]
    intents = [s["intent"] for s in steps]
    assert any("Ouvrir le dossier" in i for i in intents), intents
    assert any(s["action_type"] == "switch_tab" and "Observations" in s["intent"] for s in steps), intents
