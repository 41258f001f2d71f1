"""`set_checked` on radio buttons, replayed by `rpa-agent run` on a real desktop.

A radio button is set by a click, never cleared by one: a step wanting a selected one cleared pauses the
replay before any input, whether the accessibility tree names it (GTK) or only the screen shows it (Tk,
whose round mark the server reads beside its label); a step selecting the group's other option is done.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import cv2
import pytest

from rpa_mcp.desktop_rig.admission import SYSTEM_PYTHON, gtk_missing
from rpa_mcp.desktop_rig.dispensation import missing
from rpa_mcp.desktop_rig.harness import wait_until
from rpa_mcp.vision.marks import Learned, Mark, mark_beside
from tests.agent_x11.replaying import Replays
from tests.agent_x11.test_replay import MACHINE, start_agent
from tests.agent_x11.workflows import ir, step
from tests.vision.test_marks_on_real_toolkits import text_line

pytestmark = pytest.mark.desktop

APPS = Path(__file__).parents[1] / "vision"
SCREEN = (1920, 1080)


@pytest.fixture
def replays(rpa_server: Any) -> Any:
    r = Replays(rpa_server)
    yield r
    r.close()


def show(desktop: Any, tmp_path: Path, toolkit: str) -> dict[str, dict[str, Any]]:
    """The toolkit's window of radio buttons ("Programmé", "Urgent" selected) and check buttons, drawn: its
    buttons by text."""
    absent = gtk_missing() if toolkit == "gtk" else missing()
    if absent:
        pytest.skip(f"the {toolkit} window needs Debian packages {', '.join(absent)}")
    layout = tmp_path / f"{toolkit}.json"
    app = [SYSTEM_PYTHON, str(APPS / "gtk_marks_app.py")] if toolkit == "gtk" else [
        sys.executable, str(APPS / "tk_marks_app.py"), "clam"]  # fmt: skip
    left = "600" if toolkit == "gtk" else "1100"  # never under the pointer another toolkit's step left
    process = desktop.desk.spawn([*app, left, str(layout)], log=f"radio-{toolkit}")
    desktop.cleanup.append(process.terminate)
    wait_until(layout.exists, timeout=60, what=f"the {toolkit} window drawn")
    desktop.desk.wait_still()
    return {b["text"]: b for b in json.loads(layout.read_text("utf-8"))}


def choose(
    replays: Any, rpa_server: Any, name: str, button: dict[str, Any], checked: bool, mark: dict | None = None
) -> dict[str, Any]:
    """A one-step competence setting the radio button `button` to `checked` (`mark`: the mark it was learned
    with), replayed until it stops."""
    x, y, w, h = button["box"]
    centre = ((x + w / 2) / SCREEN[0], (y + h / 2) / SCREEN[1])
    label = button["text"]
    steps = [step(1, f"Choisir '{label}'", "set_checked", label, centre, params={"checked": checked})]
    if mark is not None:
        steps[0]["target"]["mark"] = mark
    rpa_server.services.competences.save(name, ir(name, steps), machine_id=MACHINE)
    return replays.wait_stopped(replays.start(name, MACHINE))


def selected_on_screen(desktop: Any, tmp_path: Path, buttons: dict[str, dict[str, Any]]) -> dict[str, bool | None]:
    image = cv2.imread(str(desktop.desk.screenshot(tmp_path / "after.png")))
    read = {text: mark_beside(image, text_line(image, b["box"])) for text, b in buttons.items() if b["kind"] == "radio"}
    return {text: mark.state if isinstance(mark, Mark) else None for text, mark in read.items()}


@pytest.mark.parametrize("toolkit", ["gtk", "tk"])
def test_a_selected_radio_wanted_cleared_pauses_before_any_click(
    desktop: Any, rpa_server: Any, replays: Any, tmp_path: Path, toolkit: str
) -> None:
    buttons = show(desktop, tmp_path, toolkit)
    start_agent(desktop, rpa_server, tmp_path)
    status = choose(replays, rpa_server, f"Priorité ({toolkit})", buttons["Urgent"], checked=False)
    [action] = [a for a in status["actions"] if a["action_type"] == "set_checked"]
    assert status["pause_reason"] == "paused_need_help", (status["pause_reason"], status["pause_detail"])
    assert action["outcome"] == "not_executed", action  # no input: the agent used to click, then its check paused
    error = str(status["pause_detail"]["error"])
    assert error.startswith("INVALID_ACTION") and "radio button" in error and "other option" in error, error
    assert selected_on_screen(desktop, tmp_path, buttons) == {"Programmé": False, "Urgent": True}


@pytest.mark.parametrize("toolkit", ["gtk", "tk"])
def test_the_groups_other_option_is_chosen_instead(
    desktop: Any, rpa_server: Any, replays: Any, tmp_path: Path, toolkit: str
) -> None:
    buttons = show(desktop, tmp_path, toolkit)
    agent = start_agent(desktop, rpa_server, tmp_path)
    status = choose(replays, rpa_server, f"Programmé ({toolkit})", buttons["Programmé"], checked=True)
    assert status["state"] == "completed", (status["pause_reason"], status["pause_detail"], agent.lines[-12:])
    assert selected_on_screen(desktop, tmp_path, buttons)["Urgent"] is False


def learned(desktop: Any, tmp_path: Path, button: dict[str, Any]) -> dict[str, Any]:
    """The mark beside the button's text as a step learned from a demonstration keeps it."""
    image = cv2.imread(str(desktop.desk.screenshot(tmp_path / "before.png")))
    mark = mark_beside(image, text_line(image, button["box"]))
    kept = Learned.of(mark) if mark is not None else None
    assert kept is not None, mark
    return kept.as_json()


@pytest.mark.parametrize("kind", ["radio", "box"])
def test_only_the_mark_the_step_was_learned_with_is_read(
    desktop: Any, rpa_server: Any, replays: Any, tmp_path: Path, kind: str
) -> None:
    # Tk: no accessibility tree, the screen's mark is all there is. Learned with this radio, the step selects
    # it; learned with a box there, the radio read is not the step's mark: its state is unknown, nothing clicked
    buttons = show(desktop, tmp_path, "tk")
    mark = learned(desktop, tmp_path, buttons["Programmé"]) | {"kind": kind}
    agent = start_agent(desktop, rpa_server, tmp_path)
    status = choose(replays, rpa_server, f"Programmé ({kind})", buttons["Programmé"], checked=True, mark=mark)
    if kind == "radio":
        assert status["state"] == "completed", (status["pause_reason"], status["pause_detail"], agent.lines[-12:])
        assert selected_on_screen(desktop, tmp_path, buttons) == {"Programmé": True, "Urgent": False}
        return
    [action] = [a for a in status["actions"] if a["action_type"] == "set_checked"]
    assert status["pause_reason"] == "paused_need_help", (status["pause_reason"], status["pause_detail"])
    assert action["outcome"] == "not_executed", action
    assert selected_on_screen(desktop, tmp_path, buttons) == {"Programmé": False, "Urgent": True}
