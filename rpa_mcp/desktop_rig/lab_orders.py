"""The laboratory order desk (a single-page web application, `lab_app.py`) in Chromium on the rig, and its clerk.

The application is served on loopback (its own server, apart from the demo application's) and
opened in Chromium; its effects are JSON lines read back here. Its drop-down and check box are
drawn with divs and expose no role: the scripted clerk sees where the controls are through the
layout the page reports (what a person's eyes give; the platform under test never reads it),
placed on the screen by the page's document frame (AT-SPI).

    app = start_lab(desk, workdir / "lab.jsonl")
    clerk = Person(desk, pace=recorder_pace(recorder))
    order(clerk, app, LabOrder())

The clerk makes a person's noise: a typo fixed with Backspace, a hesitation, an Alt+Tab to a
reminder window and back, a click on an empty part of the page.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpa_mcp.desktop_rig.admission import HESITATION_S, HOLD_S, hand_click, place
from rpa_mcp.desktop_rig.dispensation import DispensationApp, stray_click
from rpa_mcp.desktop_rig.harness import DesktopError, ServerThread, VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.lab_app import TITLE, create_lab_app
from rpa_mcp.desktop_rig.person import Person

REMINDER = "Rappel"


def missing() -> list[str]:
    """The Debian packages to install for the reminder window (Chromium is the desktop's own)."""
    return [] if shutil.which("xmessage") else ["x11-utils"]


class LabApp(DispensationApp):
    """The running application: its server, its browser window, its effects log, where its controls are."""

    origin: tuple[int, int] | None = None  # the page's top left corner on the screen, once a person looked
    server: ServerThread
    others: list[Any]  # the reminder window's process

    def box(self, *path: str, timeout: float = 30.0) -> list[int]:
        if self.origin is None:
            raise DesktopError("look at the page first (see_page) to know where it is on the screen")
        x, y, w, h = super().box(*path, timeout=timeout)
        return [x + self.origin[0], y + self.origin[1], w, h]

    def close(self) -> None:
        super().close()
        self.server.stop()
        for process in self.others:
            if process.poll() is None:
                process.terminate()
                process.wait(30)


def start_lab(desk: VirtualDisplay, effects: Path, *, timeout: float = 90.0) -> LabApp:
    """Serve the application, open a reminder window, then the page in Chromium (maximised, in front)."""
    absent = missing()
    if absent:
        raise DesktopError(f"the reminder window needs Debian packages: apt-get install -y {' '.join(absent)}")
    effects.with_suffix(".layout.json").unlink(missing_ok=True)
    server = ServerThread(create_lab_app(effects)).start()
    note = ["xmessage", "-title", REMINDER, "-geometry", "+1460+80", "Tubes violet et vert : poste 2"]
    reminder = desk.spawn(note, log="reminder")
    try:
        desk.wait_for(lambda w: w.title == REMINDER, timeout=timeout, what="the reminder window")
        browser = desk.chromium(f"{server.url}/", wait_title=TITLE, timeout=timeout)
    except BaseException:
        server.stop()
        reminder.terminate()
        raise
    assert browser.wid is not None
    app = LabApp(desk, effects, browser.process, browser.wid)
    app.server, app.others = server, [reminder]
    place(app, "maximized")
    return app


start = start_lab


@dataclass(frozen=True)
class LabOrder:
    """What the clerk enters: who (searched by `query`, the row by first name), why, which exam, when."""

    query: str = "DUPONT"
    first_name: str = "Jean"
    clinical: str = "Cytolyse sous statine"
    exam: str = "Bilan hépatique"
    date: str = "05/12/2026"
    fasting: bool = True


def order(clerk: Person, app: LabApp, task: LabOrder) -> None:
    """Search, pick the patient's row, fill the order, save; with a typo, a hesitation, an Alt+Tab detour
    and a stray click."""
    mark = app.mark
    see_page(clerk, app)
    field(clerk, app, "q")
    clerk.type(task.query[:-1] + "X")  # a typo on the last letter, seen and fixed
    clerk.press("BackSpace")
    clerk.type(task.query[-1])
    hand_click(clerk, *app.point("find"))
    app.wait_effect("search", mark)
    time.sleep(HESITATION_S)  # reads the results before choosing
    hand_click(clerk, *app.point("rows", task.first_name))
    app.wait_effect("open", mark)
    _detour(clerk, app)
    stray_click(clerk, app)
    field(clerk, app, "clinical")
    clerk.type(task.clinical)
    hand_click(clerk, *app.point("exam"))
    hand_click(clerk, *app.point("options", task.exam))
    wait_until(lambda: not app.layout().get("options"), timeout=30, what="the exam list to close")
    field(clerk, app, "date")
    clerk.type(task.date)
    if task.fasting:
        hand_click(clerk, *app.point("box"))
    hand_click(clerk, *app.point("save"))
    app.wait_effect("save", mark)


def demonstrate(clerk: Person, app: LabApp) -> None:
    """The task as recorded for learning."""
    order(clerk, app, LabOrder())


def see_page(clerk: Person, app: LabApp) -> None:
    """Where the page is on the screen: its document frame, as the browser exposes it."""
    x, y, _w, _h = clerk.find(TITLE, "document web").bbox
    app.origin = (x, y)


def field(clerk: Person, app: LabApp, name: str) -> None:
    """Click a text field a little inside its left edge and wait until it has the keyboard (a person sees the caret)."""
    x, y, _w, h = app.box(name)
    hand_click(clerk, x + 12, y + h // 2)
    wait_until(lambda: app.layout().get("focus") == name, timeout=30, what=f"the keyboard focus in {name!r}")


def _detour(clerk: Person, app: LabApp) -> None:
    """Alt+Tab to the reminder window, a look at it, Alt+Tab back to the page."""
    windows = app.desk.windows()
    alt_tab(clerk)
    wait_until(lambda: windows.active_window() != app.wid, timeout=30, what="the reminder in front")
    time.sleep(HESITATION_S)
    alt_tab(clerk)
    wait_until(lambda: windows.active_window() == app.wid, timeout=30, what="the page back in front")
    app.desk.wait_still()


def alt_tab(clerk: Person) -> None:
    """Alt held, Tab struck, Alt released a moment later, as a hand does (the window manager takes the keyboard
    on Tab and switches on Alt's release: a release sent with the press would reach it before its grab)."""
    from Xlib import XK, X
    from Xlib.ext import xtest

    screen = clerk.hands.display
    alt, tab = (screen.keysym_to_keycode(XK.string_to_keysym(name)) for name in ("Alt_L", "Tab"))
    for event, code in ((X.KeyPress, alt), (X.KeyPress, tab), (X.KeyRelease, tab)):
        xtest.fake_input(screen, event, code)
        screen.sync()
        time.sleep(HOLD_S)
    time.sleep(HOLD_S)
    xtest.fake_input(screen, X.KeyRelease, alt)
    screen.sync()
    clerk.pace("key")


EXPECTED_STEPS = (  # written from the task, before any recording was looked at: (kind, label, value)
    ("type_text", "Nom patient", "DUPONT"),
    ("click", "Chercher", None),
    ("click", "Jean", None),  # the result row (its cell)
    ("type_text", "Renseignements cliniques", "Cytolyse sous statine"),
    ("select_option", "Examen demandé", "Bilan hépatique"),
    ("type_text", "Date de prélèvement", "05/12/2026"),
    ("set_checked", "Patient à jeun", True),
    ("click", "Enregistrer la demande", None),
)
