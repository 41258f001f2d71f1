"""A record that opens seconds after its button is clicked, and a save its server confirms seconds later, are
waited for by a later look, on a real desktop.

The Tk window changes nothing for four seconds after "Ouvrir le dossier" (longer than the agent's settle), then
is retitled after the patient and shows the record. The click is not failed: one look without input waits for
the window's title to change, the step is judged on that screen, and the record's "Enregistrer" follows, once.
Its "Dossier enregistré" comes four seconds after the click: the save's look waits for the screen to change.
A window or a message that never comes still pauses (tests/replay/test_late_window.py, test_late_outcome.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rpa_mcp.desktop_rig.harness import wait_until
from tests.agent_x11.replaying import Replays
from tests.agent_x11.test_replay import MACHINE, start_agent
from tests.agent_x11.workflows import ir, step

pytestmark = pytest.mark.desktop
APP = Path(__file__).parent / "slow_record_app.py"
SEARCH = "Admission — recherche"
RECORD = "Admission — FAURE Céline"
DELAY_S = 4.0  # past the agent's longest settle (3 s): the first screen after the click shows no record


def centre(box: list[int], size: tuple[int, int]) -> tuple[float, float]:
    x, y, w, h = box
    return (x + w / 2) / size[0], (y + h / 2) / size[1]


@pytest.mark.parametrize("late", ["window", "message"])
def test_a_record_window_or_a_save_message_that_comes_late_is_waited_for_and_each_step_acts_once(
    desktop, rpa_server, tmp_path, late
):
    layout, effects = tmp_path / "layout.json", tmp_path / "effects.jsonl"
    opened_s, saved_s = (DELAY_S, 0.0) if late == "window" else (0.0, DELAY_S)
    argv = [sys.executable, str(APP), str(layout), str(effects), str(opened_s), str(saved_s)]
    app = desktop.desk.spawn(argv, log="slow-record")
    desktop.cleanup.append(app.terminate)
    wait_until(layout.exists, timeout=30, what="the search window drawn")
    boxes = json.loads(layout.read_text(encoding="utf-8"))
    size = (1920, 1080)
    workflow = ir(
        "Dossier lent",
        [
            step(1, "Cliquer sur 'Ouvrir le dossier'", "click_anchor", "Ouvrir le dossier",
                 centre(boxes["opener"], size), before=SEARCH, after=RECORD),
            step(2, "Cliquer sur 'Enregistrer'", "click_anchor", "Enregistrer", centre(boxes["saver"], size),
                 before=RECORD, after=RECORD, expected_outcome={"kind": "message", "text": "Dossier enregistré"}),
        ],
    )  # fmt: skip
    rpa_server.services.competences.save("Dossier lent", workflow, machine_id=MACHINE)
    agent = start_agent(desktop, rpa_server, tmp_path)
    replays = Replays(rpa_server)
    try:
        replay_id = replays.start("Dossier lent", MACHINE)
        status = replays.wait_stopped(replay_id)
    finally:
        replays.close()
    assert status["state"] == "completed", (status.get("pause_reason"), status.get("pause_detail"), agent.lines[-12:])
    looks = [a for a in status["actions"] if a.get("origin") == "later_look"]
    assert len(looks) == 1, status["actions"]  # the late step was judged on the later look, not on the first screen
    why = "the window it opens" if late == "window" else "what it shows once done"
    assert why in looks[0]["intent"] and looks[0]["index"] == (1 if late == "window" else 2), looks
    saved = [json.loads(line) for line in effects.read_text(encoding="utf-8").splitlines()]
    assert saved == [{"kind": "save", "record": RECORD}]
