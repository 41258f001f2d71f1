"""The admission desk (a native GTK3 application, `native/gtk_admission.py`) on the rig, and its scripted clerk.

The application runs under the system Python with PyGObject (Debian python3-gi, gir1.2-gtk-3.0),
as a child process of the desktop; its effects are JSON lines read back here.

    app = start_admission(desk, workdir / "admission.jsonl")
    clerk = Person(desk, pace=recorder_pace(recorder))
    admit(clerk, app, Admission("FAURE", "FAURE Céline", "Douleur thoracique", "Cardiologie", "05/12/2026"))

The clerk makes a person's noise: a typo fixed with Backspace, a hesitation, a click on an empty
part of the window.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpa_mcp.desktop_rig.harness import DesktopError, VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.person import Person

SCRIPT = Path(__file__).parent / "native" / "gtk_admission.py"  # a script, not a module: GTK is the system's
SYSTEM_PYTHON = "/usr/bin/python3"
MAIN_TITLE = "Admission — Bureau des entrées"
EFFECT_TIMEOUT_S = 60.0
HESITATION_S = 1.2
HOLD_S = 0.1  # a mouse button held as a hand holds it
TRAVEL_S = 0.3  # a hand bringing the pointer to the next control (a person is never faster)
TRAVEL_MOVES = 4


def system_python_missing(probe: str, packages: list[str]) -> list[str]:
    """The Debian packages to install for an application the system's Python runs (empty when `probe`,
    its imports, runs there)."""
    if shutil.which(SYSTEM_PYTHON) is None:
        return ["python3", *packages]
    done = subprocess.run([SYSTEM_PYTHON, "-c", probe], capture_output=True, timeout=60, check=False)
    return [] if done.returncode == 0 else packages


def gtk_missing() -> list[str]:
    """The Debian packages to install for the GTK application (empty when it can run)."""
    probe = "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"
    return system_python_missing(probe, ["python3-gi", "gir1.2-gtk-3.0"])


@dataclass(frozen=True)
class Effect:
    seq: int
    kind: str  # search | open | save | error
    detail: dict[str, Any]


class AdmissionApp:
    """The running application: its process, its window, its effects log."""

    def __init__(self, desk: VirtualDisplay, effects: Path, process: subprocess.Popen[bytes], wid: int) -> None:
        self.desk, self.path, self.process, self.wid = desk, effects, process, wid

    def effects(self) -> list[Effect]:
        if not self.path.exists():
            return []
        lines = [json.loads(line) for line in self.path.read_text("utf-8").splitlines() if line.strip()]
        return [Effect(int(e["seq"]), str(e["kind"]), dict(e["detail"])) for e in lines]

    @property
    def mark(self) -> int:
        return len(self.effects())

    def since(self, mark: int) -> list[Effect]:
        return self.effects()[mark:]

    def wait_effect(self, kind: str, mark: int, *, timeout: float = EFFECT_TIMEOUT_S) -> Effect:
        found = wait_until(
            lambda: next((e for e in self.since(mark) if e.kind == kind), None),
            timeout=timeout,
            what=f"the admission desk's {kind!r} effect",
        )
        effect: Effect = found
        return effect

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)

    def wait_gone(self) -> None:
        """Until its window is off the desktop (the next one must not be taken for it)."""
        windows = self.desk.windows()
        wait_until(lambda: self.wid not in windows.client_list(), timeout=30, what="the admission window to close")


def new_window(
    windows: Any, process: Any, before: set[tuple[int, int]], title: str, log: str, *, timeout: float
) -> Any:
    """The window titled `title` a just started application opened (not one of `before`); DesktopError
    when the application exits first (its log is `log`.log)."""

    def window() -> Any:
        if process.poll() is not None:
            raise DesktopError(f"the application exited with status {process.returncode} (see {log}.log)")
        return next((w for w in windows.windows() if (w.wid, w.pid) not in before and w.title == title), None)

    return wait_until(window, timeout=timeout, what=f"the window {title!r}")


def start_admission(desk: VirtualDisplay, effects: Path, *, timeout: float = 60.0) -> AdmissionApp:
    """Start the application on the desktop and wait for its window (maximised, in front)."""
    missing = gtk_missing()
    if missing:
        raise DesktopError(f"the GTK application needs Debian packages: apt-get install -y {' '.join(missing)}")
    windows = desk.windows()
    before = {(info.wid, info.pid) for info in windows.windows()}
    env = {**desk.env, "LANG": "fr_FR.UTF-8", "LANGUAGE": "fr", "GTK_A11Y": "atspi", "GDK_BACKEND": "x11"}
    process = desk.spawn([SYSTEM_PYTHON, str(SCRIPT), "--effects", str(effects)], log="admission", env=env)

    info = new_window(windows, process, before, MAIN_TITLE, "admission", timeout=timeout)
    app = AdmissionApp(desk, effects, process, info.wid)
    place(app, "maximized")
    return app


missing, start = gtk_missing, start_admission  # the names `rpa-mcp bench apps` calls every application's by


GEOMETRIES = {  # name -> (x, y, width, height) within the 1920x1080 screen; None: maximised
    "maximized": None,
    "small": (0, 0, 1024, 768),
    "moved": (300, 160, 1280, 800),
    "wide": (120, 40, 1600, 960),
    "resized": (500, 250, 1366, 768),
}


def place(app: AdmissionApp, geometry: str) -> None:
    """Put the window at one of GEOMETRIES, in front, and wait until it is there and still."""
    windows = app.desk.windows()
    box = GEOMETRIES[geometry]
    if box is None:
        windows.maximize(app.wid)
        width = windows.size[0]
    else:
        windows.move_resize(app.wid, *box)
        width = box[2]
    windows.activate(app.wid)

    def placed() -> bool:
        info = windows.info(app.wid)
        return bool(
            info and info.geometry and abs(info.geometry[2] - width) <= 4 and windows.active_window() == app.wid
        )

    wait_until(placed, timeout=30, what=f"the admission window {geometry}")
    app.desk.wait_still()


@dataclass(frozen=True)
class Admission:
    """What the clerk enters: who (searched by `query`, the row `name`), why, where, when."""

    query: str = "FAURE"
    name: str = "FAURE Céline"
    reason: str = "Douleur thoracique"
    service: str = "Cardiologie"
    date: str = "05/12/2026"
    isolation: bool = True

    @property
    def first_name(self) -> str:
        return self.name.split(" ", 1)[1]


def admit(clerk: Person, app: AdmissionApp, task: Admission) -> None:
    """Search, pick the patient's row, fill the form, save; with a typo, a hesitation and a stray click."""
    mark = app.mark
    click_labelled(clerk, "Rechercher un patient :")
    clerk.type(task.query[:-1] + "X")  # a typo on the last letter, seen and fixed
    clerk.press("BackSpace")
    clerk.type(task.query[-1])
    hand_click(clerk, *clerk.point("Rechercher", "push button"))
    app.wait_effect("search", mark)
    time.sleep(HESITATION_S)  # reads the results before choosing
    hand_click(clerk, *clerk.point(task.first_name, "table cell"))
    app.wait_effect("open", mark)
    _stray_click(clerk, app)
    click_labelled(clerk, "Motif d'admission")
    clerk.type(task.reason)
    click_labelled(clerk, "Service", role="combo box")
    hand_click(clerk, *clerk.point(task.service, "menu item"))
    clerk.find(task.service, "combo box")  # the drop-down closed on the chosen service
    click_labelled(clerk, "Date d'entrée")
    clerk.type(task.date)
    if task.isolation:
        hand_click(clerk, *clerk.point("Isolement requis", "check box"))
    hand_click(clerk, *clerk.point("Enregistrer", "push button"))
    app.wait_effect("save", mark)


