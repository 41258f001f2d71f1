"""Generic kinds told by the shape of a dialog, in any application, toolkit or layout.

When no catalog entry's words name a dialog, what it asks still shows in its buttons and layout:
- save changes: a save button beside a discard one ("Don't Save", "Discard All", "Ne pas enregistrer"),
  a discard or quit button beside Cancel under words of changes not saved ("Lose Changes", "Quit Anyway"),
  a question to quit or exit the program answered OK/Cancel, Yes/No or Exit/Cancel ("Exit from the editor?":
  what is not saved is lost), or a question that asks to save, answered yes/no or OK/cancel
  ('Enregistrer "(sans titre)" ?', "Save report.txt?");
- deletion: a question naming a deletion, answered yes/no, delete/cancel or OK/cancel;
- credentials: a Cancel button under words asking for a password, passphrase or PIN;
- overwrite: words saying a file already exists, answered replace / skip / cancel or yes / no (one
  answer read is enough); "already" alone with a Replace button;
- error: one acknowledgement button (OK, Close) with an error icon (a red disc) or an error word
  (a failure, a file that does not exist or a request to choose an existing one, what is not
  permitted, not supported, not valid or corrupt, rights that fall short, an operation broken off);
- file chooser: a Save, Open or OK button beside Cancel on one row, under a list of files (names
  with an extension, each file once: a title or a sentence naming a file again is that file), or the
  Name / Size / Type / Modified columns; Save gives `file-save-as`, Open
  `file-open`, OK `file-save-as` when a new name's field is labelled above ("New File Name:", not
  the "File name:" of open boxes too) or a "Save As" / "Save To" title is (the band above the
  chooser read on its own when the whole frame missed a faint title bar), else `file-open`; an
  accept button greyed out (not read): Cancel right under the file name's field, the same way; a
  header bar (GNOME's dialogs): Cancel at the left end of the title row, Save or Open at its right
  end, the list of files under them.
A button's icon read as one letter before its label ("XCancel"), run into its first letter ("Quvrir"),
or read as a glyph of another script ("企OK"), still reads as that label; two buttons side by side read as
one label with a wide gap between them ("Ajoute à la file d'attente  Annuler") read as both.
Words are compared accent-, case- and punctuation-free, in English, French, German, Spanish and
Italian. Each rule names a generic kind, all `pause`: it decides nothing a person would not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rpa_mcp.dialogs.matching import compact
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrLine


def _words(*items: str) -> frozenset[str]:
    return frozenset(compact(i) for i in items)


SAVE = _words("save", "save all", "save as", "enregistrer", "enregistrer tout", "tout enregistrer", "speichern",
              "alle speichern", "guardar", "salva", "salvare")  # fmt: skip
DISCARD = _words(
    "don't save", "do not save", "discard", "discard all", "discard changes", "close without saving",
    "quit without saving", "close anyway", "ne pas enregistrer", "ne pas sauvegarder", "ne pas tenir compte",
    "fermer sans enregistrer", "fermer sans sauvegarder",
    "quitter sans enregistrer", "ignorer", "ignorer tout", "abandonner", "rejeter", "nicht speichern",
    "lose changes", "abandonner les modifications", "perdre les modifications",
    "verwerfen", "no guardar", "descartar", "non salvare", "scarta",
)  # fmt: skip
# "Valider": GTK's French label of its OK button
ACKNOWLEDGE = _words("ok", "valider", "close", "fermer", "dismiss", "got it", "d'accord", "compris", "schliessen",
                     "cerrar", "aceptar", "chiudi")  # fmt: skip
DETAILS = _words("details", "show details", "détails", "afficher les détails", "einzelheiten", "detalles", "dettagli")
YES_NO = (_words("yes", "oui", "ja", "si", "sì"), _words("no", "non", "nein"))
DELETE_CANCEL = (
    _words("delete", "remove", "move to trash", "supprimer", "effacer", "mettre à la corbeille", "löschen",
           "eliminar", "borrar", "elimina"),
    _words("cancel", "annuler", "keep", "conserver", "abbrechen", "cancelar", "annulla"),
)  # fmt: skip
CANCEL = _words("cancel", "annuler", "abbrechen", "cancelar", "annulla", "cancel operation", "annuler l'opération")
OK_CANCEL = (_words("ok"), CANCEL)  # "Move file ... to trash can?" OK / Cancel
# a question to quit answered by leaving ("Your data is not saved. ... exit?" Exit / Cancel)
LEAVE_CANCEL = (_words("exit", "quit", "quitter", "terminer", "beenden", "salir", "esci", "exit anyway",
                       "quit anyway", "quitter quand même"), CANCEL)  # fmt: skip
# leaving whatever is not saved ("Quit Anyway" under "You have unsaved documents"): a discard button
LEAVE_ANYWAY = _words("quit anyway", "exit anyway", "quitter quand même", "quitter malgré tout")
# the kinds a question names with its own words: a file chooser read from the same buttons is not one
QUESTIONS = frozenset({"app-save-changes", "app-file-overwrite", "app-confirm-delete", "app-credential-prompt"})
REPLACE = _words("replace", "replace all", "overwrite", "overwrite all", "remplacer", "tout remplacer",
                 "remplacer tout", "écraser", "écraser tout", "ersetzen", "überschreiben", "reemplazar", "sobrescribir",
                 "sostituisci", "sovrascrivi")  # fmt: skip
SKIP = _words("skip", "skip all", "ignorer", "ignorer tout", "überspringen", "omitir", "saltar", "ignora", "salta")
OPEN = _words("open", "ouvrir", "select", "sélectionner", "choose", "choisir", "upload", "charger", "insert",
              "insérer", "öffnen", "abrir", "apri")  # fmt: skip
# word stems, searched in the compact text of the dialog's lines
DELETION = ("delete", "remove", "erase", "trash", "supprim", "effac", "corbeille", "losch", "elimin", "borrar",
            "cancellar")  # fmt: skip
ERROR = (
    "error", "erreur", "failed", "failure", "echec", "echoue", "couldnot", "couldnt", "cannot", "unableto",
    "impossible", "napaspu", "nontpaspu", "nepeutpas", "denied", "refuse", "notfound", "introuvable", "fehler",
    "fehlgeschlagen", "konntenicht", "nosepudo", "errore", "invalid",
    # a file that is not there, or a request for one that is
    "doesnotexist", "doesntexist", "nexistepas", "existiertnicht", "noexiste", "nonesiste", "existingfile",
    "fichierexistant", "nosuchfile",
    # what may not be done, read or understood
    "notpermitted", "notallowed", "nonautorise", "nestpasautorise", "permissions", "notsupported", "unsupported",
    "pasprisencharge", "nonprisencharge", "notavalid", "pasvalide", "nonvalide", "corrupt", "corrompu",
    "unreadable", "illisible", "unlesbar", "ilegible", "illeggibile",
    # rights or room that fall short, an operation broken off ("Droits insuffisants", "a été interrompue")
    "insufficient", "insuffisant", "unzureichend", "insuficiente", "insufficiente", "interrupted", "interrompu",
    "abgebrochen", "interrumpid", "interrott",
)  # fmt: skip
# a file that already exists, or the question to overwrite it
EXISTS = ("alreadyexists", "alreadyexist", "alreadyhasafile", "existedeja", "existentdeja", "contientdeja",
          "existiertbereits", "yaexiste", "esistegia", "overwrite", "ecraser", "lecraser", "remplacerle",
          "replaceit", "replacethefile")  # fmt: skip
# a question to leave the program ("Exit from ...?", "Voulez-vous quitter ?")
QUIT = ("quit", "exit", "quitter", "beenden", "salir", "uscire", "esci")
# the verb of a question to save something ('Enregistrer "notes" ?', "Do you want to save notes.txt?")
SAVE_VERBS = _words("save", "enregistrer", "sauvegarder", "speichern", "guardar", "salvare", "salva")
# a title that warns ("VIM - ATTENTION", "Warning", "Avertissement"): a dialog of its own, whatever it asks
WARNING = _words("warning", "attention", "avertissement", "caution", "achtung", "warnung", "advertencia",
                 "atención", "attenzione", "avviso")  # fmt: skip
TITLE_MAX_WORDS = 4
# a title's word naming an error ("Error messages", "Erreur", "Fehler"): a noun, not a stem of ERROR's sentences
ERROR_TITLE = ("error", "erreur", "fehler", "errore", "failure", "echec")
# changes not saved, or about to be lost
UNSAVED = ("notsaved", "notbeensaved", "unsaved", "willbelost", "losethesechanges", "loseyourchanges",
           "pasenregistre", "paseteenregistre", "nonenregistre", "serontperdues", "perdrecesmodifications",
           "perdrevosmodifications", "nichtgespeichert", "noguardado", "nonsalvat")  # fmt: skip
# the labels of buttons that answer a question (a title naming an error over them asks something)
QUESTION_LABELS = (
    SAVE
    | DISCARD
    | YES_NO[0]
    | YES_NO[1]
    | DELETE_CANCEL[0]
    | DELETE_CANCEL[1]
    | CANCEL
    | REPLACE
    | SKIP
    | OPEN
    | LEAVE_CANCEL[0]
)
ALREADY = ("already", "deja", "bereits")
CREDENTIAL = ("password", "motdepasse", "passphrase", "phrasesecrete", "passwort", "kennwort", "contrasena",
              "pincode", "codepin", "codesecret")  # fmt: skip
COLUMNS = _words(
    "name", "nom", "size", "taille", "type", "modified", "modifié", "accessed", "accédé", "location", "emplacement",
    "date", "größe", "geändert", "nombre", "tamaño", "modificado", "dimensione", "modificato",
)  # fmt: skip
OK_ONLY = _words("ok", "valider")
NAME_FIELD = _words(
    "name", "nom", "file name", "nom du fichier", "dateiname", "nombre", "nome"
)  # a label ending in ":"
FILE_NAME = re.compile(r"\S\.[A-Za-z0-9]{2,5}$")
FILE_NAME_FIELD = _words(
    "file name:", "filename:", "nom du fichier :", "nom de fichier :", "dateiname:", "nombre de archivo:",
    "nombre:", "nome file:", "nome del file:",
)  # fmt: skip
SAVE_AS = ("saveas", "savefileas", "saveto", "enregistrersous", "speichernunter", "guardarcomo", "salvacome")

ROW_TOLERANCE = 0.8  # of a button line's height: two labels on one row
CHOOSER_BUTTON_GAP = 520  # px at 1080 rows: Save and Cancel of one chooser lie this close
CHOOSER_LIST_W = 1400  # px at 1080 rows: the file list lies within this of the buttons, to their left
MIN_FILES = 2
MIN_COLUMNS = 2


@dataclass(frozen=True)
class Shape:
    kind: str  # a generic id
    why: str
    decisive: bool = False  # no other generic kind shows it (a file chooser has no "Don't Save" button)


LABELS = (
    SAVE
    | DISCARD
    | ACKNOWLEDGE
    | DETAILS
    | YES_NO[0]
    | YES_NO[1]
    | DELETE_CANCEL[0]
    | DELETE_CANCEL[1]
    | REPLACE
    | SKIP
)


def labels_among(lines: Sequence[str]) -> list[str]:
    """The lines that read as a button these rules know (a button drawn flat reads as a text line)."""
    return [line for line in lines if _is(line, LABELS)]


ICON_LETTER_MIN = 5  # a label this long may start with its icon read as a letter ("XCancel")


def _is(label: str, words: frozenset[str]) -> bool:
    read = compact(label)
    # an icon read as a glyph of another script before the label ("企OK") is no part of it
    bare = read.lstrip("".join({c for c in read if not (c.isascii() and c.isalnum())}))
    if read in words or bare in words:
        return True
    if len(read) < ICON_LETTER_MIN:
        return False
    # an icon read as a letter before the label ("XCancel"), or run into its first letter ("Quvrir")
    return read[1:] in words or any(len(w) == len(read) and w[1:] == read[1:] for w in words)


def _parts(label: str) -> list[str]:
    """A button's label, or the labels of two buttons side by side whose frames touch, read as one with a
    wide gap between them ("Ajoute à la file d'attente  Annuler"): each part, and the whole."""
    parts = [part for part in re.split(r"\s{2,}", label.strip()) if part]
    return [label, *parts] if len(parts) > 1 else [label]


def _any(labels: Sequence[str], words: frozenset[str]) -> bool:
    return any(_is(label, words) for label in labels)


def kind_of(labels: Sequence[str], lines: Sequence[str], error_icon: Callable[[], bool]) -> Shape | None:
    """The generic kind a dialog's button labels and text lines show, if any. `error_icon` is
    called only when the buttons could be an error's (it looks at pixels)."""
    labels = [part for label in labels if compact(label) for part in _parts(label)]
    if _any(labels, SAVE) and _any(labels, DISCARD):
        return Shape("app-save-changes", "a save button beside a discard button", decisive=True)
    text = compact(" ".join(lines))
    # one answer read is enough ("Oui" may read "Qui"): what decides is the question
    exists = any(stem in text for stem in EXISTS)
    # a Replace button needs less: "A file named ... already" (the line after it not read yet)
    if (exists and _any(labels, REPLACE | YES_NO[0] | YES_NO[1] | CANCEL | SKIP)) or (
        any(stem in text for stem in ALREADY) and _any(labels, REPLACE)
    ):
        return Shape("app-file-overwrite", "words of a file that exists, answered replace, skip or no", decisive=True)
    discard = _any(labels, DISCARD | LEAVE_ANYWAY)
    if discard and _any(labels, CANCEL) and any(stem in text for stem in UNSAVED):
        return Shape("app-save-changes", "a discard or quit button beside cancel under words of changes not saved")
    names_deletion = any(stem in text for stem in DELETION)
    pairs = [(a, b) for a, b in (YES_NO, DELETE_CANCEL, OK_CANCEL) if _any(labels, a) and _any(labels, b)]
    if names_deletion and pairs:
        return Shape("app-confirm-delete", "a question naming a deletion, answered yes/no, delete/cancel or ok/cancel")
    leave = _any(labels, LEAVE_CANCEL[0]) and _any(labels, LEAVE_CANCEL[1])
    if (pairs or leave) and any(stem in text for stem in QUIT) and any("?" in line for line in lines):
        return Shape("app-save-changes", "a question to quit the program, answered ok/cancel, yes/no or exit/cancel")
    if _any(labels, CANCEL) and any(stem in text for stem in CREDENTIAL):
        return Shape("app-credential-prompt", "a Cancel button under words asking for a password")
    if pairs and any(_asks_to_save(line) for line in lines):
        return Shape("app-save-changes", "a question to save, answered yes/no or ok/cancel")
    acks = [label for label in labels if _is(label, ACKNOWLEDGE)]
    if acks and len(labels) <= 2 and all(_is(label, ACKNOWLEDGE | DETAILS) for label in labels):
        if any(stem in text for stem in ERROR):
            return Shape("app-error", "one acknowledgement button under words of an error")
        if error_icon():
            return Shape("app-error", "one acknowledgement button beside an error icon")
    if labels and titled_as_error(lines) and not _any(labels, QUESTION_LABELS):
        return Shape("app-error", "a title naming an error, over buttons that answer no question")
    return None


