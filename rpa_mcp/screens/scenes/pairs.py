"""Before/after frames of one action, with the verdict a validator must give (one builder per category).

The action's target is named, not measured here: the corpus builder measures it on the BEFORE
frame (`("tab", label)`, `("tab-close", label)`, `("element", name)`, `("button", label)`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.screens.html import apps, browser_dialogs, easily
from rpa_mcp.screens.html.browser import TabStrip, browser_process
from rpa_mcp.screens.html.browser_dialogs import JsKind
from rpa_mcp.screens.pools import FILES, HOSTS
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import (
    PAGE_OF_TAB,
    BrowserGeometry,
    Ctx,
    compose,
    easily_browser,
    maximised,
    tab_labels,
)

TargetRef = tuple[str, str]


@dataclass
class PairScene:
    category: str
    before: Scene
    after: Scene
    action_type: str
    target: TargetRef
    verdict: str
    failure_category: str | None
    description: str
    expected_text: str | None = None
    expected_window_title: str | None = None
    observed: dict[str, str] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)


Builder = Callable[[Ctx], PairScene]


def _browser_frame(
    ctx: Ctx,
    geo: BrowserGeometry,
    active: int,
    *,
    tabs: list[str] | None = None,
    page: str | None = None,
    page_overlay: str = "",
    browser_overlay: str = "",
    time: str = "10:41",
    modified: bool = True,
    lines: tuple[str, ...] = (),
) -> Scene:
    look = ctx.look
    tabs = tabs or tab_labels(look)
    key = page or (PAGE_OF_TAB[active] if active < len(PAGE_OF_TAB) else "synthese")
    html, title = easily_browser(
        ctx,
        geo,
        page_key=key,
        tabs=tabs,
        active=active,
        page_overlay=page_overlay,
        browser_overlay=browser_overlay,
        modified=modified,
        lines=lines,
    )
    return Scene(
        look,
        compose(ctx, html, front_app=look.browser, time=time, busy=False),
        window_title=title,
        process=browser_process(look),
    )


def _observed(before: Scene, after: Scene) -> dict[str, str]:
    return {
        "window_title_before": before.window_title,
        "window_title_after": after.window_title,
        "process_after": after.process,
    }


def _two_tabs(ctx: Ctx) -> tuple[int, int]:
    if ctx.canonical:
        return 0, 1
    start = ctx.rng.randrange(4)
    target = ctx.rng.choice([i for i in range(4) if i != start])
    return start, target


def _clone(ctx: Ctx) -> Ctx:
    """The same random state for the second frame, so both frames share their random choices."""
    import random

    state = ctx.rng.getstate()
    twin = Ctx(random.Random(), ctx.look, ctx.split, ctx.seed, dict(ctx.options))
    twin.rng.setstate(state)
    return twin


def tab_switch_ok(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = _two_tabs(ctx)
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, start)
    after = _browser_frame(twin, geo, target)
    label = tab_labels(ctx.look)[target]
    return PairScene(
        "tab-switch-ok",
        before,
        after,
        "switch_tab",
        ("tab", label),
        "SUCCESS",
        None,
        f"tab {label!r} becomes active and its page shows",
        observed=_observed(before, after),
    )


def wrong_tab(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = _two_tabs(ctx)
    other = next(i for i in (target + 1, target - 1, target + 2) if 0 <= i < 4 and i not in (start, target))
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, start)
    after = _browser_frame(twin, geo, other)
    label = tab_labels(ctx.look)[target]
    return PairScene(
        "wrong-tab",
        before,
        after,
        "switch_tab",
        ("tab", label),
        "FAILURE",
        "WRONG_TARGET",
        f"{tab_labels(ctx.look)[other]!r} became active instead of {label!r}",
        observed=_observed(before, after),
    )


def already_active(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    _, target = _two_tabs(ctx)
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, target)
    after = _browser_frame(twin, geo, target)
    label = tab_labels(ctx.look)[target]
    return PairScene(
        "already-active",
        before,
        after,
        "switch_tab",
        ("tab", label),
        "SUCCESS",
        None,
        f"{label!r} was already the active tab and nothing blocks the page",
        observed=_observed(before, after),
    )


def no_change(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = _two_tabs(ctx)
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, start)
    after = _browser_frame(twin, geo, start)
    label = tab_labels(ctx.look)[target]
    return PairScene(
        "no-change",
        before,
        after,
        "switch_tab",
        ("tab", label),
        "FAILURE",
        "NO_VISUAL_CHANGE",
        "the click did nothing: frames identical",
        observed=_observed(before, after),
    )


def clock_only(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = _two_tabs(ctx)
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, start, time="10:41")
    after = _browser_frame(twin, geo, start, time="10:42")
    label = tab_labels(ctx.look)[target]
    return PairScene(
        "clock-only",
        before,
        after,
        "switch_tab",
        ("tab", label),
        "FAILURE",
        "NO_VISUAL_CHANGE",
        "only the taskbar clock changed",
        observed=_observed(before, after),
    )


def wrong_application(ctx: Ctx) -> PairScene:
    """A PACS viewer in front of a restored browser covers the tab that is clicked (the step-10 incident)."""
    look = ctx.look
    strip = TabStrip() if ctx.canonical else TabStrip(x0=82, width=ctx.rng.choice((220, 236)), bookmarks_h=30)
    if ctx.canonical:
        bx, by, bw, bh = 41.0, 121.0, 1500.0, 850.0
        px_, py_ = 360.0, 80.0
    else:
        bx, by = ctx.rng.uniform(10, 80), ctx.rng.uniform(60, 140)
        bw, bh = ctx.screen_w * 0.75, ctx.work_h * 0.78
        # the PACS window starts just left of the target tab so it covers it
        px_, py_ = bx + strip.x0 + strip.width + ctx.rng.uniform(0, 20), by - ctx.rng.uniform(20, 50)
    pw, ph = min(ctx.screen_w - px_ - 20, 1440.0), min(ctx.work_h - py_ - 30, 860.0)
    geo = BrowserGeometry(bx, by, bw, bh, strip)
    twin = _clone(ctx)

    def frame(c: Ctx, selected: int) -> Scene:
        html, _ = easily_browser(c, geo, page_key="synthese", active=0, front=False)
        pacs = apps.pacs_window(
            look,
            x=px_,
            y=py_,
            w=pw,
            h=ph,
            patient="DURAND^ALICE",
            selected=selected,
            thumbs_at=(bx + strip.x0 + strip.width + 17 - px_ - 1, 8),
        )
        title = f"{look.t('PACS Viewer', 'Visionneuse PACS')} — DURAND^ALICE — RX Thorax"
        return Scene(
            look, compose(c, html + pacs, front_app="pacs", busy=False), window_title=title, process="PacsViewer.exe"
        )

    before, after = frame(ctx, 1), frame(twin, 0)
    label = tab_labels(look)[1]
    expected_title = f"Easily — {label} - " + ("Google Chrome" if look.browser == "chrome" else "Microsoft Edge")
    return PairScene(
        "wrong-application",
        before,
        after,
        "switch_tab",
        ("tab", label),
        "FAILURE",
        "WRONG_APPLICATION",
        f"the click meant for {label!r} lands in the PACS viewer in front",
        observed=_observed(before, after),
        expected_window_title=expected_title,
    )


def tab_closed(ctx: Ctx) -> PairScene:
    """Click a tab's close cross in the browser's own strip: the tabs on its right slide left."""
    geo = maximised(ctx)
    tabs = tab_labels(ctx.look)
    target = 2 if ctx.canonical else ctx.rng.randrange(1, 4)
    active = target if ctx.canonical or ctx.rng.random() < 0.5 else ctx.rng.choice([i for i in range(4) if i != target])
    remaining = [t for i, t in enumerate(tabs) if i != target]
    new_active = (
        (target if target < len(remaining) else target - 1)
        if active == target
        else (active if active < target else active - 1)
    )
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, active, tabs=tabs, page=PAGE_OF_TAB[active])
    after = _browser_frame(twin, geo, new_active, tabs=remaining, page=PAGE_OF_TAB[tabs.index(remaining[new_active])])
    return PairScene(
        "tab-closed",
        before,
        after,
        "close_tab",
        ("tab-close", tabs[target]),
        "SUCCESS",
        None,
        f"tab {tabs[target]!r} closed with its cross; {remaining[new_active]!r} active",
        observed=_observed(before, after),
    )


def save_notepad(ctx: Ctx) -> PairScene:
    look = ctx.look
    file = "CR_consultation_DURAND" if ctx.canonical else ctx.pick(FILES).rsplit(".", 1)[0]
    text = look.t(
        "Consultation of 3/12/2025\nPatient seen today, stable.\n",
        "Consultation du 12/03/2025\nPatiente vue ce jour, état stable.\n",
    )
    twin = _clone(ctx)
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
        observed=_observed(before, after),
    )


def save_toast(ctx: Ctx) -> PairScene:
    look = ctx.look
    geo = maximised(ctx)
    lines = ("Patiente vue ce jour, état stable.", "Poursuite du traitement diurétique.")
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, 0, page="observation", modified=True, lines=lines)
    toast = easily.toast(
        look,
        title=look.t("Saved", "Enregistré"),
        text=look.t("The note has been saved.", "L'observation a été enregistrée."),
        page_w=geo.page_w,
    )
    after = _browser_frame(twin, geo, 0, page="observation", modified=False, lines=lines, page_overlay=toast)
    return PairScene(
        "save-toast",
        before,
        after,
        "save",
        ("element", "save-button"),
        "SUCCESS",
        None,
        "the 'unsaved' badge goes and the 'Enregistré' toast shows",
        observed=_observed(before, after),
    )


def save_unexpected_dialog(ctx: Ctx) -> PairScene:
    look = ctx.look
    geo = maximised(ctx)
    lines = ("Patiente vue ce jour, état stable.",)
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, 0, page="observation", modified=True, lines=lines)
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
    after = _browser_frame(twin, geo, 0, page="observation", modified=True, lines=lines, page_overlay=modal)
    return PairScene(
        "unexpected-dialog",
        before,
        after,
        "save",
        ("element", "save-button"),
        "FAILURE",
        "UNEXPECTED_DIALOG",
        "a 'session expired' modal appears instead of the save",
        observed=_observed(before, after),
    )


def _js_confirm(ctx: Ctx, geo: BrowserGeometry, *, kind: JsKind = "confirm") -> str:
    look = ctx.look
    message = look.t("Delete the draft?", "Supprimer le brouillon ?")
    dialog = browser_dialogs.js_dialog(
        look,
        kind=kind,
        host=ctx.pick(HOSTS),
        message=message,
        x=(geo.w - 450) / 2,
        y=geo.strip.strip_h + geo.strip.toolbar_h - 4,
    )
    return dialog


DIM_PAGE = "<div style='position:absolute;inset:0;background:rgba(0,0,0,.58)'></div>"
DIM_WINDOW = "<div style='position:absolute;inset:0;background:rgba(0,0,0,.58);z-index:84'></div>"


def click_opens_confirm(ctx: Ctx) -> PairScene:
    """A click on the page opens the browser's own confirm(): the page dims under it."""
    geo = maximised(ctx)
    lines = ("Patiente vue ce jour, état stable.",)
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, 0, page="observation", lines=lines)
    after = _browser_frame(
        twin, geo, 0, page="observation", lines=lines, page_overlay=DIM_PAGE, browser_overlay=_js_confirm(twin, geo)
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
        observed=_observed(before, after),
    )


