"""Programs of older X toolkits (see rpa_mcp.screens.real_programs): NEdit (Motif: its file selection
box, its question boxes with no title of their own) and X File Explorer (the FOX toolkit: its own
confirmation before a file is deleted). Both are tuning programs; neither ships a French translation
in Debian (their fr configurations draw English, the frames are kept).
"""

from __future__ import annotations

import shutil
import time

from rpa_mcp.screens.desktop_scenes import CANCEL, _documents, _reports_folder
from rpa_mcp.screens.real_program_scenes import (
    DONT_SAVE,
    NO,
    OK,
    SENTENCE,
    changed_below,
    chooser,
    dialog_then_click,
    typed_pair,
)
from rpa_mcp.screens.real_programs import Session, center
from rpa_mcp.screens.wine_scenes import SCENES

__all__ = ["SCENES", "gmanedit", "nedit", "xfe"]


def nedit(s: Session) -> None:
    """A sentence typed; Motif's open box; the save-as box answered with an existing document's name
    (the prompt before it is overwritten, No); quit without saving (the prompt closes with the window)."""
    shutil.rmtree(s.home / ".nedit", ignore_errors=True)
    _documents(s)
    s.run("nedit")
    wid = s.wait_window("Untitled")
    s.maximize(wid)
    x, y, w, h = s.active_geometry(wid)
    s.click((x + w // 2, y + h // 2))  # the caret in the text
    time.sleep(1.0)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    # NEdit draws each byte of a UTF-8 accent as a Latin-1 character ("Ã©" for "é"): the sentence is not on screen
    garbled = "NEdit draws the accents as two Latin-1 characters" if s.fr else ""
    typed_pair(
        s, before, after, changed_below(before, after, y + 8), garbled=garbled
    )  # the title's "(modified)" left out
    chooser(s, "ctrl+o", "open", "file-open", "Motif's file selection box (open)")
    s.key("ctrl+s")  # an untitled document: the save-as box
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "Motif's file selection box (save as)")
    s.type("bilan.txt")
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", NO, "overwrite the existing file?")
    s.key("Escape")
    time.sleep(0.8)
    s.key("ctrl+q")
    time.sleep(1.2)
    dialog_then_click(s, "save-changes", "app-save-changes", (*DONT_SAVE, *NO), "save the document before closing?")


def xfe(s: Session) -> None:
    """A file sent to the trash (Delete): the file manager asks first; Cancel keeps it."""
    for state in (".config/xfe", ".local/share/Trash"):
        shutil.rmtree(s.home / state, ignore_errors=True)
    s.run("xfe", _reports_folder(s))
    wid = s.wait_window("Comptes-rendus")
    s.maximize(wid)
    time.sleep(1.5)
    box, _ = s.find_text(s.settle(), ("ordonnance-1403.txt", "ordonnance-1403"), s.active_geometry(wid))
    s.click(center(box))
    time.sleep(0.6)
    s.key("Delete")
    time.sleep(1.2)
    dialog_then_click(s, "confirm-trash", "app-confirm-delete", CANCEL, "move the file to the trash?")


def gmanedit(s: Session) -> None:
    """GTK 2: a sentence typed; the save chooser of an untitled page (GTK 2 asks nothing before a file
    is replaced unless the program says so: this one does not) and the open chooser, each closed;
    a path typed in the open chooser (its completion cuts it to a folder that does not exist: GTK's
    own error, "The folder contents could not be displayed", OK). Its quit prompt
    ("Exit from gmanedit?", OK / Cancel) names no kind of the catalog: not recorded."""
    shutil.rmtree(s.home / ".gmanedit", ignore_errors=True)
    _documents(s)
    s.run("gmanedit")
    wid = s.wait_window("Gmanedit")
    s.maximize(wid)
    x, y, w, h = s.active_geometry(wid)
    s.click((x + w // 2, y + h // 2))  # the caret in the text
    time.sleep(1.0)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    typed_pair(s, before, after, changed_below(before[: y + h - 40], after[: y + h - 40], y + 60))
    chooser(s, "ctrl+s", "save-as", "file-save-as", "GTK 2's file chooser (save)")  # an untitled page
    s.key("ctrl+o")
    time.sleep(1.5)
    s.shot("open", s.settle(), "file-open", "pause", "GTK 2's file chooser (open)")
    s.type(str(s.home / "absent.man"))  # the chooser opens on "Recently Used": a name alone has no folder
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "file-not-found", "app-error", OK, "a folder that does not exist")


SCENES["nedit"] = nedit
SCENES["xfe"] = xfe
SCENES["gmanedit"] = gmanedit