def _asks_to_save(line: str) -> bool:
    """A question whose verb is to save: the save verb as a word of a line that ends with "?"."""
    words = [compact(w) for w in line.replace("'", " ").split()]
    return line.rstrip().endswith("?") and any(w in SAVE_VERBS for w in words)


def titled_as_error(lines: Sequence[str]) -> bool:
    """A short line (a title: "Xfig: Error messages", not a sentence that mentions an error) whose words
    name an error."""
    for line in lines:
        words = [compact(w) for w in line.replace("-", " ").replace(":", " ").split()]
        if 0 < len(words) <= TITLE_MAX_WORDS and any(w.startswith(ERROR_TITLE) for w in words):
            return True
    return False


def titled_as_warning(lines: Sequence[str]) -> bool:
    """A short line (a title, not a sentence that mentions a warning) with a warning word in it."""
    for line in lines:
        words = [compact(w) for w in line.replace("-", " ").replace(":", " ").split()]
        if 0 < len(words) <= TITLE_MAX_WORDS and any(w in WARNING for w in words):
            return True
    return False


def accepts_to_save(labels: Sequence[str]) -> bool:
    """A chooser's buttons hold an accept button that saves and none that opens (Cancel / Save); GTK 4
    draws its chooser's Cancel and accept buttons touching: "CancelSave", read as one, counts as both."""
    kinds = {_accept_kind(part) for label in labels for part in _after_cancel(label)}
    return "file-save-as" in kinds and "file-open" not in kinds


