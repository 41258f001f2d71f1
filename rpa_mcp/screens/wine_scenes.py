"""Win32 programs under Wine (see rpa_mcp.screens.real_programs): Wine's own Notepad and WordPad draw
the Win32 common dialogs (Open, Save As, the prompt before a file is replaced, the error for a file
that cannot be found) and their own save-changes message box, the dialogs a Windows desktop shows.
Both are tuning programs. Each runs in a Wine prefix of the capture user (made on first use); Wine
takes its language from `LANG`.
"""

from __future__ import annotations

import time

from rpa_mcp.screens.desktop_scenes import SCENES, _documents
from rpa_mcp.screens.real_program_scenes import (
    DONT_SAVE,
    NO,
    OK,
    SENTENCE,
    changed_below,
    dialog_then_click,
    typed_pair,
)
from rpa_mcp.screens.real_programs import Session

__all__ = ["SCENES", "notepad", "wordpad"]

MISSING = "resultats-0412.txt"  # a file name typed into the open dialog that does not exist


def _wine(s: Session, *argv: str) -> None:
    scale = s.config.scale
    prefix = s.home / (".wine-capture" if scale == 100 else f".wine-capture-{scale}")  # 100 %'s left as it was
    env = (f"WINEPREFIX={prefix}", "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
    s.run("env", *env, "wineserver", "-k").wait(timeout=30)  # no server left by an earlier configuration
    if scale != 100:  # Windows' display scaling: the dots per inch of the user's desktop (120 at 125 %)
        desktop = "HKCU\\Control Panel\\Desktop"
        dpi = str(96 * scale // 100)
        s.run("env", *env, "wine", "reg", "add", desktop, "/v", "LogPixels", "/t", "REG_DWORD", "/d", dpi, "/f").wait(
            timeout=300
        )
    s.run("env", *env, *argv)


def _win32_editor(s: Session, exe: str, window: str, chrome: int, dont_save_id: str) -> None:
    """The open dialog, a missing file's name typed in it (the error, OK), a sentence typed, the
    save-as dialog answered with an existing document's name (the prompt before it is replaced, No),
    then the window closed and the save-changes prompt answered No (it closes with the window)."""
    _documents(s)
    s.process = f"{s.program}.exe"  # as Windows (and /proc under Wine) names it
    _wine(s, "wine", exe)
    wid = s.wait_window(window, 180)
    s.maximize(wid)
    time.sleep(1.0)
    x, y, w, h = s.active_geometry(wid)
    s.key("ctrl+o")
    time.sleep(1.5)
    s.shot("open", s.settle(), "file-open", "pause", "the Win32 common open dialog")
    s.type(MISSING)
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "file-not-found", "app-error", OK, "the open dialog's error: the file cannot be found")
    s.key("Escape")
    time.sleep(0.8)
    s.click((x + w // 2, y + h // 2))  # the caret in the document
    time.sleep(1.0)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    typed_pair(s, before, after, changed_below(before[: y + h - 40], after[: y + h - 40], y + chrome))
    s.key("ctrl+s")  # a new document: the save-as dialog
    time.sleep(1.5)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "the Win32 common save-as dialog")
    s.key("ctrl+a")
    s.type("bilan.txt")
    s.key("Return")
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", NO, "replace the existing file?")
    s.key("Escape")
    time.sleep(0.8)
    s.key("alt+F4")
    time.sleep(1.2)
    dialog_then_click(s, "save-changes", dont_save_id, (*DONT_SAVE, *NO), "save the changes before closing?")


def notepad(s: Session) -> None:
    """Wine's Notepad: its save-changes prompt is Notepad's own (the catalog's entry for Notepad)."""
    _win32_editor(s, "notepad", "Notepad|Bloc-notes", 0, "notepad-save-changes")


def wordpad(s: Session) -> None:
    """Wine's WordPad: a toolbar and a format bar above the document; the generic save-changes kind."""
    exe = "C:\\Program Files\\Windows NT\\Accessories\\wordpad.exe"  # not on Wine's path
    _win32_editor(s, exe, "WordPad|Wordpad", 80, "app-save-changes")


SCENES["notepad"] = notepad
SCENES["wordpad"] = wordpad
