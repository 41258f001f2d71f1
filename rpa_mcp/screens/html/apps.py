"""Desktop applications' windows: Notepad, Word, Explorer, Outlook, a PACS viewer."""

from __future__ import annotations

from collections.abc import Sequence

from rpa_mcp.screens.html.base import attrs, esc, palette, px
from rpa_mcp.screens.html.desktop import window
from rpa_mcp.screens.look import Look

CSS = """
.np{position:absolute;inset:0;display:flex;flex-direction:column}
.np .menu{display:flex;gap:18px;padding:0 10px;height:24px;align-items:center;font-size:12px;flex:none}
.np .text{flex:1;padding:6px 8px;font-family:'Liberation Mono',monospace;font-size:14px;line-height:19px;white-space:pre}
.np .status{height:24px;display:flex;gap:30px;padding:0 12px;align-items:center;font-size:12px;flex:none}
.ribbon{height:92px;flex:none;display:flex;align-items:flex-end;gap:22px;padding:0 16px 10px;font-size:12px}
.pacs{position:absolute;inset:0;background:#15191e;color:#cfd8dc;font-size:12px}
.pacs .th{position:absolute;width:129px;height:104px;border:1px solid #3a444e;background:#0c0f12}
.pacs .th.sel{border:2px solid #36a3ff}
"""


def notepad_window(
    look: Look, *, x: float, y: float, w: float, h: float, file: str, text: str, modified: bool, front: bool = True
) -> str:
    """Notepad: classic (Windows 10: 'Untitled - Notepad') or Windows 11 (tabs, dark theme follows the look)."""
    name = look.t("Notepad", "Bloc-notes")
    title = f"{'*' if modified else ''}{file} - {name}"
    pal = palette(look)
    if look.win11:
        bg, fg, bar = (pal.surface, pal.text, pal.surface2)
        menu = (
            f"<div class='menu' style='background:{bar};color:{fg}'>"
            + "".join(
                f"<span>{esc(m)}</span>"
                for m in (look.t("File", "Fichier"), look.t("Edit", "Modifier"), look.t("View", "Affichage"))
            )
            + "</div>"
        )
    else:
        bg, fg, bar = "#ffffff", "#000000", "#ffffff"
        menu = (
            "<div class='menu' style='background:#fff;color:#000;border-bottom:1px solid #e5e5e5'>"
            + "".join(
                f"<span>{esc(m)}</span>"
                for m in (
                    look.t("File", "Fichier"),
                    look.t("Edit", "Edition"),
                    look.t("Format", "Format"),
                    look.t("View", "Affichage"),
                    look.t("Help", "Aide"),
                )
            )
            + "</div>"
        )
    status = (
        f"<div class='status' style='background:{bar};color:{fg};border-top:1px solid {pal.border}'>"
        f"<span>{look.t('Ln 1, Col 1', 'Ln 1, Col 1')}</span><span>100%</span><span>Windows (CRLF)</span><span>UTF-8</span></div>"
    )
    body = (
        f"<div class='np' style='background:{bg};color:{fg}'>{menu}<div class='text' {attrs(data_gt_el='editor', data_label=look.t('Text editor', 'Éditeur de texte'))}>"
        f"{esc(text)}</div>{status}</div>"
    )
    return window(
        look, x=x, y=y, w=w, h=h, title=title, process="notepad.exe", body=body, front=front, app="notepad", body_bg=bg
    )


def word_window(look: Look, *, x: float, y: float, w: float, h: float, doc: str, front: bool = True) -> str:
    title = f"{doc} - Word"
    ribbon = (
        "<div style='background:#2b579a;color:#fff;height:30px;display:flex;align-items:center;gap:20px;padding:0 14px;"
        "font-size:12px'>"
        + "".join(
            f"<span>{esc(m)}</span>"
            for m in (
                look.t("File", "Fichier"),
                look.t("Home", "Accueil"),
                look.t("Insert", "Insertion"),
                look.t("Layout", "Mise en page"),
                look.t("Review", "Révision"),
                look.t("View", "Affichage"),
            )
        )
        + "</div>"
        "<div class='ribbon' style='background:#f3f3f3;color:#333'>"
        + "".join(
            f"<span style='display:flex;flex-direction:column;align-items:center;gap:4px'><i style='width:28px;height:28px;"
            f"background:#d0d7e5;display:block'></i>{esc(t)}</span>"
            for t in (
                look.t("Paste", "Coller"),
                "Police",
                "Paragraphe",
                look.t("Styles", "Styles"),
                look.t("Editing", "Édition"),
            )
        )
        + "</div>"
    )
    paper = (
        "<div style='position:absolute;left:50%;top:140px;transform:translateX(-50%);width:620px;bottom:0;background:#fff;"
        "box-shadow:0 0 4px rgba(0,0,0,.3);padding:60px 70px;font-family:serif;font-size:14px;line-height:22px'>"
        f"{look.t('Discharge letter', 'Lettre de sortie')}<br><br>{look.t('Dear colleague,', 'Cher confrère,')}<br>"
        f"{look.t('I saw your patient today...', 'J’ai vu ce jour votre patiente...')}</div>"
    )
    body = f"<div style='position:absolute;inset:0;background:#e6e6e6'>{ribbon}{paper}</div>"
    return window(
        look,
        x=x,
        y=y,
        w=w,
        h=h,
        title=title,
        process="WINWORD.EXE",
        body=body,
        front=front,
        app="word",
        titlebar="#2b579a" if front else None,
    )


