"""Helpers of the dialog scenes: placement, occluders, what is behind a dialog."""

from __future__ import annotations

from collections.abc import Callable

from rpa_mcp.screens.html import apps
from rpa_mcp.screens.pools import FILES
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, easily_browser, maximised, occluder

Builder = Callable[[Ctx], Scene]


def centre(ctx: Ctx, w: float, h: float, *, dy: float = -30, spread: float = 0.18) -> tuple[float, float]:
    x = (ctx.screen_w - w) / 2 + ctx.jitter(spread * ctx.screen_w)
    y = (ctx.work_h - h) / 2 + dy + ctx.jitter(spread * ctx.work_h)
    return max(0.0, min(x, ctx.screen_w - w)), max(0.0, min(y, ctx.work_h - h))


def maybe_occlude(ctx: Ctx, x: float, y: float, w: float, h: float) -> tuple[str, tuple[str, ...]]:
    """Sometimes another window covers a corner of the dialog (never its whole button row)."""
    force = bool(ctx.options.get("force"))
    if not force and not ctx.chance(float(str(ctx.options.get("occlude", 0.12)))):
        return "", ()
    ow, oh = ctx.rng.uniform(0.3, 0.5) * w, ctx.rng.uniform(0.3, 0.55) * h
    left = ctx.rng.random() < 0.5
    ox = x - ow * 0.4 if left else x + w - ow * 0.6
    oy = y - oh * 0.35
    return occluder(ctx, ox, oy, ow, oh), ("occluded",)


def web_host(
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


def behind(ctx: Ctx) -> str:
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