def _after_cancel(label: str) -> tuple[str, ...]:
    """The label, and what follows a cancel word it starts with ("CancelSave": "save")."""
    read = compact(label)
    rest = [read[len(word) :] for word in sorted(CANCEL) if read.startswith(word) and len(read) > len(word)]
    return (label, *rest)


def _accept_kind(label: str) -> str | None:
    """The chooser an accept button names: Save (a save chooser) or Open; None for any other label."""
    return "file-save-as" if _is(label, SAVE) else "file-open" if _is(label, OPEN) else None


def _on_row(line: OcrLine, accept: OcrLine) -> bool:
    """`line` stands on the accept button's row (their middles at the same height)."""
    ay, ah = accept.bbox[1], accept.bbox[3]
    return abs((line.bbox[1] + line.bbox[3] / 2) - (ay + ah / 2)) <= ROW_TOLERANCE * ah


def _around(evidence: Sequence[OcrLine]) -> tuple[int, int, int, int]:
    """The box holding every line of the evidence."""
    x0, y0 = min(b.bbox[0] for b in evidence), min(b.bbox[1] for b in evidence)
    x1, y1 = max(b.bbox[0] + b.bbox[2] for b in evidence), max(b.bbox[1] + b.bbox[3] for b in evidence)
    return x0, y0, x1 - x0, y1 - y0


