"""The Windows desktop: wallpaper, desktop icons, taskbar with its clock, window frames, icons."""

from __future__ import annotations

import random
from collections.abc import Sequence

from rpa_mcp.screens.html.base import attrs, esc, palette, px
from rpa_mcp.screens.look import Look

TASKBAR_H = {"win10": 40, "win11": 48}
ICON_COLOURS = {
    "edge": ("#0f7bd3", "e"),
    "chrome": ("#e8453c", "c"),
    "explorer": ("#f2b200", "▰"),
    "notepad": ("#3d8ede", "≡"),
    "outlook": ("#0a64c8", "O"),
    "teams": ("#5458b8", "T"),
    "word": ("#2b579a", "W"),
    "excel": ("#217346", "X"),
    "pacs": ("#222a33", "P"),
    "labo": ("#8a3ab9", "L"),
    "settings": ("#6b6b6b", "⚙"),
    "security": ("#2a7ab8", "⛨"),
    "store": ("#3a6fd8", "S"),
}

CSS = """
.wall{position:absolute;inset:0}
.deskicon{position:absolute;width:76px;text-align:center;color:#fff;font-size:12px;text-shadow:0 1px 2px #000}
.deskicon i{display:block;width:40px;height:40px;margin:0 auto 4px;border-radius:6px}
.tb{position:absolute;left:0;right:0;bottom:0;display:flex;align-items:center}
.tbi{width:40px;height:40px;display:flex;align-items:center;justify-content:center;border-radius:4px;position:relative}
.tbi.on::after{content:'';position:absolute;bottom:2px;left:15px;width:10px;height:3px;border-radius:2px;background:#8a8a8a}
.tbi.front::after{left:12px;width:16px;background:#3b82d6}
.ico{display:inline-flex;align-items:center;justify-content:center;color:#fff;font-weight:700;border-radius:4px;
  flex:none;font-family:sans-serif}
.clock{display:flex;flex-direction:column;align-items:flex-end;justify-content:center;font-size:12px;line-height:16px;
  padding:0 10px}
.win{position:absolute;overflow:hidden;display:flex;flex-direction:column}
.win .tbar{display:flex;align-items:center;flex:none;font-size:12px}
.win .tbar .cap{width:46px;height:100%;display:flex;align-items:center;justify-content:center;font-size:11px}
.win .wbody{position:relative;flex:1;overflow:hidden}
"""


def icon(name: str, size: int = 24, radius: int = 4) -> str:
    colour, letter = ICON_COLOURS.get(name, ("#777777", name[:1].upper()))
    return (
        f"<span class='ico' style='width:{size}px;height:{size}px;background:{colour};border-radius:{radius}px;"
        f"font-size:{round(size * 0.58)}px'>{esc(letter)}</span>"
    )


def wallpaper(look: Look, rng: random.Random, *, busy: bool = False) -> str:
    """Flat-coloured shapes (a Windows 11 'bloom' or a Windows 10 light beam), more of them when busy.

    Flat fills keep the PNG small; photos would triple the committed corpus for no gain.
    """
    if look.win11:
        base, shapes = (
            ("#0b2a66", ("#1e4fa8", "#3f7fd9", "#7fb0ef"))
            if not look.dark
            else ("#05091a", ("#0b1634", "#1d3470", "#3a5ea8"))
        )
    else:
        base, shapes = "#00244d", ("#003a78", "#0a4e9a", "#2a6fc0")
    parts = [f"<div class='wall' style='background:{base}'></div>"]
    for i, colour in enumerate(shapes):
        size = 70 - i * 18
        parts.append(
            f"<div class='wall' style='left:{30 + i * 6}%;top:{22 + i * 8}%;right:auto;bottom:auto;width:{size}vw;"
            f"height:{size}vw;border-radius:50%;background:{colour};transform:translate(-10%,-20%)'></div>"
        )
    if busy:
        for _ in range(10):
            w, h = rng.randint(6, 22), rng.randint(6, 22)
            hue = rng.randint(0, 360)
            parts.append(
                f"<div class='wall' style='left:{rng.randint(0, 95)}%;top:{rng.randint(0, 90)}%;right:auto;bottom:auto;"
                f"width:{w}vw;height:{h}vh;border-radius:{rng.choice((0, 12, 50))}%;background:hsl({hue},45%,45%)'></div>"
            )
    html = "".join(parts)
    if busy:
        names = ["Corbeille", "Easily", "PACS Viewer", "Protocoles", "LabConnect", "Planning", "Annuaire", "Notes"]
        if look.lang == "en":
            names[0] = "Recycle Bin"
        for i, name in enumerate(names):
            html += (
                f"<div class='deskicon' style='left:{10 + (i // 6) * 84}px;top:{12 + (i % 6) * 88}px'>"
                f"<i style='background:hsl({(i * 47) % 360},55%,52%)'></i>{esc(name)}</div>"
            )
    return html


def clock_text(look: Look, time: str, date: str) -> tuple[str, str]:
    """('10:41', '12/03/2025') in French; ('10:41 AM', '3/12/2025') in English."""
    if look.lang == "fr":
        return time, date
    hour, minute = (int(p) for p in time.split(":"))
    day, month, year = date.split("/")
    suffix = "AM" if hour < 12 else "PM"
    return f"{(hour - 1) % 12 + 1}:{minute:02d} {suffix}", f"{int(month)}/{int(day)}/{year}"


