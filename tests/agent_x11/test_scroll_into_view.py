"""A button below a shorter window is scrolled into view on a real desktop, and the wheel never turns a drop-down.

The GTK form was demonstrated in a window tall enough to show its "Enregistrer" (a quantity typed first); at
replay the window is 380 px tall and the button out of view. The agent scrolls the page one notch at a time
where the accessibility tree says the wheel only scrolls, measures how far the page moved, and the server finds
the button there: saved once, the drop-down untouched. With the drop-down in the wheel's path, the agent stops
before it comes under the pointer, scrolls back, and the replay pauses: nothing saved, the drop-down untouched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rpa_mcp.desktop_rig.admission import SYSTEM_PYTHON
from rpa_mcp.desktop_rig.harness import wait_until
from tests.agent_x11.replaying import Replays
from tests.agent_x11.test_native_gtk import require_gtk
from tests.agent_x11.test_replay import MACHINE, start_agent
from tests.agent_x11.workflows import ir, step

pytestmark = pytest.mark.desktop
APP = Path(__file__).parent / "scrolled_form_app.py"
TITLE = "Pharmacie — Préparation"
SHORT = (40, 40, 700, 380)


@pytest.mark.parametrize("combo_row", [1, 12], ids=["drop-down-away", "drop-down-in-the-way"])
def test_a_button_out_of_view_is_scrolled_to_and_a_drop_down_is_never_turned(desktop, rpa_server, tmp_path, combo_row):
    require_gtk()
    layout, effects = tmp_path / "layout.json", tmp_path / "effects.jsonl"
    env = {**desktop.desk.env, "GTK_A11Y": "atspi", "GDK_BACKEND": "x11"}
    app = desktop.desk.spawn([SYSTEM_PYTHON, str(APP), str(layout), str(effects), str(combo_row)], log="form", env=env)
    desktop.cleanup.append(app.terminate)
    wait_until(layout.exists, timeout=30, what="the form drawn")
    boxes = json.loads(layout.read_text(encoding="utf-8"))
    qx, qy, qw, qh = boxes["quantity"]
    quantity = step(1, "Saisir 'Quantité'", "type_text", "Quantité", ((qx + qw / 2) / 1920, (qy + qh / 2) / 1080),
                    params={"text": "2"}, before=TITLE, after=TITLE, bbox=boxes["quantity"])  # fmt: skip
    x, y, w, h = boxes["button"]
    centre = ((x + w / 2) / 1920, (y + h / 2) / 1080)
    saved = {"kind": "message", "text": "Formulaire enregistré"}
    save = step(2, "Cliquer sur 'Enregistrer'", "click_anchor", "Enregistrer", centre,
                before=TITLE, after=TITLE, expected_outcome=saved)  # fmt: skip
    save["target"] |= {"window_title": TITLE, "window_box": boxes["window"], "screen": [1920, 1080]}
    rpa_server.services.competences.save("Préparation", ir("Préparation", [quantity, save]), machine_id=MACHINE)

    windows = desktop.desk.windows()
    form = wait_until(lambda: windows.find(TITLE), timeout=30, what="the form's window")
    windows.move_resize(form.wid, *SHORT)  # shorter than the demonstration's: the button out of view
    wait_until(lambda: (windows.info(form.wid).geometry or (0, 0, 0, 0))[3] == SHORT[3], timeout=30, what="resized")
    desktop.desk.wait_still()

    agent = start_agent(desktop, rpa_server, tmp_path)
    replays = Replays(rpa_server)
    try:
        status = replays.wait_stopped(replays.start("Préparation", MACHINE))
    finally:
        replays.close()
    done = [json.loads(line) for line in effects.read_text(encoding="utf-8").splitlines()] if effects.exists() else []
    assert not [e for e in done if e["kind"] == "packaging"], done  # the wheel never turned the drop-down
    if combo_row == 1:
        assert status["state"] == "completed", (
            status.get("pause_reason"),
            status.get("pause_detail"),
            agent.lines[-12:],
        )
        assert done == [{"kind": "save", "quantity": "2", "packaging": "Boîte"}]
        said = [str(a.get("warning")) for a in status["actions"] if a.get("index") == 2]
        assert any("notch(es) down" in w for w in said), status["actions"]  # the evidence says how far it scrolled
    else:
        assert status["state"] == "paused" and done == [], (status.get("pause_detail"), done)
        assert "combo box" in str(status.get("pause_detail")), status.get("pause_detail")
