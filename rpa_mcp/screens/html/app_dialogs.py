"""Desktop applications' dialogs: save prompts, Outlook's reminder, crash and delete boxes, unknown dialogs."""

from __future__ import annotations

from rpa_mcp.screens.html.base import attrs, esc, px
from rpa_mcp.screens.html.windows import WButton, message_box
from rpa_mcp.screens.look import Look


def notepad_save(look: Look, *, file: str, x: float, y: float, primary: bool = True) -> str:
    name = look.t("Notepad", "Bloc-notes")
    question = look.t(
        f"Do you want to save changes to {file}?", f"Voulez-vous enregistrer les modifications apportées à {file} ?"
    )
    if look.win11:
        buttons = [
            WButton("save", look.t("Save", "Enregistrer"), True),
            WButton("dont_save", look.t("Don't save", "Ne pas enregistrer")),
            WButton("cancel", look.t("Cancel", "Annuler")),
        ]
        return message_box(
            look,
            dialog_id="notepad-save-changes",
            title=name,
            instruction=None,
            text=question,
            buttons=buttons,
            x=x,
            y=y,
            w=420,
            modern=True,
            primary=primary,
        )
    buttons = [
        WButton("save", look.t("Save", "Enregistrer"), True),
        WButton("dont_save", look.t("Don't Save", "Ne pas enregistrer")),
        WButton("cancel", look.t("Cancel", "Annuler")),
    ]
    return message_box(
        look,
        dialog_id="notepad-save-changes",
        title=name,
        instruction=question,
        text="",
        buttons=buttons,
        x=x,
        y=y,
        w=380,
        modern=False,
        primary=primary,
    )


def office_save(look: Look, *, doc: str, x: float, y: float) -> str:
    text = look.t(
        "Want to save your changes to this file?", "Voulez-vous enregistrer vos modifications apportées à ce fichier ?"
    )
    extra = f"<div style='margin-top:10px;color:#555'>{esc(doc)}</div>"
    buttons = [
        WButton("save", look.t("Save", "Enregistrer"), True),
        WButton("dont_save", look.t("Don't Save", "Ne pas enregistrer")),
        WButton("cancel", look.t("Cancel", "Annuler")),
    ]
    return message_box(
        look,
        dialog_id="office-save-changes",
        title="Microsoft Word",
        instruction=text,
        text="",
        buttons=buttons,
        x=x,
        y=y,
        w=460,
        modern=look.win11,
        extra=extra,
    )


def outlook_reminder(look: Look, *, subject: str, x: float, y: float, count: int = 1) -> str:
    """Outlook's reminder window ("1 Reminder"): an item list and Dismiss / Snooze."""
    title = look.t(f"{count} Reminder" + ("s" if count > 1 else ""), f"{count} rappel" + ("s" if count > 1 else ""))
    start = look.t("Start time: Wednesday 3/12/2025 11:00 AM", "Heure de début : mercredi 12/03/2025 11:00")
    snooze_text = look.t(
        "Click Snooze to be reminded again in:", "Cliquez sur Répéter pour être de nouveau rappelé dans :"
    )
    btn = "background:#e1e1e1;border:1px solid #adadad;height:23px;min-width:86px;display:flex;align-items:center;justify-content:center"
    body = (
        f"<div class='row' style='gap:10px;padding:10px 12px'><span style='font-size:18px'>⏰</span><div>"
        f"<div {attrs(data_gt='text')} style='font-weight:700'>{esc(subject)}</div><div {attrs(data_gt='text')}>{esc(start)}</div></div></div>"
        f"<div style='margin:0 12px;border:1px solid #a0a0a0;height:80px;background:#fff'>"
        f"<div class='row' style='background:#cce8ff;height:22px;padding:0 6px;gap:30px'><span>{esc(subject)}</span>"
        f"<span>{look.t('Due in 15 minutes', 'Dans 15 minutes')}</span></div></div>"
        f"<div class='row' style='gap:8px;padding:8px 12px;justify-content:flex-end'>"
        f"<span style='{btn}'>{look.t('Dismiss All', 'Tout ignorer')}</span><span style='flex:1'></span>"
        f"<span style='{btn}'>{look.t('Open Item', 'Ouvrir l’élément')}</span>"
        f"<span {attrs(data_gt='button', data_key='dismiss')} style='{btn}'>{look.t('Dismiss', 'Ignorer')}</span></div>"
        f"<div style='padding:0 12px'>{esc(snooze_text)}</div>"
        f"<div class='row' style='gap:8px;padding:6px 12px 12px'><span style='flex:1;border:1px solid #7a7a7a;height:23px;"
        f"background:#fff;padding:3px 6px'>5 minutes</span><span {attrs(data_gt='button', data_key='snooze')} style='{btn}'>"
        f"{look.t('Snooze', 'Répéter')}</span></div>"
    )
    gt = attrs(data_gt="dialog", data_id="outlook-reminder", data_kind="window", data_primary="1")
    return (
        f"<div class='mbx shadow' {gt} style='{px(x, y, 440)}background:#f0f0f0;color:#000;border:1px solid #6f9fd8'>"
        f"<div class='tt' style='background:#fff'><span {attrs(data_gt='title')}>{esc(title)}</span><span class='cx'>&#10005;</span></div>"
        f"{body}</div>"
    )


