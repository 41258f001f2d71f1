"""A Chromium browser window (Edge or Chrome look): tab strip, toolbar, bookmarks, page area.

Geometry is data (`TabStrip`) so a scene can place tabs exactly where a recorded workflow
expects them. An active tab shares the toolbar's colour, an inactive one the strip's: that is
what a real browser draws and what the validator reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rpa_mcp.screens.html.base import attrs, esc, px
from rpa_mcp.screens.look import Look

CSS = """
.bw{position:absolute;overflow:hidden;display:flex;flex-direction:column}
.strip{position:relative;flex:none}
.tab{position:absolute;display:flex;align-items:center;font-size:12px;padding:0 8px 0 12px}
.tab .lbl{flex:1;margin-left:10px;white-space:nowrap;overflow:hidden}
.tab .x{width:22px;height:22px;display:flex;align-items:center;justify-content:center;font-size:11px;border-radius:4px}
.tab.sep::before{content:'';position:absolute;left:0;top:8px;bottom:8px;width:1px;background:var(--sep)}
.toolbar{display:flex;align-items:center;flex:none;gap:4px;padding:0 8px;font-size:14px}
.toolbar .b{width:28px;height:28px;display:flex;align-items:center;justify-content:center;font-size:15px}
.omni{flex:1;height:30px;display:flex;align-items:center;padding:0 12px;font-size:14px;margin:0 6px}
.bookmarks{display:flex;align-items:center;gap:18px;flex:none;font-size:12px;padding:0 12px}
.bookmarks span{display:flex;align-items:center;gap:6px}
.pg{position:relative;flex:1;overflow:hidden;background:#fff}
"""


@dataclass(frozen=True)
class TabStrip:
    x0: int = 82  # first tab's left edge, window coordinates
    width: int = 236
    height: int = 32
    top: int = 8
    strip_h: int = 40
    toolbar_h: int = 40
    bookmarks_h: int = 30

    @property
    def chrome_h(self) -> int:
        return self.strip_h + self.toolbar_h + self.bookmarks_h


def colours(look: Look) -> dict[str, str]:
    if look.browser == "chrome":
        if look.dark:
            return {
                "strip": "#1f1f1f",
                "tab": "#35363a",
                "text": "#e8eaed",
                "muted": "#9aa0a6",
                "omni": "#282828",
                "sep": "#4a4a4a",
                "omni_text": "#e8eaed",
            }
        return {
            "strip": "#d3e3fd",
            "tab": "#ffffff",
            "text": "#1f1f1f",
            "muted": "#474747",
            "omni": "#e9eef6",
            "sep": "#9fb3d3",
            "omni_text": "#1f1f1f",
        }
    if look.dark:
        return {
            "strip": "#1c1c1c",
            "tab": "#2f2f2f",
            "text": "#ffffff",
            "muted": "#c8c8c8",
            "omni": "#1f1f1f",
            "sep": "#4c4c4c",
            "omni_text": "#ffffff",
        }
    return {
        "strip": "#e8e8e8",
        "tab": "#ffffff",
        "text": "#1a1a1a",
        "muted": "#555555",
        "omni": "#f1f1f1",
        "sep": "#b8b8b8",
        "omni_text": "#1a1a1a",
    }


def browser_name(look: Look) -> str:
    return "Google Chrome" if look.browser == "chrome" else "Microsoft Edge"


def browser_process(look: Look) -> str:
    return "chrome.exe" if look.browser == "chrome" else "msedge.exe"


def window_title(look: Look, page_title: str) -> str:
    return f"{page_title} - {browser_name(look)}"


def browser_window(
    look: Look,
    *,
    x: float,
    y: float,
    w: float,
    h: float,
    tabs: Sequence[str],
    active: int,
    url: str,
    page: str,
    page_title: str,
    overlay: str = "",
    strip: TabStrip | None = None,
    front: bool = True,
    favicons: Sequence[str] | None = None,
    hidden_tab_truth: bool = False,
    gt_tabs: bool = True,
) -> str:
    """The browser; `overlay` is drawn above the page and the chrome (bubbles, browser dialogs).

    `gt_tabs`: measure the tabs as ground truth (False for a browser window that is not the one the
    scene is about).
    """
    strip = strip or TabStrip()
    c = colours(look)
    tab_html = []
    for i, label in enumerate(tabs):
        is_active = i == active
        left = strip.x0 + i * strip.width
        bg = c["tab"] if is_active else "transparent"
        radius = "8px 8px 0 0" if is_active else "6px"
        sep = "" if is_active or i == 0 or i - 1 == active else "sep"
        fav = (favicons[i] if favicons and i < len(favicons) else "easily") or "easily"
        gt = attrs(data_gt="tab" if gt_tabs and not hidden_tab_truth else None, data_active="1" if is_active else None)
        height = strip.height + (strip.strip_h - strip.top - strip.height) if is_active else strip.height
        tab_html.append(
            f"<div class='tab {sep}' {gt} style='{px(left, strip.top, strip.width, height)}background:{bg};"
            f"border-radius:{radius};color:{c['text'] if is_active else c['muted']}'>"
            f"{_favicon(fav)}<span class='lbl'><span {attrs(data_gt_part='label')}>{esc(label)}</span></span>"
            f"<span class='x' {attrs(data_gt_part='close')}>&#10005;</span></div>"
        )
    new_tab_x = strip.x0 + len(tabs) * strip.width + 8
    caps = "".join(
        f"<div style='width:46px;height:{strip.strip_h - 8}px;display:flex;align-items:center;justify-content:center;"
        f"font-size:11px'>{ch}</div>"
        for ch in ("&#8212;", "&#10064;", "&#10005;")
    )
    lead = (
        f"<div class='abs row' style='left:10px;top:{strip.top + 4}px;gap:14px;font-size:13px'>"
        f"<span style='width:22px;height:22px;border-radius:11px;background:#7b5ea7;color:#fff;display:flex;"
        f"align-items:center;justify-content:center;font-size:11px'>C</span><span>&#9635;</span></div>"
        if look.browser == "edge"
        else f"<div class='abs' style='left:12px;top:{strip.top + 6}px;font-size:13px'>&#8964;</div>"
    )
    scheme = "https://" if look.browser == "edge" else ""
    host, _, path = url.partition("/")
    omni = (
        f"<div class='omni' style='background:{c['omni']};color:{c['omni_text']};"
        f"border-radius:{'15px' if look.browser == 'chrome' else '4px'}'>"
        f"<span style='margin-right:10px;color:{c['muted']}'>&#9679;</span>"
        f"<span class='ell'><span style='color:{c['muted']}'>{scheme}</span>{esc(host)}"
        f"<span style='color:{c['muted']}'>/{esc(path)}</span></span></div>"
    )
    toolbar = (
        f"<div class='toolbar' style='height:{strip.toolbar_h}px;background:{c['tab']};color:{c['text']}'>"
        f"<div class='b'>&#8592;</div><div class='b' style='color:{c['muted']}'>&#8594;</div><div class='b'>&#8635;</div>"
        f"<div class='b'>&#8962;</div>{omni}<div class='b'>&#9734;</div><div class='b'>&#9881;</div>"
        f"<span style='width:24px;height:24px;border-radius:12px;background:#c55a11;color:#fff;font-size:10px;"
        f"display:flex;align-items:center;justify-content:center'>CM</span><div class='b'>"
        f"{'&#8943;' if look.browser == 'edge' else '&#8942;'}</div></div>"
    )
    marks = ""
    if strip.bookmarks_h:
        names = [
            "Easily",
            look.t("Mail", "Messagerie"),
            "PACS Web",
            "Intranet CH",
            look.t("Protocols", "Protocoles"),
            look.t("Directory", "Annuaire"),
        ]
        marks = (
            f"<div class='bookmarks' style='height:{strip.bookmarks_h}px;background:{c['tab']};color:{c['text']};"
            f"border-bottom:1px solid {c['sep']}'>"
            + "".join(f"<span>{_favicon(n.lower().split()[0])}{esc(n)}</span>" for n in names)
            + "</div>"
        )
    win = attrs(
        data_gt="window",
        data_title=window_title(look, page_title),
        data_process=browser_process(look),
        data_front="1" if front else None,
    )
    return (
        f"<div class='bw shadow' {win} style='{px(x, y, w, h)}background:{c['strip']};--sep:{c['sep']}'>"
        f"<div class='strip' style='height:{strip.strip_h}px;background:{c['strip']};color:{c['text']}'>{lead}"
        f"{''.join(tab_html)}<div class='abs' style='left:{new_tab_x}px;top:{strip.top + 4}px;font-size:18px;"
        f"color:{c['text']}'>+</div><div class='abs row' style='right:0;top:0'>{caps}</div></div>"
        f"{toolbar}{marks}<div class='pg'>{page}</div>{overlay}</div>"
    )


def _favicon(name: str) -> str:
    colours = {
        "easily": "#0b63b6",
        "messagerie": "#0a64c8",
        "mail": "#0a64c8",
        "pacs": "#5a2ea6",
        "intranet": "#1c8a3c",
        "protocoles": "#d89b00",
        "protocols": "#d89b00",
        "annuaire": "#c62828",
        "directory": "#c62828",
        "outlook": "#0a64c8",
        "labo": "#8a3ab9",
        "blank": "#9e9e9e",
    }
    colour = colours.get(name, "#607d8b")
    glyph = "+" if name == "easily" else name[:1].upper()
    return (
        f"<span class='ico' style='width:16px;height:16px;border-radius:3px;background:{colour};font-size:11px'>"
        f"{esc(glyph)}</span>"
    )
