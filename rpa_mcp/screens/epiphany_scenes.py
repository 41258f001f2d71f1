"""GNOME Web (Debian's epiphany-browser: WebKitGTK in a GTK 3 window; see rpa_mcp.screens.real_programs):
a second browser engine and toolkit beside Chromium, with its own tab strip, its own way of asking for a
site's permission (a bar across the top of the page: "The page at ... wants to show desktop
notifications.", Deny / Allow) and WebKit's page dialogs drawn inside the page (titled "JavaScript -
<address>"). A tuning program.

The scene, on three served pages open in tabs: a click on the tab "Imagerie" and Ctrl+W on it; a click on a
greyed-out button of the page (nothing changes); the page asking to show notifications and to know the
location (each answered Deny); an alert (Close), a confirm (Cancel) and a prompt (OK); a form typed into
and its tab closed (GNOME Web's own "Leave website?" question on an unsubmitted form: Cancel).

Not captured: the camera and microphone prompts (WebKit asks only once a capture device exists: without
one `getUserMedia` fails before any prompt); WebKit's own beforeunload question (WebKitGTK navigated and
reloaded without asking here, whatever the page's handler returned).
"""

from __future__ import annotations

import time

from rpa_mcp.screens.ghex_scenes import SCENES
from rpa_mcp.screens.plain_pairs import tab_switch_and_close
from rpa_mcp.screens.real_program_scenes import dialog_then_click
from rpa_mcp.screens.real_programs import Session, center, grow
from rpa_mcp.screens.record_pages import ask, record_pages

__all__ = ["SCENES", "epiphany"]

DENY = ("deny", "interdire")
CLOSE = ("close", "fermer")
CANCEL = ("cancel", "annuler")
# the page's keys make it ask; keys typed into its form are the form's own
PAGE_SCRIPT = """<script>
addEventListener('keydown', ev => {
  if (ev.target.tagName === 'TEXTAREA') return;
  const k = ev.key;
  if (k === 'n') Notification.requestPermission();
  if (k === 'g') navigator.geolocation.getCurrentPosition(() => {}, () => {});
  if (k === 'a') setTimeout(() => alert(MSG.alert), 50);
  if (k === 'o') setTimeout(() => confirm(MSG.confirm), 50);
  if (k === 'p') setTimeout(() => prompt(MSG.prompt, ''), 50);
});
</script>"""


def _pages(s: Session) -> dict[str, str]:
    msg = {
        "alert": s.t("The record is locked by another user.", "Le dossier est verrouillé par un autre utilisateur."),
        "confirm": s.t("Delete this prescription?", "Supprimer cette prescription ?"),
        "prompt": s.t("Reason for the change:", "Motif de la modification :"),
    }
    form = (
        f"<form action='/sent.html' method='post'><p>{s.t('Observation:', 'Observation :')}</p>"
        "<textarea name='obs' rows='3' cols='60'></textarea></form>"
        f"<p><button disabled style='font-size:18px'>{s.t('Submit', 'Valider')}</button></p>"
    )
    return record_pages(s, form, msg, PAGE_SCRIPT)


def _ask(s: Session, key: str) -> None:
    ask(s, key, heading_y=140)


def epiphany(s: Session) -> None:
    from rpa_mcp.screens.real import serve

    with serve(_pages(s)) as origin:
        urls = " ".join(f"{origin}/{n}.html" for n in ("bio", "img", "syn"))
        # WebKit's web process sandbox (bubblewrap) cannot start in this container: it is turned off; no
        # "set as default browser?" bar; the question on leaving an unsubmitted form kept on
        settings = "ask-for-default false; gsettings set org.gnome.Epiphany warn-on-close-unsubmitted-data true"
        s.run(
            "env",
            "WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS=1",
            "sh",
            "-c",
            f"gsettings set org.gnome.Epiphany {settings}; exec epiphany --private-instance {urls}",
        )
        wid = s.wait_window("Biologie|Imagerie|Synth|Summary", deadline_s=120)
        s.maximize(wid)
        time.sleep(3.0)
        tab_switch_and_close(s, (0, 40, s.config.width, 60), "Imagerie")
        _greyed_button(s)
        for key, name, kind, what in (
            ("n", "notifications", "browser-perm-notifications", "the page asks to show notifications"),
            ("g", "location", "browser-perm-location", "the page asks to know the location"),
        ):
            _ask(s, key)
            dialog_then_click(s, name, kind, DENY, what)
        for key, name, words, what in (
            ("a", "alert", CLOSE, "the page's alert"),
            ("o", "confirm", CANCEL, "the page's confirm"),
            ("p", "prompt", ("ok",), "the page's prompt"),  # "Valider" is the page's own button
        ):
            _ask(s, key)
            dialog_then_click(s, name, "browser-js-alert", words, what)
        _leave_form(s)


def _greyed_button(s: Session) -> None:
    before = s.settle()
    box, label = s.find_text(before, (s.t("Submit", "Valider"),), (0, 90, s.config.width, s.config.height - 90))
    button = grow(box, 8)
    s.click(center(box))
    after = s.first_change(before)
    b, a = s.save("greyed-click-before", before), s.save("greyed-click-after", after)
    s.pair(
        "greyed-button",
        b,
        a,
        {"type": "click_anchor", "label": label, "bbox": list(button), "point": list(center(box))},
        "FAILURE",
        "NO_VISUAL_CHANGE",
        "a click on the page's greyed-out button: nothing changed",
    )


def _leave_form(s: Session) -> None:
    """Text typed into the page's form, then its tab closed: GNOME Web asks before the form is lost."""
    frame = s.settle()
    box, _label = s.find_text(frame, ("Observation",), (0, 90, s.config.width, s.config.height - 90))
    s.click((box[0] + 60, box[1] + box[3] + 30))  # in the text area under its label
    time.sleep(0.5)
    s.type(s.t("Seen today", "Vu ce jour"))
    time.sleep(0.5)
    s.key("ctrl+w")
    time.sleep(1.5)
    dialog_then_click(s, "leave-site", "browser-leave-site", CANCEL, "leave the page with an unsubmitted form?")


SCENES["epiphany"] = epiphany
