"""A name typed into a field that draws its last letters late is judged on a later look, on a real desktop.

The Tk form looks the name up after its fourth letter and draws nothing meanwhile, longer than the agent's
still-screen wait: the screen after the typing reads only the first letters. The step is not failed: one
look without input is taken later, the field then reads the whole name, the step is a success and the
save follows, once. A field that never shows the rest still pauses (tests/replay/test_late_typed_text.py).
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
APP = Path(__file__).parent / "slow_lookup_app.py"
TITLE = "Admission — recherche"
NAME = "BERNARDIN"
HOLD_S = 1.2  # the first screen (0.3 s still after the 4th letter) reads a beginning; the later look, all


def centre(box: list[int], size: tuple[int, int]) -> tuple[float, float]:
    x, y, w, h = box
    return (x + w / 2) / size[0], (y + h / 2) / size[1]


@pytest.mark.parametrize("when", ["letter", "key"])
def test_a_name_drawn_late_is_seen_whole_on_a_later_look_and_saved_once(desktop, rpa_server, tmp_path, when):
    """`letter`: the first screen reads "BERN"; `key`: the field held from the first key, nothing drawn at all."""
    layout, effects = tmp_path / "layout.json", tmp_path / "effects.jsonl"
    argv = [sys.executable, str(APP), str(layout), str(effects), str(HOLD_S), when]
    app = desktop.desk.spawn(argv, log="slow-lookup")
    desktop.cleanup.append(app.terminate)
    wait_until(layout.exists, timeout=30, what="the form drawn")
    boxes = json.loads(layout.read_text(encoding="utf-8"))
    size = (1920, 1080)
    (lx, ly, _, _), (fx, fy, _, fh) = boxes["label"], boxes["field"]
    at = (fx + 20, fy + fh // 2)  # where a person clicks in the field, 20 px in
    typing = step(1, "Saisir 'Nom du patient'", "type_text", "Nom du patient", (at[0] / size[0], at[1] / size[1]),
                  params={"text": NAME}, before=TITLE, after=TITLE, bbox=boxes["field"])  # fmt: skip
    click = [at[0] - lx, at[1] - ly]  # the field from its label, as a recorder keeps it: never the label
    typing["target"] |= {"label_offset": click, "label_click": click, "in_field": True}
    workflow = ir(
        "Admission lente",
        [
            typing,
            step(2, "Cliquer sur 'Enregistrer'", "click_anchor", "Enregistrer", centre(boxes["button"], size),
                 before=TITLE, after=TITLE),
        ],
    )  # fmt: skip
    rpa_server.services.competences.save("Admission lente", workflow, machine_id=MACHINE)
    agent = start_agent(desktop, rpa_server, tmp_path)
    replays = Replays(rpa_server)
    try:
        replay_id = replays.start("Admission lente", MACHINE)
        status = replays.wait_stopped(replay_id)
    finally:
        replays.close()
    assert status["state"] == "completed", (status.get("pause_reason"), status.get("pause_detail"), agent.lines[-12:])
    looks = [a for a in status["actions"] if a.get("origin") == "later_look"]
    assert len(looks) == 1, status["actions"]  # the typing was judged on the later look, not on the first screen
    saved = [json.loads(line) for line in effects.read_text(encoding="utf-8").splitlines()]
    assert saved == [{"kind": "save", "name": NAME}]
