"""Generic prompts of applications the catalog does not name: a text editor's or an office suite's
save-changes prompt, a delete confirmation, an error, a password box, a file chooser.

Their words are the words of application-bound entries ("Enregistrer les modifications",
"Enregistré"...): they test that such an entry is never taken outside its application.
Options: `kind` (a key of PROMPTS), `host` (`editor` or `office`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rpa_mcp.screens.html import apps
from rpa_mcp.screens.html.windows import WButton, message_box
from rpa_mcp.screens.look import Look
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose
from rpa_mcp.screens.scenes.dialogs.common import centre


@dataclass(frozen=True)
class Prompt:
    dialog_id: str
    title: tuple[str, str]  # en, fr
    text: tuple[str, str]
    buttons: tuple[tuple[str, str, str], ...]  # key, en, fr


PROMPTS: dict[str, Prompt] = {
    "save-changes": Prompt(
        "app-save-changes",
        ("Save changes?", "Enregistrer les modifications ?"),
        (
            "Save changes to document “rapport” before closing? If you don't save, changes will be lost.",
            "Enregistrer les modifications du document « rapport » avant de fermer ? Si vous n'enregistrez pas, "
            "les modifications seront perdues.",
        ),
        (
            ("save", "Save", "Enregistrer"),
            ("dont_save", "Don't Save", "Ne pas enregistrer"),
            ("cancel", "Cancel", "Annuler"),
        ),
    ),
    "saved-notice": Prompt(
        "app-save-changes",
        ("Save changes?", "Enregistrer les modifications ?"),
        (
            "The document has been saved in an older format. Save changes in the current format?",
            "Le document a été enregistré dans un ancien format. Enregistrer les modifications au format actuel ?",
        ),
        (
            ("save", "Save", "Enregistrer"),
            ("dont_save", "Don't Save", "Ne pas enregistrer"),
            ("cancel", "Cancel", "Annuler"),
        ),
    ),
    "confirm-delete": Prompt(
        "app-confirm-delete",
        ("Delete file?", "Supprimer le fichier ?"),
        (
            "Are you sure you want to delete “rapport.odt”? It will be permanently deleted.",
            "Voulez-vous vraiment supprimer « rapport.odt » ? Il sera supprimé définitivement.",
        ),
        (("refuse", "Cancel", "Annuler"), ("accept", "Delete", "Supprimer")),
    ),
    "error": Prompt(
        "app-error",
        ("Error", "Erreur"),
        (
            "An error occurred while saving the document. Error code 0x80070005.",
            "Une erreur s'est produite lors de l'enregistrement du document. Code d'erreur 0x80070005.",
        ),
        (("ok", "OK", "OK"),),
    ),
    "credential": Prompt(
        "app-credential-prompt",
        ("Authentication required", "Authentification requise"),
        (
            "Enter the password to open “rapport.odt”. Password:",
            "Saisissez le mot de passe pour ouvrir « rapport.odt ». Mot de passe :",
        ),
        (("cancel", "Cancel", "Annuler"), ("ok", "OK", "OK")),
    ),
}


def other_app_prompt(ctx: Ctx) -> Scene:
    look = ctx.look
    kind = str(ctx.options.get("kind") or ctx.rng.choice(sorted(PROMPTS)))
    host = str(ctx.options.get("host") or ctx.rng.choice(("editor", "office")))
    prompt = PROMPTS[kind]
    x0, y0, w0, h0 = ctx.screen_w * 0.08, ctx.work_h * 0.05, ctx.screen_w * 0.8, ctx.work_h * 0.85
    if host == "office":
        window = apps.word_window(look, x=x0, y=y0, w=w0, h=h0, doc="rapport")
        window_title, process = "rapport.odt - LibreOffice Writer", "soffice.bin"
    else:
        text = look.t("Report of the day.\nTo be completed.", "Compte rendu du jour.\nÀ compléter.")
        window = apps.notepad_window(look, x=x0, y=y0, w=w0, h=h0, file="rapport", text=text, modified=True)
        window_title, process = look.t("*rapport - Text Editor", "*rapport - Éditeur de texte"), "gedit"
    x, y = centre(ctx, 460, 190)
    dialog = _box(look, prompt, x, y)
    return Scene(
        look,
        compose(ctx, window + dialog),
        window_title=window_title,
        process=process,
        dialog_id=prompt.dialog_id,
        description=f"another application's prompt ({kind}, {host})",
    )


def _box(look: Look, prompt: Prompt, x: float, y: float) -> str:
    return message_box(
        look,
        dialog_id=prompt.dialog_id,
        title=look.t(*prompt.title),
        text=look.t(*prompt.text),
        buttons=[
            WButton(key, look.t(en, fr), i == len(prompt.buttons) - 1) for i, (key, en, fr) in enumerate(prompt.buttons)
        ],
        x=x,
        y=y,
        w=460,
        modern=look.win11,
    )
