"""Double Commander (Debian's doublecmd-gtk 1.0; see rpa_mcp.screens.real_programs): a two-panel file
manager written with Lazarus (the LCL on GTK 2): its window and its questions are the LCL's own forms
drawn with GTK 2 widgets (a message box with its buttons at its bottom right and an icon on each,
"Add To Queue" / "Cancel" / "OK"; an overwrite question with nine buttons in a grid), its choosers
GTK 2's own (a "Places" list, Cancel / Open at the bottom). Its strings are French in its fr configuration
(its language is its own setting, written in its configuration before it starts). A tuning program.

The scene, in a folder of three files and a folder that cannot be read (owned by root, mode 000), the
other panel on a folder holding one of the same names: a click on the left panel's status line (nothing
changes); a click on the menu bar's "Files" (its menu opens), closed with Escape; Enter on the folder that
cannot be read ('Change current directory to "…/verrou/" failed!', OK); F8 on a file ('Delete selected
"bilan.txt" into trash can?', Cancel); F5 on a file (its copy question: 'Copy selected "ordonnance.txt"?'
with the destination, no generic kind: `unknown`, Cancel); F5 again answered with Enter (the file exists
in the other panel: "Overwrite: … With file: …", nine answers, Cancel); the save chooser of "Save
Selection to File…" in the Mark menu ("Save file as"), Cancel; the open chooser of "Load Selection from
File…" ("Open existing file"), Cancel; the sentence typed in the command line; a second tab
opened on the parent folder, then a click on the first tab.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import numpy as np

from rpa_mcp.screens.desktop_scenes import CANCEL
from rpa_mcp.screens.plain_pairs import idle_click
from rpa_mcp.screens.poedit_scenes import SCENES
from rpa_mcp.screens.real_program_scenes import OK, SENTENCE, dialog_then_click, menu_opened, typed_pair
from rpa_mcp.screens.real_programs import USER, BBox, Session, center, changed_box, grow, word_box

__all__ = ["SCENES", "doublecmd"]

FILES = {
    "bilan.txt": "Bilan sanguin du 12/03\n",
    "compte-rendu.txt": "Compte rendu\n",
    "ordonnance.txt": "Ordonnance\n",
}
CONFIG = """<?xml version="1.0" encoding="UTF-8"?>
<doublecmd DCVersion="1.0.10" ConfigVersion="13">
  <Language>
    <POFileName>doublecmd.{lang}.po</POFileName>
  </Language>
</doublecmd>
"""
FILES_MENU = ("files", "fichiers")
MARK_MENU = ("mark", "sélection", "selection")
STATUS = ("selected", "sélectionnés", "sélectionné")
SAVE_SELECTION = 10  # "Save Selection to File…": the Mark menu's tenth item
LOAD_SELECTION = 11  # "Load Selection from File…": the eleventh
SAVE_TITLE = ("save file as", "enregistrer")
OPEN_TITLE = ("open existing file", "ouvrir")


def doublecmd(s: Session) -> None:
    root = s.home / "dc"
    config = s.home / ".config" / "doublecmd"
    for folder in (root, config):
        shutil.rmtree(folder, ignore_errors=True)  # no tabs nor history left by another run
    (root / "dossiers").mkdir(parents=True)
    (root / "archives").mkdir()
    for name, text in FILES.items():
        (root / "dossiers" / name).write_text(text, encoding="utf-8")
    (root / "archives" / "ordonnance.txt").write_text("Ancienne ordonnance\n", encoding="utf-8")
    config.mkdir(parents=True)
    (config / "doublecmd.xml").write_text(CONFIG.format(lang=s.config.lang), encoding="utf-8")
    for path in (root, config):
        subprocess.run(["chown", "-R", f"{USER}:{USER}", str(path)], check=True)
    (root / "dossiers" / "verrou").mkdir(mode=0)  # root's, mode 000: the user cannot enter it
    try:
        _doublecmd(s, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(config, ignore_errors=True)


def _keys_then_wait(s: Session, *keys: str) -> None:
    s.key(*keys)
    time.sleep(1.5)


def _menu_box(s: Session, words: tuple[str, ...]) -> tuple[BBox, str]:
    """A menu bar's title (OCR reads the bar as one line: its part of the line)."""
    frame = s.settle()
    for line in s.ocr.read(frame[:60]):
        word = next((w for w in line.text.split() if w.lower() in words), None)
        if word is not None:
            return word_box(line.bbox, line.text, word), word
    raise LookupError(f"{s.program}: no menu {words} read in the menu bar")


