"""Frames that show one dialog, toast or bubble (the classifier's set), one builder per family."""

from __future__ import annotations

from collections.abc import Callable

from rpa_mcp.screens.html import apps, browser_dialogs, desktop, easily, windows
from rpa_mcp.screens.html.browser import browser_process
from rpa_mcp.screens.html.browser_dialogs import JS_KINDS, BubbleStyle, JsKind
from rpa_mcp.screens.pools import DOCTORS, DOCUMENTS, DRUGS, FIELDS, FILES, HOSTS, PROGRAMS, SERVERS, USERS
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose, easily_browser, maximised, occluder, patient

Builder = Callable[[Ctx], Scene]


def _centre(ctx: Ctx, w: float, h: float, *, dy: float = -30, spread: float = 0.18) -> tuple[float, float]:
    x = (ctx.screen_w - w) / 2 + ctx.jitter(spread * ctx.screen_w)
    y = (ctx.work_h - h) / 2 + dy + ctx.jitter(spread * ctx.work_h)
    return max(0.0, min(x, ctx.screen_w - w)), max(0.0, min(y, ctx.work_h - h))


def _maybe_occlude(ctx: Ctx, x: float, y: float, w: float, h: float) -> tuple[str, tuple[str, ...]]:
    """Sometimes another window covers a corner of the dialog (never its whole button row)."""
    force = bool(ctx.options.get("force"))
    if not force and not ctx.chance(float(str(ctx.options.get("occlude", 0.12)))):
        return "", ()
    ow, oh = ctx.rng.uniform(0.3, 0.5) * w, ctx.rng.uniform(0.3, 0.55) * h
    left = ctx.rng.random() < 0.5
    ox = x - ow * 0.4 if left else x + w - ow * 0.6
    oy = y - oh * 0.35
    return occluder(ctx, ox, oy, ow, oh), ("occluded",)


def _web_host(
    ctx: Ctx,
    *,
    page_overlay: str = "",
    browser_overlay: str = "",
    page_key: str | None = None,
    active: int | None = None,
) -> tuple[str, str]:
    geo = maximised(ctx)
    key = page_key or (
        "observation" if ctx.rng.random() < 0.5 else ctx.rng.choice(("synthese", "biologie", "imagerie"))
    )
    tab = (
        active
        if active is not None
        else (0 if key in ("synthese", "observation") else {"imagerie": 1, "biologie": 2}[key])
    )
    lines = ["Patiente vue ce jour, état stable.", "Poursuite du traitement."] if key == "observation" else []
    return easily_browser(
        ctx, geo, page_key=key, active=tab, page_overlay=page_overlay, browser_overlay=browser_overlay, lines=lines
    )


def _behind(ctx: Ctx) -> str:
    """A busy desktop: one or two application windows behind the dialog."""
    look = ctx.look
    choice = ctx.rng.randrange(4) if not ctx.canonical else 0
    w, h = ctx.screen_w, ctx.work_h
    if choice == 0:
        html, _ = easily_browser(ctx, maximised(ctx), front=False)
        return html
    if choice == 1:
        return apps.explorer_window(
            look, x=w * 0.08, y=h * 0.08, w=w * 0.7, h=h * 0.75, folder="Documents", files=list(FILES), front=False
        )
    if choice == 2:
        return apps.outlook_window(look, x=w * 0.05, y=h * 0.05, w=w * 0.85, h=h * 0.85, front=False)
    return apps.pacs_window(look, x=w * 0.1, y=h * 0.06, w=w * 0.75, h=h * 0.8, patient="DURAND^ALICE", front=False)


