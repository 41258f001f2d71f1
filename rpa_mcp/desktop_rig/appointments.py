"""The outpatient appointment desk (a wxPython application, `native/wx_appointments.py`) on the rig, and its
scripted receptionist.

The application runs under the system Python with wxPython 4 (Debian python3-wxgtk4.0: wxWidgets 3.2 on
GTK 3), as a child process of the desktop, with GTK's accessibility bridge off: the platform sees it by vision
alone (its result grid and its drop-down are drawn by wx itself, not by GTK). Its effects are JSON lines read
back here. As for the Tk, Swing and AWT desks, the scripted receptionist sees where the widgets are through
the layout file the application keeps (what a person's eyes give; the platform under test never reads it).

    app = start_appointments(desk, workdir / "appointments.jsonl")
    receptionist = Person(desk, pace=recorder_pace(recorder))
    book(receptionist, app, Booking())

The receptionist makes a person's noise: a typo fixed with Backspace, a hesitation before the row, a misclick
on an empty part of the form; accented text is typed as it is written.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rpa_mcp.desktop_rig.admission import (
    HESITATION_S,
    SYSTEM_PYTHON,
    hand_click,
    new_window,
    place,
    system_python_missing,
)
from rpa_mcp.desktop_rig.dispensation import DispensationApp
from rpa_mcp.desktop_rig.harness import DesktopError, VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.person import Person

SCRIPT = Path(__file__).parent / "native" / "wx_appointments.py"  # a script: never imported by the server
MAIN_TITLE = "Consultations externes — Prise de rendez-vous"


def missing() -> list[str]:
    """The Debian packages to install for the wxPython application (empty when it can run)."""
    return system_python_missing("import wx, wx.grid, wx.adv", ["python3-wxgtk4.0"])


def start_appointments(desk: VirtualDisplay, effects: Path, *, timeout: float = 90.0) -> DispensationApp:
    """Start the application on the desktop and wait for its window (maximised, in front, laid out)."""
    absent = missing()
    if absent:
        raise DesktopError(f"the wxPython application needs Debian packages: apt-get install -y {' '.join(absent)}")
    windows = desk.windows()
    before = {(info.wid, info.pid) for info in windows.windows()}
    layout = effects.with_suffix(".layout.json")
    layout.unlink(missing_ok=True)
    env = {**desk.env, "LANG": "fr_FR.UTF-8", "NO_AT_BRIDGE": "1", "GTK_A11Y": "none", "GDK_BACKEND": "x11"}
    argv = [SYSTEM_PYTHON, str(SCRIPT), "--effects", str(effects), "--layout", str(layout)]
    process = desk.spawn(argv, log="appointments", env=env)
    info = new_window(windows, process, before, MAIN_TITLE, "appointments", timeout=timeout)
    app = DispensationApp(desk, effects, process, info.wid)
    place(app, "maximized")
    app.box("save")  # laid out at its new size and drawn
    return app


start = start_appointments


@dataclass(frozen=True)
class Booking:
    """What the receptionist enters: who (searched by `query`, the row by first name), which consultation,
    when, whether a medical transport is needed, why."""

    query: str = "BERTIN"
    first_name: str = "Solène"
    consultation: str = "Cardiologie"
    date: str = "05/12/2026"
    transport: bool = True
    reason: str = "Essoufflement à l'effort, bilan pré-opératoire"


def book(receptionist: Person, app: DispensationApp, task: Booking) -> None:
    """Search, pick the patient's row in the grid, fill the appointment, save; with a typo, a hesitation and a
    misclick."""
    mark = app.mark
    field(receptionist, app, "query")
    receptionist.type(task.query[:-1] + "X")  # a typo on the last letter, seen and fixed
    receptionist.press("BackSpace")
    receptionist.type(task.query[-1])
    hand_click(receptionist, *app.point("find"))
    app.wait_effect("search", mark)
    time.sleep(HESITATION_S)  # reads the results (two alike, often) before choosing
    hand_click(receptionist, *app.point("rows", task.first_name))
    app.wait_effect("open", mark)
    misclick(receptionist, app)
    hand_click(receptionist, *app.point("consultation"))
    hand_click(receptionist, *app.point("options", task.consultation))
    wait_until(
        lambda: app.layout().get("consultation_shown") == task.consultation and not app.layout().get("options"),
        timeout=30,
        what="the consultation chosen and its list closed",
    )
    field(receptionist, app, "date")
    receptionist.type(task.date)
    if task.transport:
        hand_click(receptionist, *app.point("transport"))
        wait_until(lambda: app.layout().get("transport_ticked") is True, timeout=30, what="the box ticked")
    field(receptionist, app, "reason")
    receptionist.type(task.reason)
    hand_click(receptionist, *app.point("save"))
    app.wait_effect("save", mark)


def demonstrate(receptionist: Person, app: DispensationApp) -> None:
    """The task as recorded for learning."""
    book(receptionist, app, Booking())


def field(receptionist: Person, app: DispensationApp, name: str) -> None:
    """Click a text field a little inside its left edge and wait until it has the keyboard (a person sees the
    caret there)."""
    x, y, _w, h = app.box(name)
    hand_click(receptionist, x + 12, y + h // 2)
    wait_until(lambda: app.layout().get("focus") == name, timeout=30, what=f"the keyboard focus in {name!r}")
    app.desk.wait_still()


def misclick(receptionist: Person, app: DispensationApp) -> None:
    """A click in the empty lower part of the appointment panel (no widget there): nothing happens."""
    x, y, w, h = app.box("form")
    hand_click(receptionist, x + w // 2, y + h * 4 // 5)


EXPECTED_STEPS = (  # written from the task, before any recording was looked at: (kind, label, value)
    ("type_text", "Nom ou IPP", "BERTIN"),
    ("click", "Chercher", None),
    ("click", "Solène", None),  # the result row (its first-name cell in the grid)
    ("select_option", "Consultation", "Cardiologie"),
    ("type_text", "Date du rendez-vous", "05/12/2026"),
    ("set_checked", "Transport sanitaire", True),
    ("type_text", "Motif", "Essoufflement à l'effort, bilan pré-opératoire"),
    ("click", "Enregistrer le rendez-vous", None),
)
