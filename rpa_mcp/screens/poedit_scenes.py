"""Poedit (Debian's poedit 3; see rpa_mcp.screens.real_programs): a translation editor written with
wxWidgets on GTK 3 (wxGTK): its window is wxWidgets' own (a toolbar of large icons with labels, a list of
entries over the original text and the translation, a suggestions panel, an orange bar saying the
spell-checker's dictionary is missing), its questions are wxWidgets' message dialogs, which wxGTK shows
as GTK message boxes with wxWidgets' buttons in a row across their bottom ("Don't Save" / "Cancel" /
"Save"), and its choosers are GTK's, with their buttons at the bottom (no header bar). Poedit's strings
and GTK's are French in its fr configuration. A tuning program.

The scene: a click on the suggestions panel's heading (nothing changes); a click on the menu bar's "File"
(its menu opens), closed with Escape; the open chooser, Cancel; the open chooser again, the path of a
file that is no translation typed in it ("The file cannot be opened." / "Le fichier ne peut pas être
ouvert.", OK: an empty Poedit window stays, closed); a sentence typed as an entry's translation; the
save-as chooser from the File menu, Cancel; the save-as chooser again answered with an existing file's
name (GTK's 'A file named "courrier.po" already exists. Do you want to replace it?', Cancel; the chooser
then closed with Escape); Quit with the file modified ("The file has been modified. Do you want to save
changes?", Cancel); Close with it modified (the same question, Don't Save: the window closes, and Poedit
with it).
"""

from __future__ import annotations

import subprocess
import time

from rpa_mcp.screens.desktop_scenes import CANCEL
from rpa_mcp.screens.plain_pairs import idle_click
from rpa_mcp.screens.real_program_scenes import DONT_SAVE, OK, SENTENCE, dialog_then_click, menu_opened, typed_pair
from rpa_mcp.screens.real_programs import USER, BBox, Session, center, changed_box, word_box
from rpa_mcp.screens.textedit_scenes import SCENES

__all__ = ["SCENES", "poedit"]

CATALOG = """msgid ""
msgstr ""
"Project-Id-Version: bilan 1.0\\n"
"Language: fr\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

msgid "Blood test results"
msgstr "Résultats du bilan sanguin"

msgid "Patient record"
msgstr ""

msgid "Print the report"
msgstr ""

msgid "Appointment confirmed"
msgstr "Rendez-vous confirmé"
"""
NOT_A_CATALOG = 'msgid "x\nthis is no translation file\n{{{ \x01\x02\n'
FILES = {"bilan.po": CATALOG, "courrier.po": CATALOG, "abime.po": NOT_A_CATALOG}
FILE_MENU = ("file", "fichier")
SAVE_AS = ("save as", "enregistrer sous")
UNTRANSLATED = ("patient record",)
TRANSLATION = ("translation", "traduction")


def poedit(s: Session) -> None:
    for name, text in FILES.items():  # the catalog edited; an existing one for the save-as; one no catalog
        (s.home / name).write_text(text, encoding="utf-8")
        subprocess.run(["chown", f"{USER}:{USER}", str(s.home / name)], check=True)
    try:
        _poedit(s)
    finally:
        for name in FILES:
            (s.home / name).unlink(missing_ok=True)


def _keys_then_wait(s: Session, *keys: str) -> None:
    s.key(*keys)
    time.sleep(1.5)


def _menu_box(s: Session) -> tuple[BBox, str]:
    """The menu bar's "File" (OCR reads the bar as one line: its part of the line)."""
    frame = s.settle()
    for line in s.ocr.read(frame[:80]):
        word = next((w for w in line.text.split() if w.lower() in FILE_MENU), None)
        if word is not None:
            return word_box(line.bbox, line.text, word), word
    raise LookupError(f"{s.program}: no menu {FILE_MENU} read in the menu bar")


def _file_menu(s: Session) -> None:
    """A click on the menu bar's "File": its menu opens (a SUCCESS pair), then closed with Escape."""
    before = s.settle()
    box, label = _menu_box(s)
    menu_opened(s, before, box, label, f"a click on the menu bar's '{label}': its menu opened")
    _keys_then_wait(s, "Escape")


def _save_as(s: Session) -> None:
    """The save-as chooser from the File menu (Poedit gives it no key)."""
    box, _ = _menu_box(s)
    s.click(center(box))
    time.sleep(0.8)
    frame = s.settle()
    item, _ = s.find_text(frame, SAVE_AS, (0, 0, frame.shape[1] // 2, frame.shape[0] // 2))
    s.click(center(item))
    time.sleep(1.5)


def _typed(s: Session, window: BBox) -> None:
    """An untranslated entry picked in the list, the sentence typed as its translation."""
    x, y, w, h = window
    frame = s.settle()
    entry, _ = s.find_text(frame, UNTRANSLATED, (x, y, w // 2, h // 2))
    s.click(center(entry))
    time.sleep(0.8)
    frame = s.settle()
    heading, _ = s.find_text(frame, TRANSLATION, (x, y + h // 2, w // 3, h // 2))
    top = heading[1] + heading[3] + 8  # the translation's field, under its heading
    s.click((heading[0] + 200, top + 40))
    time.sleep(1.0)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    # the field alone: the list's row above shows the sentence too, the status bar below counts it
    field = before.copy(), after.copy()
    for image in field:
        image[:top] = 0
        image[y + h - 40 :] = 0
    typed_pair(s, before, after, changed_box(*field), "Poedit's translation field")


def _poedit(s: Session) -> None:
    s.run("poedit", str(s.home / "bilan.po"))
    wid = s.wait_window("Poedit")  # its X name (WM_NAME) is "Poedit" in English, the title only in UTF-8
    time.sleep(2.0)
    s.maximize(wid)
    window = s.active_geometry(wid)
    x, y, w, _ = window
    idle_click(s, ("suggestions",), (x + w * 2 // 3, y, w // 3, 200), "a click on the suggestions' heading: nothing")
    _file_menu(s)

    _keys_then_wait(s, "ctrl+o")
    dialog_then_click(s, "open", "file-open", CANCEL, "GTK's open file chooser shown by wxWidgets, cancelled")
    _keys_then_wait(s, "ctrl+o")
    s.type(str(s.home / "abime.po"))  # a "/" typed opens the chooser's location field
    time.sleep(0.5)
    _keys_then_wait(s, "Return")
    dialog_then_click(s, "error", "app-error", OK, "the file is no translation: it cannot be opened (OK)")
    _keys_then_wait(s, "ctrl+w")  # the empty window Poedit opened for it
    s.xdo("windowactivate", "--sync", wid)
    time.sleep(0.8)

    _typed(s, window)
    _save_as(s)
    dialog_then_click(s, "save-as", "file-save-as", CANCEL, "GTK's save-as file chooser shown by wxWidgets, cancelled")
    _save_as(s)
    s.key("ctrl+a")
    s.type("courrier.po")
    _keys_then_wait(s, "Return")
    dialog_then_click(s, "overwrite", "app-file-overwrite", CANCEL, "GTK's question: replace the existing file?")
    _keys_then_wait(s, "Escape")

    _keys_then_wait(s, "ctrl+q")
    dialog_then_click(s, "quit-unsaved", "app-save-changes", CANCEL, "Quit with the file modified: save? (Cancel)")
    _keys_then_wait(s, "ctrl+w")
    dialog_then_click(
        s, "save-changes", "app-save-changes", DONT_SAVE, "closing the modified file: save it? (Don't Save)"
    )


SCENES["poedit"] = poedit
