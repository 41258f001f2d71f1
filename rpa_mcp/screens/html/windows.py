"""Windows message boxes (classic Win32 and Windows 11) and file dialogs: delete, file in use, Save As."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rpa_mcp.screens.html.base import attrs, esc, palette, px
from rpa_mcp.screens.look import Look

CSS = """
.mbx{position:absolute;display:flex;flex-direction:column;font-size:12px;overflow:hidden}
.mbx .tt{display:flex;align-items:center;height:30px;padding-left:10px;flex:none}
.mbx .tt .cx{margin-left:auto;width:46px;height:30px;display:flex;align-items:center;justify-content:center}
.mbx .bd{display:flex;gap:14px;padding:18px 16px 20px 18px}
.mbx .ft{display:flex;justify-content:flex-end;gap:8px;padding:10px 12px;flex:none}
.wb{min-width:75px;height:23px;padding:0 12px;display:flex;align-items:center;justify-content:center;font-size:12px;
  white-space:nowrap}
.w11b{min-width:96px;height:32px;padding:0 14px;display:flex;align-items:center;justify-content:center;font-size:14px;
  border-radius:4px;flex:1 1 0;white-space:nowrap}
.glyph{width:32px;height:32px;border-radius:16px;display:flex;align-items:center;justify-content:center;color:#fff;
  font-weight:700;font-size:20px;flex:none}