def _under(cancel: OcrLine, accept: OcrLine) -> bool:
    """`cancel` lies right under `accept`, in its column (a button under the other)."""
    ax, ay, aw, ah = accept.bbox
    cx, cy, cw, _ = cancel.bbox
    return 0 < cy - ay <= 2.5 * ah and abs((cx + cw / 2) - (ax + aw / 2)) <= max(aw, cw)


def names_a_file(label: str) -> bool:
    """A field's label asking for a new file's name: "Nom :", "New File Name:". The file name's field
    alone ("File name:", "Filename:") is in open boxes too: it asks for no new name."""
    read = compact(label)
    if _is(label, FILE_NAME_FIELD):
        return False
    return label.strip().endswith(":") and any(read == w or read.endswith(w) for w in NAME_FIELD if len(w) >= 3)


def file_name_field(text: str) -> bool:
    """The file name's field label, read alone or with what the field shows ("Filename: /home/")."""
    text = text.strip()
    return _is(text, FILE_NAME_FIELD) or (":" in text and _is(text.split(":", 1)[0], FILE_NAME_FIELD))


def save_title(text: str) -> bool:
    """A title that starts with the save verb and names what is saved ("Save Image File", "Enregistrer
    l'image"); a toolbar read as one line ("Save Save Undo") holds the verb twice: no title."""
    words = [compact(w) for w in text.replace("'", " ").split()]
    return 2 <= len(words) <= 4 and words[0] in SAVE and not any(w in SAVE for w in words[1:])