def _chooser(s: Session, item: int, title: tuple[str, ...]) -> None:
    """The Mark menu opened by a click (no item highlighted), its `item`-th item chosen with the arrows;
    the chooser's title read (a menu that moved would open another chooser under the wrong truth)."""
    box, _ = _menu_box(s, MARK_MENU)
    s.click(center(box))
    time.sleep(0.8)
    for _ in range(item):
        s.key("Down")
    _keys_then_wait(s, "Return")
    shown = s.title()
    if not any(word in shown.lower() for word in title):
        raise LookupError(f"{s.program}: the chooser {title} expected, {shown!r} shown")


def _typed(s: Session, window: BBox) -> None:
    """The sentence typed in the command line (its prompt "[/home/…]$:" read at the window's bottom)."""
    x, y, w, h = window
    frame = s.settle()
    bottom = (x, y + h - 90, w, 90)
    prompt = _prompt(s, frame, bottom)
    s.click((prompt[0] + prompt[2] + 200, prompt[1] + prompt[3] // 2))
    time.sleep(0.8)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    typed_pair(s, before, after, changed_box(before, after), "Double Commander's command line")
    _keys_then_wait(s, "ctrl+a", "BackSpace")


def _prompt(s: Session, frame: np.ndarray, region: BBox) -> BBox:
    """The command line's prompt ("[/home/…/dossiers/]$:"), left of its field."""
    x0, y0, w, h = region
    for line in s.ocr.read(frame[y0 : y0 + h, x0 : x0 + w]):
        if line.text.rstrip().endswith(("$:", "$")):
            bx, by, bw, bh = line.bbox
            return (x0 + bx, y0 + by, bw, bh)
    raise LookupError(f"{s.program}: no command line prompt read in {region}")


def _tab_switch(s: Session, window: BBox) -> None:
    """A second tab on the parent folder (Ctrl+T, Ctrl+PgUp), then a click on the first tab ("dossiers")."""
    x, y, w, _ = window
    _keys_then_wait(s, "ctrl+t")
    _keys_then_wait(s, "ctrl+Prior")
    before = s.settle()
    tab, label = s.find_text(before, ("dossiers",), (x, y + 90, w // 2, 80))
    s.click(center(tab))
    time.sleep(0.8)
    after = s.settle()
    b, a = s.save("tab-switch-before", before), s.save("tab-switch-after", after)
    s.pair(
        "switch-tab",
        b,
        a,
        {"type": "switch_tab", "label": label, "bbox": list(grow(tab, 8)), "point": list(center(tab))},
        "SUCCESS",
        None,
        f"a click on the panel's tab '{label}'",
    )


def _doublecmd(s: Session, root: Path) -> None:
    s.run("doublecmd", "-L", f"{root}/dossiers", "-R", f"{root}/archives")
    wid = s.wait_window("Double Commander")
    time.sleep(2.0)
    s.maximize(wid)
    window = s.active_geometry(wid)
    x, y, w, h = window
    idle_click(s, STATUS, (x, y + h - 120, w // 2, 100), "a click on the left panel's status line: nothing")
    before = s.settle()
    box, label = _menu_box(s, FILES_MENU)
    menu_opened(s, before, box, label, f"a click on the menu bar's '{label}': its menu opened")
    _keys_then_wait(s, "Escape")

    _keys_then_wait(s, "Down", "Return")  # [..] → [verrou], entered
    dialog_then_click(s, "error", "app-error", OK, "the folder cannot be read: changing to it failed (OK)")
    _keys_then_wait(s, "Down", "F8")  # bilan.txt
    dialog_then_click(s, "confirm-delete", "app-confirm-delete", CANCEL, "F8: delete the file into the trash?")
    _keys_then_wait(s, "Down", "Down", "F5")  # ordonnance.txt
    dialog_then_click(s, "copy", "unknown", CANCEL, "F5: copy the file to the other panel's folder? (Cancel)")
    _keys_then_wait(s, "F5")
    _keys_then_wait(s, "Return")
    dialog_then_click(s, "overwrite", "app-file-overwrite", CANCEL, "the copied file exists there: overwrite it?")

    _chooser(s, SAVE_SELECTION, SAVE_TITLE)
    dialog_then_click(
        s, "save-as", "file-save-as", CANCEL, "GTK 2's save chooser of 'Save Selection to File', cancelled"
    )
    _chooser(s, LOAD_SELECTION, OPEN_TITLE)
    dialog_then_click(s, "open", "file-open", CANCEL, "GTK 2's open chooser of 'Load Selection from File', cancelled")
    _typed(s, window)
    _tab_switch(s, window)


SCENES["doublecmd"] = doublecmd
