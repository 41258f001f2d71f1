"""Programs of older X toolkits (see rpa_mcp.screens.real_programs): NEdit (Motif: its file selection
box, its question boxes with no title of their own) and X File Explorer (the FOX toolkit: its own
confirmation before a file is deleted). Both are tuning programs; neither ships a French translation
in Debian (their fr configurations draw English, the frames are kept).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from rpa_mcp.screens.desktop_scenes import CANCEL, _documents, _reports_folder
from rpa_mcp.screens.real_program_scenes import (
    DONT_SAVE,
    NO,
    OK,
    SENTENCE,
    changed_below,
    chooser,
    dialog_then_click,
    quit_unsaved,
    typed_in_editor,
    typed_pair,
)
from rpa_mcp.screens.real_programs import USER, Session, center
from rpa_mcp.screens.wine_scenes import SCENES

__all__ = ["SCENES", "dia", "gmanedit", "mtpaint", "nedit", "xfe"]


def nedit(s: Session) -> None:
    """A sentence typed; Motif's open box; the save-as box answered with an existing document's name
    (the prompt before it is overwritten, No); quit without saving (the prompt closes with the window)."""
    shutil.rmtree(s.home / ".nedit", ignore_errors=True)
    _documents(s)
    s.run("nedit")
    (_, y, _, _), before, after = typed_in_editor(s, s.wait_window("Untitled"))
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
    a file that does not exist typed in the open chooser (the program's error, "No such file or
    directory", OK); its quit prompt with the page unsaved
    ("Exit from gmanedit?", OK / Cancel: a save-changes prompt that names no saving), Cancel."""
    shutil.rmtree(s.home / ".gmanedit", ignore_errors=True)
    # the chooser opens on the current folder, not on the recent files another program left
    ini = s.home / ".config/gtk-2.0/gtkfilechooser.ini"
    ini.parent.mkdir(parents=True, exist_ok=True)
    ini.write_text("[Filechooser Settings]\nLocationMode=filename-entry\nStartupMode=cwd\n", encoding="utf-8")
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(s.home / ".config")], check=True)
    _documents(s)
    s.run("gmanedit")
    (_, y, _, h), before, after = typed_in_editor(s, s.wait_window("Gmanedit"))
    typed_pair(s, before, after, changed_below(before[: y + h - 40], after[: y + h - 40], y + 60))
    chooser(s, "ctrl+s", "save-as", "file-save-as", "GTK 2's file chooser (save)")  # an untitled page
    s.key("ctrl+o")
    time.sleep(1.5)
    s.shot("open", s.settle(), "file-open", "pause", "GTK 2's file chooser (open)")
    s.key("ctrl+l", "ctrl+a")  # the location field, emptied of the file selected in the list
    s.type(str(s.home / "absent.man"))
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "file-not-found", "app-error", OK, "a file that does not exist")
    quit_unsaved(s, "quit with the page unsaved?", CANCEL)


@contextlib.contextmanager
def _existing(s: Session, name: str, write: Callable[[Path], object]) -> Iterator[str]:
    """A file of the capture user's that exists while the scene runs (a prompt to replace it), removed once
    done: its name."""
    path = s.home / name
    write(path)
    subprocess.run(["chown", f"{USER}:{USER}", str(path)], check=True)
    try:
        yield path.name
    finally:
        path.unlink(missing_ok=True)


def mtpaint(s: Session) -> None:
    """A paint program of GTK 2 with its own file list and message boxes: the open list, closed; the save
    list answered with an existing file's name (the prompt before it is replaced, No) then with a folder
    that does not exist (its error, OK); the image inverted, then quit (the prompt to lose the changes,
    which has no Save button)."""
    (s.home / ".mtpaint").unlink(missing_ok=True)
    _documents(s)
    with _existing(s, "radio.png", lambda p: cv2.imwrite(str(p), np.full((48, 64, 3), 255, np.uint8))) as name:
        _mtpaint(s, name)


def _mtpaint(s: Session, existing: str) -> None:
    s.run("mtpaint")
    wid = s.wait_window("mtPaint")
    s.maximize(wid)
    time.sleep(1.5)
    chooser(s, "ctrl+o", "open", "file-open", "mtPaint's own file list (open)")
    s.key("ctrl+s")  # an untitled image: the save list
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "mtPaint's own file list (save)")
    s.type(existing)
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", (*NO, *CANCEL), "replace the existing image?")
    s.key("ctrl+a")
    s.type(str(s.home / "absent" / "bilan.png"))
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "save-failed", "app-error", OK, "a folder that does not exist")
    s.key("Escape")  # the save list
    time.sleep(0.8)
    s.key("ctrl+shift+i")  # the image inverted: a change not saved
    time.sleep(0.8)
    quit_unsaved(s, "lose the changes?", ("lose changes", "abandonner les modifications"))


def dia(s: Session) -> None:
    """A GTK 2 diagram editor: the sentence typed as a text on the canvas; the open chooser, a missing
    file's path typed in it (its warning, Close); the save chooser answered with an existing diagram's
    name (GTK 2's prompt before it is replaced, Cancel), closed; the diagram closed unsaved (its prompt,
    Close without Saving)."""
    shutil.rmtree(s.home / ".dia", ignore_errors=True)
    _documents(s)
    with _existing(s, "schema.dia", lambda p: p.write_text("", encoding="utf-8")) as name:
        _dia(s, name)


def _dia(s: Session, existing: str) -> None:
    s.run("dia")
    wid = s.wait_window("Diagram|Diagramme")
    s.maximize(wid)
    x, y, w, h = s.active_geometry(wid)
    time.sleep(1.0)
    s.key("t")  # the text tool
    s.click((x + w // 2, y + h // 2))  # a text on the canvas, its caret blinking
    time.sleep(1.0)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    typed_pair(s, before, after, changed_below(before, after, y + 130), "a text on a diagram's canvas")
    s.key("Escape")
    s.key("ctrl+o")
    time.sleep(1.5)
    s.shot("open", s.settle(), "file-open", "pause", "GTK 2's file chooser (open)")
    s.type(str(s.home / "absent.dia"))
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "file-not-found", "app-error", ("close", "fermer"), "a file that cannot be read")
    s.key("ctrl+shift+s")
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "GTK 2's file chooser (save)")
    s.key("ctrl+a")
    s.type(existing)
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", CANCEL, "replace the existing diagram?")
    s.key("Escape")  # the save chooser
    time.sleep(0.8)
    s.key("ctrl+w")
    time.sleep(1.2)
    dialog_then_click(s, "save-changes", "app-save-changes", DONT_SAVE, "save the diagram before closing?")


SCENES["nedit"] = nedit
SCENES["xfe"] = xfe
SCENES["gmanedit"] = gmanedit
SCENES["mtpaint"] = mtpaint
SCENES["dia"] = dia
