"""The imaging appointment desk (a native Qt 5 application, `native/qt_imaging.py`) on the rig, and its scripted clerk.

The application runs under the system Python with PyQt5 (Debian python3-pyqt5), as a child process
of the desktop, with Qt's accessibility bridge to AT-SPI on; its effects are JSON lines read back here.

    app = start_imaging(desk, workdir / "imaging.jsonl")
    clerk = Person(desk, pace=recorder_pace(recorder))
    book(clerk, app, Booking())

The clerk makes a person's noise: a typo fixed with Backspace, a hesitation, a click on an empty
part of the form; accented text is typed as it is written.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rpa_mcp.desktop_rig.admission import (
    HESITATION_S,
    SYSTEM_PYTHON,
    AdmissionApp,
    hand_click,
    new_window,
    place,
    system_python_missing,
)
from rpa_mcp.desktop_rig.harness import DesktopError, VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.person import Person

SCRIPT = Path(__file__).parent / "native" / "qt_imaging.py"  # a script, not a module: PyQt5 is the system's
MAIN_TITLE = "Imagerie — Prise de rendez-vous"


def missing() -> list[str]:
    """The Debian packages to install for the Qt application (empty when it can run)."""
    return system_python_missing("from PyQt5.QtWidgets import QApplication", ["python3-pyqt5"])


def accessibility_bus_up(desk: VirtualDisplay, *, timeout: float = 30.0) -> None:
    """Until the desktop's accessibility bus runs, as it does in a person's session before any application
    starts: Qt 5's bridge asks for it once at start-up and stays off the tree when it is not there yet."""
    from jeepney import DBusAddress, new_method_call
    from jeepney.io.blocking import open_dbus_connection

    bus = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
    conn = open_dbus_connection(bus=desk.env["DBUS_SESSION_BUS_ADDRESS"])
    try:
        reply = conn.send_and_get_reply(new_method_call(bus, "GetAddress"), timeout=timeout)
    finally:
        conn.close()
    address = str(reply.body[0]) if reply.body else ""
    if not address:
        raise DesktopError("the accessibility bus gave no address")

    def atom_set() -> bool:
        from Xlib import display as xdisplay

        screen = xdisplay.Display(desk.display)
        try:
            atom = screen.intern_atom("AT_SPI_BUS", only_if_exists=True)
            return bool(atom) and screen.screen().root.get_full_property(atom, 0) is not None
        finally:
            screen.close()

    wait_until(atom_set, timeout=timeout, what="the accessibility bus announced on the desktop")


def start_imaging(desk: VirtualDisplay, effects: Path, *, timeout: float = 60.0) -> AdmissionApp:
    """Start the application on the desktop and wait for its window (maximised, in front)."""
    absent = missing()
    if absent:
        raise DesktopError(f"the Qt application needs Debian packages: apt-get install -y {' '.join(absent)}")
    accessibility_bus_up(desk)
    windows = desk.windows()
    before = {(info.wid, info.pid) for info in windows.windows()}
    env = {
        **desk.env,
        "LANG": "fr_FR.UTF-8",
        "QT_QPA_PLATFORM": "xcb",
        "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
        "QT_ACCESSIBILITY": "1",
    }
    process = desk.spawn([SYSTEM_PYTHON, str(SCRIPT), "--effects", str(effects)], log="imaging", env=env)

    info = new_window(windows, process, before, MAIN_TITLE, "imaging", timeout=timeout)
    app = AdmissionApp(desk, effects, process, info.wid)
    place(app, "maximized")
    return app


start = start_imaging


@dataclass(frozen=True)
class Booking:
    """What the clerk enters: who (searched by `query`, the row by first name), why, which exam, when."""

    query: str = "CARON"
    first_name: str = "Frédéric"
    indication: str = "Suspicion d'embolie pulmonaire"
    exam: str = "Scanner thoracique"
    date: str = "05/12/2026"
    urgent: bool = True


