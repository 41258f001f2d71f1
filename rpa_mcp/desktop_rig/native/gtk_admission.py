"""A native GTK3 application for measuring learning and replay on software nobody tuned to.

The admission desk of a hospital, in French: a patient search (entry + button), the results in a
GtkTreeView, and an admission form whose entries are named only by separate GtkLabel widgets
(mnemonic labels: AT-SPI labelled-by relations), a service drop-down (GtkComboBoxText), an
isolation check box, an entry date, and "Enregistrer", which validates and answers in a banner
inside the window. Opening a patient titles the window "Admission — NOM Prénom".

It runs as a script under the system Python with PyGObject (Debian python3-gi, gir1.2-gtk-3.0),
never imported by the server:

    /usr/bin/python3 rpa_mcp/desktop_rig/native/gtk_admission.py --effects effects.jsonl

Every effect it undergoes is one JSON line in `--effects` (`seq`, `at`, `kind`, `detail`):
`search` (q, hits), `open` (patient), `save` (every field's value), `error` (missing fields), so
a benchmark counts effects exactly. Standard library and GTK only.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gi

gi.require_version("Gtk", "3.0")
from effects_log import Effects  # noqa: E402  # its sibling module: this script runs under the system Python
from gi.repository import Gtk  # noqa: E402  # after require_version

TITLE = "Admission — Bureau des entrées"
SERVICES = ("Cardiologie", "Pneumologie", "Orthopédie", "Gériatrie", "Neurologie", "Médecine interne")
PATIENTS = (  # IPP, NOM, Prénom, date of birth
    ("400121", "FAURE", "Céline", "12/03/1961"),
    ("400122", "FAURE", "Gilles", "02/11/1958"),
    ("400135", "MOREL", "Hélène", "27/07/1949"),
    ("400140", "BERNARD", "Louis", "14/01/1972"),
    ("400141", "PETITBERNARD", "Anne", "30/09/1985"),
    ("400152", "GIRARD", "Noémie", "08/05/1990"),
    ("400167", "ROUSSEAU", "Étienne", "19/12/1944"),
    ("400173", "LAMBERT", "Sophie", "03/06/1968"),
    ("400188", "FONTAINE", "Marc", "22/02/1955"),
    ("400194", "CHEVALIER", "Inès", "11/10/1979"),
)
CSS = b"""
window { background-color: #eef1e6; font-family: "DejaVu Serif", serif; font-size: 11pt; }
.bandeau-titre { background-color: #2f4f3a; color: #f4f1de; padding: 8px 14px; font-size: 15pt; }
.cadre { background-color: #fbfaf3; border: 1px solid #9aa58c; padding: 10px; }
.succes { background-color: #d8ecd0; color: #1f4d1a; padding: 8px; }
.erreur { background-color: #f6d5cf; color: #7a1e12; padding: 8px; }
"""


def labelled(grid: Gtk.Grid, row: int, text: str, widget: Gtk.Widget) -> None:
    """A separate label widget on the left naming `widget` (mnemonic: AT-SPI labelled-by)."""
    label = Gtk.Label.new_with_mnemonic(text)
    label.set_xalign(1.0)
    label.set_mnemonic_widget(widget)
    grid.attach(label, 0, row, 1, 1)
    grid.attach(widget, 1, row, 1, 1)


class Admission(Gtk.Window):  # type: ignore[misc]  # PyGObject has no stubs here
    def __init__(self, effects: Effects) -> None:
        super().__init__(title=TITLE)
        self.effects = effects
        self.patient: tuple[str, str, str, str] | None = None
        self.set_default_size(1100, 720)
        self.connect("destroy", Gtk.main_quit)
        outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=10)
        self.add(outer)
        heading = Gtk.Label(label="Bureau des entrées — Admission des patients", xalign=0.0)
        heading.get_style_context().add_class("bandeau-titre")
        outer.pack_start(heading, False, False, 0)
        body = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=18, margin=14)
        outer.pack_start(body, True, True, 0)
        body.pack_start(self._search_side(), True, True, 0)
        body.pack_start(self._form_side(), False, False, 0)

    # --- the search and its results --------------------------------------------------------------
    def _search_side(self) -> Gtk.Widget:
        side = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
        row = Gtk.Box(spacing=6)
        self.query = Gtk.Entry(width_chars=16)
        self.query.set_placeholder_text("NOM ou IPP")
        self.query.connect("activate", self.on_search)
        found = Gtk.Label.new_with_mnemonic("_Rechercher un patient :")
        found.set_mnemonic_widget(self.query)
        button = Gtk.Button.new_with_mnemonic("Re_chercher")
        button.connect("clicked", self.on_search)
        row.pack_start(found, False, False, 0)
        row.pack_start(self.query, True, True, 0)
        row.pack_start(button, False, False, 0)
        side.pack_start(row, False, False, 0)
        self.results = Gtk.ListStore(str, str, str, str)
        self.table = Gtk.TreeView(model=self.results)
        for n, title in enumerate(("IPP", "Nom", "Prénom", "Né(e) le")):
            self.table.append_column(Gtk.TreeViewColumn(title, Gtk.CellRendererText(), text=n))
        self.table.get_selection().connect("changed", self.on_pick)
        scroller = Gtk.ScrolledWindow()
        scroller.set_size_request(380, 300)
        scroller.add(self.table)
        side.pack_start(scroller, True, True, 0)
        self.count = Gtk.Label(label="Saisissez un nom puis « Rechercher ».", xalign=0.0)
        side.pack_start(self.count, False, False, 0)
        return side

    def on_search(self, _widget: Gtk.Widget) -> None:
        q = self.query.get_text().strip()
        hits = [p for p in PATIENTS if q and (q.upper() in p[1] or q == p[0])]
        self.results.clear()
        for patient in hits:
            self.results.append(list(patient))
        self.count.set_text(f"{len(hits)} patient(s) trouvé(s) pour « {q} ».")
        self.effects.add("search", q=q, hits=[p[0] for p in hits])

    def on_pick(self, selection: Gtk.TreeSelection) -> None:
        model, row = selection.get_selected()
        if row is None:
            return
        ipp = model[row][0]
        patient = next(p for p in PATIENTS if p[0] == ipp)
        if patient == self.patient:
            return
        self.patient = patient
        self.set_title(f"Admission — {patient[1]} {patient[2]}")
        self.who.set_text(f"{patient[1]} {patient[2]} — IPP {patient[0]} — né(e) le {patient[3]}")
        self.banner.hide()
        self.effects.add("open", patient=ipp)

    # --- the admission form ------------------------------------------------------------------------
    def _form_side(self) -> Gtk.Widget:
        frame = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=10)
        frame.get_style_context().add_class("cadre")
        frame.pack_start(Gtk.Label(label="Dossier d'admission", xalign=0.0), False, False, 0)
        self.who = Gtk.Label(label="Aucun patient sélectionné", xalign=0.0)
        frame.pack_start(self.who, False, False, 0)
        grid = Gtk.Grid(row_spacing=10, column_spacing=10)
        self.reason = Gtk.Entry(width_chars=22)
        labelled(grid, 0, "_Motif d'admission", self.reason)
        self.service = Gtk.ComboBoxText()
        self.service.append_text("— choisir —")
        for name in SERVICES:
            self.service.append_text(name)
        self.service.set_active(0)
        labelled(grid, 1, "_Service", self.service)
        self.date = Gtk.Entry(width_chars=12)
        self.date.set_placeholder_text("jj/mm/aaaa")
        labelled(grid, 2, "_Date d'entrée", self.date)
        self.room = Gtk.Entry(width_chars=8)
        labelled(grid, 3, "C_hambre", self.room)
        self.isolation = Gtk.CheckButton.new_with_mnemonic("_Isolement requis")
        grid.attach(self.isolation, 1, 4, 1, 1)
        frame.pack_start(grid, False, False, 0)
        save = Gtk.Button.new_with_mnemonic("_Enregistrer")
        save.connect("clicked", self.on_save)
        frame.pack_start(save, False, False, 6)
        self.banner = Gtk.Label(label="", xalign=0.0)
        self.banner.set_line_wrap(True)
        self.banner.set_no_show_all(True)
        frame.pack_start(self.banner, False, False, 0)
        return frame

    def on_save(self, _button: Gtk.Button) -> None:
        service = self.service.get_active_text() or ""
        values = {
            "patient": self.patient[0] if self.patient else None,
            "motif": self.reason.get_text(),
            "service": service if service in SERVICES else "",
            "date": self.date.get_text(),
            "chambre": self.room.get_text(),
            "isolement": self.isolation.get_active(),
        }
        missing = [name for name in ("patient", "motif", "service", "date") if not values[name]]
        if not missing and not _is_date(str(values["date"])):
            missing = ["date"]
        style = self.banner.get_style_context()
        style.remove_class("succes")
        style.remove_class("erreur")
        if missing:
            self.banner.set_text("Impossible d'enregistrer : champ(s) à corriger : " + ", ".join(missing) + ".")
            style.add_class("erreur")
            self.effects.add("error", missing=missing)
        else:
            assert self.patient is not None
            self.banner.set_text(f"Admission enregistrée : {self.patient[1]} {self.patient[2]}, {service}.")
            style.add_class("succes")
            self.effects.add("save", **values)
            self._clear_form()  # ready for the next admission
        self.banner.show()

    def _clear_form(self) -> None:
        for entry in (self.reason, self.date, self.room):
            entry.set_text("")
        self.service.set_active(0)
        self.isolation.set_active(False)


def _is_date(text: str) -> bool:
    try:
        time.strptime(text, "%d/%m/%Y")
    except ValueError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description="The admission desk (GTK3), logging its effects as JSON lines.")
    parser.add_argument("--effects", type=Path, default=None, help="append every effect here (JSON lines)")
    args = parser.parse_args()
    style = Gtk.CssProvider()
    style.load_from_data(CSS)
    from gi.repository import Gdk

    screen = Gdk.Screen.get_default()
    Gtk.StyleContext.add_provider_for_screen(screen, style, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    window = Admission(Effects(args.effects))
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