# --- A: system ---------------------------------------------------------------------------------
def uac(ctx: Ctx) -> Scene:
    look = ctx.look
    name_en, name_fr, _exe = ctx.pick(PROGRAMS)
    w, h = 472, 344
    x, y = (ctx.screen_w - w) / 2, (ctx.screen_h - h) / 2 - 40 + ctx.jitter(30)
    publisher = "Microsoft Windows" if ctx.rng.random() < 0.6 else "LabConnect SAS"
    # The secure desktop: a dimmed picture of the desktop, then the prompt.
    body = (
        _behind(ctx)
        + desktop.dim(0.58, z=60)
        + "<div style='position:absolute;inset:0;z-index:70'>"
        + windows.uac(look, program=look.t(name_en, name_fr), publisher=publisher, x=x, y=y, w=w, h=h)
        + "</div>"
    )
    return Scene(
        look,
        compose(ctx, body),
        window_title=look.t("User Account Control", "Contrôle de compte d'utilisateur"),
        process="consent.exe",
        dialog_id="windows-uac",
        description=f"UAC prompt ({look.os}) on the dimmed secure desktop",
    )


def hello(ctx: Ctx) -> Scene:
    look = ctx.look
    w = 456
    x, y = _centre(ctx, w, 420)
    cover, hard = _maybe_occlude(ctx, x, y, w, 420)
    body = _behind(ctx) + windows.hello(look, user=ctx.pick(DOCTORS).removeprefix("Dr "), x=x, y=y, w=w) + cover
    return Scene(
        look,
        compose(ctx, body),
        window_title=look.t("Windows Security", "Sécurité Windows"),
        process="CredentialUIBroker.exe",
        dialog_id="windows-hello",
        hard_cases=hard,
        description="Windows Hello: making sure it's you (PIN)",
    )


def credential(ctx: Ctx) -> Scene:
    look = ctx.look
    w = 456
    x, y = _centre(ctx, w, 440)
    server = ctx.pick(SERVERS)
    body = _behind(ctx) + windows.credential(look, server=server, user=f"CHV\\{ctx.pick(USERS)}", x=x, y=y, w=w)
    return Scene(
        look,
        compose(ctx, body),
        window_title=look.t("Windows Security", "Sécurité Windows"),
        process="CredentialUIBroker.exe",
        dialog_id="windows-credential-prompt",
        description=f"network credentials for {server}",
    )


def smartscreen(ctx: Ctx) -> Scene:
    look = ctx.look
    w = 560
    variant = str(ctx.options.get("variant", ""))
    details = variant == "details" if variant else ctx.rng.random() < 0.3
    more_button = variant == "more-info" if variant else (not look.win11 and not details and ctx.rng.random() < 0.3)
    x, y = _centre(ctx, w, 330)
    _en, _fr, exe = ctx.pick(PROGRAMS)
    body = _behind(ctx) + windows.smartscreen(
        look, program=exe, x=x, y=y, w=w, details=details, more_button=more_button
    )
    kind = (
        "details (Run anyway / Don't run)"
        if details
        else ("More info + Don't run" if more_button else "Don't run only")
    )
    return Scene(
        look,
        compose(ctx, body),
        window_title="Windows SmartScreen",
        process="smartscreen.exe",
        dialog_id="windows-smartscreen",
        description=f"SmartScreen {look.os}: {kind}",
    )


def defender(ctx: Ctx) -> Scene:
    look = ctx.look
    host, title = _web_host(ctx) if ctx.rng.random() < 0.6 else (_behind(ctx), "")
    toast = windows.defender_toast(
        look,
        right=12,
        bottom=ctx.taskbar_h + 12,
        title_variant=ctx.rng.randrange(2) if not ctx.canonical else 0,
        with_buttons=look.win11 and ctx.rng.random() < 0.6,
    )
    process = browser_process(look) if title else "explorer.exe"
    return Scene(
        look,
        compose(ctx, host, toast),
        window_title=title,
        process=process,
        dialog_id="defender-threat-found",
        description=f"Defender 'Threats found' notification ({look.os})",
    )