.toastw{position:absolute;display:flex;flex-direction:column;font-size:13px;overflow:hidden}
.fld{height:32px;border-radius:4px;display:flex;align-items:center;padding:0 10px;font-size:14px}
"""


@dataclass(frozen=True)
class WButton:
    key: str
    label: str
    default: bool = False


def button_row(look: Look, buttons: Sequence[WButton], *, modern: bool) -> str:
    pal = palette(look)
    out = []
    for b in buttons:
        gt = attrs(data_gt="button", data_key=b.key)
        if modern:
            bg, fg, border = (
                (pal.accent, pal.accent_text, pal.accent) if b.default else (pal.button, pal.text, pal.button_border)
            )
            out.append(
                f"<span class='w11b' {gt} style='background:{bg};color:{fg};border:1px solid {border}'>{esc(b.label)}</span>"
            )
        else:
            border = "2px solid #0078d7" if b.default else "1px solid #adadad"
            out.append(
                f"<span class='wb' {gt} style='background:#e1e1e1;color:#000;border:{border}'>{esc(b.label)}</span>"
            )
    return "".join(out)


def message_box(
    look: Look,
    *,
    dialog_id: str,
    title: str,
    text: str,
    buttons: Sequence[WButton],
    x: float,
    y: float,
    w: float,
    instruction: str | None = None,
    glyph: str = "",
    glyph_colour: str = "#1e6fd9",
    modern: bool | None = None,
    extra: str = "",
    primary: bool = True,
    app: str = "",
) -> str:
    """A Win32 message box / task dialog (classic), or a Windows 11 content dialog (`modern`).

    Classic dialogs stay light in dark mode, as they do on Windows.
    """
    modern = look.win11 if modern is None else modern
    pal = palette(look) if modern else palette(look.but(theme="light", os="win10"))
    gt = attrs(data_gt="dialog", data_id=dialog_id, data_primary="1" if primary else None)
    icon = f"<div class='glyph' style='background:{glyph_colour}'>{esc(glyph)}</div>" if glyph else ""
    if modern:
        bg, fg = (pal.surface2, pal.text)
        head = (
            f"<div class='tt' style='background:{bg};color:{fg};height:32px'>"
            f"<span {attrs(data_gt='title')}>{esc(title)}</span><span class='cx'>&#10005;</span></div>"
        )
        main = (
            f"<div {attrs(data_gt='text')} style='font-size:20px;font-weight:600;margin-bottom:10px'>{esc(instruction)}</div>"
            if instruction
            else ""
        )
        body = (
            f"<div class='bd' style='background:{bg};color:{fg};padding:12px 24px 22px'>{icon}<div class='grow'>{main}"
            f"<div {attrs(data_gt='text')} style='font-size:14px;line-height:20px'>{esc(text)}</div>{extra}</div></div>"
        )
        foot = (
            f"<div class='ft' style='background:{pal.surface};border-top:1px solid {pal.border};padding:20px 24px;gap:8px'>"
            f"{button_row(look, buttons, modern=True)}</div>"
        )
        border = f"1px solid {pal.border}"
        return (
            f"<div class='mbx shadow-lg' {gt} style='{px(x, y, w)}border:{border};border-radius:8px;background:{bg}'>"
            f"{head}{body}{foot}</div>"
        )
    head = (
        f"<div class='tt' style='background:#fff;color:#000'>{app}<span {attrs(data_gt='title')}>{esc(title)}</span>"
        "<span class='cx'>&#10005;</span></div>"
    )
    main = (
        f"<div {attrs(data_gt='text')} style='font-size:15px;color:#003399;margin-bottom:12px'>{esc(instruction)}</div>"
        if instruction
        else ""
    )
    body = (
        f"<div class='bd' style='background:#fff;color:#000'>{icon}<div class='grow'>{main}"
        f"<div {attrs(data_gt='text')} style='line-height:17px'>{esc(text)}</div>{extra}</div></div>"
    )
    foot = f"<div class='ft' style='background:#f0f0f0'>{button_row(look, buttons, modern=False)}</div>"
    return f"<div class='mbx shadow' {gt} style='{px(x, y, w)}border:1px solid #6f9fd8;background:#fff'>{head}{body}{foot}</div>"


def confirm_delete(look: Look, *, file: str, x: float, y: float, permanent: bool = False, folder: bool = False) -> str:
    title = look.t("Delete Folder", "Supprimer le dossier") if folder else look.t("Delete File", "Supprimer le fichier")
    what = look.t("folder", "dossier") if folder else look.t("file", "fichier")
    if permanent:
        text = look.t(
            f"Are you sure you want to permanently delete this {what}?",
            f"Voulez-vous vraiment supprimer définitivement ce {what} ?",
        )
    else:
        text = look.t(
            f"Are you sure you want to move this {what} to the Recycle Bin?",
            f"Voulez-vous vraiment déplacer ce {what} vers la Corbeille ?",
        )
    extra = (
        f"<div class='row' style='gap:12px;margin-top:14px'><span class='ico' style='width:40px;height:48px;"
        f"background:#e8eef7;border:1px solid #9fb6d8;color:#2b579a'>▤</span><div style='line-height:17px'>{esc(file)}<br>"
        f"{look.t('Date modified', 'Modifié le')} : 11/03/2025 16:02<br>{look.t('Size', 'Taille')} : 48,2 Ko</div></div>"
    )
    return message_box(
        look,
        dialog_id="windows-confirm-delete",
        title=title,
        text=text,
        buttons=[WButton("accept", look.t("Yes", "Oui"), True), WButton("refuse", look.t("No", "Non"))],
        x=x,
        y=y,
        w=440,
        glyph="!" if permanent else "",
        glyph_colour="#d89b00",
        modern=False,
        extra=extra,
    )


def file_in_use(look: Look, *, file: str, program: str, x: float, y: float) -> str:
    title = look.t("File In Use", "Fichier en cours d'utilisation")
    instruction = look.t(
        f"The action can't be completed because the file is open in {program}",
        f"L'action ne peut pas être effectuée, car le fichier est ouvert dans {program}",
    )
    text = look.t("Close the file and try again.", "Fermez le fichier et réessayez.")
    extra = f"<div style='margin-top:12px;color:#333'>{esc(file)}</div>"
    return message_box(
        look,
        dialog_id="windows-file-in-use",
        title=title,
        instruction=instruction,
        text=text,
        buttons=[
            WButton("retry", look.t("Try Again", "Réessayer"), True),
            WButton("cancel", look.t("Cancel", "Annuler")),
        ],
        x=x,
        y=y,
        w=470,
        modern=False,
        extra=extra,
    )


def save_as(look: Look, *, file: str, x: float, y: float, w: float = 940, h: float = 600) -> str:
    """The common Save As dialog (explorer-style: navigation pane, file list, name and type)."""
    pal = palette(look)
    dark = look.dark and look.win11
    bg, fg = (pal.surface, pal.text) if dark else ("#ffffff", "#000000")
    side_bg = pal.surface2 if dark else "#ffffff"
    title = look.t("Save As", "Enregistrer sous")
    places = [
        look.t("Quick access", "Accès rapide"),
        look.t("Desktop", "Bureau"),
        look.t("Downloads", "Téléchargements"),
        "Documents",
        look.t("Pictures", "Images"),
        look.t("This PC", "Ce PC"),
        look.t("Network", "Réseau"),
    ]
    files = ["CR_consultation_11-03.docx", "Courrier_sortie.docx", "Protocole_HTA.docx", "Planning_mars.xlsx"]
    rows = "".join(
        f"<div class='row' style='height:26px;padding:0 10px;gap:10px'><span style='width:300px'>▤ {esc(f)}</span>"
        f"<span style='width:150px;color:#666'>1{i}/03/2025 09:1{i}</span><span>{look.t('Document', 'Document')}</span></div>"
        for i, f in enumerate(files)
    )
    side = "".join(
        f"<div style='height:26px;padding-left:14px;display:flex;align-items:center'>{esc(p)}</div>" for p in places
    )
    label_name = look.t("File name:", "Nom du fichier :")
    label_type = look.t("Save as type:", "Type :")
    kind = look.t("Word Document (*.docx)", "Document Word (*.docx)")
    field = f"border:1px solid #7a7a7a;height:24px;display:flex;align-items:center;padding:0 6px;background:{bg}"
    footer = button_row(
        look.but(os="win10", theme="light"),
        [WButton("save", look.t("Save", "Enregistrer"), True), WButton("cancel", look.t("Cancel", "Annuler"))],
        modern=False,
    )
    gt = attrs(data_gt="dialog", data_id="file-save-as", data_primary="1")
    return (
        f"<div class='mbx shadow-lg' {gt} style='{px(x, y, w, h)}background:{bg};color:{fg};border:1px solid #6f9fd8;"
        f"{'border-radius:8px;' if look.win11 else ''}'>"
        f"<div class='tt' style='background:{bg}'><span {attrs(data_gt='title')}>{esc(title)}</span><span class='cx'>&#10005;</span></div>"
        f"<div class='row' style='height:40px;padding:0 10px;gap:10px;border-bottom:1px solid #e5e5e5'>"
        f"<span>&#8592; &#8594; &#8593;</span><div class='grow' style='{field}'>{look.t('This PC', 'Ce PC')} › Documents</div>"
        f"<div style='{field};width:200px;color:#777'>{look.t('Search Documents', 'Rechercher dans : Documents')}</div></div>"
        f"<div class='row grow' style='align-items:stretch'><div style='width:180px;background:{side_bg};padding-top:6px;"
        f"border-right:1px solid #e5e5e5'>{side}</div><div class='grow' style='padding-top:4px'>"
        f"<div class='row' style='height:26px;padding:0 10px;gap:10px;color:#4c607a'><span style='width:300px'>"
        f"{look.t('Name', 'Nom')}</span><span style='width:150px'>{look.t('Date modified', 'Modifié le')}</span>"
        f"<span>Type</span></div>{rows}</div></div>"
        f"<div style='padding:10px 14px;border-top:1px solid #e5e5e5'>"
        f"<div class='row' style='gap:10px;margin-bottom:8px'><span {attrs(data_gt='text')} style='width:110px'>{esc(label_name)}</span>"
        f"<div class='grow' style='{field}'>{esc(file)}</div></div>"
        f"<div class='row' style='gap:10px'><span {attrs(data_gt='text')} style='width:110px'>{esc(label_type)}</span>"
        f"<div class='grow' style='{field}'>{esc(kind)}</div></div></div>"
        f"<div class='ft' style='background:{bg};padding:8px 14px 14px'><span style='margin-right:auto'>⌃ "
        f"{look.t('Hide Folders', 'Masquer les dossiers')}</span>{footer}</div></div>"
    )