def demonstrate(clerk: Person, app: AdmissionApp) -> None:
    """The task as recorded for learning."""
    admit(clerk, app, Admission())


def click_labelled(clerk: Person, label: str, *, role: str = "text") -> tuple[int, int]:
    """Click the control a label widget names (GTK exposes the name on the label, the control beside it
    is nameless), a little inside its left edge; a text field is awaited until it has the keyboard."""
    x, y, w, h = clerk.find(label, "label").bbox
    point = (x + w + 40, y + h // 2)
    hand_click(clerk, *point)
    if role == "text":

        def focused() -> bool:
            element = clerk.eyes.element_at(*point)
            return bool(element is not None and element.focused)

        wait_until(focused, timeout=30, what=f"the keyboard focus in {label!r}")
    return point


def hand_click(clerk: Person, x: int, y: int, *, hold_s: float = HOLD_S) -> None:
    """A person's click: the pointer brought there over TRAVEL_S, the button held a moment (an application may act
    on the press, the release, or both)."""
    from Xlib import X
    from Xlib.ext import xtest

    screen = clerk.hands.display
    here = screen.screen().root.query_pointer()
    for step in range(1, TRAVEL_MOVES + 1):  # the pointer glides there: what the last click did is drawn meanwhile
        at = step / TRAVEL_MOVES
        xtest.fake_input(
            screen,
            X.MotionNotify,
            x=round(here.root_x + (x - here.root_x) * at),
            y=round(here.root_y + (y - here.root_y) * at),
        )
        screen.sync()
        time.sleep(TRAVEL_S / TRAVEL_MOVES)
    xtest.fake_input(screen, X.ButtonPress, 1)
    screen.sync()
    time.sleep(hold_s)
    xtest.fake_input(screen, X.ButtonRelease, 1)
    screen.sync()
    clerk.pace("click")


def _stray_click(clerk: Person, app: AdmissionApp) -> None:
    """A click on the window's empty lower right corner (no widget there): nothing happens."""
    info = app.desk.windows().info(app.wid)
    assert info is not None and info.geometry is not None
    x, y, w, h = info.geometry
    hand_click(clerk, x + w - 40, y + h - 30)


EXPECTED_STEPS = (  # written from the task, before any recording was looked at: (kind, label, value)
    ("type_text", "Rechercher un patient", "FAURE"),
    ("click", "Rechercher", None),
    ("click", "Céline", None),  # the result row (its cell)
    ("type_text", "Motif d'admission", "Douleur thoracique"),
    ("select_option", "Service", "Cardiologie"),
    ("type_text", "Date d'entrée", "05/12/2026"),
    ("set_checked", "Isolement requis", True),
    ("click", "Enregistrer", None),
)