def confirm_delete(ctx: Ctx) -> Scene:
    look = ctx.look
    file = ctx.pick(FILES)
    explorer = apps.explorer_window(
        look,
        x=ctx.screen_w * 0.1,
        y=ctx.work_h * 0.08,
        w=ctx.screen_w * 0.7,
        h=ctx.work_h * 0.78,
        folder="Documents",
        files=list(FILES),
    )
    x, y = _centre(ctx, 440, 230)
    offscreen = ctx.chance(0.1)
    if offscreen:
        y = ctx.work_h - 160
    body = explorer + windows.confirm_delete(look, file=file, x=x, y=y, permanent=ctx.rng.random() < 0.4)
    return Scene(
        look,
        compose(ctx, body, front_app="explorer"),
        window_title=look.t("Delete File", "Supprimer le fichier"),
        process="explorer.exe",
        dialog_id="windows-confirm-delete",
        hard_cases=("offscreen",) if offscreen else (),
        description=f"Explorer delete confirmation for {file}",
    )


def file_in_use(ctx: Ctx) -> Scene:
    look = ctx.look
    file = ctx.pick(FILES)
    explorer = apps.explorer_window(
        look,
        x=ctx.screen_w * 0.12,
        y=ctx.work_h * 0.1,
        w=ctx.screen_w * 0.66,
        h=ctx.work_h * 0.72,
        folder="Documents",
        files=list(FILES),
    )
    x, y = _centre(ctx, 470, 240)
    body = explorer + windows.file_in_use(look, file=file, program="Microsoft Word", x=x, y=y)
    return Scene(
        look,
        compose(ctx, body, front_app="explorer"),
        window_title=look.t("File In Use", "Fichier en cours d'utilisation"),
        process="explorer.exe",
        dialog_id="windows-file-in-use",
        description=f"file in use: {file}",
    )


def save_as(ctx: Ctx) -> Scene:
    look = ctx.look
    doc = ctx.pick(DOCUMENTS).rsplit(".", 1)[0] + ".docx"
    word = apps.word_window(look, x=0, y=0, w=ctx.screen_w, h=ctx.work_h, doc="Document1")
    w, h = min(940, ctx.screen_w - 80), min(600, ctx.work_h - 60)
    x, y = _centre(ctx, w, h, spread=0.05)
    body = word + windows.save_as(look, file=doc, x=x, y=y, w=w, h=h)
    return Scene(
        look,
        compose(ctx, body, front_app="word", apps_on_taskbar=("explorer", look.browser, "word", "outlook")),
        window_title=look.t("Save As", "Enregistrer sous"),
        process="WINWORD.EXE",
        dialog_id="file-save-as",
        description="Word's Save As dialog",
    )


# --- D: applications ------------------------------------------------------------------------------
def notepad_save(ctx: Ctx) -> Scene:
    look = ctx.look
    file = (
        look.t("Untitled", "Sans titre")
        if ctx.rng.random() < 0.5 or ctx.canonical
        else ctx.pick(FILES).rsplit(".", 1)[0]
    )
    text = look.t(
        "Patient seen today, stable.\nContinue treatment.",
        "Patiente vue ce jour, état stable.\nPoursuite du traitement.",
    )
    win = apps.notepad_window(
        look,
        x=ctx.screen_w * 0.12,
        y=ctx.work_h * 0.08,
        w=ctx.screen_w * 0.66,
        h=ctx.work_h * 0.78,
        file=file,
        text=text,
        modified=True,
    )
    w = 420 if look.win11 else 380
    x, y = _centre(ctx, w, 150)
    cover, hard = _maybe_occlude(ctx, x, y, w, 150)
    body = _behind(ctx) + win + apps.notepad_save(look, file=file, x=x, y=y) + cover
    return Scene(
        look,
        compose(ctx, body, front_app="notepad"),
        window_title=look.t("Notepad", "Bloc-notes"),
        process="notepad.exe",
        dialog_id="notepad-save-changes",
        hard_cases=hard,
        description=f"Notepad save prompt ({'Windows 11' if look.win11 else 'classic'})",
    )


def office_save(ctx: Ctx) -> Scene:
    look = ctx.look
    doc = ctx.pick(DOCUMENTS).rsplit(".", 1)[0]
    word = apps.word_window(
        look, x=ctx.screen_w * 0.05, y=ctx.work_h * 0.04, w=ctx.screen_w * 0.85, h=ctx.work_h * 0.9, doc=doc
    )
    x, y = _centre(ctx, 460, 200)
    body = word + apps.office_save(look, doc=doc + ".docx", x=x, y=y)
    return Scene(
        look,
        compose(ctx, body, front_app="word", apps_on_taskbar=("explorer", look.browser, "word", "outlook")),
        window_title="Microsoft Word",
        process="WINWORD.EXE",
        dialog_id="office-save-changes",
        description="Word: save your changes?",
    )


