"""Pairs of saves, clicks and dialog answers: saved, a dialog appears, a dialog blocks, a dialog closes or stays."""

from __future__ import annotations

from rpa_mcp.screens.html import apps, easily
from rpa_mcp.screens.pools import FILES
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import (
    Ctx,
    compose,
    maximised,
    tab_labels,
)
from rpa_mcp.screens.scenes.pairs.common import (
    DIM_PAGE,
    DIM_WINDOW,
    PairScene,
    browser_frame,
    clone,
    js_confirm,
    notepad_with_dialog,
    observed_titles,
    two_tabs,
)


def save_notepad(ctx: Ctx) -> PairScene:
    look = ctx.look
    file = "CR_consultation_DURAND" if ctx.canonical else ctx.pick(FILES).rsplit(".", 1)[0]
    text = look.t(
        "Consultation of 3/12/2025\nPatient seen today, stable.\n",
        "Consultation du 12/03/2025\nPatiente vue ce jour, état stable.\n",
    )
    twin = clone(ctx)
    x, y, w, h = ctx.screen_w * 0.14, ctx.work_h * 0.1, ctx.screen_w * 0.66, ctx.work_h * 0.78

    def frame(c: Ctx, modified: bool) -> Scene:
        win = apps.notepad_window(look, x=x, y=y, w=w, h=h, file=f"{file}.txt", text=text, modified=modified)
        name = look.t("Notepad", "Bloc-notes")
        return Scene(
            look,
            compose(c, win, front_app="notepad", busy=False),
            window_title=f"{'*' if modified else ''}{file}.txt - {name}",
            process="notepad.exe",
        )

    before, after = frame(ctx, True), frame(twin, False)
    return PairScene(
        "save-ok",
        before,
        after,
        "save",
        ("element", "window-title"),
        "SUCCESS",
        None,
        "Notepad's '*' goes away",
        observed=observed_titles(before, after),
    )


def save_toast(ctx: Ctx) -> PairScene:
    look = ctx.look
    geo = maximised(ctx)
    lines = ("Patiente vue ce jour, état stable.", "Poursuite du traitement diurétique.")
    twin = clone(ctx)
    before = browser_frame(ctx, geo, 0, page="observation", modified=True, lines=lines)
    toast = easily.toast(
        look,
        title=look.t("Saved", "Enregistré"),
        text=look.t("The note has been saved.", "L'observation a été enregistrée."),
        page_w=geo.page_w,
    )
    after = browser_frame(twin, geo, 0, page="observation", modified=False, lines=lines, page_overlay=toast)
    return PairScene(
        "save-toast",
        before,
        after,
        "save",
        ("element", "save-button"),
        "SUCCESS",
        None,
        "the 'unsaved' badge goes and the 'Enregistré' toast shows",
        observed=observed_titles(before, after),
    )


def save_unexpected_dialog(ctx: Ctx) -> PairScene:
    look = ctx.look
    geo = maximised(ctx)
    lines = ("Patiente vue ce jour, état stable.",)
    twin = clone(ctx)
    before = browser_frame(ctx, geo, 0, page="observation", modified=True, lines=lines)
    modal = easily.modal(
        look,
        dialog_id="easily-session-expired",
        title=look.t("Session expired", "Session expirée"),
        text=look.t(
            "Your session has expired. Sign in again to save.",
            "Votre session a expiré. Reconnectez-vous pour enregistrer.",
        ),
        buttons=[
            easily.Button("cancel", look.t("Cancel", "Annuler")),
            easily.Button("sign_in", look.t("Sign in again", "Se reconnecter"), "pri"),
        ],
        page_w=geo.page_w,
        page_h=geo.page_h,
    )
    after = browser_frame(twin, geo, 0, page="observation", modified=True, lines=lines, page_overlay=modal)
    return PairScene(
        "unexpected-dialog",
        before,
        after,
        "save",
        ("element", "save-button"),
        "FAILURE",
        "UNEXPECTED_DIALOG",
        "a 'session expired' modal appears instead of the save",
        observed=observed_titles(before, after),
    )


def click_opens_confirm(ctx: Ctx) -> PairScene:
    """A click on the page opens the browser's own confirm(): the page dims under it."""
    geo = maximised(ctx)
    lines = ("Patiente vue ce jour, état stable.",)
    twin = clone(ctx)
    before = browser_frame(ctx, geo, 0, page="observation", lines=lines)
    after = browser_frame(
        twin, geo, 0, page="observation", lines=lines, page_overlay=DIM_PAGE, browser_overlay=js_confirm(twin, geo)
    )
    return PairScene(
        "unexpected-dialog",
        before,
        after,
        "click_anchor",
        ("element", "save-button"),
        "FAILURE",
        "UNEXPECTED_DIALOG",
        "the browser's confirm() opened over the dimmed page",
        observed=observed_titles(before, after),
    )


def blocked_by_dialog(ctx: Ctx) -> PairScene:
    """A leave-site dialog blocks the window: the tab click never reaches the page (the target may look active)."""
    geo = maximised(ctx)
    start, target = two_tabs(ctx)
    if ctx.rng.random() < 0.5 or ctx.canonical:
        target = start  # the tab clicked is the active one: "already active" must not be trusted here
    overlay = DIM_WINDOW + js_confirm(ctx, geo, kind="leave")
    twin = clone(ctx)
    before = browser_frame(ctx, geo, start, browser_overlay=overlay)
    after = browser_frame(twin, geo, start, browser_overlay=overlay)
    label = tab_labels(ctx.look)[target]
    return PairScene(
        "blocked-by-dialog",
        before,
        after,
        "switch_tab",
        ("tab", label),
        "FAILURE",
        "UNEXPECTED_DIALOG",
        "a dialog blocks the window: the click cannot have reached the tab",
        observed=observed_titles(before, after),
    )


def dialog_closed(ctx: Ctx) -> PairScene:
    twin = clone(ctx)
    before, after = notepad_with_dialog(ctx, dialog=True), notepad_with_dialog(twin, dialog=False)
    label = ctx.look.t("Cancel", "Annuler")
    return PairScene(
        "dialog-closed",
        before,
        after,
        "dialog_button",
        ("button", label),
        "SUCCESS",
        None,
        "the save prompt is gone, Notepad shows again",
        observed=observed_titles(before, after),
    )


def dialog_still_open(ctx: Ctx) -> PairScene:
    twin = clone(ctx)
    before, after = notepad_with_dialog(ctx, dialog=True), notepad_with_dialog(twin, dialog=True, focus=False)
    label = (
        ctx.look.t("Don't save", "Ne pas enregistrer")
        if ctx.look.win11
        else ctx.look.t("Don't Save", "Ne pas enregistrer")
    )
    return PairScene(
        "dialog-still-open",
        before,
        after,
        "dialog_button",
        ("button", label),
        "FAILURE",
        "DIALOG_STILL_OPEN",
        "the save prompt is still there (only its frame colour changed)",
        observed=observed_titles(before, after),
    )


def click_menu_ok(ctx: Ctx) -> PairScene:
    look = ctx.look
    geo = maximised(ctx)
    items = easily.menu(look)
    twin = clone(ctx)
    before = browser_frame(ctx, geo, 0, page="synthese")
    after = browser_frame(twin, geo, 0, page="observation", lines=("Patiente vue ce jour, état stable.",))
    return PairScene(
        "click-ok",
        before,
        after,
        "click_anchor",
        ("element", f"menu:{items[1]}"),
        "SUCCESS",
        None,
        f"the {items[1]!r} menu item opens the note form",
        observed=observed_titles(before, after),
    )
