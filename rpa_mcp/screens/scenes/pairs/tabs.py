"""Pairs of tab actions in a browser's own strip: switch, wrong tab, already active, no change, wrong app, close."""

from __future__ import annotations

from rpa_mcp.screens.html import apps
from rpa_mcp.screens.html.browser import TabStrip
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
from rpa_mcp.screens.scenes.pairs.common import (
    PairScene,
    browser_frame,
    clone,
    observed_titles,
    two_tabs,
)


def tab_switch_ok(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = two_tabs(ctx)
    twin = clone(ctx)
    before = browser_frame(ctx, geo, start)
    after = browser_frame(twin, geo, target)
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
        observed=observed_titles(before, after),
    )


def wrong_tab(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = two_tabs(ctx)
    other = next(
        i
        for i in (target + 1, target - 1, target + 2, target - 2, target + 3, target - 3)
        if 0 <= i < 4 and i not in (start, target)
    )
    twin = clone(ctx)
    before = browser_frame(ctx, geo, start)
    after = browser_frame(twin, geo, other)
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
        observed=observed_titles(before, after),
    )


def already_active(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    _, target = two_tabs(ctx)
    twin = clone(ctx)
    before = browser_frame(ctx, geo, target)
    after = browser_frame(twin, geo, target)
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
        observed=observed_titles(before, after),
    )


def no_change(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = two_tabs(ctx)
    twin = clone(ctx)
    before = browser_frame(ctx, geo, start)
    after = browser_frame(twin, geo, start)
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
        observed=observed_titles(before, after),
    )


def clock_only(ctx: Ctx) -> PairScene:
    geo = maximised(ctx)
    start, target = two_tabs(ctx)
    twin = clone(ctx)
    before = browser_frame(ctx, geo, start, time="10:41")
    after = browser_frame(twin, geo, start, time="10:42")
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
        observed=observed_titles(before, after),
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
    twin = clone(ctx)

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
        observed=observed_titles(before, after),
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
    twin = clone(ctx)
    before = browser_frame(ctx, geo, active, tabs=tabs, page=PAGE_OF_TAB[active])
    after = browser_frame(twin, geo, new_active, tabs=remaining, page=PAGE_OF_TAB[tabs.index(remaining[new_active])])
    return PairScene(
        "tab-closed",
        before,
        after,
        "close_tab",
        ("tab-close", tabs[target]),
        "SUCCESS",
        None,
        f"tab {tabs[target]!r} closed with its cross; {remaining[new_active]!r} active",
        observed=observed_titles(before, after),
    )
