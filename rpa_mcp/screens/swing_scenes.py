"""A Java Swing program (see rpa_mcp.screens.real_programs): jEdit, drawn by Swing itself (the Metal look,
no GTK): its own file browser dialogs (Save / Open, a "File name:" field over Save or Open / Cancel) and
Swing's message boxes (`JOptionPane`: a sign on the left, the buttons centred under the message).
A tuning program.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from rpa_mcp.screens.desktop_scenes import _documents
from rpa_mcp.screens.office_scenes import SCENES
from rpa_mcp.screens.real_program_scenes import NO, OK, changed_below, dialog_then_click, typed_in_editor, typed_pair
from rpa_mcp.screens.real_programs import USER, Session

__all__ = ["SCENES", "jedit"]

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


SCENES["jedit"] = jedit