def taskbar(
    look: Look,
    apps: Sequence[str],
    *,
    front: str | None = None,
    time: str = "10:41",
    date: str = "12/03/2025",
) -> str:
    """The taskbar: Windows 11 centred icons (48 px) or Windows 10 start + search + icons (40 px)."""
    pal = palette(look)
    height = TASKBAR_H[look.os]
    bg = pal.taskbar if look.win11 else ("#101010" if look.dark else "#1f2a36")
    fg = pal.taskbar_text if look.win11 else "#ffffff"
    hm, dm = clock_text(look, time, date)
    tray = (
        f"<div class='row' style='gap:10px;font-size:12px;padding:0 6px'>"
        f"<span>⌃</span><span style='text-align:center;line-height:14px;font-size:11px'>"
        f"{'FRA<br>FR' if look.lang == 'fr' else 'ENG<br>US'}</span><span>◔</span><span>&#9835;</span></div>"
        f"<div class='clock' {attrs(data_gt_el='clock', data_label=hm)}><span>{esc(hm)}</span>"
        f"<span>{esc(dm)}</span></div>"
    )

    def app_icon(name: str) -> str:
        state = "front" if name == front else "on" if name in ("edge", "chrome", "outlook", "pacs", "notepad") else ""
        return f"<div class='tbi {state}' {attrs(data_gt_el=f'taskbar:{name}', data_label=name)}>{icon(name, 24)}</div>"

    icons = "".join(app_icon(a) for a in apps)
    if look.win11:
        start = (
            "<div class='tbi'><span style='display:grid;grid-template-columns:10px 10px;gap:2px'>"
            + ("<i style='width:10px;height:10px;background:#2f8cf0;display:block'></i>" * 4)
            + "</span></div>"
        )
        search = "<div class='tbi' style='font-size:17px'>⌕</div>"
        middle = f"<div class='row' style='position:absolute;left:0;right:0;justify-content:center;gap:4px'>{start}{search}{icons}</div>"
        body = f"{middle}<div class='grow'></div><div class='row' style='position:relative'>{tray}</div>"
    else:
        search_text = look.t("Type here to search", "Taper ici pour rechercher")
        start = "<div class='tbi' style='width:48px;color:#fff;font-size:18px'>⊞</div>"
        search = (
            f"<div class='row' style='width:300px;height:40px;background:#f3f3f3;color:#555;padding:0 10px;"
            f"font-size:13px'>⌕&nbsp; {esc(search_text)}</div>"
        )
        body = (
            f"{start}{search}<div class='row' style='gap:2px;margin-left:4px'>{icons}</div>"
            f"<div class='grow'></div>{tray}"
        )
    return f"<div class='tb' style='height:{height}px;background:{bg};color:{fg}'>{body}</div>"


def window(
    look: Look,
    *,
    x: float,
    y: float,
    w: float,
    h: float,
    title: str,
    process: str,
    body: str,
    front: bool = True,
    app: str = "notepad",
    style: str = "",
    titlebar: str | None = None,
    shown_title: str | None = None,
    body_bg: str | None = None,
    classic: bool = False,
) -> str:
    """A top-level window with its title bar and caption buttons; ground truth: title, process, box."""
    pal = palette(look)
    win11 = look.win11 and not classic
    tb_h = 32 if win11 else 30
    tb_bg = titlebar or (pal.titlebar if front else ("#2b2b2b" if look.dark else "#f9f9f9"))
    tb_fg = pal.titlebar_text if front else "#8a8a8a"
    border = "1px solid #707070" if not win11 else f"1px solid {'#3a3a3a' if look.dark else '#bcbcbc'}"
    radius = "8px" if win11 else "0"
    caps = "".join(f"<div class='cap'>{c}</div>" for c in ("&#8212;", "&#9633;", "&#10005;"))
    label = shown_title if shown_title is not None else title
    bar = (
        f"<div class='tbar' style='height:{tb_h}px;background:{tb_bg};color:{tb_fg}'>"
        f"<span style='margin:0 8px 0 10px;display:flex'>{icon(app, 16, 3)}</span>"
        f"<span class='ell grow' {attrs(data_gt_el='window-title' if front else None, data_label=label)}>{esc(label)}</span>"
        f"{caps}</div>"
    )
    bg = body_bg or (pal.surface2 if not look.dark else pal.surface)
    return (
        f"<div class='win shadow' {attrs(data_gt='window', data_title=title, data_process=process, data_front='1' if front else None)} "
        f"style='{px(x, y, w, h)}border:{border};border-radius:{radius};background:{bg};{style}'>"
        f"{bar}<div class='wbody'>{body}</div></div>"
    )


def dim(alpha: float, *, z: int = 50) -> str:
    """A dark overlay over everything below it (the UAC secure desktop, a web modal's backdrop)."""
    return f"<div class='abs' style='inset:0;background:rgba(0,0,0,{alpha:g});z-index:{z}'></div>"
