"""System dialogs (catalog category A) and Windows file dialogs."""

from __future__ import annotations

from rpa_mcp.screens.html import apps, desktop, security, windows
from rpa_mcp.screens.html.browser import browser_process
from rpa_mcp.screens.pools import DOCTORS, DOCUMENTS, FILES, PROGRAMS, SERVERS, USERS
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose
from rpa_mcp.screens.scenes.dialogs.common import behind, centre, maybe_occlude, web_host


# --- A: system ---------------------------------------------------------------------------------
def uac(ctx: Ctx) -> Scene:
    look = ctx.look
    name_en, name_fr, _exe = ctx.pick(PROGRAMS)
    w, h = 472, 344
    x, y = (ctx.screen_w - w) / 2, (ctx.screen_h - h) / 2 - 40 + ctx.jitter(30)
    publisher = "Microsoft Windows" if ctx.rng.random() < 0.6 else "LabConnect SAS"
    # The secure desktop: a dimmed picture of the desktop, then the prompt.
    body = (
        behind(ctx)
        + desktop.dim(0.58, z=60)
        + "<div style='position:absolute;inset:0;z-index:70'>"
        + security.uac(look, program=look.t(name_en, name_fr), publisher=publisher, x=x, y=y, w=w, h=h)
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
    x, y = centre(ctx, w, 420)
    cover, hard = maybe_occlude(ctx, x, y, w, 420)
    body = behind(ctx) + security.hello(look, user=ctx.pick(DOCTORS).removeprefix("Dr "), x=x, y=y, w=w) + cover
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
    x, y = centre(ctx, w, 440)
    server = ctx.pick(SERVERS)
    body = behind(ctx) + security.credential(look, server=server, user=f"CHV\\{ctx.pick(USERS)}", x=x, y=y, w=w)
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
    x, y = centre(ctx, w, 330)
    _en, _fr, exe = ctx.pick(PROGRAMS)
    body = behind(ctx) + security.smartscreen(
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
    host, title = web_host(ctx) if ctx.rng.random() < 0.6 else (behind(ctx), "")
    toast = security.defender_toast(
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
    x, y = centre(ctx, 440, 230)
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
    x, y = centre(ctx, 470, 240)
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
    x, y = centre(ctx, w, h, spread=0.05)
    body = word + windows.save_as(look, file=doc, x=x, y=y, w=w, h=h)
    return Scene(
        look,
        compose(ctx, body, front_app="word", apps_on_taskbar=("explorer", look.browser, "word", "outlook")),
        window_title=look.t("Save As", "Enregistrer sous"),
        process="WINWORD.EXE",
        dialog_id="file-save-as",
        description="Word's Save As dialog",
    )