def ok_kind(above: Sequence[OcrLine]) -> str:
    """The kind of a chooser whose accept button names no action (OK, or greyed out): a new name to
    type ("New File Name:") or a save title ("Save As", "Save To:", "Save Image File") makes it a save
    chooser."""
    named = any(
        names_a_file(line.text) or any(s in compact(line.text) for s in SAVE_AS) or save_title(line.text)
        for line in above
    )
    return "file-save-as" if named else "file-open"


@dataclass(frozen=True)
class Chooser:
    kind: str  # file-save-as | file-open
    bbox: BBox
    buttons: tuple[OcrLine, ...]
    why: str
    guessed: bool = False  # no accept button names the action (OK, greyed out): the words above tell it


TITLE_BAND_H = 160  # px at 1080 rows above a chooser's list where its own title bar lies


def title_band(chooser: BBox, frame_height: int) -> BBox:
    """The band above a chooser's list and buttons, as wide: its path field, its title bar."""
    x, y, w, _ = chooser
    band = round(TITLE_BAND_H * max(1.0, frame_height / 1080))
    top = max(0, y - band)
    return (x, top, w, y - top)


def listed_file(text: str) -> bool:
    """A line naming a file as a chooser lists it: a web address ("http://host/bio.html", read "http:/host"
    as often: a browser's address bar or a page dialog's title) names a page, never a listed file."""
    return FILE_NAME.search(text.strip()) is not None and ":/" not in text


