"""Windows security prompts: UAC, Windows Hello, the credential prompt, SmartScreen, Defender's notification."""

from __future__ import annotations

from rpa_mcp.screens.html.base import attrs, esc, palette, px
from rpa_mcp.screens.html.windows import WButton, button_row
from rpa_mcp.screens.look import Look


def uac(look: Look, *, program: str, publisher: str, x: float, y: float, w: float = 472, h: float = 344) -> str:
    """The UAC prompt (its content is drawn on the dimmed secure desktop by the scene)."""
    pal = palette(look)
    title = look.t("User Account Control", "Contrôle de compte d'utilisateur")
    question = look.t(
        "Do you want to allow this app to make changes to your device?",
        "Voulez-vous autoriser cette application à apporter des modifications à votre appareil ?",
    )
    verified = look.t("Verified publisher", "Éditeur vérifié")
    origin = look.t("File origin: Hard drive on this computer", "Origine du fichier : Disque dur sur cet ordinateur")
    more = look.t("Show more details", "Afficher plus de détails")
    yes, no = look.t("Yes", "Oui"), look.t("No", "Non")
    gt = attrs(data_gt="dialog", data_id="windows-uac", data_primary="1")
    if look.win11:
        bg, fg = pal.surface2, pal.text
        btn = (
            f"<div class='abs row' style='left:25px;right:25px;bottom:21px;gap:8px'>"
            f"<span class='w11b' {attrs(data_gt='button', data_key='accept')} style='background:{pal.accent};color:{pal.accent_text};"
            f"border:1px solid {pal.accent};height:32px'>{yes}</span>"
            f"<span class='w11b' {attrs(data_gt='button', data_key='refuse')} style='background:{pal.button};color:{pal.text};"
            f"border:1px solid {pal.button_border};height:32px'>{no}</span></div>"
        )
        return (
            f"<div class='abs' {gt} style='{px(x, y, w, h)}background:{bg};color:{fg};border-radius:8px;border:1px solid {pal.border};"
            "box-shadow:0 24px 60px rgba(0,0,0,.5)'>"
            f"<div class='abs row' style='left:25px;top:16px;gap:10px'><span style='font-size:15px'>⛨</span>"
            f"<span {attrs(data_gt='title')} style='font-size:13px'>{esc(title)}</span></div>"
            f"<div class='abs' {attrs(data_gt='text')} style='left:25px;top:50px;width:{w - 80}px;font-size:19px;font-weight:600;"
            f"line-height:26px'>{esc(question)}</div>"
            f"<div class='abs row' style='left:25px;top:146px;gap:12px'><span class='ico' style='width:36px;height:36px;"
            f"background:#2d7fd3;border-radius:6px'>▣</span><span style='font-size:15px'>{esc(program)}</span></div>"
            f"<div class='abs' style='left:25px;top:200px;font-size:13px;line-height:20px;color:{pal.muted}'>"
            f"{verified}: {esc(publisher)}<br>{esc(origin)}<br><span style='color:{pal.accent}'>{more}</span></div>"
            f"{btn}</div>"
        )
    head_bg = "#1f4e8c"
    btn = (
        f"<div class='abs row' style='left:25px;right:25px;bottom:21px;gap:8px'>"
        f"<span class='w11b' {attrs(data_gt='button', data_key='accept')} style='background:#cccccc;color:#000;"
        f"border:2px solid #0078d7;height:32px;border-radius:0'>{yes}</span>"
        f"<span class='w11b' {attrs(data_gt='button', data_key='refuse')} style='background:#cccccc;color:#000;"
        f"border:1px solid #cccccc;height:32px;border-radius:0'>{no}</span></div>"
    )
    return (
        f"<div class='abs' {gt} style='{px(x, y, w, h)}background:#e6e6e6;color:#000;border:1px solid #1f4e8c;"
        "box-shadow:0 20px 50px rgba(0,0,0,.5)'>"
        f"<div class='abs' style='left:0;top:0;right:0;height:120px;background:{head_bg};color:#fff'>"
        f"<div {attrs(data_gt='title')} style='position:absolute;left:25px;top:14px;font-size:13px'>{esc(title)}</div>"
        f"<div {attrs(data_gt='text')} style='position:absolute;left:25px;top:40px;width:{w - 60}px;font-size:18px;"
        f"line-height:24px'>{esc(question)}</div></div>"
        f"<div class='abs' style='left:25px;top:140px;font-size:15px'>{esc(program)}</div>"
        f"<div class='abs' style='left:25px;top:176px;font-size:12px;line-height:19px;color:#333'>{verified}: {esc(publisher)}"
        f"<br>{esc(origin)}<br><span style='color:#0063b1'>{more}</span></div>{btn}</div>"
    )


