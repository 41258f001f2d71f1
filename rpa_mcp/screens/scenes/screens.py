"""Frames without any dialog (a classifier must report none): pages, windows, busy desktops."""

from __future__ import annotations

from collections.abc import Callable

from rpa_mcp.screens.html import apps
from rpa_mcp.screens.html.base import px
from rpa_mcp.screens.html.browser import browser_process
from rpa_mcp.screens.pools import FILES
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose, easily_browser, maximised

Builder = Callable[[Ctx], Scene]


def easily_page(ctx: Ctx) -> Scene:
    look = ctx.look
    key = (
        str(ctx.options.get("page"))
        if ctx.canonical
        else ctx.rng.choice(("synthese", "imagerie", "biologie", "prescriptions", "observation"))
    )
    active = {"synthese": 0, "observation": 0, "imagerie": 1, "biologie": 2, "prescriptions": 3}[key]
    inline = ""
    if key == "prescriptions" and ctx.rng.random() < 0.7:
        # a panel of the page with its own buttons: part of the page, not a dialog
        inline = (
            f"<div class='card' style='{px(224, 390, 520, 130)}'>"
            f"<h3>{look.t('New prescription', 'Nouvelle prescription')}</h3>"
            f"{look.t('Drug, dose and route to be filled in.', 'Médicament, posologie et voie à renseigner.')}"
            f"<div class='btn' style='{px(300, 80, 90, 34)}'>{look.t('Cancel', 'Annuler')}</div>"
            f"<div class='btn pri' style='{px(400, 80, 100, 34)}'>{look.t('Validate', 'Valider')}</div></div>"
        )
    html, title = easily_browser(
        ctx,
        maximised(ctx),
        page_key=key,
        active=active,
        page_overlay=inline,
        lines=["Patiente vue ce jour, état stable."] if key == "observation" else [],
    )
    return Scene(
        look,
        compose(ctx, html, front_app=look.browser),
        window_title=title,
        process=browser_process(look),
        description=f"Easily page {key}, no dialog",
    )


def explorer(ctx: Ctx) -> Scene:
    look = ctx.look
    body = apps.explorer_window(
        look,
        x=ctx.screen_w * 0.1,
        y=ctx.work_h * 0.08,
        w=ctx.screen_w * 0.72,
        h=ctx.work_h * 0.8,
        folder="Documents",
        files=list(FILES) * 2,
    )
    return Scene(
        look,
        compose(ctx, body, front_app="explorer", busy=True),
        window_title="Documents",
        process="explorer.exe",
        description="Explorer on a busy desktop",
    )


def notepad(ctx: Ctx) -> Scene:
    look = ctx.look
    file = str(ctx.pick(FILES)).rsplit(".", 1)[0] + ".txt"
    text = "\n".join(
        (
            look.t("Handover — cardiology", "Transmissions — cardiologie"),
            "",
            "Ch. 214 B : DURAND Alice",
            look.t("- potassium check at 4 pm", "- contrôle kaliémie à 16 h"),
            look.t("- echo tomorrow", "- ETT demain"),
        )
    )
    modified = ctx.rng.random() < 0.5
    body = apps.notepad_window(
        look,
        x=ctx.screen_w * 0.15,
        y=ctx.work_h * 0.1,
        w=ctx.screen_w * 0.6,
        h=ctx.work_h * 0.7,
        file=file,
        text=text,
        modified=modified,
    )
    name = look.t("Notepad", "Bloc-notes")
    return Scene(
        look,
        compose(ctx, body, front_app="notepad"),
        window_title=f"{'*' if modified else ''}{file} - {name}",
        process="notepad.exe",
        description="Notepad, no dialog",
    )


def outlook(ctx: Ctx) -> Scene:
    look = ctx.look
    body = apps.outlook_window(look, x=0, y=0, w=ctx.screen_w, h=ctx.work_h)
    return Scene(
        look,
        compose(ctx, body, front_app="outlook"),
        window_title=look.t("Inbox - Outlook", "Boîte de réception - Outlook"),
        process="OUTLOOK.EXE",
        description="Outlook inbox",
    )


def pacs(ctx: Ctx) -> Scene:
    look = ctx.look
    body = apps.pacs_window(
        look,
        x=ctx.screen_w * 0.05,
        y=ctx.work_h * 0.04,
        w=ctx.screen_w * 0.88,
        h=ctx.work_h * 0.9,
        patient="DURAND^ALICE",
        selected=ctx.rng.randrange(3),
    )
    return Scene(
        look,
        compose(ctx, body, front_app="pacs"),
        window_title=f"{look.t('PACS Viewer', 'Visionneuse PACS')} — DURAND^ALICE — RX Thorax",
        process="PacsViewer.exe",
        description="PACS viewer (dark, busy)",
    )


def word(ctx: Ctx) -> Scene:
    look = ctx.look
    body = apps.word_window(look, x=0, y=0, w=ctx.screen_w, h=ctx.work_h, doc="Lettre_sortie_0307")
    return Scene(
        look,
        compose(ctx, body, front_app="word", apps_on_taskbar=("explorer", look.browser, "word", "outlook")),
        window_title="Lettre_sortie_0307 - Word",
        process="WINWORD.EXE",
        description="Word document",
    )


FAMILIES: dict[str, Builder] = {
    "easily-page": easily_page,
    "explorer": explorer,
    "notepad": notepad,
    "outlook": outlook,
    "pacs": pacs,
    "word": word,
}