def explorer_window(
    look: Look, *, x: float, y: float, w: float, h: float, folder: str, files: Sequence[str], front: bool = True
) -> str:
    pal = palette(look)
    bg, fg = (pal.surface, pal.text) if look.dark else ("#ffffff", "#000000")
    rows = "".join(
        f"<div class='row' style='height:24px;padding:0 12px;gap:12px'><span style='width:320px'>▤ {esc(f)}</span>"
        f"<span style='width:160px;opacity:.7'>1{i % 9}/03/2025 1{i % 9}:2{i % 6}</span><span style='opacity:.7'>"
        f"{(i * 37) % 900 + 12} Ko</span></div>"
        for i, f in enumerate(files)
    )
    side = "".join(
        f"<div style='height:26px;padding-left:16px;display:flex;align-items:center'>{esc(p)}</div>"
        for p in (
            look.t("Home", "Accueil"),
            look.t("Desktop", "Bureau"),
            look.t("Downloads", "Téléchargements"),
            "Documents",
            look.t("This PC", "Ce PC"),
            look.t("Network", "Réseau"),
        )
    )
    body = (
        f"<div style='position:absolute;inset:0;background:{bg};color:{fg};font-size:12px'>"
        f"<div class='row' style='height:40px;gap:10px;padding:0 10px;border-bottom:1px solid {pal.border}'>&#8592; &#8594; &#8593;"
        f"<div class='grow' style='border:1px solid {pal.border};height:26px;display:flex;align-items:center;padding:0 8px'>"
        f"{look.t('This PC', 'Ce PC')} › {esc(folder)}</div></div>"
        f"<div style='position:absolute;left:0;top:41px;bottom:0;width:170px;border-right:1px solid {pal.border};padding-top:6px'>{side}</div>"
        f"<div style='position:absolute;left:171px;top:46px;right:0'>{rows}</div></div>"
    )
    return window(
        look,
        x=x,
        y=y,
        w=w,
        h=h,
        title=folder,
        process="explorer.exe",
        body=body,
        front=front,
        app="explorer",
        body_bg=bg,
    )


def outlook_window(look: Look, *, x: float, y: float, w: float, h: float, front: bool = True) -> str:
    mails = [
        ("Secrétariat cardio", look.t("Staff meeting moved to 2 pm", "Staff reporté à 14 h")),
        ("Pharmacie", look.t("Out of stock: furosemide 40 mg", "Rupture : furosémide 40 mg")),
        ("DSI", look.t("Maintenance on Saturday", "Maintenance samedi")),
        ("Dr BERNARD", look.t("Re: DURAND Alice", "Re : DURAND Alice")),
    ]
    rows = "".join(
        f"<div style='padding:8px 14px;border-bottom:1px solid #e1e1e1'><b>{esc(a)}</b><br>{esc(b)}</div>"
        for a, b in mails
    )
    title = look.t("Inbox - Outlook", "Boîte de réception - Outlook")
    body = (
        "<div style='position:absolute;inset:0;background:#fff;color:#222;font-size:12px'>"
        "<div style='height:34px;background:#0f6cbd'></div>"
        f"<div style='position:absolute;left:0;top:34px;bottom:0;width:200px;background:#f3f3f3;padding:10px'>"
        f"{look.t('Inbox', 'Boîte de réception')}<br>{look.t('Sent Items', 'Éléments envoyés')}<br>{look.t('Drafts', 'Brouillons')}</div>"
        f"<div style='position:absolute;left:200px;top:34px;bottom:0;width:360px;border-right:1px solid #ddd'>{rows}</div></div>"
    )
    return window(
        look,
        x=x,
        y=y,
        w=w,
        h=h,
        title=title,
        process="OUTLOOK.EXE",
        body=body,
        front=front,
        app="outlook",
        classic=True,
    )


def pacs_window(
    look: Look,
    *,
    x: float,
    y: float,
    w: float,
    h: float,
    patient: str,
    selected: int = 0,
    front: bool = True,
    thumbs_at: tuple[float, float] = (16, 8),
) -> str:
    """A third-party PACS viewer (dark, busy): series thumbnails on the left, the image on the right."""
    tx, ty = thumbs_at
    thumbs = "".join(
        f"<div class='th {'sel' if i == selected else ''}' {attrs(data_gt_el=f'series:{i + 1}', data_label=label)} "
        f"style='{px(tx, ty + i * 117)}'><div style='position:absolute;inset:8px 8px 22px;background:radial-gradient("
        f"circle at 50% 45%,#bbb 0,#555 40%,#111 75%)'></div><div style='position:absolute;left:6px;bottom:4px'>{esc(label)}</div></div>"
        for i, label in enumerate(
            (
                look.t("Series 1 — Chest PA", "Série 1 — Thorax PA"),
                look.t("Series 2 — Lateral", "Série 2 — Profil"),
                look.t("Series 3 — Detail", "Série 3 — Détail"),
            )
        )
    )
    image = (
        f"<div style='position:absolute;left:{tx + 150}px;top:{ty}px;right:16px;bottom:16px;background:radial-gradient("
        f"ellipse at 50% 45%,#e0e0e0 0,#8a8a8a 25%,#2a2a2a 60%,#050505 100%)'><div style='position:absolute;left:10px;top:8px;"
        f"color:#9be7ff;font-family:monospace;line-height:16px'>{esc(patient)}<br>RX THORAX PA<br>12/03/2025 08:41</div></div>"
    )
    body = f"<div class='pacs'>{thumbs}{image}</div>"
    title = f"{look.t('PACS Viewer', 'Visionneuse PACS')} — {patient} — RX Thorax"
    return window(
        look,
        x=x,
        y=y,
        w=w,
        h=h,
        title=title,
        process="PacsViewer.exe",
        body=body,
        front=front,
        app="pacs",
        titlebar="#22282e",
        body_bg="#15191e",
        classic=True,
        style="color:#cfd8dc",
    )