def hello(look: Look, *, user: str, x: float, y: float, w: float = 456) -> str:
    pal = palette(look.but(os="win11"))
    title = look.t("Windows Security", "Sécurité Windows")
    head = look.t("Making sure it's you", "Vérifions qu'il s'agit bien de vous")
    body = look.t(f"Please sign in as {user}.", f"Connectez-vous en tant que {user}.")
    pin = look.t("PIN", "Code confidentiel")
    forgot = look.t("I forgot my PIN", "J'ai oublié mon code confidentiel")
    more = look.t("More choices", "Plus de choix")
    cancel = look.t("Cancel", "Annuler")
    gt = attrs(data_gt="dialog", data_id="windows-hello", data_primary="1")
    return (
        f"<div class='mbx' {gt} style='{px(x, y, w)}background:{pal.surface2};color:{pal.text};border:1px solid {pal.border};"
        "border-radius:8px;box-shadow:0 24px 60px rgba(0,0,0,.45)'>"
        f"<div style='padding:18px 24px 0;font-size:13px' {attrs(data_gt='title')}>{esc(title)}</div>"
        f"<div {attrs(data_gt='text')} style='padding:12px 24px 6px;font-size:22px;font-weight:600'>{esc(head)}</div>"
        f"<div {attrs(data_gt='text')} style='padding:0 24px 16px;font-size:14px'>{esc(body)}</div>"
        f"<div style='padding:0 24px'><div class='fld' style='background:{pal.surface};border:1px solid {pal.border};"
        f"border-bottom:2px solid {pal.accent};color:{pal.muted}'>{esc(pin)}</div></div>"
        f"<div style='padding:10px 24px;color:{pal.accent};font-size:14px'>{esc(forgot)}</div>"
        f"<div style='padding:4px 24px 18px;color:{pal.accent};font-size:14px'>{esc(more)}</div>"
        f"<div class='ft' style='background:{pal.surface};border-top:1px solid {pal.border};padding:20px 24px'>"
        f"<span class='w11b' {attrs(data_gt='button', data_key='cancel')} style='background:{pal.button};"
        f"border:1px solid {pal.button_border};flex:0 0 50%'>{esc(cancel)}</span></div></div>"
    )


def credential(look: Look, *, server: str, user: str, x: float, y: float, w: float = 456) -> str:
    pal = palette(look.but(os="win11"))
    title = look.t("Windows Security", "Sécurité Windows")
    head = look.t("Enter your credentials", "Entrer vos informations d'identification")
    body = look.t(
        f"These credentials will be used to connect to {server}.",
        f"Ces informations d'identification seront utilisées pour vous connecter à {server}.",
    )
    name, password = look.t("User name", "Nom d'utilisateur"), look.t("Password", "Mot de passe")
    remember = look.t("Remember my credentials", "Mémoriser mes informations d'identification")
    ok, cancel = "OK", look.t("Cancel", "Annuler")
    gt = attrs(data_gt="dialog", data_id="windows-credential-prompt", data_primary="1")
    field = f"background:{pal.surface};border:1px solid {pal.border};color:{pal.muted};margin-bottom:10px"
    return (
        f"<div class='mbx' {gt} style='{px(x, y, w)}background:{pal.surface2};color:{pal.text};border:1px solid {pal.border};"
        "border-radius:8px;box-shadow:0 24px 60px rgba(0,0,0,.45)'>"
        f"<div style='padding:18px 24px 0;font-size:13px' {attrs(data_gt='title')}>{esc(title)}</div>"
        f"<div {attrs(data_gt='text')} style='padding:12px 24px 6px;font-size:21px;font-weight:600'>{esc(head)}</div>"
        f"<div {attrs(data_gt='text')} style='padding:0 24px 16px;font-size:14px;line-height:20px'>{esc(body)}</div>"
        f"<div style='padding:0 24px'><div class='fld' style='{field}'>{esc(user or name)}</div>"
        f"<div class='fld' style='{field}'>{esc(password)}</div></div>"
        f"<div style='padding:4px 24px 18px;font-size:14px'>☐ {esc(remember)}</div>"
        f"<div class='ft' style='background:{pal.surface};border-top:1px solid {pal.border};padding:20px 24px;gap:8px'>"
        f"{button_row(look.but(os='win11'), [WButton('ok', ok, True), WButton('cancel', cancel)], modern=True)}</div></div>"
    )


