"""Falkon (Debian's falkon 22.12: KDE's browser, Qt 5 widgets around QtWebEngine; see
rpa_mcp.screens.real_programs): a third browser family beside Chromium and GNOME Web. Its prompts are
Qt-drawn: a site's permission request is a bar across the top of the page ("Allow 127.0.0.1 to use your
camera?", Remember / Allow / Deny), the page's alert and confirm are Qt dialogs of their own titled
"JavaScript alert - <host>" / "Javascript Confirm - <address>", QtWebEngine's beforeunload question comes in
that same confirm ("Are you sure you want to leave this page? Changes that you made may not be saved.", OK /
Cancel), and a download first asks what to do with the file ("Opening <name>": Open... / Save File, OK /
Cancel) then shows Qt's own save dialog. Falkon's strings are French in its fr configuration; Qt's dialog
buttons, QtWebEngine's leave text and Qt's save dialog stay English (Falkon loads no Qt translation). A
tuning program.

The scene, on three served pages open in tabs: a click on the tab "Imagerie" and Ctrl+W on it; a click on
the page's greyed-out button (nothing changes); the page asking to show notifications, to know the location,
to use the camera and the microphone (a fake capture device), each answered Deny; an alert (OK) and a
confirm (Cancel); a sentence typed into the page's text area; a download's question (Cancel), then the
download saved: Qt's save dialog (Cancel); leaving the page with a beforeunload handler (Cancel).
"""

from __future__ import annotations

import shutil
import time

from rpa_mcp.screens.desktop_scenes import CANCEL
from rpa_mcp.screens.doublecmd_scenes import SCENES
from rpa_mcp.screens.plain_pairs import idle_click, tab_switch_and_close
from rpa_mcp.screens.real_program_scenes import OK, SENTENCE, dialog_then_click, typed_pair
from rpa_mcp.screens.real_programs import Session, changed_box
from rpa_mcp.screens.record_pages import ask, record_pages

__all__ = ["SCENES", "falkon"]

DENY = ("deny", "refuser")
SUBMIT = ("submit", "valider")
# QtWebEngine under Xvfb: no GPU; a fake camera and microphone so that the page may ask for them; its
# renderer's sandbox cannot start in this container
ENGINE_ENV = (
    "QTWEBENGINE_CHROMIUM_FLAGS=--disable-gpu --use-fake-device-for-media-stream",
    "QTWEBENGINE_DISABLE_SANDBOX=1",
)
# the page's keys make it ask; keys typed into its text area are the area's own
PAGE_SCRIPT = """<script>
addEventListener('keydown', ev => {
  if (ev.target.tagName === 'TEXTAREA') return;
  const k = ev.key;
  if (k === 'n') Notification.requestPermission();
  if (k === 'g') navigator.geolocation.getCurrentPosition(() => {}, () => {});
  if (k === 'c') navigator.mediaDevices.getUserMedia({video: true}).catch(() => {});
  if (k === 'm') navigator.mediaDevices.getUserMedia({audio: true}).catch(() => {});
  if (k === 'a') setTimeout(() => alert(MSG.alert), 50);
  if (k === 'o') setTimeout(() => confirm(MSG.confirm), 50);
  if (k === 'd') document.getElementById('report').click();
  if (k === 'l') { onbeforeunload = e => { e.preventDefault(); e.returnValue = ''; };
                   setTimeout(() => { location.href = '/other.html'; }, 50); }
});
</script>"""


def _pages(s: Session) -> dict[str, str]:
    msg = {
        "alert": s.t("The record is locked by another user.", "Le dossier est verrouillé par un autre utilisateur."),
        "confirm": s.t("Delete this prescription?", "Supprimer cette prescription ?"),
    }
    form = (
        f"<p>{s.t('Observation:', 'Observation :')}</p><textarea rows='3' cols='90'></textarea>"
        f"<p><button disabled style='font-size:18px'>{s.t('Submit', 'Valider')}</button></p>"
        f"<p><a id='report' href='/compte-rendu.txt' download='compte-rendu.txt'>"
        f"{s.t('Report', 'Compte rendu')}</a></p>"
    )
    return record_pages(s, form, msg, PAGE_SCRIPT, lang=True)


def _ask(s: Session, key: str) -> None:
    ask(s, key, heading_y=110)


def _open_tab(s: Session, url: str) -> None:
    s.key("ctrl+t")
    time.sleep(1.5)
    s.key("ctrl+l")
    s.type(url)
    s.key("Return")
    time.sleep(2.5)


def falkon(s: Session) -> None:
    from rpa_mcp.screens.real import serve

    for state in (".config/falkon", ".local/share/falkon", ".cache/falkon"):  # a fresh profile
        shutil.rmtree(s.home / state, ignore_errors=True)
    with serve(_pages(s)) as origin:
        s.run("env", *ENGINE_ENV, "falkon", f"{origin}/bio.html")
        wid = s.wait_window("Falkon", deadline_s=120)
        s.maximize(wid)
        time.sleep(3.0)
        _open_tab(s, f"{origin}/img.html")  # a second Falkon started with a URL opens a window of its own
        _open_tab(s, f"{origin}/syn.html")
        width, height = s.config.width, s.config.height
        tab_switch_and_close(s, (0, 0, width, 90), "Imagerie")
        idle_click(s, SUBMIT, (0, 90, width, height - 90), "a click on the page's greyed-out button: nothing")
        for key, name, kind, what in (
            ("n", "notifications", "browser-perm-notifications", "the page asks to show notifications"),
            ("g", "location", "browser-perm-location", "the page asks to know the location"),
            ("c", "camera", "browser-perm-camera", "the page asks to use the camera"),
            ("m", "microphone", "browser-perm-microphone", "the page asks to use the microphone"),
        ):
            _ask(s, key)
            dialog_then_click(s, name, kind, DENY, what)
        _ask(s, "a")
        dialog_then_click(s, "alert", "browser-js-alert", OK, "the page's alert")
        _ask(s, "o")
        dialog_then_click(s, "confirm", "browser-js-alert", CANCEL, "the page's confirm")
        _typed(s)
        _ask(s, "d")
        dialog_then_click(s, "download", "unknown", CANCEL, "a download: open the file or save it? (Cancel)")
        _ask(s, "d")
        s.key("Return")  # "Save File" is chosen at first
        time.sleep(2.0)
        dialog_then_click(s, "save-as", "file-save-as", CANCEL, "Qt's save dialog for a download, cancelled")
        _ask(s, "l")
        dialog_then_click(s, "leave-site", "browser-leave-site", CANCEL, "leave the page? (beforeunload)")


def _typed(s: Session) -> None:
    """The sentence typed into the page's text area, under its label."""
    frame = s.settle()
    label, _ = s.find_text(frame, ("Observation",), (0, 90, s.config.width, s.config.height - 90))
    s.click((label[0] + 60, label[1] + label[3] + 30))
    time.sleep(0.8)
    before = s.settle()
    s.type(SENTENCE[s.config.lang])
    after = s.settle()
    page = before.copy(), after.copy()
    for image in page:  # the page only (the tab strip and toolbars above it)
        image[:90] = 0
    typed_pair(s, before, after, changed_box(*page), "the page's text area")


SCENES["falkon"] = falkon
