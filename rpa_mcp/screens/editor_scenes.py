"""Editors of other toolkits (see rpa_mcp.screens.real_programs): geany (GTK 3) and featherpad (Qt 5),
then, added later, a word processor (AbiWord, GTK 3) and a GTK 4 / libadwaita editor (GNOME Text
Editor). Each: a sentence typed, the save-as and open file choosers, the save-changes prompt on quit;
AbiWord's own error for a file it cannot read too.

The later two were held out before either was captured or measured: never tuned on.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time

from rpa_mcp.screens.real_program_scenes import (
    DONT_SAVE,
    NO,
    OK,
    SCENES,
    changed_below,
    chooser,
    dialog_then_click,
    quit_unsaved,
    typed_in_editor,
    typed_pair,
)
from rpa_mcp.screens.real_programs import USER, Session

__all__ = ["SCENES", "abiword", "editor", "featherpad", "geany", "gnome_text_editor", "texworks"]


def editor(
    s: Session,
    argv: tuple[str, ...],
    window: str,
    toolkit: str,
    state: tuple[str, ...],
    chrome: int = 60,
    dont_save: tuple[str, ...] = DONT_SAVE,
) -> None:
    """Type a sentence, open the save-as and open choosers, quit and answer the save-changes prompt.
    `chrome`: the rows under the window's top left out of the typed text's box (a menu bar, tabs);
    `dont_save`: the labels of the prompt's button that closes without saving."""
    for folder in state:  # a fresh state: no session or question left by an earlier run
        shutil.rmtree(s.home / folder, ignore_errors=True)
    s.run(*argv)
    (_, y, _, _), before, after = typed_in_editor(s, s.wait_window(window), 1.5)
    typed_pair(s, before, after, changed_below(before, after, y + chrome))  # the tabs left out too
    for keys, name, kind, what in (
        ("ctrl+shift+s", "save-as", "file-save-as", "save-as"),
        ("ctrl+o", "open", "file-open", "open"),
    ):
        chooser(s, keys, name, kind, f"the {toolkit} {what} file chooser")
    quit_unsaved(s, "save changes before closing?", dont_save)


def geany(s: Session) -> None:
    editor(s, ("geany", "--new-instance", "--no-session"), "Geany", "GTK", (".config/geany",))


def featherpad(s: Session) -> None:
    editor(s, ("featherpad", "--standalone"), "Untitled|Sans titre", "Qt", (".config/featherpad",))


ABIWORD_WINDOW = "AbiWord|Untitled|Sans titre|Document"  # its title: the document's name (fr: "Document1")


def abiword(s: Session) -> None:
    editor(s, ("abiword",), ABIWORD_WINDOW, "AbiWord (GTK 3)", (".AbiSuite", ".config/abiword"))
    # a file it cannot read, typed into its open dialog: its own error message
    unreadable = s.home / "compte-rendu.abw"
    if unreadable.exists():
        unreadable.chmod(0o600)
    unreadable.write_bytes(b"\x00\x01 not a document " * 64)
    subprocess.run(["chown", f"{USER}:{USER}", str(unreadable)], check=True)
    unreadable.chmod(0o000)
    s.run("abiword")
    s.maximize(s.wait_window(ABIWORD_WINDOW))
    s.key("ctrl+o")
    time.sleep(2.0)
    s.key("ctrl+l")
    time.sleep(0.5)
    s.type(str(unreadable))
    for keys in ("Return", "alt+o", "Return"):  # Return may only accept the path's completion; then Open
        time.sleep(1.0)
        s.key(keys)
        time.sleep(2.0)
        with contextlib.suppress(LookupError):
            s.find_text(s.settle(), OK, s.active_geometry())
            break
    dialog_then_click(s, "open-error", "app-error", OK, "the file could not be imported")


def gnome_text_editor(s: Session) -> None:
    # GTK 4 draws with cairo on a display without GL; no session restored from an earlier run
    argv = ("env", "GSK_RENDERER=cairo", "gnome-text-editor", "--standalone", "--ignore-session")
    state = (".local/share/org.gnome.TextEditor", ".config/dconf")
    editor(s, argv, "Text Editor|Éditeur de texte|Untitled|Sans titre", "GTK 4", state)


def texworks(s: Session) -> None:
    """Qt's own widgets (no KDE platform theme): a sentence typed; the save-as dialog answered with an
    existing document's name (Qt's prompt before it is replaced, No); the open dialog, a missing
    file's name typed in it (Qt's warning, OK); quit and the save-changes prompt answered Discard."""
    for state in (".config/TUG", ".TeXworks"):  # no session or preference of an earlier run
        shutil.rmtree(s.home / state, ignore_errors=True)
    for name in ("bilan.tex", "courrier.tex"):
        (s.home / name).write_text("\\documentclass{article}\n", encoding="utf-8")
        subprocess.run(["chown", f"{USER}:{USER}", str(s.home / name)], check=True)
    s.run("texworks")
    (_, y, _, h), before, after = typed_in_editor(s, s.wait_window("Untitled|Sans titre|TeXworks"), 1.5)
    typed_pair(s, before, after, changed_below(before[: y + h - 40], after[: y + h - 40], y + 60))
    s.key("ctrl+shift+s")
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "Qt's save-as file dialog")
    s.key("ctrl+a")
    s.type("bilan.tex")
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", NO, "replace the existing file?")
    s.key("Escape")
    time.sleep(0.8)
    s.key("ctrl+o")
    time.sleep(1.5)
    s.shot("open", s.settle(), "file-open", "pause", "Qt's open file dialog")
    s.type("absent.tex")
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "file-not-found", "app-error", OK, "the file does not exist")
    s.key("Escape")
    time.sleep(0.8)
    quit_unsaved(s, "save changes before closing?", (*DONT_SAVE, "ne pas tenir compte"))


SCENES["geany"] = geany
SCENES["featherpad"] = featherpad
SCENES["abiword"] = abiword
SCENES["gnome-text-editor"] = gnome_text_editor
SCENES["texworks"] = texworks
