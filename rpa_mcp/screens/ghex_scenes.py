"""ghex (Debian's ghex 43; see rpa_mcp.screens.real_programs): GNOME's hex editor, GTK 4 and libadwaita:
a header bar drawn by the program (no window manager's title bar), libadwaita's message dialogs (a bold
heading, a line of text, a row of flat buttons across the bottom), GTK 4's file chooser. Its own strings
are barely translated: its fr configuration shows its prompts in English, GTK's chooser and questions in
French. A tuning program.

The scene: a click on the status bar's "Offset:" label (nothing happens); the open chooser, Cancel; the
open chooser again, the path of a file the user may not read typed in it ("Unable to open file for
reading: Permission denied", Close); a byte typed over; the save-as chooser, Cancel; the save-as chooser
again answered with an existing file's name (GTK's 'A file named "courrier.bin" already exists. Do you
want to replace it?', Cancel: the chooser is still there, then closed); Ctrl+W with the file modified
("bilan.bin has been edited since opening. Would you like to save your changes?", Discard Changes: the
file closes, the window says "No File Loaded").
"""

from __future__ import annotations

import subprocess
import time

from rpa_mcp.screens.desktop_scenes import CANCEL
from rpa_mcp.screens.plain_pairs import idle_click
from rpa_mcp.screens.real_program_scenes import DONT_SAVE, dialog_then_click
from rpa_mcp.screens.real_programs import USER, Session
from rpa_mcp.screens.swing_scenes import _unreadable
from rpa_mcp.screens.xfig_scenes import SCENES

__all__ = ["SCENES", "ghex"]

# GTK 4 draws with cairo on a display without GL, on X11 (no Wayland socket)
GHEX = ("env", "GSK_RENDERER=cairo", "GDK_BACKEND=x11", "ghex")
CLOSE = ("close", "fermer")
# a few lines of a record: a short file keeps most of the hex view empty (small frames)
RECORD = "DURAND Alice 14/02/1956\nBilan sanguin du 12/03 : glycemie 5,1 mmol/L\nResultats transmis au Dr Martin.\n"
OFFSET = ("offset", "décalage")


def ghex(s: Session) -> None:
    for name in ("bilan.bin", "courrier.bin"):  # the file edited; an existing one the save-as is answered with
        (s.home / name).write_text(RECORD * 3, encoding="ascii")
        subprocess.run(["chown", f"{USER}:{USER}", str(s.home / name)], check=True)
    with _unreadable(s.home / "prive.bin") as unreadable:
        try:
            _ghex(s, str(unreadable))
        finally:
            for name in ("bilan.bin", "courrier.bin"):
                (s.home / name).unlink(missing_ok=True)


def _keys_then_wait(s: Session, *keys: str) -> None:
    s.key(*keys)
    time.sleep(1.5)


def _ghex(s: Session, unreadable: str) -> None:
    s.run(*GHEX, str(s.home / "bilan.bin"))
    wid = s.wait_window("bilan")
    time.sleep(2.0)
    s.maximize(wid)
    window = s.active_geometry(wid)
    x, y, w, h = window
    idle_click(s, OFFSET, (x, y + h - 80, w // 3, 80), "a click on the status bar's offset label: nothing changed")

    _keys_then_wait(s, "ctrl+o")
    dialog_then_click(s, "open", "file-open", CANCEL, "GTK 4's open file chooser, cancelled")
    _keys_then_wait(s, "ctrl+o")
    s.type(unreadable)  # a "/" typed opens the chooser's location field
    time.sleep(0.5)
    _keys_then_wait(s, "Return")
    dialog_then_click(s, "error", "app-error", CLOSE, "the file may not be read: permission denied (Close)")

    x, y, w, _ = window
    s.click((x + w // 8, y + 69))  # a byte of the hex view's first row, under the header bar
    time.sleep(0.5)
    s.type("41")
    time.sleep(0.5)
    _keys_then_wait(s, "ctrl+shift+s")
    dialog_then_click(s, "save-as", "file-save-as", CANCEL, "GTK 4's save-as file chooser, cancelled")
    _keys_then_wait(s, "ctrl+shift+s")
    s.key("ctrl+a")
    s.type("courrier.bin")
    _keys_then_wait(s, "Return")
    dialog_then_click(s, "overwrite", "app-file-overwrite", CANCEL, "GTK's question: replace the existing file?")
    _keys_then_wait(s, "Escape")

    _keys_then_wait(s, "ctrl+w")
    dialog_then_click(
        s, "save-changes", "app-save-changes", DONT_SAVE, "closing the modified file: save the changes? (Discard)"
    )


SCENES["ghex"] = ghex
