"""The frames of the demo's virtual desktop (rpa_mcp/agent_sim/desktops/incident.yaml).

A nurse's workstation: Easily in a maximised Edge (tabs at x = 82 + 236 i, y = 8, 32 px tall),
the note form, the save toast, a PACS viewer in front of a restored Edge (the step-10 incident),
and a UAC prompt on the dimmed secure desktop.
"""

from __future__ import annotations

import random

from rpa_mcp.screens.html import desktop, easily, security
from rpa_mcp.screens.html.browser import browser_process
from rpa_mcp.screens.look import Look
from rpa_mcp.screens.render import Scene
from rpa_mcp.screens.scenes.base import Ctx, compose, easily_browser, maximised
from rpa_mcp.screens.scenes.pairs.tabs import wrong_application

LOOK = Look()  # Windows 11, light, 100 %, French, 1920x1080, Edge
NOTE = (
    "Patiente de 69 ans hospitalisée pour insuffisance cardiaque décompensée.",
    "",
    "Examen : TA 142/84, FC 88, SpO2 96 % en air ambiant. Crépitants bibasaux",
    "en régression, œdèmes des membres inférieurs diminués.",
    "",
    "Conduite à tenir : poursuite furosémide IV 40 mg x2, surveillance diurèse.",
)


def _ctx() -> Ctx:
    return Ctx(random.Random(0), LOOK, "canonical", 0)


def _browser(active: int, page: str, *, overlay: str = "", modified: bool = True, description: str = "") -> Scene:
    ctx = _ctx()
    geo = maximised(ctx)
    lines = NOTE if page == "observation" else ()
    # the note form is a view of the record's tab; the application names it in the window title
    page_title = "Easily — Observation" if page == "observation" else None
    html, title = easily_browser(
        ctx,
        geo,
        page_key=page,
        active=active,
        page_overlay=overlay,
        modified=modified,
        lines=lines,
        page_title=page_title,
    )
    return Scene(
        LOOK,
        compose(ctx, html, front_app="edge", busy=False),
        window_title=title,
        process=browser_process(LOOK),
        description=description,
        dialog_id="easily-toast-saved" if "easily-toast-saved" in overlay else None,
    )


def dossier() -> Scene:
    return _browser(0, "synthese", description="Easily record summary in Edge (incident desktop start)")


def imagerie() -> Scene:
    return _browser(1, "imagerie", description="the Imagerie tab is active")


def biologie() -> Scene:
    return _browser(2, "biologie", description="the Biologie tab is active")


def observation() -> Scene:
    return _browser(0, "observation", description="the note form with unsaved changes")


def observation_saved() -> Scene:
    geo = maximised(_ctx())
    toast = easily.toast(LOOK, title="Enregistré", text="L'observation a été enregistrée.", page_w=geo.page_w)
    return _browser(0, "observation", overlay=toast, modified=False, description="note saved: 'Enregistré' toast")


def uac() -> Scene:
    """The record under the dimmed secure desktop with the UAC prompt (the desktop pastes the prompt box)."""
    ctx = _ctx()
    html, _ = easily_browser(ctx, maximised(ctx), page_key="synthese", active=0)
    prompt = security.uac(LOOK, program="Éditeur du Registre", publisher="Microsoft Windows", x=724, y=282)
    body = html + desktop.dim(0.58, z=60) + f"<div style='position:absolute;inset:0;z-index:70'>{prompt}</div>"
    return Scene(
        LOOK,
        compose(ctx, body, front_app="edge", busy=False),
        window_title="Contrôle de compte d'utilisateur",
        process="consent.exe",
        dialog_id="windows-uac",
        description="UAC prompt over the record",
    )


def pacs() -> tuple[Scene, Scene]:
    scene = wrong_application(_ctx())
    return scene.before, scene.after


FRAMES = {
    "dossier": dossier,
    "imagerie": imagerie,
    "biologie": biologie,
    "observation": observation,
    "observation_saved": observation_saved,
    "uac": uac,
}
