"""What the pair builders share: the pair record, browser and Notepad frames, the twin random state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.screens.html import app_dialogs, apps, browser_dialogs
from rpa_mcp.screens.html.browser import browser_process
from rpa_mcp.screens.html.browser_dialogs import JsKind
from rpa_mcp.screens.pools import HOSTS
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import (
    PAGE_OF_TAB,
    BrowserGeometry,
    Ctx,
    compose,
    easily_browser,
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


def browser_frame(
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


def observed_titles(before: Scene, after: Scene) -> dict[str, str]:
    return {
        "window_title_before": before.window_title,
        "window_title_after": after.window_title,
        "process_after": after.process,
    }


def two_tabs(ctx: Ctx) -> tuple[int, int]:
    if ctx.canonical:
        return 0, 1
    start = ctx.rng.randrange(4)
    target = ctx.rng.choice([i for i in range(4) if i != start])
    return start, target


def clone(ctx: Ctx) -> Ctx:
    """The same random state for the second frame, so both frames share their random choices."""
    import random

    state = ctx.rng.getstate()
    twin = Ctx(random.Random(), ctx.look, ctx.split, ctx.seed, dict(ctx.options))
    twin.rng.setstate(state)
    return twin


def js_confirm(ctx: Ctx, geo: BrowserGeometry, *, kind: JsKind = "confirm") -> str:
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


def notepad_with_dialog(ctx: Ctx, *, dialog: bool, focus: bool = True) -> Scene:
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
    overlay = (
        app_dialogs.notepad_save(look, file=file, x=(ctx.screen_w - 400) / 2, y=(ctx.work_h - 160) / 2)
        if dialog
        else ""
    )
    if dialog and not focus:
        overlay = overlay.replace("border:1px solid #6f9fd8", "border:1px solid #aaaaaa")
    name = look.t("Notepad", "Bloc-notes")
    return Scene(
        look,
        compose(ctx, win + overlay, front_app="notepad", busy=False),
        window_title=name if dialog else f"*{file} - {name}",
        process="notepad.exe",
    )
