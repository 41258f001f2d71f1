"""Desktop programs added to widen the tuning side (see rpa_mcp.screens.real_programs): a MATE editor
with tabs (pluma), the Xfce file manager's confirmation before deleting a file (thunar) and a GTK
passphrase box (pinentry-gtk2); then a GTK 2 editor (l3afpad), held out before it was captured; then
a KDE (Qt 5) editor (kwrite) and GNOME's editor (gedit, GTK 3): the prompt before a file is
overwritten.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np

from rpa_mcp.screens.editor_scenes import SCENES, editor
from rpa_mcp.screens.plain_pairs import EDIT, UNDO, greyed_menu_entry
from rpa_mcp.screens.real_program_scenes import (
    DONT_SAVE,
    NO,
    OK,
    SENTENCE,
    changed_below,
    chooser,
    dialog_then_click,
    quit_unsaved,
    typed_pair,
)
from rpa_mcp.screens.real_programs import USER, BBox, Session, center, grow, word_box

__all__ = ["SCENES", "gedit", "kwrite", "l3afpad", "pinentry", "pluma", "scite", "thunar"]

CANCEL = ("cancel", "annuler")


def _own(s: Session, *paths: str) -> None:
    subprocess.run(["chown", "-R", f"{USER}:{USER}", *paths], check=True)


def _reports_folder(s: Session) -> str:
    """A fresh folder of three reports, owned by the program's user, for a file manager to open."""
    folder = s.home / "Comptes-rendus"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for name in ("compte-rendu-1203.txt", "ordonnance-1403.txt", "courrier-1503.txt"):
        (folder / name).write_text("DURAND Alice\n", encoding="utf-8")
    _own(s, str(folder))
    return str(folder)


def _documents(s: Session) -> list[str]:
    docs = []
    for name, text in (("bilan.txt", "Bilan sanguin du 12/03\n"), ("courrier.txt", "Courrier au médecin traitant\n")):
        (s.home / name).write_text(text, encoding="utf-8")
        docs.append(str(s.home / name))
    _own(s, *docs)
    return docs


def _tab_pairs(s: Session, region: BBox, other: str) -> BBox:
    """A click on the tab of the document `other`, then that document closed (Ctrl+W): two pairs. The
    tab's box is returned."""
    for _ in range(10):  # the second document may open a moment later
        before = s.settle()
        try:
            tab, _ = s.find_text(before, (other,), region)
            break
        except LookupError:
            time.sleep(1.0)
    else:
        raise LookupError(f"{s.program}: no tab '{other}'")
    label = other  # the document's name: its tab's close cross, read with it, is no part of it
    s.click(center(tab))
    time.sleep(0.6)
    after = s.settle()
    tab_box = list(grow(tab, 8))
    b, a = s.save("switch-tab-before", before), s.save("switch-tab-after", after)
    action: dict[str, Any] = {"type": "switch_tab", "label": label, "bbox": tab_box, "point": list(center(tab))}
    s.pair("switch-tab", b, a, action, "SUCCESS", None, f"a click on the document tab '{label}'")
    before = after
    s.key("ctrl+w")
    time.sleep(0.8)
    after = s.settle()
    b, a = s.save("close-tab-before", before), s.save("close-tab-after", after)
    action = {"type": "close_tab", "label": label, "bbox": tab_box, "point": None}
    s.pair("close-tab", b, a, action, "SUCCESS", None, f"the unmodified document tab '{label}' closed (Ctrl+W)")
    return tab


