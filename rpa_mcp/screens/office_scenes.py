"""Programs of two more toolkits (see rpa_mcp.screens.real_programs): LibreOffice Writer drawn by
LibreOffice's own VCL on X (no GTK plugin: its own Open / Save As dialogs, its "Save Document?"
prompt) and FLTK's user interface designer, fluid (`Fl_File_Chooser`, `fl_choice` boxes). Both are
tuning programs; fluid ships no French translation (its fr configurations draw English).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from rpa_mcp.screens.desktop_scenes import CANCEL, _own
from rpa_mcp.screens.legacy_scenes import SCENES
from rpa_mcp.screens.plain_pairs import EDIT, UNDO, greyed_menu_entry
from rpa_mcp.screens.real_program_scenes import (
    DONT_SAVE,
    NO,
    OK,
    SENTENCE,
    changed_below,
    dialog_then_click,
    typed_pair,
)
from rpa_mcp.screens.real_programs import Session, center, changed_box, grow

__all__ = ["SCENES", "calc", "fluid", "writer"]

MISSING = "resultats-0412"  # a file name typed into an open dialog that does not exist
LO_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse">
<value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse">
<value>false</value></prop></item>
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="ooSetupInstCompleted" oor:op="fuse">
<value>true</value></prop></item>
</oor:items>
"""


def _lo_profile(s: Session, *owned: str) -> Path:
    """A fresh LibreOffice profile of the capture user's, per language (no tip of the day, no first run)."""
    profile = s.home / ".lo-capture" / s.config.lang
    shutil.rmtree(profile, ignore_errors=True)
    (profile / "user").mkdir(parents=True)
    (profile / "user" / "registrymodifications.xcu").write_text(LO_PROFILE, encoding="utf-8")
    _own(s, str(s.home / ".lo-capture"), *owned)
    return profile


def _soffice(s: Session, profile: Path, *argv: str) -> None:
    s.process = "soffice.bin"
    s.run(
        "env",
        "SAL_USE_VCLPLUGIN=gen",
        "soffice",
        f"-env:UserInstallation=file://{profile}",
        "--norestore",
        "--nologo",
        *argv,
    )


def writer(s: Session) -> None:
    """A sentence typed; the save-as dialog answered with an existing document's name (the prompt
    before it is replaced, Cancel); the open dialog, a missing file's name typed in it (the error, OK);
    quit without saving ("Save Document?", Don't Save)."""
    existing = s.home / "bilan.odt"
    existing.write_bytes(b"")  # only its name is asked for: the prompt comes before any write
    _soffice(s, _lo_profile(s, str(existing)), "--writer")
    wid = s.wait_window("LibreOffice Writer", 180)
    s.maximize(wid)
    time.sleep(3.0)
    x, y, w, h = s.active_geometry(wid)
    s.click((x + w // 2, y + h // 2))  # the caret in the page
    time.sleep(1.5)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    time.sleep(1.0)
    after = s.settle()
    # the page only: the toolbars above (Undo lights up), the status bar's word count below left out
    typed_pair(s, before, after, changed_below(before[: y + h - 40], after[: y + h - 40], y + 150))
    libreoffice_dialogs(s, existing, ".odt", "document")


FLUID_FILE = """# data file for the Fltk User Interface Designer (fluid)
version 1.0308
header_name {.h}
code_name {.cxx}
Function {make_window()} {open
} {
  Fl_Window {} {
    label {Dossier patient} open
    xywh {120 120 420 220} type Double visible
  } {
    Fl_Input {} {
      label {Observation:}
      xywh {120 30 260 30}
    }
    Fl_Button {} {
      label Valider
      xywh {300 160 80 30}
    }
  }
}
"""


FLTK_PREFS = """; FLTK preferences file format 1.0
; vendor: fltk.org
; application: fltk

[.]


[./options]

FNFCUsesGTK:0
"""  # FLTK's own file chooser, not GTK's


def fluid(s: Session) -> None:
    """An interface opened, the sentence typed as an input's label, a widget cut; the open command: the
    prompt to save first (Don't Save), FLTK's chooser, a missing file's name typed in it (the error,
    Close); the save-as chooser answered with an existing file's name (the prompt before it is replaced,
    Cancel); quit without saving (Don't Save)."""
    prefs = s.home / ".fltk" / "fltk.org"
    shutil.rmtree(s.home / ".fltk", ignore_errors=True)
    prefs.mkdir(parents=True)
    (prefs / "fltk.prefs").write_text(FLTK_PREFS, encoding="utf-8")
    ui = s.home / "dossier.fl"
    ui.write_text(FLUID_FILE, encoding="utf-8")
    existing = s.home / "bilan.fl"
    existing.write_text(FLUID_FILE, encoding="utf-8")
    _own(s, str(s.home / ".fltk"), str(ui), str(existing))
    s.run("fluid", str(ui))
    wid = s.wait_window("dossier.fl")
    s.maximize(wid)
    time.sleep(1.0)
    _label_typed(s, wid)
    _cut(s, wid, "Valider")
    s.key("ctrl+o")
    time.sleep(1.2)
    dialog_then_click(s, "save-first", "app-save-changes", DONT_SAVE, "save the changes before opening another?")
    # the answer opens the file chooser where the prompt stood: a new dialog, reported as such
    opened = s.pairs[-1]
    opened.verdict, opened.failure_category = "FAILURE", "UNEXPECTED_DIALOG"
    opened.description += "; the open chooser it leads to is a new dialog on screen"
    time.sleep(1.0)
    s.shot("open", s.settle(), "file-open", "pause", "FLTK's file chooser (open)")
    s.key("ctrl+a")
    s.type(f"{MISSING}.fl")  # a name alone: the chooser completes a path as it is typed
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "file-not-found", "app-error", (*OK, "close", "fermer"), "the file cannot be read")
    s.key("Escape")  # the chooser stays open after the error
    time.sleep(0.8)
    s.xdo("windowactivate", "--sync", wid)
    time.sleep(0.5)
    s.key("ctrl+shift+s")
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "FLTK's file chooser (save as)")
    s.key("ctrl+a")
    s.type(existing.name)
    s.key("Return")
    time.sleep(1.2)
    # Cancel closes the chooser too (an Escape now would close the main window: the prompt to save)
    dialog_then_click(s, "overwrite", "app-file-overwrite", (*CANCEL, *NO), "replace the existing file?")
    s.xdo("windowactivate", "--sync", wid)
    time.sleep(0.5)
    s.key("ctrl+q")
    time.sleep(1.2)
    dialog_then_click(s, "save-changes", "app-save-changes", DONT_SAVE, "save the changes before quitting?")