def listed_files(lines: Sequence[OcrLine]) -> list[OcrLine]:
    """The lines naming files as a chooser lists them, each file once: a list names several files, while a
    question about one file names it again in its title or its sentence ("Opening compte-rendu.txt" over
    "compte-rendu.txt": one file, a download's question, no list)."""
    files = [line for line in lines if listed_file(line.text)]
    kept = each_file_once([line.text for line in files])
    return [line for i, line in enumerate(files) if i in kept]


def each_file_once(texts: Sequence[str]) -> set[int]:
    """The indexes of `texts` (each naming a file) that name each file once: a name read again, or said
    within a sentence or a title ending with it, is the same file."""
    names = [" ".join(text.lower().split()) for text in texts]
    return {
        i
        for i, name in enumerate(names)
        if name not in names[:i] and not any(name.endswith(f" {other}") for other in names)
    }


def file_chooser(read: Sequence[OcrLine], frame_height: int) -> Chooser | None:
    """A file chooser among the lines of a whole frame: an accept button (Save / Open) beside Cancel on
    one row, under a list of files or the columns of one."""
    scale = max(1.0, frame_height / 1080)
    short = [line for line in read if len(line.text) <= 24]
    for accept in short:
        kind = _accept_kind(accept.text)
        if kind is None and not _is(accept.text, OK_ONLY):
            continue
        ax, ay, aw, _ = accept.bbox
        cancel = next(
            (
                c
                for c in short
                if _is(c.text, CANCEL) and _on_row(c, accept) and abs(c.bbox[0] - ax) <= CHOOSER_BUTTON_GAP * scale
            ),
            None,
        )
        # a Win32 chooser stacks its buttons: Cancel right under the accept button, whose row starts
        # with the file name's field ("File name:", "Nom du fichier :")
        stacked = (
            None if cancel is not None else next((c for c in short if _is(c.text, CANCEL) and _under(c, accept)), None)
        )
        name_field = [
            line for line in read if _is(line.text, FILE_NAME_FIELD) and line.bbox[0] < ax and _on_row(line, accept)
        ]
        cancel = cancel or (stacked if name_field else None)
        if cancel is None:
            continue
        left = min(ax, cancel.bbox[0]) - CHOOSER_LIST_W * scale
        right = max(ax + aw, cancel.bbox[0] + cancel.bbox[2]) + 40 * scale
        above = [line for line in read if line.bbox[1] + line.bbox[3] <= ay and left <= line.bbox[0] <= right]
        files = listed_files(above)
        columns = _columns(above)
        if len(files) < MIN_FILES and len(columns) < MIN_COLUMNS and not (cancel is stacked and name_field):
            continue
        above += name_field
        guessed = kind is None
        kind = kind or ok_kind(above)
        evidence = [*files, *columns, *name_field, accept, cancel]
        listed = (
            f"under {len(files)} file names"
            if len(files) >= MIN_FILES
            else "under the columns of a file list"
            if len(columns) >= MIN_COLUMNS
            else f"beside the field '{name_field[0].text.strip()}'"
        )
        where = "above" if cancel is stacked else "beside"
        why = f"'{accept.text.strip()}' {where} '{cancel.text.strip()}' {listed}"
        return Chooser(kind, _around(evidence), (accept, cancel), why, guessed)
    return _greyed_chooser(read, short, scale) or _header_bar_chooser(read, short, scale)


