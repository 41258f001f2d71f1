"""Java Swing programs (see rpa_mcp.screens.real_programs), drawn by Swing itself (the Metal look, no
GTK): jEdit (its own file browser dialogs: a file list, a "File name:" field beside Save or Open /
Cancel) and GpsPrune (Swing's own `JFileChooser`), with Swing's message boxes (`JOptionPane`: a sign on
the left, the buttons centred under the message). Tuning programs.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from rpa_mcp.screens.desktop_scenes import CANCEL, _documents
from rpa_mcp.screens.office_scenes import SCENES
from rpa_mcp.screens.real_program_scenes import NO, OK, changed_below, dialog_then_click, typed_in_editor, typed_pair
from rpa_mcp.screens.real_programs import USER, Session, center, word_box

__all__ = ["SCENES", "gpsprune", "jedit"]

# no welcome page on the first start; an untitled buffer is not kept aside on its own (it is asked about)
JEDIT_PROPERTIES = "firstTime=false\nautosaveUntitled=false\ntip.show=false\n"


def jedit(s: Session) -> None:
    """A sentence typed; the save dialog of an untitled buffer answered with an existing document's name
    (Swing's prompt before it is overwritten, No: the save dialog shows again), closed; the open dialog, a
    file the user may not read typed in it (jEdit's "I/O Error", OK); the buffer closed unsaved ("Save
    changes to Untitled-1?", No)."""
    shutil.rmtree(s.home / ".jedit", ignore_errors=True)
    (s.home / ".jedit").mkdir()
    (s.home / ".jedit/properties").write_text(JEDIT_PROPERTIES, encoding="utf-8")
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(s.home / ".jedit")], check=True)
    _documents(s)
    s.process = "java"  # a JVM runs it
    with _unreadable(s.home / "secret.txt") as unreadable:
        _jedit(s, unreadable)


@contextlib.contextmanager
def _unreadable(path: Path) -> Iterator[Path]:
    """A file of the capture user's that they may not read, removed once done."""
    path.write_text("confidentiel\n", encoding="utf-8")
    subprocess.run(["chown", f"{USER}:{USER}", str(path)], check=True)
    path.chmod(0o000)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def _jedit(s: Session, unreadable: Path) -> None:
    s.run("jedit", "-noserver")
    (_, y, _, h), before, after = typed_in_editor(s, s.wait_window("jEdit"), 1.5)
    # the menu, tool and buffer bars above, the status bar (the caret's place) below left out
    typed_pair(s, before, after, changed_below(before[: y + h - 40], after[: y + h - 40], y + 60))
    s.key("ctrl+s")  # an untitled buffer: the save dialog
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "jEdit's own file browser (save)")
    s.key("ctrl+a")
    s.type("bilan.txt")
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", NO, "overwrite the existing file?")
    s.key("Escape")  # the save dialog
    time.sleep(0.8)
    s.key("ctrl+o")
    time.sleep(1.5)
    s.shot("open", s.settle(), "file-open", "pause", "jEdit's own file browser (open)")
    s.key("ctrl+a")
    s.type(str(unreadable))
    s.key("Return")
    time.sleep(1.5)
    dialog_then_click(s, "read-error", "app-error", OK, "a file the user may not read")
    s.key("ctrl+w")
    time.sleep(1.2)
    dialog_then_click(s, "save-changes", "app-save-changes", NO, "save the buffer before closing it?")


TRACK = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="rpa-mcp"><trk><name>Tournee</name><trkseg>
<trkpt lat="45.1880" lon="5.7245"><ele>212</ele></trkpt>
<trkpt lat="45.1912" lon="5.7301"><ele>215</ele></trkpt>
<trkpt lat="45.1957" lon="5.7368"><ele>221</ele></trkpt>
</trkseg></trk></gpx>
"""
FILE_MENU = ("file", "fichier")
RANGE_MENU = ("range", "étendue", "etendue")


def gpsprune(s: Session) -> None:
    """A GPS track editor: Swing's open chooser, a missing file's name typed in it (its error, OK); the
    GPX export's options, OK, then Swing's save chooser answered with the track's own name (the prompt
    before it is overwritten, Cancel), closed; the whole track selected and reversed (a change not
    saved), then Exit (its question, Exit / Cancel: Cancel)."""
    for state in (".pruneconfig", ".config/gpsprune"):
        path = s.home / state
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    s.process = "java"  # a JVM runs it
    track = s.home / "tournee.gpx"
    track.write_text(TRACK, encoding="utf-8")
    subprocess.run(["chown", f"{USER}:{USER}", str(track)], check=True)
    s.run("gpsprune", str(track))
    s.maximize(s.wait_window("GpsPrune"))
    time.sleep(1.5)
    s.key("ctrl+o")
    time.sleep(1.5)
    s.shot("open", s.settle(), "file-open", "pause", "Swing's JFileChooser (open)")
    s.type("absent.gpx")
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "file-not-found", "app-error", OK, "a file that does not exist")
    _menu(s, FILE_MENU, ("export gpx", "exporter en gpx"))
    box, _ = s.find_text(s.settle(), OK, s.active_geometry())  # the export's options
    s.click(center(box))
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "Swing's JFileChooser (save)")
    s.key("ctrl+a")
    s.type(track.name)
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", CANCEL, "overwrite the existing track?")
    s.key("Escape")  # the save chooser; then the export's options
    time.sleep(0.8)
    box, _ = s.find_text(s.settle(), CANCEL, s.active_geometry())
    s.click(center(box))
    time.sleep(0.8)
    _menu(s, RANGE_MENU, ("select all", "tout sélectionner", "tout selectionner"))
    _menu(s, RANGE_MENU, ("reverse range", "inverser"))
    _menu(s, FILE_MENU, ("exit", "quitter"))
    dialog_then_click(s, "save-changes", "app-save-changes", CANCEL, "quit with the track not saved?")


def _menu(s: Session, menu: tuple[str, ...], item: tuple[str, ...]) -> None:
    """Click the menu read as one of `menu` in the menu bar (OCR reads the bar as one line), then its
    item read as one of `item`."""
    frame = s.settle()
    bar = (0, 0, frame.shape[1], 60)
    for line in s.ocr.read(frame[: bar[3]]):
        word = next((w for w in line.text.split() if w.lower() in menu), None)
        if word is not None:
            s.click(center(word_box(line.bbox, line.text, word)))
            break
    else:
        raise LookupError(f"{s.program}: no menu {menu} read in the menu bar")
    time.sleep(0.8)
    box, _ = s.find_text(s.settle(), item, (0, 0, frame.shape[1] // 2, frame.shape[0] // 2))
    s.click(center(box))
    time.sleep(1.2)


SCENES["jedit"] = jedit
SCENES["gpsprune"] = gpsprune
