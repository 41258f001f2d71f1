"""What the browser draws itself (category B): permission bubbles, JavaScript dialogs, translation."""

from __future__ import annotations

from rpa_mcp.screens.html import browser_dialogs
from rpa_mcp.screens.html.browser import browser_process
from rpa_mcp.screens.html.browser_dialogs import JS_KINDS, BubbleStyle, JsKind
from rpa_mcp.screens.pools import HOSTS
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose, maximised
from rpa_mcp.screens.scenes.dialogs.common import Builder, web_host


# --- B: browser ----------------------------------------------------------------------------------
def permission(kind: browser_dialogs.Permission) -> Builder:
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
        html, title = web_host(ctx, browser_overlay=bubble)
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
    html, title = web_host(ctx, page_overlay=dim if not window_dim else "", browser_overlay=window_dim + dialog)
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
    html, title = web_host(ctx, browser_overlay=bubble)
    return Scene(
        look,
        compose(ctx, html, front_app=look.browser),
        window_title=title,
        process=browser_process(look),
        dialog_id="browser-translate-prompt",
        description="translation bubble",
    )