def outlook_reminder(ctx: Ctx) -> Scene:
    look = ctx.look
    subject = look.t("Staff meeting — cardiology", "Staff de service — cardiologie")
    behind = (
        apps.outlook_window(
            look, x=ctx.screen_w * 0.04, y=ctx.work_h * 0.04, w=ctx.screen_w * 0.88, h=ctx.work_h * 0.9, front=False
        )
        if ctx.rng.random() < 0.5
        else _behind(ctx)
    )
    x, y = _centre(ctx, 440, 280)
    count = 1 if ctx.rng.random() < 0.7 else 2
    body = behind + apps.outlook_reminder(look, subject=subject, x=x, y=y, count=count)
    title = look.t(f"{count} Reminder" + ("s" if count > 1 else ""), f"{count} rappel" + ("s" if count > 1 else ""))
    return Scene(
        look,
        compose(ctx, body, front_app="outlook"),
        window_title=title,
        process="OUTLOOK.EXE",
        dialog_id="outlook-reminder",
        description="Outlook reminder window",
    )


def app_error(ctx: Ctx) -> Scene:
    look = ctx.look
    x, y = _centre(ctx, 470, 200)
    program = (
        ctx.rng.choice(("LabConnect.exe", "PacsViewer.exe", "Planif.exe")) if not ctx.canonical else "LabConnect.exe"
    )
    body = _behind(ctx) + apps.app_error(look, program=program, x=x, y=y)
    return Scene(
        look,
        compose(ctx, body),
        window_title=look.t(f"{program} - Application Error", f"{program} - Erreur d'application"),
        process="WerFault.exe",
        dialog_id="app-error",
        description=f"{program} crashed",
    )


def app_confirm_delete(ctx: Ctx) -> Scene:
    look = ctx.look
    x, y = _centre(ctx, 420, 170)
    item = look.t("Appointment 14:30 — MOREAU Jean", "Rendez-vous 14:30 — MOREAU Jean")
    body = _behind(ctx) + apps.app_confirm_delete(look, item=item, x=x, y=y)
    return Scene(
        look,
        compose(ctx, body),
        window_title=look.t("Confirm Delete", "Confirmer la suppression"),
        process="Planif.exe",
        dialog_id="app-confirm-delete",
        description="a desktop application's delete confirmation",
    )


def unknown(ctx: Ctx) -> Scene:
    look = ctx.look
    variant = ctx.rng.randrange(3) if not ctx.canonical else int(str(ctx.options.get("variant", 0)))
    x, y = _centre(ctx, 440, 180)
    body = _behind(ctx) + apps.unknown_dialog(look, variant=variant, x=x, y=y)
    return Scene(
        look,
        compose(ctx, body),
        window_title=("LABO32", "ViewerPro DICOM", "Confirmation")[variant],
        process=("labo32.exe", "ViewerPro.exe", "Planif.exe")[variant],
        dialog_id="unknown",
        description="a dialog the catalog does not hold",
    )


# --- B: browser ----------------------------------------------------------------------------------
def _permission(kind: browser_dialogs.Permission) -> Builder:
    def build(ctx: Ctx) -> Scene:
        look = ctx.look
        geo = maximised(ctx)
        host = ctx.pick(HOSTS)
        origin = ("https://" if ctx.rng.random() < 0.5 else "") + host
        style: BubbleStyle = "stacked" if look.browser == "chrome" or ctx.rng.random() < 0.5 else "row"
        if ctx.canonical:
            style = "row" if look.browser == "edge" else "stacked"
        bx = geo.x + (124 if look.browser == "chrome" else 100) + ctx.jitter(10)
        by = geo.y + geo.strip.strip_h + geo.strip.toolbar_h - 6
        bubble = browser_dialogs.permission_bubble(
            look,
            kind=kind,
            origin=origin,
            x=bx,
            y=by,
            style=style,
            line_variant=ctx.rng.randrange(2),
            preview=ctx.rng.random() < 0.4,
        )
        html, title = _web_host(ctx, browser_overlay=bubble)
        return Scene(
            look,
            compose(ctx, html, front_app=look.browser),
            window_title=title,
            process=browser_process(look),
            dialog_id=f"browser-perm-{kind}",
            description=f"{look.browser} {kind} permission prompt ({style})",
        )

    return build