def _label_typed(s: Session, wid: str) -> None:
    """The input's properties opened (a double click on it in the tree), the sentence typed as its
    label: a pair on FLTK's own text field (the panel only: the design window redraws the label too)."""
    box, _ = s.find_text(s.settle(), ("Observation",), s.active_geometry(wid))
    s.xdo("mousemove", str(box[0] + box[2] // 2), str(box[1] + box[3] // 2))
    s.xdo("click", "--repeat", "2", "1")
    time.sleep(1.5)
    panel = s.active_geometry()
    field, _ = s.find_text(s.settle(), ("Observation:",), panel)
    x, y, w, h = panel
    s.click((field[0] + field[2] // 2, field[1] + field[3] // 2))
    s.key("ctrl+a")
    time.sleep(0.5)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    time.sleep(0.5)
    after = s.settle()
    inside = np.zeros_like(before)
    inside[y : y + h, x : x + w] = 1
    typed_pair(s, before, after, changed_box(before * inside, after * inside), "FLTK's label field")
    s.key("Escape")  # the panel closed: the label stays changed
    time.sleep(0.8)


def _cut(s: Session, wid: str, label: str) -> None:
    """The widget read as `label` in fluid's tree selected and cut (Ctrl+X)."""
    s.xdo("windowactivate", "--sync", wid)
    box, _ = s.find_text(s.settle(), (label,), s.active_geometry(wid))
    s.click((box[0] + box[2] // 2, box[1] + box[3] // 2))
    time.sleep(0.5)
    s.key("ctrl+x")
    time.sleep(0.8)


SCENES["writer"] = writer
SCENES["fluid"] = fluid


# -- LibreOffice Calc: its sheet-tab strip ---------------------------------------------------------------
SHEETS = ("Biologie", "Imagerie", "Synthese")
YES = ("yes", "oui")
DELETE_SHEET = (  # in its tab's menu
    "delete sheet...",
    "delete sheets...",
    "delete sheet",
    "delete sheets",
    "supprimer des feuilles...",
    "supprimer des feuilles..",
    "supprimer des feuilles",
    "supprimer la feuille...",
    "supprimer la feuille",
)
FODS_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet>
"""


def _workbook(*sheets: str) -> str:
    """A flat OpenDocument spreadsheet: one sheet per name, a date and a value on two rows each."""
    rows = "".join(
        f'<table:table-row><table:table-cell office:value-type="string"><text:p>{date}</text:p></table:table-cell>'
        f'<table:table-cell office:value-type="float" office:value="{value}"><text:p>{value}</text:p>'
        "</table:table-cell></table:table-row>"
        for date, value in (("12/03", "4.2"), ("13/03", "5.1"))
    )
    tables = "".join(f'<table:table table:name="{name}">{rows}</table:table>\n' for name in sheets)
    return FODS_HEAD + tables + "</office:spreadsheet></office:body></office:document>\n"


def calc(s: Session) -> None:
    """A workbook of three sheets: a click on the sheet tab "Imagerie"; the Edit menu's greyed-out Undo
    clicked (nothing changes); the sheet deleted from its tab's menu (the question, Yes: its tab is gone);
    a sentence typed in a cell; the save-as dialog answered with an existing workbook's path (the prompt
    before it is replaced, No); the open dialog, a missing file's path typed in it (the error, OK); quit
    without saving ("Save Document?", Don't Save)."""
    book, existing = s.home / "dossier.fods", s.home / "bilan.fods"
    for lock in (book, existing):  # left by a run cut short: "Document in Use" would open instead
        (s.home / f".~lock.{lock.name}#").unlink(missing_ok=True)
    book.write_text(_workbook(*SHEETS), encoding="utf-8")
    existing.write_text(_workbook("Bilan"), encoding="utf-8")
    _soffice(s, _lo_profile(s, str(book), str(existing)), "--calc", str(book))
    wid = s.wait_window("dossier", 180)
    s.maximize(wid)
    time.sleep(3.0)
    x, y, w, h = s.active_geometry(wid)
    strip = (x, y + h - 90, w // 2, 90)  # the sheet tabs, over the status bar
    before = s.settle()
    tab, label = s.find_text(before, ("Imagerie",), strip)
    s.click(center(tab))
    time.sleep(1.0)
    after = s.settle()
    tab_box = list(grow(tab, 8))
    b, a = s.save("switch-sheet-before", before), s.save("switch-sheet-after", after)
    action: dict[str, Any] = {"type": "switch_tab", "label": label, "bbox": tab_box, "point": list(center(tab))}
    s.pair("switch-sheet", b, a, action, "SUCCESS", None, "a click on the sheet tab 'Imagerie'")
    greyed_menu_entry(s, after, EDIT, UNDO, (x, y, w, h))
    before = s.settle()
    s.xdo("mousemove", *(str(v) for v in center(tab)))
    s.xdo("click", "3")
    time.sleep(1.0)
    entry, _ = s.find_text(s.settle(), DELETE_SHEET)
    s.click(center(entry))
    time.sleep(1.5)
    gone = dialog_then_click(s, "delete-sheet", "app-confirm-delete", YES, "delete the selected sheet?")
    b = s.save("close-sheet-before", before)
    action = {"type": "close_tab", "label": label, "bbox": tab_box, "point": None}
    s.pair("close-sheet", b, gone, action, "SUCCESS", None, "the sheet 'Imagerie' deleted: its tab is gone")
    s.key("ctrl+Home")
    s.key("Down", "Down", "Down")
    time.sleep(0.8)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    time.sleep(1.0)
    after = s.settle()
    # the cell and the formula bar above it: the sheet area only (the status bar's sum left out)
    top = y + 100
    typed_pair(s, before, after, changed_below(before[: y + h - 60], after[: y + h - 60], top), "a cell")
    s.key("Return")
    time.sleep(0.5)
    libreoffice_dialogs(s, existing, ".ods", "workbook")


SCENES["calc"] = calc


def libreoffice_dialogs(s: Session, existing: Path, suffix: str, document: str) -> None:
    """LibreOffice's own dialogs, the same in each of its programs: save-as answered with an existing file's
    path (the replace prompt, No), open with a missing file's (the error, OK), quit (Don't Save)."""
    s.key("ctrl+shift+s")
    time.sleep(2.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "LibreOffice's own save-as dialog")
    s.key("ctrl+a")
    s.type(str(existing))
    s.key("Return")
    time.sleep(1.5)
    dialog_then_click(s, "overwrite", "app-file-overwrite", (*CANCEL, *NO), "replace the existing file?")
    s.key("Escape")
    time.sleep(1.0)
    s.key("ctrl+o")
    time.sleep(2.5)
    s.shot("open", s.settle(), "file-open", "pause", "LibreOffice's own open dialog")
    s.key("ctrl+a")
    s.type(str(s.home / MISSING) + suffix)
    s.key("Return")
    time.sleep(1.5)
    dialog_then_click(s, "file-not-found", "app-error", OK, "the open dialog's error: the file does not exist")
    s.key("Escape")
    time.sleep(1.0)
    s.key("ctrl+q")
    time.sleep(1.5)
    dialog_then_click(s, "save-changes", "app-save-changes", DONT_SAVE, f"save the {document} before closing?")
