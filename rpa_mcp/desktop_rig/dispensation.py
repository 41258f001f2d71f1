"""The pharmacy dispensing desk (a Tk application, `native/tk_dispensation.py`) on the rig, and its scripted clerk.

The application runs as a child process of the desktop under a Python with tkinter; its effects
are JSON lines read back here. Tk has no accessibility tree, so the scripted clerk sees where the
widgets are through the layout file the application keeps (what a person's eyes give; the
platform under test never reads it).

    app = start_dispensation(desk, workdir / "dispensation.jsonl")
    clerk = Person(desk, pace=recorder_pace(recorder))
    dispense(clerk, app, Dispensing())

The clerk makes a person's noise: a typo fixed with Backspace, a hesitation, a click on an empty
part of the window.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpa_mcp.desktop_rig.admission import HESITATION_S, AdmissionApp, hand_click, new_window, place
from rpa_mcp.desktop_rig.harness import DesktopError, VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.person import Person

SCRIPT = Path(__file__).parent / "native" / "tk_dispensation.py"  # a script: never imported by the server
MAIN_TITLE = "Pharmacie — Dispensation nominative"


def missing() -> list[str]:
    """The Debian packages to install for the Tk application (empty when it can run)."""
    probe = "import tkinter; tkinter.Tcl()"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=60, check=False)
    return [] if done.returncode == 0 else ["python3-tk"]


class DispensationApp(AdmissionApp):
    """The running application: its process, its window, its effects log, where its widgets are."""

    @property
    def layout_path(self) -> Path:
        return self.path.with_suffix(".layout.json")

    def layout(self) -> dict[str, Any]:
        try:
            found: dict[str, Any] = json.loads(self.layout_path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return found

    def box(self, *path: str, timeout: float = 30.0) -> list[int]:
        """Where a widget (or a result row's cell, or an open list's option) is on the screen."""

        def look() -> list[int] | None:
            node: Any = self.layout()
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            return node if isinstance(node, list) and len(node) == 4 and node[2] > 1 else None

        found: list[int] = wait_until(look, timeout=timeout, what=f"the widget {'/'.join(path)} on screen")
        return found

    def point(self, *path: str) -> tuple[int, int]:
        x, y, w, h = self.box(*path)
        return x + w // 2, y + h // 2


def start_dispensation(desk: VirtualDisplay, effects: Path, *, timeout: float = 60.0) -> DispensationApp:
    """Start the application on the desktop and wait for its window (maximised, in front)."""
    absent = missing()
    if absent:
        raise DesktopError(f"the Tk application needs Debian packages: apt-get install -y {' '.join(absent)}")
    windows = desk.windows()
    before = {(info.wid, info.pid) for info in windows.windows()}
    layout = effects.with_suffix(".layout.json")
    layout.unlink(missing_ok=True)
    env = {**desk.env, "LANG": "fr_FR.UTF-8"}
    argv = [sys.executable, str(SCRIPT), "--effects", str(effects), "--layout", str(layout)]
    process = desk.spawn(argv, log="dispensation", env=env)

    info = new_window(windows, process, before, MAIN_TITLE, "dispensation", timeout=timeout)
    app = DispensationApp(desk, effects, process, info.wid)
    place(app, "maximized")
    return app


start = start_dispensation


@dataclass(frozen=True)
class Dispensing:
    """What the clerk enters: who (searched by `query`, the row by first name), what, how much, how, when."""

    query: str = "DUBOIS"
    first_name: str = "Marcel"
    drug: str = "Paracétamol 1 g"
    quantity: str = "2"
    packaging: str = "Boîte"
    date: str = "05/12/2026"
    urgent: bool = True


def dispense(clerk: Person, app: DispensationApp, task: Dispensing) -> None:
    """Search, pick the patient's row, fill the form, validate; with a typo, a hesitation and a stray click."""
    mark = app.mark
    field(clerk, app, "query")
    clerk.type(task.query[:-1] + "X")  # a typo on the last letter, seen and fixed
    clerk.press("BackSpace")
    clerk.type(task.query[-1])
    hand_click(clerk, *app.point("find"))
    app.wait_effect("search", mark)
    time.sleep(HESITATION_S)  # reads the results before choosing
    hand_click(clerk, *app.point("rows", task.first_name))
    app.wait_effect("open", mark)
    stray_click(clerk, app)
    field(clerk, app, "drug")
    clerk.type(task.drug)
    field(clerk, app, "quantity")
    clerk.type(task.quantity)
    hand_click(clerk, *app.point("packaging"))
    hand_click(clerk, *app.point("options", task.packaging))
    wait_until(lambda: not app.layout().get("options"), timeout=30, what="the packaging list to close")
    field(clerk, app, "date")
    clerk.type(task.date)
    if task.urgent:
        hand_click(clerk, *app.point("urgent"))
    hand_click(clerk, *app.point("save"))
    app.wait_effect("save", mark)


def demonstrate(clerk: Person, app: DispensationApp) -> None:
    """The task as recorded for learning."""
    dispense(clerk, app, Dispensing())


def field(clerk: Person, app: DispensationApp, name: str) -> None:
    """Click a text field a little inside its left edge, as a person clicks where they will type, and
    give Tk a moment to move the caret there (a person sees it; Tk tells no one)."""
    x, y, _w, h = app.box(name)
    hand_click(clerk, x + 12, y + h // 2)
    app.desk.wait_still()


def stray_click(clerk: Person, app: DispensationApp) -> None:
    """A click on the window's (or page's) empty lower right corner, where its layout has no widget: nothing happens."""
    x, y, w, h = app.box("window")
    hand_click(clerk, x + w - 40, y + h - 30)


EXPECTED_STEPS = (  # written from the task, before any recording was looked at: (kind, label, value)
    ("type_text", "Patient (nom ou IPP)", "DUBOIS"),
    ("click", "Chercher", None),
    ("click", "Marcel", None),  # the result row (its cell)
    ("type_text", "Médicament", "Paracétamol 1 g"),
    ("type_text", "Quantité", "2"),
    ("select_option", "Conditionnement", "Boîte"),
    ("type_text", "Date de délivrance", "05/12/2026"),
    ("set_checked", "Délivrance urgente", True),
    ("click", "Valider", None),
)
