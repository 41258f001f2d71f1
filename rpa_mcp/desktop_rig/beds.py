"""The bed management desk (a Java AWT application, `native/AwtBeds.java`) on the rig, and its bed manager.

The application runs as a single Java source file under OpenJDK 17 (`java File.java`, no build step, as the
Swing desk), as a child process of the desktop: heavyweight `java.awt` widgets drawn by AWT's X toolkit
(XToolkit), no accessibility bridge: the platform sees it by vision alone. Its effects are JSON lines read
back here. As for the Tk and Swing desks, the scripted bed manager sees where the widgets are through the
layout file the application keeps (what a person's eyes give; the platform under test never reads it).
A reminder window (xmessage) stands beside it, for the Alt+Tab detour.

    app = start_beds(desk, workdir / "beds.jsonl")
    manager = Person(desk, pace=recorder_pace(recorder))
    assign(manager, app, Assignment())

The bed manager makes a person's noise: a typo fixed with Backspace, a hesitation before the row, an
Alt+Tab to the reminder and back, a misclick on an empty part of the form; accented text is typed as it
is written.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpa_mcp.desktop_rig.admission import HESITATION_S, hand_click, new_window, place
from rpa_mcp.desktop_rig.dispensation import DispensationApp
from rpa_mcp.desktop_rig.harness import DesktopError, VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.lab_orders import alt_tab
from rpa_mcp.desktop_rig.person import Person
from rpa_mcp.desktop_rig.transfusion import JAVA_OPTIONS
from rpa_mcp.desktop_rig.transfusion import missing as java_missing

SCRIPT = Path(__file__).parent / "native" / "AwtBeds.java"  # a single source file, run by `java`
MAIN_TITLE = "Gestion des lits — Affectation"
REMINDER = "Consignes de garde"
AWT_OPTIONS = (  # the drop-down's open state, for the bed manager's eyes only (AWT keeps it in its X11 peer)
    "--add-opens=java.desktop/java.awt=ALL-UNNAMED",
    "--add-opens=java.desktop/sun.awt.X11=ALL-UNNAMED",
)


def missing() -> list[str]:
    """The Debian packages to install for the AWT application and its reminder window (empty when it can run)."""
    return java_missing() + ([] if shutil.which("xmessage") else ["x11-utils"])


class BedsApp(DispensationApp):
    """The running application, its reminder window beside it."""

    others: list[Any]  # the reminder window's process

    def close(self) -> None:
        super().close()
        for process in self.others:
            if process.poll() is None:
                process.terminate()
                process.wait(30)


def start_beds(desk: VirtualDisplay, effects: Path, *, timeout: float = 120.0) -> BedsApp:
    """Open the reminder window, then start the application and wait for its window (maximised, in front)."""
    absent = missing()
    if absent:
        raise DesktopError(f"the AWT application needs Debian packages: apt-get install -y {' '.join(absent)}")
    windows = desk.windows()
    note = ["xmessage", "-title", REMINDER, "-geometry", "+1440+90", "Lits 212-A et 305-B : sortie avant 14 h"]
    reminder = desk.spawn(note, log="reminder")
    layout = effects.with_suffix(".layout.json")
    layout.unlink(missing_ok=True)
    try:
        desk.wait_for(lambda w: w.title == REMINDER, timeout=timeout, what="the reminder window")
        before = {(info.wid, info.pid) for info in windows.windows()}
        env = {**desk.env, "LANG": "fr_FR.UTF-8"}
        java = shutil.which("java") or "java"
        argv = [java, *JAVA_OPTIONS, *AWT_OPTIONS, str(SCRIPT), "--effects", str(effects), "--layout", str(layout)]
        process = desk.spawn(argv, log="beds", env=env)
        info = new_window(windows, process, before, MAIN_TITLE, "beds", timeout=timeout)
    except BaseException:
        reminder.terminate()
        raise
    app = BedsApp(desk, effects, process, info.wid)
    app.others = [reminder]
    place(app, "maximized")
    app.box("assign")  # laid out at its new size and drawn
    return app


start = start_beds


@dataclass(frozen=True)
class Assignment:
    """What the bed manager enters: who (searched by `query`, the row by first name), which unit, which bed,
    when, a single room or not, the instructions for the ward."""

    query: str = "GAUTHIER"
    first_name: str = "Édith"
    unit: str = "Médecine interne A"
    bed: str = "214-B"
    date: str = "05/12/2026"
    single_room: bool = True
    instructions: str = "Prévoir matelas à air, régime sans sel"


def assign(manager: Person, app: BedsApp, task: Assignment) -> None:
    """Search, pick the patient's row, fill the assignment, save; with a typo, a hesitation, an Alt+Tab detour
    and a misclick."""
    mark = app.mark
    field(manager, app, "query")
    manager.type(task.query[:-1] + "X")  # a typo on the last letter, seen and fixed
    manager.press("BackSpace")
    manager.type(task.query[-1])
    hand_click(manager, *app.point("find"))
    app.wait_effect("search", mark)
    time.sleep(HESITATION_S)  # reads the results before choosing
    hand_click(manager, *app.point("rows", task.first_name))
    app.wait_effect("open", mark)
    detour(manager, app)
    misclick(manager, app)
    hand_click(manager, *app.point("unit"))
    hand_click(manager, *app.point("options", task.unit))
    wait_until(lambda: app.layout().get("unit_shown") == task.unit, timeout=30, what="the unit chosen")
    field(manager, app, "bed")
    manager.type(task.bed)
    field(manager, app, "date")
    manager.type(task.date)
    if task.single_room:
        hand_click(manager, *app.point("single"))
        wait_until(lambda: app.layout().get("single_ticked") is True, timeout=30, what="the box ticked")
    field(manager, app, "instructions")
    manager.type(task.instructions)
    hand_click(manager, *app.point("assign"))
    app.wait_effect("save", mark)


def demonstrate(manager: Person, app: BedsApp) -> None:
    """The task as recorded for learning."""
    assign(manager, app, Assignment())


def field(manager: Person, app: BedsApp, name: str) -> None:
    """Click a text field a little inside its left edge and wait until it has the keyboard (a person sees the
    caret there)."""
    x, y, _w, h = app.box(name)
    hand_click(manager, x + 12, y + h // 2)
    wait_until(lambda: app.layout().get("focus") == name, timeout=30, what=f"the keyboard focus in {name!r}")
    app.desk.wait_still()


def detour(manager: Person, app: BedsApp) -> None:
    """Alt+Tab to the reminder window, a look at it, Alt+Tab back to the application: nothing happens."""
    windows = app.desk.windows()
    alt_tab(manager)
    wait_until(lambda: windows.active_window() != app.wid, timeout=30, what="the reminder in front")
    time.sleep(HESITATION_S)
    alt_tab(manager)
    wait_until(lambda: windows.active_window() == app.wid, timeout=30, what="the bed desk back in front")
    app.desk.wait_still()


def misclick(manager: Person, app: BedsApp) -> None:
    """A click in the empty lower part of the assignment panel (no widget there): nothing happens."""
    x, y, w, h = app.box("form")
    hand_click(manager, x + w // 2, y + h * 3 // 4)


EXPECTED_STEPS = (  # written from the task, before any recording was looked at: (kind, label, value)
    ("type_text", "Nom du patient", "GAUTHIER"),
    ("click", "Rechercher", None),
    ("click", "Édith", None),  # the result row (the list's line, by its first name)
    ("select_option", "Unité d'hébergement", "Médecine interne A"),
    ("type_text", "Lit attribué", "214-B"),
    ("type_text", "Entrée prévue le", "05/12/2026"),
    ("set_checked", "Chambre individuelle", True),
    ("type_text", "Consignes", "Prévoir matelas à air, régime sans sel"),
    ("click", "Affecter le lit", None),
)
