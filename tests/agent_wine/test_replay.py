"""A replay end to end: a real server on loopback, the Windows agent in Wine's Python, the Win32 test
application; the application's own log counts the effects."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent_wine.conftest import MACHINE, WinApp
from tests.agent_wine.wine import wait_until
from tests.agent_x11.replaying import Replays

pytestmark = pytest.mark.wine
TITLE = "Fiche patient — essai"
NAME = "Zoé Dupré"  # read back by OCR from the screenshot too: Unicode beyond Latin-1 is the primitives' test


def step(index: int, intent: str, action: str, label: str | None, box: list[int], **params: Any) -> dict[str, Any]:
    """A step aimed at a control's box; `label`: the text on it (a field has none: found by position)."""
    x, y, w, h = box
    target: dict[str, Any] = {"x_pct": (x + w / 2) / 1280, "y_pct": (y + h / 2) / 800}
    if label:
        target |= {"label": label, "by_text": label}
    return {
        "index": index,
        "intent": intent,
        "action_type": action,
        "target": target | {"bbox": box, "frame_size": [1280, 800]},
        "params": params,
        "expected_window_before": TITLE,
        "expected_window_after": TITLE,
        "success_strict": False,
        "wait_after_ms": 300,
        "expected_modals": [],
    }


def save_patient(app: WinApp) -> dict[str, Any]:
    boxes = app.ready["controls"]
    return {
        "name": "Fiche patient",
        "domain": "soins",
        "version": 1,
        "source": {"session_id": "hand-written", "machine_id": MACHINE},
        "created_at": "2026-12-05T08:00:00Z",
        "steps": [
            step(1, "Saisir 'Nom du patient'", "type_text", None, boxes["name"], text=NAME),
            step(2, "Cocher 'Urgent'", "click_anchor", "Urgent", boxes["urgent"]),
            step(3, "Cliquer sur 'Enregistrer'", "click_anchor", "Enregistrer", boxes["save"]),
        ],
    }


@pytest.fixture
def replays(rpa_server):
    r = Replays(rpa_server)
    yield r
    r.close()


def test_a_replay_completes_and_the_application_saves_exactly_once(rpa_server, replays, winapp, wine_agent) -> None:
    rpa_server.services.competences.save("Fiche patient", save_patient(winapp), machine_id=MACHINE)
    agent = wine_agent(rpa_server, "run", "--wait", "5")
    agent.process.wait_line("polling", timeout=90)
    replay_id = replays.start("Fiche patient", MACHINE)
    status = replays.wait_stopped(replay_id, timeout=240)
    assert status["state"] == "completed", (
        status.get("pause_reason"),
        status.get("pause_detail"),
        winapp.events(),
        agent.process.lines[-15:],
    )
    assert (status["outcome"], status["steps_done"]) == ("completed", 3)
    wait_until(lambda: winapp.events("saved"), timeout=30, what="the save")
    assert winapp.events("saved") == [{"event": "saved", "text": NAME, "urgent": True}]
    assert [e["checked"] for e in winapp.events("urgent")] == [True]