def _tabs_then_typing(
    s: Session, wid: str, strip_height: int, *, greyed: bool
) -> tuple[BBox, BBox, np.ndarray, np.ndarray]:
    """The editor maximised: the tab not in front switched to and closed (`_tab_pairs`), the caret put in
    the text view, (`greyed`: a click on the greyed-out Undo), a sentence typed at the end. Returns the
    window's geometry, the tab's box and the frames before and after the typing."""
    s.maximize(wid)
    time.sleep(1.5)
    x, y, w, h = s.active_geometry(wid)
    other = "courrier.txt" if "bilan" in s.title() else "bilan.txt"  # the tab not in front
    tab = _tab_pairs(s, (x, y, w, strip_height), other)
    s.click((x + w // 2, y + h // 2))  # the caret in the text view
    time.sleep(1.0)
    if greyed:
        _greyed_click(s, s.settle(ignore_small=0), ("Undo", "Annuler"), (x, y, w // 2, 110))
    s.key("ctrl+End", "Return")
    time.sleep(0.5)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    return (x, y, w, h), tab, before, s.settle()


def pluma(s: Session) -> None:
    """Two documents in tabs: switch to the other one, close it; a click on the greyed-out Undo (only the
    caret blinks); a sentence typed; the choosers; quit without saving."""
    for state in (".config/dconf", ".config/pluma", ".local/share/pluma"):
        shutil.rmtree(s.home / state, ignore_errors=True)
    s.run("pluma", *_documents(s))
    wid = s.wait_window("courrier|bilan")
    _, tab, before, after = _tabs_then_typing(s, wid, 140, greyed=True)
    top = tab[1] + tab[3] + 6  # the tab's label gains a "*": the text view only
    typed_pair(s, before, after, changed_below(before, after, top))
    chooser(s, "ctrl+shift+s", "save-as", "file-save-as", "the MATE (GTK 3) save-as file chooser")
    chooser(s, "ctrl+o", "open", "file-open", "the MATE (GTK 3) open file chooser")
    quit_unsaved(s, "save changes to the document before closing?")


def _greyed_click(s: Session, before: np.ndarray, words: tuple[str, ...], region: BBox) -> None:
    """A click on a greyed-out toolbar button: the frame after is the first that differs (the caret)."""
    x0, y0, w, h = region
    lines = s.ocr.read(before[y0 : y0 + h, x0 : x0 + w])
    # the label alone, or its part of a toolbar's line read whole ("Save Save As  Undo Redo")
    found = [(ln, word) for word in words for ln in lines if word.lower() in ln.text.replace("_", "").lower().split()]
    if not found:
        raise LookupError(f"{s.program}: none of {words} read in {region}: {[ln.text for ln in lines]}")
    line, label = found[0]
    bx, by, bw, bh = word_box(line.bbox, line.text.replace("_", ""), label)
    button = (x0 + bx, y0 + by, bw, bh)
    s.click(center(button))
    after = s.first_change(before)
    b, a = s.save("greyed-click-before", before), s.save("greyed-click-after", after)
    box = grow(button, 10)
    action = {"type": "click_anchor", "label": label, "bbox": list(box), "point": list(center(button))}
    s.pair("greyed-button", b, a, action, "FAILURE", "NO_VISUAL_CHANGE", f"a click on the greyed-out '{label}'")


def thunar(s: Session) -> None:
    """A file deleted for good (Shift+Delete): the file manager asks first; Cancel keeps it."""
    shutil.rmtree(s.home / ".config/Thunar", ignore_errors=True)
    s.run("thunar", _reports_folder(s))
    wid = s.wait_window("Comptes-rendus")
    s.maximize(wid)
    time.sleep(1.5)
    frame = s.settle()
    box, _ = s.find_text(frame, ("ordonnance-1403.txt", "ordonnance-1403"), s.active_geometry(wid))
    s.click(center(box))
    time.sleep(0.6)
    s.key("shift+Delete")
    time.sleep(1.2)
    dialog_then_click(s, "confirm-delete", "app-confirm-delete", CANCEL, "delete the file for good?")


def pinentry(s: Session) -> None:
    """A passphrase box (pinentry-gtk2, as gpg shows it); Cancel closes it."""
    title = s.t("Unlock the signing key", "Déverrouiller la clé de signature")
    desc = s.t(
        "Enter the passphrase of the prescription signing key.",
        "Saisissez la phrase secrète de la clé de signature des ordonnances.",
    )
    prompt = s.t("Passphrase:", "Phrase secrète :")
    commands = "\n".join((f"SETTITLE {title}", f"SETDESC {desc}", f"SETPROMPT {prompt}", "GETPIN", "BYE"))
    s.run("sh", "-c", f"printf '%s\\n' '{commands}' | pinentry-gtk-2")
    wid = s.wait_window(title)
    time.sleep(1.0)
    dialog_then_click(s, "password", "app-credential-prompt", CANCEL, "a passphrase box", wid)


def l3afpad(s: Session) -> None:
    # no tabs: the first line of text lies right under the menu bar; its prompt answers Yes / No
    state = (".config/l3afpad",)
    editor(s, ("l3afpad",), "L3afpad|Untitled|Sans titre", "GTK 2", state, chrome=26, dont_save=(*DONT_SAVE, *NO))


def kwrite(s: Session) -> None:
    """KDE's editor (Qt 5, KDE Frameworks): the document tabs, a click on the greyed-out Undo, a sentence
    typed; its save-as dialog, answered Enter on the document's own name: the prompt before the file
    is overwritten (Cancel); its open dialog; quit without saving."""
    for state in (".config/kwriterc", ".local/share/kwrite", ".config/session", ".local/share/kate"):
        path = s.home / state
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    for swap in s.home.glob(".*.kate-swp"):  # left by an earlier run: "the file was not closed properly"
        swap.unlink()
    _tabbed_editor(s, ("kwrite",), "KDE", greyed=True)  # with no file named, its window never maps on Xvfb


def gedit(s: Session) -> None:
    """GNOME's editor (GTK 3, a header bar): the document tabs, a sentence typed; GTK's save-as chooser
    and its prompt before a file is replaced; the open chooser; quit without saving."""
    for state in (".config/dconf", ".config/gedit", ".local/share/gedit"):
        shutil.rmtree(s.home / state, ignore_errors=True)
    _tabbed_editor(s, ("gedit", "--standalone"), "GTK 3 (gedit)", greyed=False, text_up=True)


def _tabbed_editor(s: Session, argv: tuple[str, ...], toolkit: str, *, greyed: bool, text_up: bool = False) -> None:
    """Two documents in tabs: switch, close one; (`greyed`: a click on the greyed-out Undo of the
    toolbar); a sentence typed; the save-as chooser answered Enter on the document's own name (the file
    exists: the prompt before it is replaced, Cancel); the open chooser; quit without saving."""
    s.run(*argv, *_documents(s))
    wid = s.wait_window("courrier|bilan")
    (_, y, _, h), tab, before, after = _tabs_then_typing(s, wid, 160, greyed=greyed)
    # the text view only: below the tab strip, or from its top where the strip went with the closed
    # document and the text moved up (`text_up`); the cursor's place in the status bar changes too
    status = y + h - 40
    top = tab[1] if text_up else tab[1] + tab[3] + 6
    typed_pair(s, before, after, changed_below(before[:status], after[:status], top))
    s.key("ctrl+shift+s")
    time.sleep(2.0)
    s.shot("save-as", s.settle(), "file-save-as", "pause", f"the {toolkit} save-as file dialog")
    s.key("Return")  # the name offered is the document's own: the file exists
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", (*CANCEL, *NO), "overwrite the existing file?")
    s.key("Escape")
    time.sleep(0.8)
    chooser(s, "ctrl+o", "open", "file-open", f"the {toolkit} open file dialog")
    quit_unsaved(s, "save or discard the changes before closing?")


def scite(s: Session) -> None:
    """SciTE (GTK 3, its own buffer tab bar): switch to the other buffer's tab and close it; the Edit
    menu's greyed-out Undo clicked; a sentence typed; GTK's save-as chooser answered Enter on the
    document's own name (the prompt before it is replaced, Cancel or No); the open chooser, a file the
    user may not read picked in it (SciTE's error, OK); quit without saving (its question, No)."""
    # every file listed in its open chooser (its default filter, "All Source", hides text files)
    (s.home / ".SciTEUser.properties").write_text("open.filter=All Files (*)|*|\n", encoding="utf-8")
    (s.home / ".SciTE.session").unlink(missing_ok=True)
    unreadable = s.home / "prive.txt"
    unreadable.write_text("confidentiel\n", encoding="utf-8")
    _own(s, str(unreadable), str(s.home / ".SciTEUser.properties"))
    unreadable.chmod(0o000)
    try:
        _scite(s, unreadable)
    finally:
        unreadable.unlink(missing_ok=True)


def _scite(s: Session, unreadable: Path) -> None:
    s.run("scite", *_documents(s))
    wid = s.wait_window("courrier|bilan")
    s.maximize(wid)
    time.sleep(1.5)
    x, y, w, h = s.active_geometry(wid)
    other = "courrier.txt" if "bilan" in s.title() else "bilan.txt"  # the tab not in front
    tab = _tab_pairs(s, (x, y, w, 160), other)
    s.click((x + w // 2, y + h // 2))  # the caret in the text
    time.sleep(1.0)
    greyed_menu_entry(s, s.settle(ignore_small=0), EDIT, UNDO, (x, y, w, h))
    s.key("ctrl+End", "Return")
    time.sleep(0.5)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    time.sleep(0.5)
    after = s.settle()
    top = tab[1] + tab[3] + 6  # the tab's label gains a "*": the text only
    typed_pair(s, before, after, changed_below(before[: y + h - 30], after[: y + h - 30], top))
    s.key("ctrl+shift+s")
    time.sleep(2.0)
    s.shot("save-as", s.settle(), "file-save-as", "pause", "GTK's save-as chooser (SciTE)")
    s.key("Return")  # the name offered is the document's own: the file exists
    time.sleep(1.2)
    dialog_then_click(s, "overwrite", "app-file-overwrite", (*CANCEL, *NO), "overwrite the existing file?")
    s.key("Escape")
    time.sleep(0.8)
    s.key("ctrl+o")
    time.sleep(2.0)
    shown = s.settle()
    s.shot("open", shown, "file-open", "pause", "GTK's open chooser (SciTE)")
    listed, _ = s.find_text(shown, (unreadable.name,), s.active_geometry())  # picked in the list: double click
    s.xdo("mousemove", *(str(v) for v in center(listed)))
    s.xdo("click", "--repeat", "2", "1")
    time.sleep(1.5)
    dialog_then_click(s, "cannot-open", "app-error", OK, "the file cannot be opened")
    s.key("alt+F4")  # its Ctrl+Q comments a block: the window closed by the window manager
    time.sleep(1.2)
    dialog_then_click(s, "save-changes", "app-save-changes", (*DONT_SAVE, *NO), "save the changes before closing?")


SCENES["pluma"] = pluma
SCENES["thunar"] = thunar
SCENES["pinentry"] = pinentry
SCENES["l3afpad"] = l3afpad
SCENES["kwrite"] = kwrite
SCENES["gedit"] = gedit
SCENES["scite"] = scite
