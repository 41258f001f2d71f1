"""TextEdit (Debian's textedit.app; see rpa_mcp.screens.real_programs): a GNUstep program, the OpenStep
toolkit drawn by its own back end: a vertical main menu floating at the screen's top left (its title bar
black, submenus opening beside it), the application's icon tile at the bottom left, flat grey panels whose
title is repeated in large type under an icon ("Save As", "Open": a column browser over a "Name:" field,
Cancel / OK), and alert panels of the same look (an icon and a heading, a line of text, a row of buttons;
a resized panel may keep a black band across its top). TextEdit's menus are English only; GNUstep's
panels and questions are French in its fr configuration. A tuning program.

The scene: a click on the menu's "Format" (its submenu opens); a sentence typed in the document; the open
panel, Cancel; the open panel again, a file the user may not read picked in its list (an alert "Could not
load data from URL." / "Impossible de charger des données depuis l'URL.", OK); the save-as panel, Cancel;
the save-as panel again answered with an existing document's name ("The file ... exists in ... Do you
want to replace it?", Cancel; the panel then closed with Escape); Quit with the document modified ("Some
documents are not saved", Cancel); Close with it modified ("... has been modified. Save?", Don't Save:
the window closes); a click on the menu's title (nothing changes: no caret blinks once no document is
open).
"""

from __future__ import annotations

import shutil
import subprocess
import time

from rpa_mcp.screens.desktop_scenes import CANCEL
from rpa_mcp.screens.epiphany_scenes import SCENES
from rpa_mcp.screens.plain_pairs import idle_click
from rpa_mcp.screens.real_program_scenes import (
    DONT_SAVE,
    OK,
    SENTENCE,
    _unchanged,
    changed_below,
    dialog_then_click,
    menu_opened,
    typed_pair,
)
from rpa_mcp.screens.real_programs import USER, Session, center
from rpa_mcp.screens.swing_scenes import _unreadable

__all__ = ["SCENES", "textedit"]

# GNUstep starts its notification and pasteboard servers as daemons out of the program's process group:
# started here in the foreground, they end with the program
TEXTEDIT = "gdnc --no-fork & gpbs --no-fork & sleep 1; exec TextEdit"
MENU_WIDTH = 150  # the main menu's column (134 pixels in French): the document is placed right of it
EXISTING = "synthese.rtf"  # an existing document the save-as panel is answered with
DOCUMENT = "{\\rtf1\\ansi DURAND Alice 14/02/1956\\par Synthese du sejour.\\par}\n"


def textedit(s: Session) -> None:
    s.process = "TextEdit"
    # a document GNUstep kept when an earlier run was ended is reopened at start: none is kept
    shutil.rmtree(s.home / "GNUstep" / "Library" / "Autosave", ignore_errors=True)
    existing = s.home / EXISTING
    existing.write_text(DOCUMENT, encoding="ascii")
    subprocess.run(["chown", f"{USER}:{USER}", str(existing)], check=True)
    with _unreadable(s.home / "prive.rtf") as unreadable:
        try:
            _textedit(s, unreadable.name)
        finally:
            existing.unlink(missing_ok=True)


def _keys_then_wait(s: Session, *keys: str) -> None:
    """GNUstep's Command key is Alt: its menus' key equivalents are Alt+letter."""
    s.key(*keys)
    time.sleep(1.5)


def _place(s: Session, wid: str) -> None:
    """The document window right of the main menu, as tall as the screen allows."""
    s.xdo("windowactivate", "--sync", wid)
    s.xdo("windowmove", "--sync", wid, str(MENU_WIDTH), "0")
    s.xdo("windowsize", "--sync", wid, str(s.config.width - MENU_WIDTH), "95%")
    time.sleep(0.8)


def _submenu(s: Session) -> None:
    """A click on the main menu's "Format": its submenu opens beside the menu (a SUCCESS pair), then closed
    by a second click."""
    before = s.settle()
    box, label = s.find_text(before, ("format",), (0, 0, MENU_WIDTH, 200))
    menu_opened(s, before, box, label, f"a click on the main menu's '{label}': its submenu opened beside it")
    opened = (MENU_WIDTH, 0, 200, 260)  # the submenu's column, right of the main menu
    for _ in range(3):  # a second click closes it (one may come while the menu still tracks the first)
        s.click(center(box))
        time.sleep(0.8)
        if _unchanged(before, s.settle(), opened):
            return
    raise LookupError(f"{s.program}: the submenu '{label}' did not close")


def _typed(s: Session) -> None:
    x, y = MENU_WIDTH + (s.config.width - MENU_WIDTH) // 2, s.config.height // 2
    s.click((x, y))  # the caret at the end of the empty document
    time.sleep(1.0)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    # the title bar ("*" once modified) and the ruler above the text left out
    typed_pair(s, before, after, changed_below(before, after, 52), "TextEdit's document")


def _open_unreadable(s: Session, unreadable: str) -> None:
    """The open panel, the unreadable file picked in its list, accepted with Return (its default button)."""
    _keys_then_wait(s, "alt+o")
    frame = s.settle()
    box, _ = s.find_text(frame, (unreadable,), s.active_geometry())
    s.click(center(box))
    time.sleep(0.8)
    _keys_then_wait(s, "Return")


def _textedit(s: Session, unreadable: str) -> None:
    s.run("sh", "-c", TEXTEDIT)
    wid = s.wait_window("Untitled|SansTitre")
    time.sleep(2.0)
    _place(s, wid)
    _submenu(s)
    _typed(s)

    _keys_then_wait(s, "alt+o")
    dialog_then_click(s, "open", "file-open", CANCEL, "GNUstep's open panel, cancelled")
    _open_unreadable(s, unreadable)
    dialog_then_click(s, "error", "app-error", OK, "the file may not be read: could not load data from URL (OK)")

    _keys_then_wait(s, "alt+shift+s")
    dialog_then_click(s, "save-as", "file-save-as", CANCEL, "GNUstep's save-as panel, cancelled")
    _keys_then_wait(s, "alt+shift+s")
    s.type(EXISTING)  # the panel's Name field has the keyboard
    time.sleep(0.5)
    _keys_then_wait(s, "Return")
    dialog_then_click(s, "overwrite", "app-file-overwrite", CANCEL, "GNUstep's question: replace the existing file?")
    _keys_then_wait(s, "Escape")

    _keys_then_wait(s, "alt+q")
    dialog_then_click(s, "quit-unsaved", "app-save-changes", CANCEL, "Quit with a document not saved (Cancel)")
    _keys_then_wait(s, "alt+w")
    dialog_then_click(
        s, "save-changes", "app-save-changes", DONT_SAVE, "closing the modified document: save it? (Don't Save)"
    )
    idle_click(s, ("textedit",), (0, 0, MENU_WIDTH, 30), "a click on the main menu's title: nothing changed")


SCENES["textedit"] = textedit
