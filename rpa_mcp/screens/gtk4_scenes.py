"""GTK 4 and libadwaita (Debian's gtk-4-examples 4.8 and libadwaita-1-examples 1.2; see
rpa_mcp.screens.real_programs): the toolkit GNOME 43 and later draw their applications with, its prompts
drawn by the library itself: libadwaita's message dialog (a bold question over a centred text, its answers
side by side in a row across its bottom, split by thin lines: "Save Changes?", Cancel / Discard / Save),
GTK 4's message dialog ("Test message", its two buttons filling its bottom) and GTK 4's file chooser (a
places sidebar, a path bar, Cancel / Save or Open at its bottom right). Three programs of those packages,
one toolkit, one tuning program: adwaita-1-demo (its "Dialogs" page), gtk4-demo's "dialog" example and
gtk4-print-editor (a text view, its Save and Open choosers). The demos' own strings stay English in the fr
configuration; GTK's (the chooser's columns, places, "Annuler" / "Valider") are French.

The scene: in adwaita-1-demo, a click on the sidebar's "Dialogs" (its page shown), a click on the page's
subtitle (nothing changes), its "Message Dialog" (Save Changes?, Cancel); in gtk4-demo's dialog example,
its message dialog (Cancel) and its interactive dialog (two entries, OK / Cancel: Cancel); in
gtk4-print-editor, the sentence typed in its text view, Ctrl+S (GTK 4's save chooser, Cancel), a click on
its menu bar's "File" (its menu opens) and its "Open" (GTK 4's open chooser, Cancel).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

import numpy as np

from rpa_mcp.screens.desktop_scenes import CANCEL
from rpa_mcp.screens.falkon_scenes import SCENES
from rpa_mcp.screens.plain_pairs import idle_click
from rpa_mcp.screens.real_program_scenes import SENTENCE, dialog_then_click, menu_opened, typed_pair
from rpa_mcp.screens.real_programs import BBox, Session, center, changed_box, grow, word_box

__all__ = ["SCENES", "gtk4"]

STATUS_BAR = 60  # gtk4-print-editor's status line ("0, 0": the caret's place) under its text view


def gtk4(s: Session) -> None:
    _adwaita(s)
    _dialog_example(s)
    _print_editor(s)


def _start(s: Session, process: str, *argv: str) -> subprocess.Popen[bytes]:
    s.process = process
    return s.run(process, *argv)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """One program ended before the next one starts (its process group only)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=10)
    time.sleep(1.0)


def _click_on(s: Session, words: tuple[str, ...], region: BBox | None = None) -> None:
    box, _ = s.find_text(s.settle(), words, region)
    s.click(center(box))
    time.sleep(1.5)


def _menu_title(s: Session, frame: np.ndarray, word: str) -> tuple[BBox, str]:
    """A menu bar's title (OCR reads the bar as one line, "File Help": its part of the line)."""
    for line in s.ocr.read(frame[:80, :400]):
        if word in line.text.lower().split():
            return word_box(line.bbox, line.text, word), word.title()
    raise LookupError(f"{s.program}: no menu {word!r} read in the menu bar")


def _adwaita(s: Session) -> None:
    proc = _start(s, "adwaita-1-demo")
    wid = s.wait_window("Adwaita Demo")
    time.sleep(2.0)
    s.maximize(wid)
    x, y, w, h = s.active_geometry(wid)
    sidebar = (x, y + 50, min(320, w // 4), h - 50)
    before = s.settle()
    box, label = s.find_text(before, ("dialogs",), sidebar)
    s.click(center(box))
    time.sleep(0.8)
    after = s.settle()
    b, a = s.save("page-before", before), s.save("page-after", after)
    s.pair(
        "show-page",
        b,
        a,
        {"type": "click_anchor", "label": label, "bbox": list(grow(box, 6)), "point": list(center(box))},
        "SUCCESS",
        None,
        f"a click on the sidebar's '{label}': its page shown",
    )
    page = (x + sidebar[2], y + 50, w - sidebar[2], h - 50)
    idle_click(s, ("adaptive dialog widgets.",), page, "a click on the page's subtitle: nothing")
    _click_on(s, ("message dialog",), page)
    dialog_then_click(
        s, "save-changes", "app-save-changes", CANCEL, "libadwaita's message dialog: save the changes? (Cancel)"
    )
    _end(proc)


def _dialog_example(s: Session) -> None:
    proc = _start(s, "gtk4-demo", "--run=dialog")
    wid = s.wait_window("Dialogs")
    time.sleep(2.0)
    window = s.active_geometry(wid)
    _click_on(s, ("message dialog",), window)
    dialog_then_click(s, "message", "unknown", CANCEL, "GTK 4's message dialog: a test message (Cancel)")
    _click_on(s, ("interactive dialog",), window)
    dialog_then_click(s, "interactive", "unknown", CANCEL, "GTK 4's dialog of two entries, OK / Cancel (Cancel)")
    _end(proc)


def _print_editor(s: Session) -> None:
    proc = _start(s, "gtk4-print-editor")
    wid = s.wait_window("print.editor")  # in en_US its WM_NAME, the one xdotool reads, is "gtk4-print-editor"
    time.sleep(2.0)
    s.maximize(wid)
    x, y, w, h = s.active_geometry(wid)
    s.click((x + w // 2, y + h // 2))  # the caret in the text
    time.sleep(0.8)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    text = before.copy(), after.copy()
    for image in text:  # the text view only (the status line counts the caret's moves)
        image[y + h - STATUS_BAR :] = 0
    typed_pair(s, before, after, changed_box(*text), "GTK 4's text view")
    s.key("ctrl+s")  # an untitled text: its save chooser
    time.sleep(1.5)
    dialog_then_click(s, "save-as", "file-save-as", CANCEL, "GTK 4's save chooser (Ctrl+S), cancelled")
    before = s.settle()
    box, label = _menu_title(s, before, "file")
    menu_opened(s, before, box, label, f"a click on the menu bar's '{label}': its menu opened")
    _click_on(s, ("open",), (0, 0, 300, 300))
    dialog_then_click(s, "open", "file-open", CANCEL, "GTK 4's open chooser (File, Open), cancelled")
    _end(proc)


SCENES["gtk4"] = gtk4
