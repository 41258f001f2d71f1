"""gVim (Debian's vim-gtk3; see rpa_mcp.screens.real_programs): Vim's own dialogs, laid out by Vim in a
GTK window (a one-line question over a row of buttons as wide as the dialog, titled "Question" or
"VIM - ATTENTION"), beside GTK's file chooser that `:browse` opens. A tuning program.

The scene: a sentence typed in insert mode; `:browse saveas` answered with an existing document's
name (Vim's "Overwrite existing file?", No); `:browse edit` answered with a document another Vim is
editing (Vim's swap-file warning, E325 "ATTENTION": open read-only, edit anyway, recover, quit or abort:
Abort); `:confirm qa` with the typed buffer unsaved (Vim's "Save changes to ...?", No: gVim closes).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from rpa_mcp.screens.desktop_scenes import _documents
from rpa_mcp.screens.real_program_scenes import NO, SENTENCE, changed_below, dialog_then_click, typed_pair
from rpa_mcp.screens.real_programs import USER, Session
from rpa_mcp.screens.swing_scenes import SCENES

__all__ = ["SCENES", "gvim"]

# `confirm`: a command that would lose or replace something asks in a dialog; `hidden`: `:edit` leaves an
# unsaved buffer aside without asking (it is asked about on quit)
VIMRC = "set nocompatible\nset confirm\nset hidden\n"
EDITED_ELSEWHERE = "compte-rendu.txt"
ABORT = ("abort", "abandonner")


def gvim(s: Session) -> None:
    vimrc = s.home / ".capture-vimrc"
    vimrc.write_text(VIMRC, encoding="utf-8")
    other = s.home / EDITED_ELSEWHERE
    other.write_text("Compte rendu de consultation\n", encoding="utf-8")
    swap = s.home / f".{EDITED_ELSEWHERE}.swp"
    swap.unlink(missing_ok=True)
    subprocess.run(["chown", f"{USER}:{USER}", str(vimrc), str(other)], check=True)
    _documents(s)
    _edited_elsewhere(s, swap)
    try:
        _gvim(s, str(vimrc))
    finally:
        swap.unlink(missing_ok=True)


def _edited_elsewhere(s: Session, swap: Path) -> None:
    """A console Vim (in a pseudo-terminal) editing the document with a change kept in its swap file,
    running until the session ends: opening the document again shows Vim's swap-file warning."""
    command = f"vim.gtk3 -v -u NONE -N -i NONE -c 'normal! Ax' -c preserve {EDITED_ELSEWHERE}"
    s.run("script", "-qfc", command, "/dev/null")
    end = time.monotonic() + 20
    while time.monotonic() < end and not swap.exists():
        time.sleep(0.3)


def _ex(s: Session, command: str) -> None:
    """An Ex command typed from normal mode."""
    s.key("Escape")
    s.type(f":{command}")
    s.key("Return")
    time.sleep(1.5)


def _answer_chooser(s: Session, name: str) -> None:
    """Type `name` into the file chooser in front and accept it (the first Return may only take the
    name's completion)."""
    chooser = s.title()
    s.type(name)
    for _ in range(3):
        time.sleep(0.6)
        s.key("Return")
        time.sleep(1.2)
        if s.title() != chooser:
            return
    raise LookupError(f"{s.program}: the chooser did not take {name!r}")


def _gvim(s: Session, vimrc: str) -> None:
    s.run("gvim", "-f", "-u", vimrc, "-U", "NONE", "-i", "NONE")
    wid = s.wait_window("VIM")
    s.maximize(wid)
    x, y, w, h = s.active_geometry(wid)
    s.click((x + w // 2, y + h // 2))
    time.sleep(1.0)
    s.key("i")  # insert mode: "-- INSERT --" shows below before the typing starts
    time.sleep(0.8)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    # the menu and tool bars above, the command line below left out
    typed_pair(s, before, after, changed_below(before[: y + h - 40], after[: y + h - 40], y + 60))
    _ex(s, "browse saveas")
    s.shot("save-as", s.settle(), "file-save-as", "pause", "GTK's save chooser opened by Vim's :browse saveas")
    _answer_chooser(s, "bilan.txt")
    dialog_then_click(s, "overwrite", "app-file-overwrite", NO, "Vim's question: overwrite the existing file?")
    _ex(s, "browse edit")
    s.shot("open", s.settle(), "file-open", "pause", "GTK's open chooser opened by Vim's :browse edit")
    _answer_chooser(s, EDITED_ELSEWHERE)
    dialog_then_click(s, "swap-file", "unknown", ABORT, "Vim's swap-file warning: another Vim edits the file")
    _ex(s, "confirm qa")
    dialog_then_click(s, "save-changes", "app-save-changes", NO, "Vim's question on quit: save the typed buffer?")


SCENES["gvim"] = gvim
