""" "Easily", the hospital's web application (category C of the catalog): pages and its own dialogs.

Pages are laid out at fixed positions inside the browser's page area (the left menu items are
36 px tall from y=110, the observation form's text box and buttons at fixed offsets) so that a
recorded workflow's coordinates stay valid from one render to the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rpa_mcp.screens.html.base import attrs, esc, px
from rpa_mcp.screens.look import Look

CSS = """
.ez{position:absolute;inset:0;background:#fff;color:#1d2733;font-size:13px}
.ez .hdr{position:absolute;left:0;right:0;top:0;height:46px;display:flex;align-items:center;padding:0 20px;color:#fff}
.ez .hdr b{font-size:18px;margin:0 14px 0 10px}
.ez .ban{position:absolute;left:0;right:0;top:46px;height:54px;display:flex;align-items:center;padding:0 18px;
  background:#eef3f8;border-bottom:1px solid #d5dee8;gap:14px}
.ez .side{position:absolute;left:0;top:100px;bottom:0;width:200px;border-right:1px solid #d8dee6;padding-top:10px;
  background:#fbfcfd}
.ez .side div{height:36px;display:flex;align-items:center;padding-left:24px;font-size:13px;color:#223}
.ez .side div.on{background:#e3edf8;color:#0b4f8a;font-weight:700;border-left:3px solid #0b4f8a;padding-left:21px}
.ez .main{position:absolute;left:224px;top:100px;right:0;bottom:0}
.ez h2{font-size:20px;font-weight:600;color:#16324f}
.ez .card{position:absolute;border:1px solid #d8dee6;border-radius:3px;padding:12px 14px;background:#fff}
.ez .card h3{font-size:12px;text-transform:uppercase;color:#0b4f8a;margin-bottom:8px;letter-spacing:.3px}
.ez table{border-collapse:collapse;width:100%;font-size:13px}
.ez th{background:#eef2f6;text-align:left;padding:7px 8px;font-weight:600}
.ez td{padding:7px 8px;border-bottom:1px solid #e6ebf0}
.ez .btn{position:absolute;height:34px;display:flex;align-items:center;justify-content:center;border-radius:3px;
  font-size:13px;border:1px solid #b9c3ce;background:#fff;color:#1d2733}
.ez .btn.pri{background:#0b63b6;border-color:#0b63b6;color:#fff;font-weight:600}
.ez .badge{display:inline-block;padding:3px 9px;border-radius:10px;background:#fff3cd;border:1px solid #f0d27a;
  color:#6b4e00;font-size:12px;margin-left:12px;vertical-align:middle}
.ez .field{position:absolute;border:1px solid #b9c3ce;border-radius:2px;padding:7px 9px;background:#fff}
.ezback{position:absolute;inset:0;background:rgba(20,28,38,.45)}
.ezm{position:absolute;background:#fff;border-radius:6px;color:#1d2733;font-size:14px;overflow:hidden}
.ezm .mh{display:flex;align-items:center;gap:10px;padding:16px 20px 8px;font-size:17px;font-weight:600}
.ezm .mb{padding:6px 20px 12px;line-height:20px}
.ezm .mf{display:flex;justify-content:flex-end;gap:10px;padding:12px 20px 16px}
.ezm .mf span{height:34px;min-width:92px;padding:0 16px;display:flex;align-items:center;justify-content:center;
  border-radius:3px;border:1px solid #b9c3ce;background:#fff;font-size:13px}
.ezm .mf span.pri{background:#0b63b6;border-color:#0b63b6;color:#fff;font-weight:600}
.ezm .mf span.danger{background:#c62828;border-color:#c62828;color:#fff;font-weight:600}
.ezt{position:absolute;display:flex;gap:12px;align-items:flex-start;background:#fff;border-radius:4px;padding:12px 14px;
  border-left:5px solid #2e7d32;font-size:13px;color:#1d2733}
"""

HEADER_COLOURS = ("#0b4f8a", "#0d6e6e", "#4a3a8c", "#155e9c")
MENU_FR = (
    "Synthèse",
    "Observations",
    "Prescriptions",
    "Biologie",
    "Imagerie",
    "Courriers",
    "Documents",
    "Constantes",
    "Administratif",
)
MENU_EN = ("Summary", "Notes", "Prescriptions", "Lab results", "Imaging", "Letters", "Documents", "Vitals", "Admin")
PAGE_KEYS = ("synthese", "observation", "prescriptions", "biologie", "imagerie")


@dataclass(frozen=True)
class Patient:
    last: str
    first: str
    born: str
    ipp: str

    @property
    def name(self) -> str:
        return f"{self.last} {self.first}"


def menu(look: Look) -> tuple[str, ...]:
    return MENU_FR if look.lang == "fr" else MENU_EN


def shell(
    look: Look,
    patient: Patient,
    current: str,
    main: str,
    *,
    header: str = HEADER_COLOURS[0],
    doctor: str = "Dr Claire MARTIN",
) -> str:
    """Header, patient banner and left menu around a page's main part."""
    items = menu(look)
    on = PAGE_KEYS.index(current) if current in PAGE_KEYS else -1
    side = "".join(
        f"<div class='{'on' if i == on else ''}' {attrs(data_gt_el=f'menu:{label}', data_label=label)}>{esc(label)}</div>"
        for i, label in enumerate(items)
    )
    born = look.t(f"Born {patient.born}", f"Née le {patient.born}")
    allergy = look.t("⚠ Allergy: Penicillin", "⚠ Allergie : Pénicilline")
    return (
        "<div class='ez'>"
        f"<div class='hdr' style='background:{header}'><span style='font-size:20px'>✚</span><b>Easily</b>"
        f"<span style='opacity:.85'>{look.t('Electronic patient record', 'Dossier Patient Informatisé')} — CH de Valmont</span>"
        f"<span class='grow'></span><span>{esc(doctor)} · {look.t('Cardiology', 'Cardiologie')}</span>"
        f"<span style='margin:0 18px;opacity:.85'>UF 1204</span>"
        f"<span style='border:1px solid rgba(255,255,255,.7);padding:4px 10px;border-radius:2px'>"
        f"{look.t('Sign out', 'Déconnexion')}</span></div>"
        f"<div class='ban'><b style='font-size:16px'>{esc(patient.name)}</b>"
        f"<span style='color:#44525f'>{esc(born)} · IPP {esc(patient.ipp)} · {look.t('Stay', 'Séjour')} 2503120045 · "
        f"{look.t('Cardiology', 'Cardiologie')} — Ch. 214 B</span><span class='grow'></span>"
        f"<span style='border:1px solid #e59a9a;background:#fdecec;color:#b3261e;padding:4px 9px;border-radius:2px'>"
        f"{esc(allergy)}</span></div>"
        f"<div class='side'>{side}</div><div class='main'>{main}</div></div>"
    )


def synthese(look: Look, width: float) -> str:
    col = (width - 224 - 24 - 16) / 2
    rows = [
        (
            "12/03/2025 09:20",
            "Dr C. MARTIN",
            look.t(
                "Clinical improvement on diuretics, echo requested.",
                "Amélioration clinique sous diurétiques, ETT demandée.",
            ),
        ),
        (
            "11/03/2025 17:45",
            "IDE S. LEROY",
            look.t("Urine output 1.8 L/24h, comfortable.", "Diurèse 1,8 L/24h. Patiente confortable."),
        ),
        (
            "11/03/2025 10:05",
            "Dr P. BERNARD",
            look.t("Admitted from the ED. BNP 1240 pg/mL.", "Entrée par les urgences. BNP 1240 pg/mL."),
        ),
        (
            "10/03/2025 22:30",
            "Interne J. ROUX",
            look.t("O2 2 L/min, blood tests taken.", "Mise sous O2 2 L/min, bilan biologique prélevé."),
        ),
    ]
    table = "".join(f"<tr><td>{a}</td><td>{b}</td><td>{esc(c)}</td></tr>" for a, b, c in rows)
    return (
        f"<h2 style='position:absolute;left:0;top:18px'>{look.t('Record summary', 'Synthèse du dossier')}</h2>"
        f"<div class='card' style='{px(0, 60, col, 70)}'><h3>{look.t('Reason for admission', 'Motif d’hospitalisation')}</h3>"
        f"{look.t('Worsening exertional dyspnoea over 10 days, leg oedema.', 'Dyspnée d’effort progressive depuis 10 jours, œdèmes des membres inférieurs.')}</div>"
        f"<div class='card' style='{px(col + 16, 60, col, 70)}'><h3>{look.t('History', 'Antécédents')}</h3>"
        f"{look.t('Hypertension since 2008 · Type 2 diabetes · Paroxysmal AF (2021)', 'HTA depuis 2008 · Diabète de type 2 · FA paroxystique (2021)')}</div>"
        f"<div class='card' style='{px(0, 144, col, 88)}'><h3>{look.t('Current treatment', 'Traitements en cours')}</h3>"
        "Bisoprolol 5 mg 1-0-0 · Apixaban 5 mg 1-0-1 · Furosémide 40 mg 1-0-0</div>"
        f"<div class='card' style='{px(col + 16, 144, col, 88)}'><h3>{look.t('Latest vitals', 'Dernières constantes')} — 12/03/2025 08:00</h3>"
        "<table><tr><th>TA</th><th>FC</th><th>SpO2</th><th>T°</th></tr>"
        "<tr><td>148/86</td><td>92</td><td>94 %</td><td>36,9 °C</td></tr></table></div>"
        f"<div class='card' style='{px(0, 246, 2 * col + 16, 170)}'><h3>{look.t('Recent notes', 'Observations récentes')}</h3>"
        f"<table><tr><th>Date</th><th>{look.t('Author', 'Auteur')}</th><th>{look.t('Summary', 'Résumé')}</th></tr>{table}</table></div>"
    )


MAIN_TOP = 100  # the page's main part starts under the header and the patient banner (.ez .main)
TEXT_TOP, TEXT_MIN_H, TEXT_MAX_H = 159, 72, 329  # the note's text box: at most its 1080p height, two lines at least
BUTTONS_GAP, BUTTON_H, BOTTOM_MARGIN = 17, 34, 16


def observation(
    look: Look,
    width: float,
    height: float = 1e9,
    *,
    modified: bool = True,
    lines: Sequence[str] = (),
    date: str = "12/03/2025",
    doctor: str = "Dr Claire MARTIN",
) -> str:
    """The note form: text box at page (224, 259) 1356x329, Save at (224, 605) (screen y 369 and 715 when maximised).

    On a short page (`height`: the page's height) the text box shrinks so that its buttons stay in
    view, as a form laid out for the window does."""
    body = "".join(f"<div style='height:24px'>{esc(line)}</div>" for line in lines)
    star = " *" if modified else ""
    badge = (
        f"<span class='badge' {attrs(data_gt_el='modified-marker')}>"
        f"{look.t('Unsaved changes', 'Modifications non enregistrées')}</span>"
        if modified
        else ""
    )
    right = width - 224
    text_w = min(1356, right - 330)
    text_h = max(TEXT_MIN_H, min(TEXT_MAX_H, height - MAIN_TOP - TEXT_TOP - BUTTONS_GAP - BUTTON_H - BOTTOM_MARGIN))
    buttons_y = TEXT_TOP + text_h + BUTTONS_GAP
    return (
        f"<h2 style='position:absolute;left:0;top:18px'>{look.t('Medical note of', 'Observation médicale du')} {date}{star}{badge}</h2>"
        f"<div style='position:absolute;left:0;top:60px;color:#55626f;font-size:12px'>{look.t('Author', 'Auteur')}</div>"
        f"<div class='field' style='{px(0, 76, 360, 32)}'>{esc(doctor)} — {look.t('Cardiology', 'Cardiologie')}</div>"
        f"<div style='position:absolute;left:0;top:140px;color:#55626f;font-size:12px'>{look.t('Note text', 'Texte de l’observation')}</div>"
        f"<div class='field' {attrs(data_gt_el='note', data_label=look.t('Note text', 'Texte de l’observation'))} "
        f"style='{px(0, 159, text_w, text_h)}padding:12px 12px;line-height:24px'>{body}</div>"
        f"<div class='btn pri' {attrs(data_gt_el='save-button', data_label=look.t('Save', 'Enregistrer'))} "
        f"style='{px(0, buttons_y, 108, 34)}'>{look.t('Save', 'Enregistrer')}</div>"
        f"<div class='btn' style='{px(116, buttons_y, 90, 34)}'>{look.t('Cancel', 'Annuler')}</div>"
        f"<div class='btn' style='{px(text_w - 180, buttons_y, 180, 34)}'>{look.t('Delete draft', 'Supprimer le brouillon')}</div>"
        f"<div class='card' style='{px(text_w + 16, 60, max(160, right - text_w - 40), buttons_y - 35)}'><h3>{look.t('History', 'Historique')}</h3>"
        "11/03/2025 17:45 — IDE S. LEROY<br>11/03/2025 10:05 — Dr P. BERNARD<br>10/03/2025 22:30 — Interne J. ROUX</div>"
    )


def imagerie(look: Look, width: float) -> str:
    exams = [
        ("12/03/2025", look.t("Chest X-ray PA", "RX Thorax face"), look.t("Done", "Réalisé")),
        ("11/03/2025", look.t("Cardiac echo", "Échographie cardiaque"), look.t("Scheduled", "Programmé")),
        ("10/03/2025", look.t("Chest CT", "Scanner thoracique"), look.t("Report available", "CR disponible")),
    ]
    rows = "".join(f"<tr><td>{a}</td><td>{esc(b)}</td><td>{esc(c)}</td></tr>" for a, b, c in exams)
    thumbs = "".join(
        f"<div style='{px(i * 190, 0, 176, 150)}background:radial-gradient(circle at 50% 45%,#d9d9d9 0,#6d6d6d 35%,"
        f"#1b1b1b 70%);border-radius:2px'></div>"
        for i in range(4)
    )
    return (
        f"<h2 style='position:absolute;left:0;top:18px'>{look.t('Imaging', 'Imagerie')} — {look.t('exams', 'examens')}</h2>"
        f"<div class='card' style='{px(0, 60, width - 272, 150)}'><table><tr><th>Date</th><th>{look.t('Exam', 'Examen')}</th>"
        f"<th>{look.t('Status', 'Statut')}</th></tr>{rows}</table></div>"
        f"<div style='position:absolute;left:0;top:232px;width:{width - 272}px;height:160px'>{thumbs}</div>"
        f"<div style='position:absolute;left:0;top:410px;color:#55626f'>{look.t('Viewer: PACS Web — series 1/3', 'Visionneuse : PACS Web — série 1/3')}</div>"
    )


def biologie(look: Look, width: float) -> str:
    tests = [
        ("NT-proBNP", "3 450", "pg/mL", "< 450"),
        (look.t("Creatinine", "Créatinine"), "118", "µmol/L", "45-90"),
        ("K+", "4,1", "mmol/L", "3,5-5,0"),
        ("Na+", "136", "mmol/L", "136-145"),
        (look.t("Haemoglobin", "Hémoglobine"), "11,8", "g/dL", "12-16"),
        ("CRP", "12", "mg/L", "< 5"),
        ("TSH", "2,1", "mUI/L", "0,4-4,0"),
    ]
    rows = "".join(f"<tr><td>{esc(a)}</td><td><b>{b}</b></td><td>{c}</td><td>{d}</td></tr>" for a, b, c, d in tests)
    return (
        f"<h2 style='position:absolute;left:0;top:18px'>{look.t('Lab results', 'Biologie')} — 12/03/2025</h2>"
        f"<div class='card' style='{px(0, 60, width - 272, 300)}'><table><tr><th>{look.t('Test', 'Analyse')}</th>"
        f"<th>{look.t('Result', 'Résultat')}</th><th>{look.t('Unit', 'Unité')}</th><th>{look.t('Range', 'Normes')}</th></tr>{rows}</table></div>"
    )


def prescriptions(look: Look, width: float) -> str:
    meds = [
        ("Furosémide 40 mg", look.t("1 tab morning", "1 cp le matin"), "IV"),
        ("Bisoprolol 5 mg", "1-0-0", "PO"),
        ("Apixaban 5 mg", "1-0-1", "PO"),
        ("Paracétamol 1 g", look.t("if pain, max 4/day", "si douleur, max 4/j"), "PO"),
    ]
    rows = "".join(f"<tr><td>{esc(a)}</td><td>{esc(b)}</td><td>{c}</td></tr>" for a, b, c in meds)
    return (
        f"<h2 style='position:absolute;left:0;top:18px'>Prescriptions</h2>"
        f"<div class='card' style='{px(0, 60, width - 272, 200)}'><table><tr><th>{look.t('Drug', 'Médicament')}</th>"
        f"<th>{look.t('Dosage', 'Posologie')}</th><th>{look.t('Route', 'Voie')}</th></tr>{rows}</table></div>"
    )


PAGES = {"synthese": synthese, "imagerie": imagerie, "biologie": biologie, "prescriptions": prescriptions}


# --- dialogs ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Button:
    key: str
    label: str
    style: str = ""  # "" | pri | danger


def modal(
    look: Look,
    *,
    dialog_id: str,
    title: str,
    text: str,
    buttons: Sequence[Button],
    page_w: float,
    page_h: float,
    width: float = 480,
    icon: str = "",
    extra: str = "",
    backdrop: bool = True,
    dx: float = 0,
    dy: float = -40,
    primary: bool = True,
    accent: str = "",
) -> str:
    """A web modal centred on the page (plus an offset), over a dimmed backdrop."""
    height_guess = 170 + (40 if extra else 0) + 20 * (len(text) // 60)
    x, y = (page_w - width) / 2 + dx, max(20.0, (page_h - height_guess) / 2 + dy)
    head_icon = f"<span style='font-size:20px;color:{accent or '#0b63b6'}'>{icon}</span>" if icon else ""
    top = f"border-top:4px solid {accent};" if accent else ""
    foot = "".join(
        f"<span class='{b.style}' {attrs(data_gt='button', data_key=b.key)}>{esc(b.label)}</span>" for b in buttons
    )
    dialog = (
        f"<div class='ezm shadow-lg' {attrs(data_gt='dialog', data_id=dialog_id, data_primary='1' if primary else None)} "
        f"style='{px(x, y, width)}{top}'><div class='mh'>{head_icon}<span {attrs(data_gt='title')}>{esc(title)}</span></div>"
        f"<div class='mb' {attrs(data_gt='text')}>{esc(text)}</div>{extra}<div class='mf'>{foot}</div></div>"
    )
    return ("<div class='ezback'></div>" if backdrop else "") + dialog


def toast(
    look: Look,
    *,
    title: str,
    text: str,
    page_w: float,
    top: float = 16,
    right: float = 24,
    dialog_id: str = "easily-toast-saved",
) -> str:
    return (
        f"<div class='ezt shadow' {attrs(data_gt='dialog', data_id=dialog_id, data_kind='toast', data_modal='0', data_primary='1')} "
        f"style='left:{page_w - right - 340:g}px;top:{top:g}px;width:340px'>"
        "<span style='width:22px;height:22px;border-radius:11px;background:#2e7d32;color:#fff;display:flex;"
        "align-items:center;justify-content:center;font-size:13px;flex:none'>✓</span>"
        f"<div class='grow'><div {attrs(data_gt='title')} style='font-weight:700;font-size:14px;margin-bottom:3px'>{esc(title)}</div>"
        f"<div {attrs(data_gt='text')}>{esc(text)}</div></div><span style='color:#777'>✕</span></div>"
    )