def book(clerk: Person, app: AdmissionApp, task: Booking) -> None:
    """Search, pick the patient's row, fill the form, confirm; with a typo, a hesitation and a stray click."""
    mark = app.mark
    click_labelled(clerk, "Nom du patient :")
    clerk.type(task.query[:-1] + "X")  # a typo on the last letter, seen and fixed
    clerk.press("BackSpace")
    clerk.type(task.query[-1])
    hand_click(clerk, *clerk.point("Rechercher", "push button"))
    app.wait_effect("search", mark)
    time.sleep(HESITATION_S)  # reads the results before choosing
    hand_click(clerk, *clerk.point(task.first_name, "cell"))
    app.wait_effect("open", mark)
    stray_click(clerk)
    click_labelled(clerk, "Indication clinique :")
    clerk.type(task.indication)
    choose(clerk, "Examen :", task.exam)
    click_labelled(clerk, "Date du RDV :")
    clerk.type(task.date)
    if task.urgent:
        hand_click(clerk, *clerk.point("Urgent", "radio button"))
    hand_click(clerk, *clerk.point("Confirmer le RDV", "push button"))
    app.wait_effect("save", mark)


def demonstrate(clerk: Person, app: AdmissionApp) -> None:
    """The task as recorded for learning."""
    book(clerk, app, Booking())


def choose(clerk: Person, label: str, option: str) -> None:
    """Open the drop-down `label` names and click `option` in its list once the list is drawn under it
    (Qt keeps the closed list's items in the tree, placed at the screen's origin), then see it close."""
    left = clerk.find(label, "label").bbox[0]
    click_labelled(clerk, label, role="combo box")

    def opened() -> tuple[int, int] | None:
        item = clerk.eyes.find(option, role="list item")
        if item is None or item.bbox is None or item.bbox[0] < left:
            return None
        x, y, w, h = item.bbox
        return x + min(w // 2, 60), y + h // 2

    hand_click(clerk, *wait_until(opened, timeout=30, what=f"the option {option!r} shown"))
    clerk.desk.wait_still()  # the list closes (the tree cannot tell: its items stay, the hit test skips them)


def click_labelled(clerk: Person, label: str, *, role: str = "text") -> tuple[int, int]:
    """Click the control a label names, the first of `role` to the right of the label on its line (a form
    layout's fields start in one column, however short the label), a little inside its left edge; a
    text field is awaited until it has the keyboard."""
    x, y, w, h = clerk.find(label, "label").bbox
    line = y + h // 2

    def beside() -> tuple[int, int] | None:
        for right in range(x + w + 4, x + w + 400, 8):
            element = clerk.eyes.element_at(right, line)
            if element is not None and element.role == role and element.bbox is not None:
                return element.bbox[0] + 20, line
        return None

    point: tuple[int, int] = wait_until(beside, timeout=30, what=f"the {role} {label!r} names")
    hand_click(clerk, *point)
    if role == "text":

        def focused() -> bool:
            element = clerk.eyes.element_at(*point)
            return bool(element is not None and element.focused)

        wait_until(focused, timeout=30, what=f"the keyboard focus in {label!r}")
    return point


def stray_click(clerk: Person) -> None:
    """A click in the empty lower part of the appointment panel (no widget there): nothing happens."""
    x, y, w, h = clerk.find("Rendez-vous", "panel").bbox
    hand_click(clerk, x + w // 2, y + h * 3 // 4)


EXPECTED_STEPS = (  # written from the task, before any recording was looked at: (kind, label, value)
    ("type_text", "Nom du patient", "CARON"),
    ("click", "Rechercher", None),
    ("click", "Frédéric", None),  # the result row (its cell)
    ("type_text", "Indication clinique", "Suspicion d'embolie pulmonaire"),
    ("select_option", "Examen", "Scanner thoracique"),
    ("type_text", "Date du RDV", "05/12/2026"),
    ("set_checked", "Urgent", True),
    ("click", "Confirmer le RDV", None),
)
