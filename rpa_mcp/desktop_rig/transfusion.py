"""The blood product request desk (a Java Swing application, `native/SwingTransfusion.java`) on the rig, and its clerk.

The application runs as a single Java source file under OpenJDK 17 (`java File.java`, no build step), as a
child process of the desktop, with Java's accessibility bridge to AT-SPI off: the platform sees it by
vision alone. Its effects are JSON lines read back here. Like the Tk desk, the scripted clerk sees where
the widgets are through the layout file the application keeps (what a person's eyes give; the platform
under test never reads it).

    app = start_transfusion(desk, workdir / "transfusion.jsonl")
    clerk = Person(desk, pace=recorder_pace(recorder))
    request(clerk, app, Request())

The clerk makes a person's noise: a typo fixed with Backspace, a hesitation, a detour through the "Aide"
menu closed with Escape, a click on an empty part of the form; accented text is typed as it is written.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from rpa_mcp.desktop_rig.admission import HESITATION_S, hand_click, new_window, place
from rpa_mcp.desktop_rig.dispensation import DispensationApp
from rpa_mcp.desktop_rig.harness import DesktopError, VirtualDisplay, wait_until
from rpa_mcp.desktop_rig.person import Person

SCRIPT = Path(__file__).parent / "native" / "SwingTransfusion.java"  # a single source file, run by `java`
MAIN_TITLE = "Transfusion — Demande de produits sanguins"
JAVA_OPTIONS = (
    "-Dfile.encoding=UTF-8",  # the source and its accented text, whatever the locale installed
    "-Djavax.accessibility.assistive_technologies=",  # no bridge to AT-SPI, whatever the machine's settings
    "-Duser.language=fr",
    "-Duser.country=FR",
    "-XX:TieredStopAtLevel=1",  # a quicker start on a busy machine; the application is small
)


def missing() -> list[str]:
    """The Debian packages to install for the Swing application (empty when it can run): a JRE with AWT's X11
    toolkit (`openjdk-17-jre`; the headless JRE cannot open a window) and the source launcher's compiler."""
    java = shutil.which("java")
    if java is None:
        return ["openjdk-17-jre"]
    home = Path(java).resolve().parent.parent
    if not (home / "lib" / "libawt_xawt.so").exists():
        return ["openjdk-17-jre"]
    modules = subprocess.run([java, "--list-modules"], capture_output=True, text=True, timeout=60, check=False)
    return [] if "jdk.compiler@" in modules.stdout else ["openjdk-17-jre"]  # the source launcher compiles


def start_transfusion(desk: VirtualDisplay, effects: Path, *, timeout: float = 120.0) -> DispensationApp:
    """Start the application on the desktop and wait for its window (maximised, in front)."""
    absent = missing()
    if absent:
        raise DesktopError(f"the Swing application needs Debian packages: apt-get install -y {' '.join(absent)}")
    windows = desk.windows()
    before = {(info.wid, info.pid) for info in windows.windows()}
    layout = effects.with_suffix(".layout.json")
    layout.unlink(missing_ok=True)
    env = {**desk.env, "LANG": "fr_FR.UTF-8"}
    java = shutil.which("java") or "java"
    argv = [java, *JAVA_OPTIONS, str(SCRIPT), "--effects", str(effects), "--layout", str(layout)]
    process = desk.spawn(argv, log="transfusion", env=env)

    info = new_window(windows, process, before, MAIN_TITLE, "transfusion", timeout=timeout)
    app = DispensationApp(desk, effects, process, info.wid)
    place(app, "maximized")
    app.box("send")  # laid out at its new size and drawn
    return app


start = start_transfusion


@dataclass(frozen=True)
class Request:
    """What the clerk enters: who (searched by `query`, the row by first name), why, which product, how many,
    when, irradiated or not."""

    query: str = "ROCHE"
    first_name: str = "Bérénice"
    indication: str = "Anémie aiguë, Hb 6,8 g/dL"
    product: str = "Concentré de globules rouges"
    units: str = "2"
    date: str = "05/12/2026"
    irradiated: bool = True


def request(clerk: Person, app: DispensationApp, task: Request) -> None:
    """Search, pick the patient's row, fill the request, send; with a typo, a hesitation, a menu detour and a
    stray click."""
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
    detour(clerk, app)
    stray_click(clerk, app)
    field(clerk, app, "indication")
    clerk.type(task.indication)
    hand_click(clerk, *app.point("product"))
    hand_click(clerk, *app.point("options", task.product))
    wait_until(lambda: not app.layout().get("options"), timeout=30, what="the product list to close")
    field(clerk, app, "units")
    clerk.type(task.units)
    field(clerk, app, "date")
    clerk.type(task.date)
    if task.irradiated:
        hand_click(clerk, *app.point("irradiated"))
    hand_click(clerk, *app.point("send"))
    app.wait_effect("save", mark)


def demonstrate(clerk: Person, app: DispensationApp) -> None:
    """The task as recorded for learning."""
    request(clerk, app, Request())


def field(clerk: Person, app: DispensationApp, name: str) -> None:
    """Click a text field a little inside its left edge and wait until it has the keyboard (a person sees the
    caret there)."""
    x, y, _w, h = app.box(name)
    hand_click(clerk, x + 12, y + h // 2)
    wait_until(lambda: app.layout().get("focus") == name, timeout=30, what=f"the keyboard focus in {name!r}")
    app.desk.wait_still()


def detour(clerk: Person, app: DispensationApp) -> None:
    """The "Aide" menu opened, a look at its items, closed with Escape: nothing happens."""
    hand_click(clerk, *app.point("help"))
    time.sleep(HESITATION_S)
    clerk.press("Escape")
    app.desk.wait_still()


def stray_click(clerk: Person, app: DispensationApp) -> None:
    """A click in the empty lower part of the request panel (no widget there): nothing happens."""
    x, y, w, h = app.box("form")
    hand_click(clerk, x + w // 2, y + h * 3 // 4)


EXPECTED_STEPS = (  # written from the task, before any recording was looked at: (kind, label, value)
    ("type_text", "Nom du patient", "ROCHE"),
    ("click", "Rechercher", None),
    ("click", "Bérénice", None),  # the result row (its cell)
    ("type_text", "Indication", "Anémie aiguë, Hb 6,8 g/dL"),
    ("select_option", "Produit", "Concentré de globules rouges"),
    ("type_text", "Nombre d'unités", "2"),
    ("type_text", "Date de transfusion", "05/12/2026"),
    ("set_checked", "Produit irradié", True),
    ("click", "Envoyer la demande", None),
)
