"""xfig (Debian's xfig; see rpa_mcp.screens.real_programs): a drawing program of the X Athena widgets
(Xaw3d): flat grey panels, buttons framed by a thin line, text fields tinted beige, its own file browser
("Xfig: Open Figure", "Xfig: SaveAs": a status block, a "Filename" field over a list of "Fig files", a
preview on the right, Rescan / Cancel / Open or Save / New xfig... below), its questions titled
"Xfig: Query" (Yes / No / Cancel) and its error window ("Xfig: Error messages": a log, Dismiss /
Clear). No translation: English in French too. A tuning program.

The scene: a click on the "Drawing" label of the mode panel (nothing happens); the open browser,
Cancel; the open browser again, the name of a file the user may not read typed in it ("Read access to
file ... is blocked.", Dismiss: the browser is still there, then cancelled); a rectangle drawn; the
save-as browser answered with an existing figure's name ('"bilan.fig" already exists. Do you want to
overwrite it?', No: the browser is still there, then cancelled); New with the figure modified ("The
current figure is modified, do you want to save it first?", Cancel); Quit ("... Do you want to save it
before quitting?", No: xfig closes).
"""

from __future__ import annotations

import subprocess
import time

import cv2
import numpy as np

from rpa_mcp.screens.desktop_scenes import CANCEL
from rpa_mcp.screens.plain_pairs import idle_click
from rpa_mcp.screens.real_program_scenes import NO, dialog_then_click
from rpa_mcp.screens.real_programs import USER, BBox, Session, center
from rpa_mcp.screens.swing_scenes import _unreadable
from rpa_mcp.screens.vim_scenes import SCENES

__all__ = ["SCENES", "xfig"]

# an empty figure of xfig's own format: a name the save-as browser is answered with
FIGURE = "#FIG 3.2\nLandscape\nCenter\nMetric\nA4\n100.00\nSingle\n-2\n1200 2\n"
DISMISS = ("dismiss", "disniss")  # the label as read as often as not: an "m" of its font read "n"


def xfig(s: Session) -> None:
    existing = s.home / "bilan.fig"
    existing.write_text(FIGURE, encoding="utf-8")
    subprocess.run(["chown", f"{USER}:{USER}", str(existing)], check=True)
    with _unreadable(s.home / "prive.fig") as unreadable:
        try:
            _xfig(s, unreadable.name)
        finally:
            existing.unlink(missing_ok=True)


def _over_canvas(s: Session, window: BBox) -> None:
    """The pointer over the drawing: xfig takes its Alt accelerators there."""
    x, y, w, h = window
    s.xdo("mousemove", str(x + w * 3 // 4), str(y + h * 3 // 4))
    time.sleep(0.3)


def _browser(s: Session, window: BBox, accelerator: str) -> BBox:
    """Open xfig's file browser with its accelerator: the browser's box."""
    _over_canvas(s, window)
    s.key(accelerator)
    time.sleep(1.5)
    s.settle()
    return s.active_geometry()


def _type_name(s: Session, browser: BBox, name: str) -> None:
    """Type `name` in the browser's Filename field (Xaw gives the keys to the field under the pointer)
    and accept it."""
    frame = s.settle()
    # the label is read "Filenane" as often as not
    label, _ = s.find_text(frame, ("filename", "filenane"), (browser[0], browser[1], browser[2] // 2, browser[3] // 3))
    s.xdo("mousemove", str(label[0] + label[2] + 80), str(label[1] + label[3] // 2))
    time.sleep(0.3)
    s.type(name)
    time.sleep(0.3)
    s.key("Return")
    time.sleep(1.5)


def _cancel(s: Session, browser: BBox) -> None:
    """Close the browser in front with its Cancel button (no pair)."""
    box, _ = s.find_text(s.settle(), CANCEL, browser)
    s.click(center(box))
    time.sleep(1.0)


def _rectangle(s: Session, window: BBox) -> None:
    """A rectangle drawn on the canvas (the box mode's key, two corners clicked): the figure is modified."""
    x, y, w, h = window
    before = s.settle()
    _over_canvas(s, window)
    s.key("b")
    time.sleep(0.5)
    for cx, cy in ((x + w * 2 // 5, y + h * 2 // 5), (x + w * 3 // 5, y + h * 3 // 5)):
        s.xdo("mousemove", str(cx), str(cy))
        time.sleep(0.3)
        s.xdo("click", "1")
        time.sleep(0.5)
    if int(np.count_nonzero(cv2.absdiff(before, s.settle()).max(axis=2) > 24)) < 200:
        raise LookupError(f"{s.program}: no rectangle drawn")


def _xfig(s: Session, unreadable: str) -> None:
    s.run("xfig")
    wid = s.wait_window("Xfig")
    time.sleep(2.0)
    s.maximize(wid)
    window = s.active_geometry(wid)
    x, y, w, h = window
    s.click((x + w // 2, y + h // 2))  # the splash over the canvas goes
    time.sleep(1.0)
    idle_click(s, ("drawing",), (x, y, w // 4, h // 3), "a click on the label over the drawing modes: nothing changed")

    browser = _browser(s, window, "alt+o")
    dialog_then_click(s, "open", "file-open", CANCEL, "xfig's own open browser (Xaw), cancelled")
    browser = _browser(s, window, "alt+o")
    _type_name(s, browser, unreadable)
    dialog_then_click(
        s, "error", "app-error", DISMISS, "xfig's error window: read access to the file is blocked (Dismiss)"
    )
    _cancel(s, browser)

    _rectangle(s, window)
    browser = _browser(s, window, "alt+a")
    s.shot("save-as", s.settle(), "file-save-as", "pause", "xfig's own save-as browser (Xaw)")
    _type_name(s, browser, "bilan.fig")
    dialog_then_click(s, "overwrite", "app-file-overwrite", NO, "xfig's question: overwrite the existing figure?")
    _cancel(s, browser)

    _over_canvas(s, window)
    s.key("alt+n")
    time.sleep(1.5)
    dialog_then_click(
        s, "new-save-changes", "app-save-changes", CANCEL, "New with the figure modified: save it first? (Cancel)"
    )
    _over_canvas(s, window)
    s.key("alt+q")
    time.sleep(1.5)
    dialog_then_click(s, "save-changes", "app-save-changes", NO, "Quit with the figure modified: save it first? (No)")


SCENES["xfig"] = xfig