def smartscreen(
    look: Look, *, program: str, x: float, y: float, w: float = 560, details: bool = False, more_button: bool = False
) -> str:
    """ "Windows protected your PC". Windows 11 shows only "Don't run" until "More info" is followed."""
    title = look.t("Windows protected your PC", "Windows a protégé votre ordinateur")
    text = look.t(
        "Microsoft Defender SmartScreen prevented an unrecognized app from starting. Running this app might put your PC at risk.",
        "Microsoft Defender SmartScreen a empêché le démarrage d'une application non reconnue. "
        "L'exécution de cette application peut présenter un risque pour votre ordinateur.",
    )
    more = look.t("More info", "Informations complémentaires")
    dont, run = look.t("Don't run", "Ne pas exécuter"), look.t("Run anyway", "Exécuter quand même")
    bg = "#0063b1" if not look.win11 else "#0a5bb5"
    buttons = [WButton("dont_run", dont)]
    if details:
        buttons.insert(0, WButton("run_anyway", run))
    elif more_button:
        buttons.insert(0, WButton("more_info", more))
    foot = "".join(
        f"<span {attrs(data_gt='button', data_key=b.key)} style='height:32px;min-width:120px;padding:0 18px;display:flex;"
        f"align-items:center;justify-content:center;border:2px solid #fff;color:#fff;font-size:14px;"
        f"{'border-radius:4px;' if look.win11 else ''}'>{esc(b.label)}</span>"
        for b in buttons
    )
    info = (
        f"<div style='margin-top:14px;font-size:14px;line-height:22px'>{look.t('App', 'Application')}: {esc(program)}<br>"
        f"{look.t('Publisher: Unknown publisher', 'Éditeur : Éditeur inconnu')}</div>"
        if details
        else (
            f"<div style='margin-top:14px;font-size:14px;text-decoration:underline'>{esc(more)}</div>"
            if not more_button
            else ""
        )
    )
    gt = attrs(data_gt="dialog", data_id="windows-smartscreen", data_primary="1")
    return (
        f"<div class='mbx' {gt} style='{px(x, y, w)}background:{bg};color:#fff;border:1px solid #1a73c7;"
        f"{'border-radius:8px;' if look.win11 else ''}box-shadow:0 18px 50px rgba(0,0,0,.45)'>"
        "<div style='display:flex;justify-content:flex-end;padding:8px 12px;font-size:13px'>&#10005;</div>"
        f"<div style='padding:6px 36px 0'><div {attrs(data_gt='title')} style='font-size:26px;font-weight:300;margin-bottom:16px'>"
        f"{esc(title)}</div><div {attrs(data_gt='text')} style='font-size:14px;line-height:21px'>{esc(text)}</div>{info}</div>"
        f"<div style='display:flex;justify-content:flex-end;gap:10px;padding:56px 24px 22px'>{foot}</div></div>"
    )


def defender_toast(
    look: Look, *, right: float, bottom: float, title_variant: int = 0, with_buttons: bool = False
) -> str:
    """Windows Security's "Threats found" notification, above the taskbar (a toast, not modal)."""
    pal = palette(look)
    app = look.t("Windows Security", "Sécurité Windows")
    titles = (
        look.t("Threats found", "Menaces détectées"),
        look.t("Virus & threat protection", "Protection contre les virus et menaces"),
    )
    body = look.t(
        "Microsoft Defender Antivirus found threats. Get details.",
        "L'Antivirus Microsoft Defender a détecté des menaces. Obtenir les détails.",
    )
    w = 364
    if look.win11:
        bg, fg, border, radius = pal.surface2, pal.text, f"1px solid {pal.border}", "8px"
    else:
        bg, fg, border, radius = "#1f1f1f", "#ffffff", "1px solid #2b2b2b", "0"
    buttons = ""
    if with_buttons:
        labels = (
            ("see_details", look.t("See details", "Afficher les détails")),
            ("dismiss", look.t("Dismiss", "Ignorer")),
        )
        buttons = (
            "<div style='display:flex;gap:8px;padding:4px 16px 16px'>"
            + "".join(
                f"<span class='w11b' {attrs(data_gt='button', data_key=k)} style='background:{pal.button if look.win11 else '#3a3a3a'};"
                f"border:1px solid {pal.button_border if look.win11 else '#555'};color:{fg};height:32px;font-size:13px'>{esc(lbl)}</span>"
                for k, lbl in labels
            )
            + "</div>"
        )
    gt = attrs(data_gt="dialog", data_id="defender-threat-found", data_kind="toast", data_modal="0", data_primary="1")
    return (
        f"<div class='toastw' {gt} style='right:{right:g}px;bottom:{bottom:g}px;width:{w}px;background:{bg};color:{fg};"
        f"border:{border};border-radius:{radius};box-shadow:0 8px 28px rgba(0,0,0,.4);z-index:90'>"
        f"<div class='row' style='padding:12px 16px 6px;gap:8px;font-size:12px'><span style='color:#3b8ee0'>⛨</span>"
        f"<span>{esc(app)}</span><span class='grow'></span><span>&#8943;</span><span>&#10005;</span></div>"
        f"<div class='row' style='padding:4px 16px 14px;gap:14px;align-items:flex-start'>"
        "<span class='ico' style='width:40px;height:40px;background:#c42b1c;border-radius:6px;font-size:22px'>!</span>"
        f"<div><div {attrs(data_gt='title')} style='font-weight:700;font-size:14px;margin-bottom:4px'>{esc(titles[title_variant])}</div>"
        f"<div {attrs(data_gt='text')} style='line-height:18px'>{esc(body)}</div></div></div>{buttons}</div>"
    )
