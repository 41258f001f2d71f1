"""Desktop applications' dialogs (category D) and dialogs the catalog does not hold."""

from __future__ import annotations

from rpa_mcp.screens.html import app_dialogs, apps
from rpa_mcp.screens.pools import DOCUMENTS, FILES
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose
from rpa_mcp.screens.scenes.dialogs.common import behind, centre, maybe_occlude


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
    x, y = centre(ctx, w, 150)
    cover, hard = maybe_occlude(ctx, x, y, w, 150)
    body = behind(ctx) + win + app_dialogs.notepad_save(look, file=file, x=x, y=y) + cover
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
    x, y = centre(ctx, 460, 200)
    body = word + app_dialogs.office_save(look, doc=doc + ".docx", x=x, y=y)
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
    under = (
        apps.outlook_window(
            look, x=ctx.screen_w * 0.04, y=ctx.work_h * 0.04, w=ctx.screen_w * 0.88, h=ctx.work_h * 0.9, front=False
        )
        if ctx.rng.random() < 0.5
        else behind(ctx)
    )
    x, y = centre(ctx, 440, 280)
    count = 1 if ctx.rng.random() < 0.7 else 2
    body = under + app_dialogs.outlook_reminder(look, subject=subject, x=x, y=y, count=count)
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
    x, y = centre(ctx, 470, 200)
    program = (
        ctx.rng.choice(("LabConnect.exe", "PacsViewer.exe", "Planif.exe")) if not ctx.canonical else "LabConnect.exe"
    )
    body = behind(ctx) + app_dialogs.app_error(look, program=program, x=x, y=y)
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
    x, y = centre(ctx, 420, 170)
    item = look.t("Appointment 14:30 — MOREAU Jean", "Rendez-vous 14:30 — MOREAU Jean")
    body = behind(ctx) + app_dialogs.app_confirm_delete(look, item=item, x=x, y=y)
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
    x, y = centre(ctx, 440, 180)
    body = behind(ctx) + app_dialogs.unknown_dialog(look, variant=variant, x=x, y=y)
    return Scene(
        look,
        compose(ctx, body),
        window_title=("LABO32", "ViewerPro DICOM", "Confirmation")[variant],
        process=("labo32.exe", "ViewerPro.exe", "Planif.exe")[variant],
        dialog_id="unknown",
        description="a dialog the catalog does not hold",
    )
