"""What the browser itself draws over a page: permission bubbles, JavaScript dialogs, the
leave/reload-site dialog, the translation bubble. Shapes and strings follow Chromium 15x
(Chrome: stacked pill buttons "Allow while visiting the site / Allow this time / Never allow",
notifications "Block / Allow"; Edge: square buttons)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from rpa_mcp.screens.html.base import attrs, esc, px
from rpa_mcp.screens.look import Look

Permission = Literal["camera", "microphone", "location", "notifications"]
JsKind = Literal["alert", "confirm", "prompt", "leave", "reload"]
JS_KINDS: tuple[JsKind, ...] = ("alert", "confirm", "prompt", "leave", "reload")
BubbleStyle = Literal["stacked", "row"]
PERMISSION_LINES: dict[Permission, tuple[tuple[str, str], ...]] = {
    "camera": (
        ("Use your camera", "Utiliser votre caméra"),
        ("Use available cameras (1)", "Utiliser les caméras disponibles (1)"),
    ),
    "microphone": (
        ("Use your microphone", "Utiliser votre micro"),
        ("Use available microphones (1)", "Utiliser les micros disponibles (1)"),
    ),
    "location": (("Know your location", "Connaître votre position"),),
    "notifications": (("Show notifications", "Afficher les notifications"),),
}
PERMISSION_ICONS = {"camera": "▭", "microphone": "♩", "location": "⌖", "notifications": "♫"}

CSS = """
.bub{position:absolute;font-size:14px;z-index:80}
.pill{height:36px;display:flex;align-items:center;justify-content:center;border-radius:18px;font-size:14px;padding:0 16px;
  white-space:nowrap}
.sq{height:32px;display:flex;align-items:center;justify-content:center;border-radius:4px;font-size:13px;padding:0 18px;
  white-space:nowrap}