def blocked_by_dialog(ctx: Ctx) -> PairScene:
    """A leave-site dialog blocks the window: the tab click never reaches the page (the target may look active)."""
    geo = maximised(ctx)
    start, target = _two_tabs(ctx)
    if ctx.rng.random() < 0.5 or ctx.canonical:
        target = start  # the tab clicked is the active one: "already active" must not be trusted here
    overlay = DIM_WINDOW + _js_confirm(ctx, geo, kind="leave")
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, start, browser_overlay=overlay)
    after = _browser_frame(twin, geo, start, browser_overlay=overlay)
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
        observed=_observed(before, after),
    )


def _notepad_with_dialog(ctx: Ctx, *, dialog: bool, focus: bool = True) -> Scene:
    look = ctx.look
    file = look.t("Untitled", "Sans titre")
    win = apps.notepad_window(
        look,
        x=ctx.screen_w * 0.14,
        y=ctx.work_h * 0.1,
        w=ctx.screen_w * 0.66,
        h=ctx.work_h * 0.78,
        file=file,
        text=look.t("Patient seen today.", "Patiente vue ce jour."),
        modified=True,
    )
    overlay = apps.notepad_save(look, file=file, x=(ctx.screen_w - 400) / 2, y=(ctx.work_h - 160) / 2) if dialog else ""
    if dialog and not focus:
        overlay = overlay.replace("border:1px solid #6f9fd8", "border:1px solid #aaaaaa")
    name = look.t("Notepad", "Bloc-notes")
    return Scene(
        look,
        compose(ctx, win + overlay, front_app="notepad", busy=False),
        window_title=name if dialog else f"*{file} - {name}",
        process="notepad.exe",
    )


