"""A target another window covers is clicked once the agent raised the step's own window, on a real desktop.

"Voir l'image" opens an image viewer right over the record's "Valider". The next step's target is covered: the
server answers window_occluded, the agent raises the record window (a declared action, in the result's warning)
and finds "Valider" again there: validated once, the replay completed.
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
APP = Path(__file__).parent / "covered_app.py"
RECORD = "Dossier — DURAND Alice"
VIEWER = "Visionneuse PACS"


def centre(box: list[int]) -> tuple[float, float]:
    x, y, w, h = box
    return (x + w / 2) / 1920, (y + h / 2) / 1080


def test_a_button_the_viewer_covers_is_validated_once_the_record_window_is_raised(desktop, rpa_server, tmp_path):
    layout, effects = tmp_path / "layout.json", tmp_path / "effects.jsonl"
    app = desktop.desk.spawn([sys.executable, str(APP), str(layout), str(effects)], log="covered")
    desktop.cleanup.append(app.terminate)
    wait_until(layout.exists, timeout=30, what="the record window drawn")
    boxes = json.loads(layout.read_text(encoding="utf-8"))
    opener = step(1, "Cliquer sur 'Voir l'image'", "click_anchor", "Voir l'image", centre(boxes["opener"]),
                  before=RECORD, after=VIEWER)  # fmt: skip
    said = {"kind": "message", "text": "Dossier validé"}
    validate = step(2, "Cliquer sur 'Valider'", "click_anchor", "Valider", centre(boxes["validate"]),
                    before=RECORD, after=RECORD, expected_outcome=said)  # fmt: skip
    for s, box in ((opener, boxes["opener"]), (validate, boxes["validate"])):
        s["target"] |= {"window_title": RECORD, "bbox": box, "frame_size": [1920, 1080]}
    rpa_server.services.competences.save("Validation", ir("Validation", [opener, validate]), machine_id=MACHINE)
    start_agent(desktop, rpa_server, tmp_path)
    replays = Replays(rpa_server)
    try:
        status = replays.wait_stopped(replays.start("Validation", MACHINE))
    finally:
        replays.close()
    assert status["state"] == "completed", (status.get("pause_reason"), json.dumps(status.get("pause_detail"))[:1500])
    done = [json.loads(line) for line in effects.read_text(encoding="utf-8").splitlines()]
    assert done == [{"kind": "validate"}]
    said = [str(a.get("warning")) for a in status["actions"] if a.get("index") == 2]
    assert any(f"raised the step's window {RECORD!r} over {VIEWER!r}" in w for w in said), status["actions"]