def app_error(look: Look, *, program: str, x: float, y: float) -> str:
    title = look.t(f"{program} - Application Error", f"{program} - Erreur d'application")
    text = look.t(
        "The instruction at 0x00007FFB2C3E1A5F referenced memory at 0x0000000000000018. The memory could not be read. "
        "Click on OK to terminate the program.",
        "L'instruction à 0x00007FFB2C3E1A5F a fait référence à la mémoire à 0x0000000000000018. La mémoire ne peut pas être "
        "read. Cliquez sur OK pour mettre fin au programme.",
    )
    return message_box(
        look,
        dialog_id="app-error",
        title=title,
        text=text,
        buttons=[WButton("ok", "OK", True)],
        x=x,
        y=y,
        w=470,
        glyph="✕",
        glyph_colour="#d13438",
        modern=False,
    )


def app_confirm_delete(look: Look, *, item: str, x: float, y: float) -> str:
    title = look.t("Confirm Delete", "Confirmer la suppression")
    text = look.t(
        f"Are you sure you want to delete '{item}'? It will be permanently removed.",
        f"Voulez-vous vraiment supprimer « {item} » ? Il sera supprimé définitivement.",
    )
    return message_box(
        look,
        dialog_id="app-confirm-delete",
        title=title,
        text=text,
        buttons=[WButton("accept", look.t("Yes", "Oui"), True), WButton("refuse", look.t("No", "Non"))],
        x=x,
        y=y,
        w=420,
        glyph="?",
        glyph_colour="#1e6fd9",
        modern=False,
    )


def unknown_dialog(look: Look, *, variant: int, x: float, y: float) -> str:
    """Dialogs the catalog does not hold (they must end as `unknown` and pause)."""
    if variant == 0:
        return message_box(
            look,
            dialog_id="unknown",
            title="LABO32",
            text=look.t(
                "Error 0x1F4: cannot reach the results server (srv-labo01). Retry?",
                "Erreur 0x1F4 : impossible de joindre le serveur de résultats (srv-labo01). Réessayer ?",
            ),
            buttons=[
                WButton("retry", look.t("Retry", "Réessayer"), True),
                WButton("cancel", look.t("Cancel", "Annuler")),
            ],
            x=x,
            y=y,
            w=430,
            glyph="!",
            glyph_colour="#d89b00",
            modern=False,
        )
    if variant == 1:
        return message_box(
            look,
            dialog_id="unknown",
            title="ViewerPro DICOM",
            instruction=look.t("Update available", "Mise à jour disponible"),
            text=look.t(
                "Version 8.4.2 of ViewerPro is ready to install.",
                "La version 8.4.2 de ViewerPro est prête à être installée.",
            ),
            buttons=[
                WButton("install", look.t("Install now", "Installer maintenant"), True),
                WButton("later", look.t("Later", "Plus tard")),
            ],
            x=x,
            y=y,
            w=440,
            modern=look.win11,
        )
    return message_box(
        look,
        dialog_id="unknown",
        title="Confirmation",
        text=look.t("Do you want to continue?", "Voulez-vous continuer ?"),
        buttons=[WButton("ok", "OK", True), WButton("cancel", look.t("Cancel", "Annuler"))],
        x=x,
        y=y,
        w=360,
        glyph="?",
        modern=False,
    )