def dialog_closed(ctx: Ctx) -> PairScene:
    twin = _clone(ctx)
    before, after = _notepad_with_dialog(ctx, dialog=True), _notepad_with_dialog(twin, dialog=False)
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
        observed=_observed(before, after),
    )


def dialog_still_open(ctx: Ctx) -> PairScene:
    twin = _clone(ctx)
    before, after = _notepad_with_dialog(ctx, dialog=True), _notepad_with_dialog(twin, dialog=True, focus=False)
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
        observed=_observed(before, after),
    )


def click_menu_ok(ctx: Ctx) -> PairScene:
    look = ctx.look
    geo = maximised(ctx)
    items = easily.menu(look)
    twin = _clone(ctx)
    before = _browser_frame(ctx, geo, 0, page="synthese")
    after = _browser_frame(twin, geo, 0, page="observation", lines=("Patiente vue ce jour, état stable.",))
    return PairScene(
        "click-ok",
        before,
        after,
        "click_anchor",
        ("element", f"menu:{items[1]}"),
        "SUCCESS",
        None,
        f"the {items[1]!r} menu item opens the note form",
        observed=_observed(before, after),
    )


CATEGORIES: dict[str, Builder] = {
    "tab-switch-ok": tab_switch_ok,
    "wrong-tab": wrong_tab,
    "already-active": already_active,
    "no-change": no_change,
    "clock-only": clock_only,
    "wrong-application": wrong_application,
    "tab-closed": tab_closed,
    "save-ok": save_notepad,
    "save-toast": save_toast,
    "unexpected-dialog": save_unexpected_dialog,
    "click-opens-confirm": click_opens_confirm,
    "blocked-by-dialog": blocked_by_dialog,
    "dialog-closed": dialog_closed,
    "dialog-still-open": dialog_still_open,
    "click-ok": click_menu_ok,
}
