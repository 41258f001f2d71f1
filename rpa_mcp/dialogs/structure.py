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
- file chooser: a Save, Open or OK button beside Cancel under a list of files or its columns
  (`rpa_mcp.dialogs.chooser_layout`).
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
    return [line for line in lines if is_label(line, LABELS)]


ICON_LETTER_MIN = 5  # a label this long may start with its icon read as a letter ("XCancel")


def is_label(label: str, words: frozenset[str]) -> bool:
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
    return any(is_label(label, words) for label in labels)


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
    acks = [label for label in labels if is_label(label, ACKNOWLEDGE)]
    if acks and len(labels) <= 2 and all(is_label(label, ACKNOWLEDGE | DETAILS) for label in labels):
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
    kinds = {accept_kind(part) for label in labels for part in _after_cancel(label)}
    return "file-save-as" in kinds and "file-open" not in kinds


def _after_cancel(label: str) -> tuple[str, ...]:
    """The label, and what follows a cancel word it starts with ("CancelSave": "save")."""
    read = compact(label)
    rest = [read[len(word) :] for word in sorted(CANCEL) if read.startswith(word) and len(read) > len(word)]
    return (label, *rest)


def accept_kind(label: str) -> str | None:
    """The chooser an accept button names: Save (a save chooser) or Open; None for any other label."""
    return "file-save-as" if is_label(label, SAVE) else "file-open" if is_label(label, OPEN) else None


def on_row(line: OcrLine, accept: OcrLine) -> bool:
    """`line` stands on the accept button's row (their middles at the same height)."""
    ay, ah = accept.bbox[1], accept.bbox[3]
    return abs((line.bbox[1] + line.bbox[3] / 2) - (ay + ah / 2)) <= ROW_TOLERANCE * ah


def around(evidence: Sequence[OcrLine]) -> tuple[int, int, int, int]:
    """The box holding every line of the evidence."""
    x0, y0 = min(b.bbox[0] for b in evidence), min(b.bbox[1] for b in evidence)
    x1, y1 = max(b.bbox[0] + b.bbox[2] for b in evidence), max(b.bbox[1] + b.bbox[3] for b in evidence)
    return x0, y0, x1 - x0, y1 - y0


def under(cancel: OcrLine, accept: OcrLine) -> bool:
    """`cancel` lies right under `accept`, in its column (a button under the other)."""
    ax, ay, aw, ah = accept.bbox
    cx, cy, cw, _ = cancel.bbox
    return 0 < cy - ay <= 2.5 * ah and abs((cx + cw / 2) - (ax + aw / 2)) <= max(aw, cw)


def names_a_file(label: str) -> bool:
    """A field's label asking for a new file's name: "Nom :", "New File Name:". The file name's field
    alone ("File name:", "Filename:") is in open boxes too: it asks for no new name."""
    read = compact(label)
    if is_label(label, FILE_NAME_FIELD):
        return False
    return label.strip().endswith(":") and any(read == w or read.endswith(w) for w in NAME_FIELD if len(w) >= 3)


def file_name_field(text: str) -> bool:
    """The file name's field label, read alone or with what the field shows ("Filename: /home/")."""
    text = text.strip()
    return is_label(text, FILE_NAME_FIELD) or (":" in text and is_label(text.split(":", 1)[0], FILE_NAME_FIELD))


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
