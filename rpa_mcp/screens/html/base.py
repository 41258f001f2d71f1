"""Page skeleton, palettes and small helpers shared by every component."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from rpa_mcp.screens.look import Look


def esc(text: str) -> str:
    return escape(text, quote=True)


def attrs(**values: object) -> str:
    """HTML attributes; `data_gt="x"` becomes `data-gt="x"`, None and False are left out."""
    out = []
    for key, value in values.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        out.append(name if value is True else f'{name}="{esc(str(value))}"')
    return " ".join(out)


def px(x: float, y: float, w: float | None = None, h: float | None = None) -> str:
    """An absolute position (CSS px)."""
    style = f"position:absolute;left:{x:g}px;top:{y:g}px;"
    if w is not None:
        style += f"width:{w:g}px;"
    if h is not None:
        style += f"height:{h:g}px;"
    return style


@dataclass(frozen=True)
class Palette:
    """Colours of the Windows shell for one look (system dialogs, taskbar, window frames)."""

    surface: str
    surface2: str
    text: str
    muted: str
    border: str
    button: str
    button_border: str
    accent: str
    accent_text: str
    titlebar: str
    titlebar_text: str
    taskbar: str
    taskbar_text: str


def palette(look: Look) -> Palette:
    if look.win11:
        if look.dark:
            return Palette(
                "#202020",
                "#2b2b2b",
                "#ffffff",
                "#c5c5c5",
                "#3b3b3b",
                "#2d2d2d",
                "#454545",
                "#60cdff",
                "#000000",
                "#202020",
                "#ffffff",
                "#1c1c1c",
                "#ffffff",
            )
        return Palette(
            "#f3f3f3",
            "#fbfbfb",
            "#1a1a1a",
            "#5c5c5c",
            "#d9d9d9",
            "#fdfdfd",
            "#cfcfcf",
            "#005fb8",
            "#ffffff",
            "#f3f3f3",
            "#1a1a1a",
            "#eef0f4",
            "#1a1a1a",
        )
    if look.dark:
        return Palette(
            "#2b2b2b",
            "#1f1f1f",
            "#ffffff",
            "#cccccc",
            "#434343",
            "#333333",
            "#5a5a5a",
            "#0078d7",
            "#ffffff",
            "#1f1f1f",
            "#ffffff",
            "#101010",
            "#ffffff",
        )
    return Palette(
        "#ffffff",
        "#f0f0f0",
        "#000000",
        "#505050",
        "#cccccc",
        "#e1e1e1",
        "#adadad",
        "#0078d7",
        "#ffffff",
        "#ffffff",
        "#000000",
        "#1f2a36",
        "#ffffff",
    )


BASE_CSS = """
*{box-sizing:border-box;margin:0;padding:0}
html,body{width:100%;height:100%;overflow:hidden}
body{position:relative;font-family:var(--font),sans-serif;font-size:14px;color:#1a1a1a;
  -webkit-font-smoothing:antialiased}
.abs{position:absolute}
.row{display:flex;align-items:center}
.col{display:flex;flex-direction:column}
.grow{flex:1}
.ell{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
button{font-family:inherit;font-size:inherit;color:inherit;cursor:default}
input,textarea,select{font-family:inherit;font-size:inherit}
.shadow{box-shadow:0 8px 24px rgba(0,0,0,.28),0 2px 6px rgba(0,0,0,.18)}
.shadow-lg{box-shadow:0 16px 48px rgba(0,0,0,.36),0 4px 12px rgba(0,0,0,.2)}
"""


def page(look: Look, body: str, css: str = "") -> str:
    return (
        "<!doctype html><html><head><meta charset='utf-8'><style>"
        f":root{{--font:'{look.font}'}}{BASE_CSS}{css}</style></head>"
        f"<body>{body}</body></html>"
    )
