"""The Easily web application's own dialogs and toast (category C)."""

from __future__ import annotations

from rpa_mcp.screens.html import easily
from rpa_mcp.screens.html.browser import browser_process
from rpa_mcp.screens.pools import DOCUMENTS, DRUGS, FIELDS
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose, maximised, patient
from rpa_mcp.screens.scenes.dialogs.common import web_host


# --- C: Easily ------------------------------------------------------------------------------------
def _easily_modal(
    ctx: Ctx,
    dialog_id: str,
    title: str,
    text: str,
    buttons: list[easily.Button],
    *,
    icon: str = "",
    accent: str = "",
    extra: str = "",
    width: float = 480,
    page_key: str = "observation",
) -> Scene:
    look = ctx.look
    geo = maximised(ctx)
    modal = easily.modal(
        look,
        dialog_id=dialog_id,
        title=title,
        text=text,
        buttons=buttons,
        page_w=geo.page_w,
        page_h=geo.page_h,
        width=width,
        icon=icon,
        accent=accent,
        extra=extra,
        dx=ctx.jitter(60),
        dy=-40 + ctx.jitter(40),
    )
    html, window_title = web_host(ctx, page_overlay=modal, page_key=page_key)
    return Scene(
        look,
        compose(ctx, html, front_app=look.browser),
        window_title=window_title,
        process=browser_process(look),
        dialog_id=dialog_id,
        description=f"Easily: {title}",
    )


def easily_save_confirm(ctx: Ctx) -> Scene:
    look = ctx.look
    who = patient(ctx)
    variant = ctx.rng.randrange(2) if not ctx.canonical else 0
    if variant == 0:
        title = look.t("Confirm save", "Confirmer l'enregistrement")
        text = look.t(
            "Do you confirm saving the note of 3/12/2025?",
            "Confirmez-vous l'enregistrement de l'observation du 12/03/2025 ?",
        )
    else:
        title = look.t("Save changes", "Enregistrer les modifications")
        text = look.t(
            f"Do you confirm saving the changes to {who.name}'s record?",
            f"Confirmez-vous l'enregistrement des modifications du dossier de {who.name} ?",
        )
    buttons = [
        easily.Button("cancel", look.t("Cancel", "Annuler")),
        easily.Button("confirm", look.t("Confirm", "Confirmer"), "pri"),
    ]
    return _easily_modal(ctx, "easily-save-confirm", title, text, buttons)


def easily_toast(ctx: Ctx) -> Scene:
    look = ctx.look
    geo = maximised(ctx)
    what = ctx.rng.choice(
        (
            look.t("The note has been saved.", "L'observation a été enregistrée."),
            look.t("The prescription has been saved.", "La prescription a été enregistrée."),
            look.t("The record has been saved.", "Le dossier a été enregistré."),
        )
    )
    toast = easily.toast(
        look,
        title=look.t("Saved", "Enregistré"),
        text=what,
        page_w=geo.page_w,
        top=16 + ctx.jitter(8),
        right=24 + ctx.jitter(10),
    )
    html, title = web_host(ctx, page_overlay=toast, page_key="observation")
    return Scene(
        look,
        compose(ctx, html, front_app=look.browser),
        window_title=title,
        process=browser_process(look),
        dialog_id="easily-toast-saved",
        description="Easily 'saved' toast",
    )


def easily_required(ctx: Ctx) -> Scene:
    look = ctx.look
    fr, en = ctx.pick(FIELDS)
    text = look.t(f"The field '{en}' is required.", f"Le champ « {fr} » est obligatoire.")
    return _easily_modal(
        ctx,
        "easily-required-field",
        look.t("Required field", "Champ obligatoire"),
        text,
        [easily.Button("ok", "OK", "pri")],
        icon="⚠",
        accent="#d89b00",
        width=420,
    )


def easily_clinical(ctx: Ctx) -> Scene:
    look = ctx.look
    drug_fr, cls_fr, drug_en, cls_en = ctx.pick(DRUGS)
    variant = ctx.rng.randrange(3) if not ctx.canonical else 0
    title = (
        look.t("Allergy alert", "Alerte allergie"),
        look.t("Drug interaction", "Interaction médicamenteuse"),
        look.t("Clinical warning", "Alerte clinique"),
    )[variant]
    text = look.t(
        f"The patient is allergic to {cls_en}. Contraindication: {drug_en}.",
        f"Le patient est allergique aux {cls_fr}. Contre-indication : {drug_fr}.",
    )
    buttons = [
        easily.Button("cancel", look.t("Cancel", "Annuler"), "pri"),
        easily.Button("override", look.t("Override", "Passer outre"), "danger"),
    ]
    return _easily_modal(
        ctx,
        "easily-clinical-warning",
        title,
        text,
        buttons,
        icon="⛔",
        accent="#c62828",
        width=500,
        page_key="synthese",
    )


def easily_session(ctx: Ctx) -> Scene:
    look = ctx.look
    variant = ctx.rng.randrange(2) if not ctx.canonical else 0
    title = (look.t("Session expired", "Session expirée"), look.t("Sign-in required", "Reconnexion requise"))[variant]
    text = look.t(
        "Your session has expired after 20 minutes of inactivity. Enter your password to continue.",
        "Votre session a expiré après 20 minutes d'inactivité. Saisissez votre mot de passe pour continuer.",
    )
    field = (
        "<div style='margin:0 20px 6px;height:34px;border:1px solid #b9c3ce;border-radius:3px;padding:8px;color:#889'>"
        f"{look.t('Password', 'Mot de passe')}</div>"
    )
    buttons = [
        easily.Button("cancel", look.t("Cancel", "Annuler")),
        easily.Button("sign_in", look.t("Sign in again", "Se reconnecter"), "pri"),
    ]
    return _easily_modal(ctx, "easily-session-expired", title, text, buttons, icon="&#9919;", extra=field)


def easily_delete(ctx: Ctx) -> Scene:
    look = ctx.look
    doc = ctx.pick(DOCUMENTS)
    text = look.t(
        f"Do you really want to delete the document '{doc}'? This cannot be undone.",
        f"Voulez-vous vraiment supprimer le document « {doc} » ? Cette action est irréversible.",
    )
    buttons = [
        easily.Button("cancel", look.t("Cancel", "Annuler")),
        easily.Button("delete", look.t("Delete", "Supprimer"), "danger"),
    ]
    return _easily_modal(
        ctx,
        "easily-delete-confirm",
        look.t("Confirm deletion", "Confirmer la suppression"),
        text,
        buttons,
        page_key="synthese",
    )
