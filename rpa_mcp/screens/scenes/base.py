"""What every scene builder shares: the drawing context and the desktop/browser compositions."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from rpa_mcp.screens.html import apps, browser, browser_dialogs, desktop, easily, windows
from rpa_mcp.screens.html.base import page, px
from rpa_mcp.screens.html.browser import TabStrip
from rpa_mcp.screens.look import Look, Split
from rpa_mcp.screens.pools import HOSTS, PATIENTS, pick

T = TypeVar("T")
ALL_CSS = desktop.CSS + browser.CSS + easily.CSS + windows.CSS + browser_dialogs.CSS + apps.CSS


@dataclass
class Ctx:
    rng: random.Random
    look: Look
    split: Split
    seed: int | None = None
    options: dict[str, object] = field(default_factory=dict)

    def pick(self, pool: Sequence[T]) -> T:
        return pick(self.rng, pool, self.split)

    @property
    def canonical(self) -> bool:
        return self.split == "canonical"

    def chance(self, p: float) -> bool:
        return (not self.canonical) and self.rng.random() < p

    def jitter(self, span: float) -> float:
        return 0.0 if self.canonical else self.rng.uniform(-span, span)

    @property
    def screen_w(self) -> int:
        return self.look.css_width

    @property
    def screen_h(self) -> int:
        return self.look.css_height

    @property
    def taskbar_h(self) -> int:
        return desktop.TASKBAR_H[self.look.os]

    @property
    def work_h(self) -> int:
        return self.screen_h - self.taskbar_h


def patient(ctx: Ctx) -> easily.Patient:
    last, first, born, ipp = ctx.pick(PATIENTS)
    return easily.Patient(last, first, born, ipp)


def html(look: Look, body: str) -> str:
    return page(look, body, ALL_CSS)


def compose(
    ctx: Ctx,
    windows_html: str,
    overlays: str = "",
    *,
    apps_on_taskbar: Sequence[str] | None = None,
    front_app: str | None = None,
    time: str = "10:41",
    date: str = "12/03/2025",
    busy: bool | None = None,
) -> str:
    """Wallpaper, windows (later ones on top), taskbar, then overlays above everything."""
    look = ctx.look
    busy = ctx.chance(0.5) if busy is None else busy
    icons = list(apps_on_taskbar or ("explorer", look.browser, "notepad", "outlook", "teams", "pacs"))
    return html(
        look,
        desktop.wallpaper(look, ctx.rng, busy=busy)
        + windows_html
        + desktop.taskbar(look, icons, front=front_app, time=time, date=date)
        + overlays,
    )


@dataclass(frozen=True)
class BrowserGeometry:
    x: float
    y: float
    w: float
    h: float
    strip: TabStrip

    @property
    def page_x(self) -> float:
        return self.x

    @property
    def page_y(self) -> float:
        return self.y + self.strip.chrome_h

    @property
    def page_w(self) -> float:
        return self.w

    @property
    def page_h(self) -> float:
        return self.h - self.strip.chrome_h


def maximised(ctx: Ctx, strip: TabStrip | None = None) -> BrowserGeometry:
    return BrowserGeometry(0, 0, ctx.screen_w, ctx.work_h, strip or default_strip(ctx))


def default_strip(ctx: Ctx) -> TabStrip:
    if ctx.canonical:
        return TabStrip()
    if ctx.look.browser == "chrome":
        width = ctx.rng.choice((200, 216, 236, 240))
        return TabStrip(x0=44, width=width, bookmarks_h=ctx.rng.choice((0, 30)))
    width = ctx.rng.choice((220, 236, 250))
    return TabStrip(x0=82, width=width, bookmarks_h=ctx.rng.choice((0, 30)))


def tab_labels(look: Look) -> list[str]:
    if look.lang == "fr":
        return ["Dossier patient", "Imagerie", "Biologie", "Prescriptions", "Messagerie - Outlook"]
    return ["Patient record", "Imaging", "Lab results", "Prescriptions", "Mail - Outlook"]


PAGE_OF_TAB = ("synthese", "imagerie", "biologie", "prescriptions", "synthese")


def easily_page(ctx: Ctx, key: str, geo: BrowserGeometry, *, modified: bool = True, lines: Sequence[str] = ()) -> str:
    look = ctx.look
    who = patient(ctx)
    if key == "observation":
        main = easily.observation(look, geo.page_w, geo.page_h, modified=modified, lines=lines)
    else:
        main = easily.PAGES[key](look, geo.page_w)
    header = easily.HEADER_COLOURS[0] if ctx.canonical else ctx.rng.choice(easily.HEADER_COLOURS)
    return easily.shell(look, who, key, main, header=header)


def easily_browser(
    ctx: Ctx,
    geo: BrowserGeometry,
    *,
    page_key: str = "synthese",
    tabs: Sequence[str] | None = None,
    active: int = 0,
    page_overlay: str = "",
    browser_overlay: str = "",
    front: bool = True,
    modified: bool = True,
    lines: Sequence[str] = (),
    page_title: str | None = None,
    url: str | None = None,
    gt_tabs: bool = True,
) -> tuple[str, str]:
    """(html of the browser window, its window title)."""
    look = ctx.look
    tabs = list(tabs or tab_labels(look))
    host = str(ctx.pick(HOSTS))
    title = page_title or f"Easily — {tabs[active]}"
    body = easily_page(ctx, page_key, geo, modified=modified, lines=lines) + page_overlay
    favicons = ["easily"] * (len(tabs) - 1) + ["outlook"] if len(tabs) > 4 else None
    window_html = browser.browser_window(
        look,
        x=geo.x,
        y=geo.y,
        w=geo.w,
        h=geo.h,
        tabs=tabs,
        active=active,
        url=url or f"{host}/patient/000123456/{page_key}",
        page=body,
        page_title=title,
        overlay=browser_overlay,
        strip=geo.strip,
        front=front,
        favicons=favicons,
        gt_tabs=gt_tabs,
    )
    return window_html, browser.window_title(look, title)


def occluder(ctx: Ctx, x: float, y: float, w: float, h: float, *, z: int = 95) -> str:
    """Another application's window drawn over part of the scene (a sticky note, a chat window)."""
    look = ctx.look
    title = look.t("Sticky Notes", "Pense-bête") if ctx.rng.random() < 0.5 else "Microsoft Teams"
    body = (
        "<div style='position:absolute;inset:0;background:#fff7b3;padding:10px;font-size:13px;color:#333'>"
        f"{look.t('Call the lab about the potassium result', 'Rappeler le labo pour la kaliémie')}<br>"
        f"{look.t('Bed 12: dressing at 2 pm', 'Lit 12 : pansement à 14 h')}</div>"
    )
    return (
        f"<div style='{px(x, y)}z-index:{z}'>"
        + desktop.window(
            look, x=0, y=0, w=w, h=h, title=title, process="ms-teams.exe", body=body, front=False, app="teams"
        )
        + "</div>"
    )