def js_dialog(ctx: Ctx) -> Scene:
    look = ctx.look
    geo = maximised(ctx)
    chosen = str(ctx.options.get("kind", "")) if ctx.canonical else ctx.rng.choice(JS_KINDS)
    kind: JsKind = next((k for k in JS_KINDS if k == chosen), "confirm")
    host = ctx.pick(HOSTS)
    message = (
        look.t("Delete this prescription?", "Supprimer cette prescription ?")
        if kind == "confirm"
        else (
            look.t("The record is locked by another user.", "Le dossier a été verrouillé par un autre utilisateur.")
            if kind == "alert"
            else look.t("Reason for the change:", "Motif de la modification :")
        )
    )
    w = 450
    dialog = browser_dialogs.js_dialog(
        look,
        kind=kind,
        host=host,
        message=message,
        x=(geo.w - w) / 2,
        y=geo.strip.strip_h + geo.strip.toolbar_h - 4,
        w=w,
    )
    dim = "<div style='position:absolute;inset:0;background:rgba(0,0,0,.58)'></div>"
    window_dim = (
        "<div style='position:absolute;inset:0;background:rgba(0,0,0,.58);z-index:84'></div>"
        if kind in ("leave", "reload")
        else ""
    )
    html, title = _web_host(ctx, page_overlay=dim if not window_dim else "", browser_overlay=window_dim + dialog)
    dialog_id = "browser-leave-site" if kind in ("leave", "reload") else "browser-js-alert"
    return Scene(
        look,
        compose(ctx, html, front_app=look.browser),
        window_title=title,
        process=browser_process(look),
        dialog_id=dialog_id,
        description=f"{look.browser} JavaScript {kind} dialog",
    )


def translate(ctx: Ctx) -> Scene:
    look = ctx.look
    geo = maximised(ctx)
    bubble = browser_dialogs.translate_bubble(
        look,
        x=geo.w - 420 + ctx.jitter(20),
        y=geo.strip.strip_h + geo.strip.toolbar_h - 6,
        source=look.t("German", "Allemand"),
    )
    html, title = _web_host(ctx, browser_overlay=bubble)
    return Scene(
        look,
        compose(ctx, html, front_app=look.browser),
        window_title=title,
        process=browser_process(look),
        dialog_id="browser-translate-prompt",
        description="translation bubble",
    )


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
    html, window_title = _web_host(ctx, page_overlay=modal, page_key=page_key)
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
    html, title = _web_host(ctx, page_overlay=toast, page_key="observation")
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


FAMILIES: dict[str, Builder] = {
    "uac": uac,
    "hello": hello,
    "credential": credential,
    "smartscreen": smartscreen,
    "defender": defender,
    "confirm-delete": confirm_delete,
    "file-in-use": file_in_use,
    "save-as": save_as,
    "notepad-save": notepad_save,
    "office-save": office_save,
    "outlook-reminder": outlook_reminder,
    "app-error": app_error,
    "app-confirm-delete": app_confirm_delete,
    "unknown": unknown,
    "perm-camera": _permission("camera"),
    "perm-microphone": _permission("microphone"),
    "perm-location": _permission("location"),
    "perm-notifications": _permission("notifications"),
    "js-dialog": js_dialog,
    "translate": translate,
    "easily-save-confirm": easily_save_confirm,
    "easily-toast": easily_toast,
    "easily-required": easily_required,
    "easily-clinical": easily_clinical,
    "easily-session": easily_session,
    "easily-delete": easily_delete,
}