def _greyed_chooser(read: Sequence[OcrLine], short: Sequence[OcrLine], scale: float) -> Chooser | None:
    """A chooser whose accept button is greyed out until a file is picked (not read): Cancel right
    under the file name's field, under a list of files."""
    for cancel in (c for c in short if _is(c.text, CANCEL)):
        cx, cy, cw, ch = cancel.bbox
        field = next(
            (
                line
                for line in read
                if file_name_field(line.text)
                and line.bbox[0] < cx
                and 0 < cy - line.bbox[1] <= 3 * max(ch, line.bbox[3])
            ),
            None,
        )
        if field is None:
            continue
        left, right = cx - CHOOSER_LIST_W * scale, cx + cw + 40 * scale
        above = [
            line for line in read if line.bbox[1] + line.bbox[3] <= field.bbox[1] and left <= line.bbox[0] <= right
        ]
        files = listed_files(above)
        if len(files) < MIN_FILES and len(_columns(above)) < MIN_COLUMNS:
            continue
        evidence = [*files, field, cancel]
        why = f"'{cancel.text.strip()}' under the field '{field.text.strip()}', its accept button greyed out"
        return Chooser(ok_kind([*above, field]), _around(evidence), (cancel,), why, guessed=True)
    return None


def _header_bar_chooser(read: Sequence[OcrLine], short: Sequence[OcrLine], scale: float) -> Chooser | None:
    """A chooser with a header bar (GNOME's dialogs): Cancel at the left end of its title row, Save or
    Open at the right end, however wide the dialog, and the list of files under them."""
    for accept in short:
        kind = _accept_kind(accept.text)
        if kind is None:
            continue
        ax, ay, aw, ah = accept.bbox
        cancel = next(
            (
                c
                for c in short
                if _is(c.text, CANCEL) and _on_row(c, accept) and 0 < ax - c.bbox[0] <= CHOOSER_LIST_W * scale
            ),
            None,
        )
        if cancel is None:
            continue
        left, right = cancel.bbox[0] - 40 * scale, ax + aw + 40 * scale
        below = [
            line
            for line in read
            if ay + ah <= line.bbox[1] <= ay + CHOOSER_LIST_W * scale and left <= line.bbox[0] <= right
        ]
        files = listed_files(below)
        columns = _columns(below)
        if len(files) < MIN_FILES and len(columns) < MIN_COLUMNS:
            continue
        evidence = [*files, *columns, accept, cancel]
        listed = f"{len(files)} file names" if len(files) >= MIN_FILES else "the columns of a file list"
        why = f"'{cancel.text.strip()}' and '{accept.text.strip()}' at the ends of a header bar over {listed}"
        return Chooser(kind, _around(evidence), (accept, cancel), why)
    return None


def _columns(lines: Sequence[OcrLine]) -> list[OcrLine]:
    """The header of a file list: two or more column names on one row (OCR may read them as one line)."""

    def names(line: OcrLine) -> int:
        return sum(compact(word) in COLUMNS for word in line.text.split())

    heads = [line for line in lines if names(line) and names(line) == len(line.text.split())]
    for head in heads:
        row = [h for h in heads if abs(h.bbox[1] - head.bbox[1]) <= max(6, head.bbox[3] // 2)]
        if sum(names(h) for h in row) >= MIN_COLUMNS:
            return row
    return []
