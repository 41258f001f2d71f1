"""What `capture-programs` does in each real program (see rpa_mcp.screens.real_programs).

Every dialog shown here is one a person must decide on: the expected policy is `pause`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable

import cv2
import numpy as np

from rpa_mcp.screens.plain_pairs import tab_switch_and_close
from rpa_mcp.screens.real_programs import USER, BBox, Session, center, changed_box, grow

SENTENCE = {
    "en": "The patient was told the results of the blood test this morning.",
    "fr": "Le patient a été informé des résultats de son bilan sanguin ce matin.",
}
DONT_SAVE = (
    "don't save",
    "dont save",
    "do not save",
    "ne pas enregistrer",
    "fermer sans enregistrer",
    "close without saving",
    "discard",
    "ignorer",
    "abandonner",
)
NO = ("no", "non")
OK = ("ok", "valider")


def dialog_then_click(
    s: Session, name: str, kind: str, words: tuple[str, ...], description: str, wid: str | None = None
) -> str:
    """Shoot the dialog in front, click its button read as one of `words`, shoot after: a pair, recorded
    only once the dialog is seen gone (a click a program missed is clicked once more, else no pair)."""
    frame = s.settle()
    dialog = s.active_geometry(wid)
    box, label = s.find_text(frame, words, dialog)  # the dialog is there before it is recorded as such
    before = s.shot(name, frame, kind, "pause", description)
    button = grow(box, 6)
    for _ in range(2):
        s.click(center(box))
        time.sleep(0.8)
        shown = s.settle()
        if not _unchanged(frame, shown, dialog):
            break
    else:
        raise LookupError(f"{s.program}: the dialog {name!r} did not close after '{label}' was clicked")
    after = s.save(f"{name}-after", shown)
    s.pair(
        f"{name}-click",
        before,
        after,
        {"type": "dialog_button", "label": label, "bbox": list(button), "point": list(center(box))},
        "SUCCESS",
        None,
        f"{description}: '{label}' clicked, the dialog closed",
    )
    return after


def _unchanged(before: np.ndarray, after: np.ndarray, box: BBox) -> bool:
    """The box shows the same pixels in both frames (a caret's blink aside)."""
    x, y, w, h = box
    x0, y0 = max(0, x), max(0, y)
    moved = cv2.absdiff(before[y0 : y + h, x0 : x + w], after[y0 : y + h, x0 : x + w]).max(axis=2) > 24
    return int(np.count_nonzero(moved)) <= 60


def typed_pair(
    s: Session,
    before: np.ndarray,
    after: np.ndarray,
    field: BBox,
    where: str = "the editor",
    garbled: str = "",
) -> None:
    """The sentence typed into `field`: a before/after pair (`garbled`: why the program shows it otherwise
    than typed: a TEXT_MISMATCH)."""
    b, a = s.save("typing-before", before), s.save("typing-after", after)
    s.pair(
        "type-sentence",
        b,
        a,
        {
            "type": "type_text",
            "bbox": list(field),
            "point": list(center(field)),
            "expected_text": SENTENCE[s.config.lang],
        },
        "FAILURE" if garbled else "SUCCESS",
        "TEXT_MISMATCH" if garbled else None,
        f"a long sentence typed in {where}" + (f": {garbled}" if garbled else ""),
    )


def menu_opened(s: Session, before: np.ndarray, box: BBox, label: str, description: str) -> None:
    """A click on a menu's title at `box` on the `before` frame: its menu opens (a SUCCESS pair)."""
    s.click(center(box))
    time.sleep(0.8)
    after = s.settle()
    b, a = s.save("menu-before", before), s.save("menu-after", after)
    s.pair(
        "open-menu",
        b,
        a,
        {"type": "click_anchor", "label": label, "bbox": list(grow(box, 6)), "point": list(center(box))},
        "SUCCESS",
        None,
        description,
    )


def typed_in_editor(s: Session, wid: str, pause_s: float = 1.0) -> tuple[BBox, np.ndarray, np.ndarray]:
    """Maximise the editor's window `wid`, click in the middle of its text, type the sentence: the
    window's box, the screen before and after the typing."""
    s.maximize(wid)
    window = s.active_geometry(wid)
    x, y, w, h = window
    s.click((x + w // 2, y + h // 2))  # the caret in the text
    time.sleep(pause_s)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    return window, before, s.settle()


def chooser(s: Session, keys: str, name: str, kind: str, description: str) -> None:
    """Open a file chooser with `keys`, shoot it, close it."""
    s.key(keys)
    time.sleep(1.5)
    s.shot(name, s.settle(), kind, "pause", description)
    s.key("Escape")
    time.sleep(0.8)


def quit_unsaved(s: Session, description: str, dont_save: tuple[str, ...] = DONT_SAVE) -> None:
    """Quit with unsaved changes and answer the prompt without saving: a pair."""
    s.key("ctrl+q")
    time.sleep(1.2)
    dialog_then_click(s, "save-changes", "app-save-changes", dont_save, description)


def changed_below(before: np.ndarray, after: np.ndarray, top: int) -> BBox:
    """What changed below row `top` (the title bar, "*" once modified, left out)."""
    client_only = np.zeros_like(before)
    client_only[top:] = 1
    return changed_box(before * client_only, after * client_only)


# -- mousepad (GTK text editor) -------------------------------------------------------------------
def mousepad(s: Session) -> None:
    # no "restore the previous session?" question left by an interrupted run: a fresh state
    for state in (".config/dconf", ".config/Mousepad", ".local/share/Mousepad"):
        shutil.rmtree(s.home / state, ignore_errors=True)
    s.run("mousepad")
    wid = s.wait_window("Mousepad")
    s.maximize(wid)
    x, y, w, h = s.active_geometry(wid)
    s.click((x + w // 2, y + h // 2))  # the caret in the text view
    time.sleep(2.0)
    before, after = s.settle(), s.grab()
    for _ in range(3):  # the first keys after the start can be lost: retype until the line reads in full
        s.key("ctrl+a", "Delete")
        before = s.settle()
        s.type(SENTENCE[s.config.lang])
        after = s.settle()
        read = " ".join(line.text for line in s.ocr.read(after[y : y + 200, x : x + w]))
        if SENTENCE[s.config.lang].replace(" ", "") in read.replace(" ", ""):
            break
    typed_pair(s, before, after, changed_below(before, after, y))
    chooser(s, "ctrl+shift+s", "save-as", "file-save-as", "the GTK save-as file chooser")
    chooser(s, "ctrl+o", "open", "file-open", "the GTK open file chooser")
    quit_unsaved(s, "save changes before closing?")


# -- a Tk program (python3-tk): entry, text, a greyed-out button, message boxes --------------------------
TK_APP = r"""
import json, os, sys, tkinter as tk
from tkinter import messagebox
fr = sys.argv[1] == "fr"
t = lambda en, f: f if fr else en
root = tk.Tk()
root.title(t("Notes - Record 000123456", "Notes - Dossier 000123456"))
root.geometry("900x520+140+90")
tk.Label(root, text=t("Observation:", "Observation :")).pack(anchor="w", padx=12, pady=(12, 2))
entry = tk.Entry(root, width=70, font=("DejaVu Sans", 12))
entry.pack(anchor="w", padx=12)
tk.Label(root, text=t("Notes:", "Notes :")).pack(anchor="w", padx=12, pady=(12, 2))
text = tk.Text(root, height=8, width=80, font=("DejaVu Sans", 12))
text.pack(anchor="w", padx=12)
bar = tk.Frame(root)
bar.pack(anchor="e", padx=12, pady=12)
submit = tk.Button(bar, text=t("Submit", "Valider"), state="disabled")
submit.pack(side="right", padx=4)
tk.Button(bar, text=t("Print", "Imprimer")).pack(side="right", padx=4)
def boxes(_e=None):
    found = {n: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]
             for n, w in (("entry", entry), ("text", text), ("submit", submit))}
    with open(os.path.expanduser("~/tk_boxes.json"), "w") as f:
        json.dump(found, f)
def save_prompt(_e=None):
    answer = messagebox.askyesnocancel("Notes", t("Save changes to notes.txt before closing?",
        "Enregistrer les modifications de notes.txt avant de fermer ?"), icon="warning", parent=root)
    if answer is False:
        root.destroy()
root.bind("<F5>", boxes)
root.bind("<Control-q>", save_prompt)
root.protocol("WM_DELETE_WINDOW", save_prompt)
root.bind("<F3>", lambda e: messagebox.showerror(t("Error", "Erreur"), t(
    "The file notes.txt could not be written: permission denied.",
    "Impossible d'écrire le fichier notes.txt : permission refusée."), parent=root))
root.bind("<F4>", lambda e: messagebox.askyesno(t("Delete", "Supprimer"), t(
    "Delete the prescription of 12/03? This cannot be undone.",
    "Supprimer la prescription du 12/03 ? Cette action est irréversible."), icon="warning", parent=root))
entry.focus_set()
root.mainloop()
"""


# A second, small program window behind the notes window: revealed when the notes program closes.
TK_AGENDA = r"""
import sys, tkinter as tk
fr = sys.argv[1] == "fr"
root = tk.Tk()
root.title("Agenda")
root.geometry("420x160+400+300")
tk.Label(root, text="Prochain rendez-vous : 14/03 10:30" if fr else "Next appointment: 14/03 10:30").pack(pady=20)
tk.Button(root, text="Ouvrir" if fr else "Open").pack()
root.mainloop()
"""


def tk(s: Session) -> None:
    agenda = s.home / "agenda_app.py"
    agenda.write_text(TK_AGENDA, encoding="utf-8")
    s.run("/usr/bin/python3", str(agenda), s.config.lang)
    s.wait_window("Agenda")
    time.sleep(0.8)
    script = s.home / "notes_app.py"
    script.write_text(TK_APP, encoding="utf-8")
    s.run("/usr/bin/python3", str(script), s.config.lang)
    s.wait_window("Notes")
    time.sleep(1.0)
    s.key("F5")
    time.sleep(0.5)
    boxes = json.loads((s.home / "tk_boxes.json").read_text(encoding="utf-8"))
    # A click on the greyed-out button: the only change is the entry's blinking caret.
    before = s.settle(ignore_small=0)
    submit = tuple(boxes["submit"])
    s.click(center(submit))
    after = s.first_change(before)
    b, a = s.save("greyed-click-before", before), s.save("greyed-click-after", after)
    s.pair(
        "greyed-button",
        b,
        a,
        {
            "type": "click_anchor",
            "label": s.t("Submit", "Valider"),
            "bbox": list(submit),
            "point": list(center(submit)),
        },
        "FAILURE",
        "NO_VISUAL_CHANGE",
        "a click on a greyed-out button: only the text caret blinked",
    )
    field = tuple(boxes["text"])
    s.click(center(field))
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    typed_pair(s, before, after, field, "a text box")
    s.key("F3")
    time.sleep(1.0)
    dialog_then_click(s, "error", "app-error", OK, "an error message box")
    s.key("F4")
    time.sleep(1.0)
    dialog_then_click(s, "confirm-delete", "app-confirm-delete", NO, "delete the prescription?")
    s.key("ctrl+q")
    time.sleep(1.0)
    dialog_then_click(
        s,
        "save-changes",
        "app-save-changes",
        NO,
        "save changes before closing? (No closes the program: the small Agenda window behind it shows)",
    )


# -- gnumeric (office spreadsheet): sheet tabs, open, save changes --------------------------------------
SHEETS = ("Biologie", "Imagerie", "Synthese")


def gnumeric(s: Session) -> None:
    for name in SHEETS:
        (s.home / f"{name}.csv").write_text("Date,Valeur\n12/03,4.2\n13/03,5.1\n", encoding="utf-8")
    book = s.home / "dossier.gnumeric"
    book.unlink(missing_ok=True)
    subprocess.run(
        [
            "runuser",
            "-u",
            USER,
            "--",
            "ssconvert",
            "--merge-to",
            str(book),
            *[str(s.home / f"{n}.csv") for n in SHEETS],
        ],
        check=True,
        capture_output=True,
    )
    s.run("gnumeric", str(book))
    wid = s.wait_window("dossier")
    s.maximize(wid)
    time.sleep(1.5)
    before = s.settle()
    x, y, w, h = s.active_geometry(wid)
    strip = (x, y + h - 90, w, 90)
    tab, label = s.find_text(before, ("Imagerie",), strip)  # the sheet is named after its file
    s.click(center(tab))
    after = s.settle()
    b, a = s.save("sheet-tab-before", before), s.save("sheet-tab-after", after)
    s.pair(
        "switch-sheet",
        b,
        a,
        {"type": "switch_tab", "label": label, "bbox": list(grow(tab, 8)), "point": list(center(tab))},
        "SUCCESS",
        None,
        "a click on the sheet tab 'Imagerie'",
    )
    s.type("Glycémie")
    s.key("Return")
    time.sleep(0.5)
    chooser(s, "ctrl+o", "open", "file-open", "the GTK open file chooser")
    quit_unsaved(s, "save changes to the workbook?")


# -- zenity (GTK message boxes) ---------------------------------------------------------------------------
def zenity(s: Session) -> None:
    s.run(
        "zenity",
        "--error",
        "--title",
        s.t("Error", "Erreur"),
        "--text",
        s.t(
            "The prescription could not be sent: the server is unreachable.",
            "L'ordonnance n'a pas pu être envoyée : le serveur est injoignable.",
        ),
    )
    wid = s.wait_window(s.t("Error", "Erreur"))
    time.sleep(0.8)
    dialog_then_click(s, "error", "app-error", OK, "an error message box", wid)
    s.run(
        "zenity",
        "--question",
        "--title",
        s.t("Delete", "Supprimer"),
        "--text",
        s.t("Delete the appointment of 14/03?", "Supprimer le rendez-vous du 14/03 ?"),
    )
    wid = s.wait_window(s.t("Delete", "Supprimer"))
    time.sleep(0.8)
    dialog_then_click(s, "confirm-delete", "app-confirm-delete", NO, "delete the appointment?", wid)
    for name, kind, args, description in (
        (
            "password",
            "app-credential-prompt",
            ["--password", "--title", s.t("Authentication", "Authentification")],
            "a password box",
        ),
        (
            "open",
            "file-open",
            ["--file-selection", "--title", s.t("Open a document", "Ouvrir un document")],
            "a GTK open file chooser",
        ),
        (
            "save-as",
            "file-save-as",
            ["--file-selection", "--save", "--title", s.t("Save the report", "Enregistrer le compte rendu")],
            "a GTK save file chooser",
        ),
    ):
        s.run("zenity", *args)
        s.xdo("windowactivate", s.wait_window(args[-1]))
        time.sleep(1.2)
        s.shot(name, s.settle(), kind, "pause", description)
        s.key("Escape")
        time.sleep(0.8)


SCENES: dict[str, Callable[[Session], None]] = {"mousepad": mousepad, "tk": tk, "gnumeric": gnumeric, "zenity": zenity}


# -- firefox-esr (web browser): tab strip, page dialogs ----------------------------------------------------
FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "startup.homepage_welcome_url": "",
    "startup.homepage_welcome_url.additional": "",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.tabs.warnOnClose": False,
    "app.update.auto": False,
    "browser.newtabpage.enabled": False,
    "extensions.pocket.enabled": False,
    "network.captive-portal-service.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.translations.automaticallyPopup": False,
    "sidebar.revamp": False,
}
PAGE_SCRIPT = """<script>
addEventListener('keydown', ev => {
  if (ev.key === 'a') setTimeout(() => alert(MSG), 50);
  if (ev.key === 'l') { onbeforeunload = e => { e.preventDefault(); e.returnValue = ''; };
                        setTimeout(() => { location.href = '/other.html'; }, 50); }
});
</script>"""


def _firefox_pages(s: Session) -> dict[str, str]:
    msg = s.t("The record is locked by another user.", "Le dossier est verrouillé par un autre utilisateur.")
    pages = {}
    for name, title in (("bio", "Biologie"), ("img", "Imagerie"), ("syn", s.t("Summary", "Synthèse"))):
        body = (
            f"<h1>{title}</h1><p>DURAND Alice — 14/02/1956</p>" + "<p>" + "Lorem ipsum dolor sit amet. " * 20 + "</p>"
        )
        pages[f"{name}.html"] = (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body style='font-family:DejaVu Sans'>{body}<script>const MSG = {json.dumps(msg)};</script>"
            f"{PAGE_SCRIPT}</body></html>"
        )
    return pages


def firefox(s: Session) -> None:
    from rpa_mcp.screens.real import serve

    profile = s.home / "ff-profile"
    shutil.rmtree(profile, ignore_errors=True)
    profile.mkdir()
    prefs = FIREFOX_PREFS | {"intl.locale.requested": "fr" if s.fr else "en-US"}
    (profile / "user.js").write_text(
        "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items()), encoding="utf-8"
    )
    subprocess.run(["chown", "-R", f"{USER}:{USER}", str(profile)], check=True)
    with serve(_firefox_pages(s)) as origin:
        s.run(
            "firefox-esr",
            "--no-remote",
            "--profile",
            str(profile),
            *(f"{origin}/{n}.html" for n in ("bio", "img", "syn")),
        )
        wid = s.wait_window("Firefox", deadline_s=120)
        s.maximize(wid)
        time.sleep(3.0)
        tab_switch_and_close(s, (0, 0, s.config.width, 90), "Imagerie")

        s.click((s.config.width // 2, s.config.height // 2))  # the page has the keyboard
        time.sleep(0.5)
        s.key("a")
        time.sleep(1.2)
        dialog_then_click(s, "alert", "browser-js-alert", OK, "the page's alert")
        time.sleep(0.5)
        s.key("l")
        time.sleep(1.5)
        dialog_then_click(
            s, "leave-site", "browser-leave-site", ("stay on page", "rester sur la page"), "leave the page?"
        )


SCENES["firefox"] = firefox