.jsd{position:absolute;z-index:85;font-size:14px}
"""


def _c(look: Look) -> dict[str, str]:
    if look.dark:
        return {
            "bg": "#292a2d" if look.browser == "chrome" else "#2b2b2b",
            "text": "#e8eaed",
            "muted": "#bdc1c6",
            "pill": "#394457",
            "pill_text": "#d3e3fd",
            "pri": "#a8c7fa",
            "pri_text": "#062e6f",
            "border": "#3c4043",
        }
    return {
        "bg": "#ffffff",
        "text": "#1f1f1f",
        "muted": "#474747",
        "pill": "#d3e3fd",
        "pill_text": "#041e49",
        "pri": "#0b57d0",
        "pri_text": "#ffffff",
        "border": "#dadce0",
    }


def permission_buttons(look: Look, kind: Permission, style: str) -> list[tuple[str, str]]:
    """(key, label) in screen order. style: stacked (Chrome 12x+), row (notifications, Edge, older)."""
    if kind == "notifications" or style == "row":
        return [("block", look.t("Block", "Bloquer")), ("allow", look.t("Allow", "Autoriser"))]
    return [
        ("allow", look.t("Allow while visiting the site", "Autoriser pendant la visite du site")),
        ("allow_once", look.t("Allow this time", "Autoriser cette fois-ci")),
        ("block", look.t("Never allow", "Ne jamais autoriser")),
    ]


def permission_bubble(
    look: Look,
    *,
    kind: Permission,
    origin: str,
    x: float,
    y: float,
    style: BubbleStyle = "stacked",
    line_variant: int = 0,
    preview: bool = False,
) -> str:
    """The site-permission prompt anchored under the address bar."""
    c = _c(look)
    lines = PERMISSION_LINES[kind]
    line = look.t(*lines[min(line_variant, len(lines) - 1)])
    wants = look.t("wants to", "souhaite")
    edge = look.browser == "edge"
    buttons = permission_buttons(look, kind, "row" if edge and kind != "location" and style == "row" else style)
    w = 320 if (kind == "notifications" or style == "row") else 300
    if edge:
        btn_html = "".join(
            f"<span class='sq' {attrs(data_gt='button', data_key=k)} style='background:{c['pri'] if k.startswith('allow') and i == 0 and style == 'row' else ('#f3f3f3' if not look.dark else '#3a3a3a')};"
            f"color:{c['pri_text'] if k.startswith('allow') and i == 0 and style == 'row' else c['text']};"
            f"border:1px solid {c['border']};{'width:100%;margin-top:8px' if style != 'row' else 'min-width:96px'}'>{esc(lbl)}</span>"
            for i, (k, lbl) in enumerate(sorted(buttons, key=lambda b: b[0] != "allow") if style == "row" else buttons)
        )
    else:
        btn_html = "".join(
            f"<span class='pill' {attrs(data_gt='button', data_key=k)} style='background:{c['pill']};color:{c['pill_text']};"
            f"{'width:100%;margin-top:9px' if style == 'stacked' and kind != 'notifications' else ''}'>{esc(lbl)}</span>"
            for k, lbl in buttons
        )
    row = style == "row" or kind == "notifications"
    buttons_box = (
        f"<div style='display:flex;justify-content:flex-end;gap:8px;padding:10px 20px 20px'>{btn_html}</div>"
        if row
        else f"<div style='padding:4px 20px 20px'>{btn_html}</div>"
    )
    shot = ""
    if preview and kind in ("camera", "microphone") and not row:
        inner = (
            "<div style='height:96px;border-radius:6px;background:#1b5e20'></div>"
            if kind == "camera"
            else f"<div style='padding:14px;font-size:13px;color:{c['muted']}'>{look.t('Microphone (default)', 'Micro (par défaut)')}</div>"
        )
        shot = (
            f"<div style='margin:4px 20px 4px;padding:10px;border-radius:12px;background:{c['pill']}33;border:6px solid "
            f"{c['pill']}55'>{inner}</div>"
        )
    gt = attrs(data_gt="dialog", data_id=f"browser-perm-{kind}", data_kind="bubble", data_modal="0", data_primary="1")
    radius = "8px" if edge else "12px"
    return (
        f"<div class='bub' {gt} style='{px(x, y, w)}background:{c['bg']};color:{c['text']};border-radius:{radius};"
        f"box-shadow:0 4px 16px rgba(0,0,0,.28),0 1px 3px rgba(0,0,0,.2);border:1px solid {c['border']}'>"
        f"<div style='display:flex;padding:18px 20px 6px'><div class='grow' {attrs(data_gt='title')}>"
        f"<b style='font-size:15px'>{esc(origin)}</b><br><span style='font-size:15px'>{esc(wants)}</span></div>"
        f"<span style='font-size:12px'>&#10005;</span></div>"
        f"<div {attrs(data_gt='text')} style='display:flex;gap:10px;align-items:center;padding:8px 20px 8px;color:{c['muted']}'>"
        f"<span>{PERMISSION_ICONS[kind]}</span><span>{esc(line)}</span></div>{shot}{buttons_box}</div>"
    )


def js_dialog(
    look: Look,
    *,
    kind: JsKind,
    host: str,
    message: str,
    x: float,
    y: float,
    w: float = 450,
) -> str:
    """A JavaScript dialog (alert/confirm/prompt) or the beforeunload dialog (leave/reload)."""
    c = _c(look)
    edge = look.browser == "edge"
    if kind in ("leave", "reload"):
        dialog_id = "browser-leave-site"
        title = (
            look.t("Leave site?", "Quitter le site Web ?")
            if kind == "leave"
            else look.t("Reload site?", "Actualiser le site Web ?")
        )
        message = look.t(
            "Changes you made may not be saved.",
            "Les modifications que vous avez apportées ne seront peut-être pas enregistrées.",
        )
        ok_key = "leave" if kind == "leave" else "reload"
        ok = look.t("Leave", "Quitter") if kind == "leave" else look.t("Reload", "Actualiser")
        buttons: Sequence[tuple[str, str]] = (("cancel", look.t("Cancel", "Annuler")), (ok_key, ok))
    else:
        dialog_id = "browser-js-alert"
        title = f"{host} {look.t('says', 'indique')}"
        buttons = (("ok", "OK"),) if kind == "alert" else (("cancel", look.t("Cancel", "Annuler")), ("ok", "OK"))
    btns = "".join(
        f"<span class='{'sq' if edge else 'pill'}' {attrs(data_gt='button', data_key=k)} style='margin-left:8px;min-width:76px;"
        + (
            f"background:{c['pri']};color:{c['pri_text']}"
            if i == len(buttons) - 1
            else f"background:{c['pill'] if not edge else '#f3f3f3'};color:{c['pill_text'] if not edge else c['text']}"
        )
        + f"'>{esc(lbl)}</span>"
        for i, (k, lbl) in enumerate(buttons)
    )
    field = (
        f"<div style='margin:10px 0 0;height:36px;border:2px solid {c['pri']};border-radius:6px'></div>"
        if kind == "prompt"
        else ""
    )
    gt = attrs(data_gt="dialog", data_id=dialog_id, data_primary="1")
    return (
        f"<div class='jsd' {gt} style='{px(x, y, w)}background:{c['bg']};color:{c['text']};"
        f"border-radius:{'2px' if not edge else '6px'};box-shadow:0 4px 20px rgba(0,0,0,.35)'>"
        f"<div style='padding:22px 24px 0'><div {attrs(data_gt='title')} style='font-size:18px;margin-bottom:12px'>{esc(title)}</div>"
        f"<div {attrs(data_gt='text')} style='line-height:20px'>{esc(message)}</div>{field}</div>"
        f"<div style='display:flex;justify-content:flex-end;padding:18px 20px 20px'>{btns}</div></div>"
    )


def translate_bubble(look: Look, *, x: float, y: float, source: str = "English") -> str:
    c = _c(look)
    target = look.t("French", "Français") if look.lang == "fr" else "English"
    title = look.t("Translate this page?", "Traduire cette page ?")
    brand = "Microsoft Translator" if look.browser == "edge" else "Google Translate"
    text = look.t(f"{brand} — from {source} to {target}", f"{brand} — de {source} vers {target}")
    buttons = (("not_now", look.t("Not now", "Pas maintenant")), ("translate", look.t("Translate", "Traduire")))
    btns = "".join(
        f"<span class='pill' {attrs(data_gt='button', data_key=k)} style='margin-left:8px;"
        + (
            f"background:{c['pri']};color:{c['pri_text']}"
            if k == "translate"
            else f"background:{c['pill']};color:{c['pill_text']}"
        )
        + f"'>{esc(lbl)}</span>"
        for k, lbl in buttons
    )
    gt = attrs(
        data_gt="dialog", data_id="browser-translate-prompt", data_kind="bubble", data_modal="0", data_primary="1"
    )
    return (
        f"<div class='bub' {gt} style='{px(x, y, 340)}background:{c['bg']};color:{c['text']};border-radius:12px;"
        f"box-shadow:0 4px 16px rgba(0,0,0,.28);border:1px solid {c['border']}'>"
        f"<div style='padding:18px 20px 6px;font-size:15px;font-weight:600' {attrs(data_gt='title')}>{esc(title)}</div>"
        f"<div {attrs(data_gt='text')} style='padding:4px 20px 8px;color:{c['muted']}'>{esc(text)}</div>"
        f"<div style='display:flex;justify-content:flex-end;padding:10px 20px 18px'>{btns}</div></div>"
    )
