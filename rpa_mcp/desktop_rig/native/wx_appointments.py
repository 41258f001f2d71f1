"""A wxPython application for measuring learning and replay on software nobody tuned to, by vision alone.

The outpatient appointment desk of a hospital, in French: wxWidgets 3.2 on GTK 3 through wxPython 4 (Debian
python3-wxgtk4.0). A patient search (TextCtrl + Button) fills a wx.grid.Grid whose cells wx draws itself (a
renderer of its own: striped rows, the surname in bold), one row a patient, picked by a click on its row;
an appointment form (each field named by a label on its left) with a consultation drop-down drawn by wx
(wx.adv.OwnerDrawnComboBox, read-only: a coloured mark before each speciality), the appointment date typed
as text, a "medical transport" CheckBox, the reason for the consultation, an optional referring doctor, and
"Enregistrer le rendez-vous", which checks the form and answers in a wx.InfoBar at the bottom of the window.
Opening a patient titles the window "Consultations externes — NOM Prénom".

Started with GTK's accessibility bridge off (NO_AT_BRIDGE=1; the grid and the drop-down have no accessible
children anyway): what a platform learns of it, it learns from the screen. It runs as a script under the
system Python, never imported by the server:

    python3 wx_appointments.py --effects e.jsonl --layout l.json

Every effect it undergoes is one JSON line in --effects, as effects_log.py writes them: search (q, hits),
open (patient), save (every field's value), error (missing fields). --layout is kept up to date with where
the widgets are on the screen (the scripted person's eyes only: a person sees where things are; the platform
never reads it).
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import wx
import wx.adv
import wx.grid
from effects_log import Effects  # its sibling module: this script runs under the system Python

TITLE = "Consultations externes — Prise de rendez-vous"
NONE_CHOSEN = "— choisir —"
CONSULTATIONS = {  # speciality -> the colour of its mark in the drop-down
    "Cardiologie": "#C0392B",
    "Dermatologie": "#D68910",
    "Endocrinologie": "#7D3C98",
    "Gastro-entérologie": "#1E8449",
    "Neurologie": "#2471A3",
    "Pneumologie": "#17A589",
    "Rhumatologie": "#A04000",
    "ORL": "#5D6D7E",
}
PATIENTS = (  # IPP, NOM, Prénom, date of birth, F or M
    ("800411", "BERTIN", "Solène", "12/03/1957", "F"),
    ("800412", "BERTIN", "Sébastien", "28/10/1984", "M"),
    ("800423", "MARCHAND", "Léa", "05/06/2001", "F"),
    ("800424", "MARCHAND", "Léo", "05/06/2001", "M"),
    ("800436", "PERRIN", "Anaïs", "19/01/1969", "F"),
    ("800437", "PERRINOT", "Gaël", "02/09/1978", "M"),
    ("800445", "CHAUVIN", "Noël", "24/12/1949", "M"),
    ("800452", "BRUNET", "Cécile", "11/04/1992", "F"),
    ("800468", "HUMBERT", "Jérémie", "30/07/1987", "M"),
    ("800471", "POIRIER", "Zoé", "16/02/2010", "F"),
    ("800489", "COLAS", "Benoît", "08/11/1962", "M"),
    ("800493", "LEBRUN", "Ophélie", "21/05/1975", "F"),
)
COLUMNS = (("Nom", 150), ("Prénom", 130), ("Né(e) le", 110), ("IPP", 90))
ROW_HEIGHT = 28
OPTION_HEIGHT = 26


class PatientCell(wx.grid.GridCellRenderer):  # type: ignore[misc]  # wxPython has no stubs here
    """A result cell as this desk draws it: striped rows, the surname in bold, the chosen row in blue."""

    def Draw(self, grid: Any, attr: Any, dc: Any, rect: Any, row: int, col: int, isSelected: bool) -> None:
        back = wx.Colour("#2F5F98") if isSelected else wx.Colour("#FFFFFF" if row % 2 == 0 else "#EAF1F8")
        dc.SetBrush(wx.Brush(back))
        dc.SetPen(wx.Pen(back))
        dc.DrawRectangle(rect)
        font = grid.GetDefaultCellFont()
        if col == 0:
            font = font.Bold()
        dc.SetFont(font)
        dc.SetTextForeground(wx.WHITE if isSelected else wx.Colour("#1B2631"))
        text = grid.GetCellValue(row, col)
        _w, h = dc.GetTextExtent(text)
        dc.DrawText(text, rect.x + 6, rect.y + (rect.height - h) // 2)

    def GetBestSize(self, grid: Any, attr: Any, dc: Any, row: int, col: int) -> Any:
        return wx.Size(COLUMNS[col][1], ROW_HEIGHT)

    def Clone(self) -> PatientCell:
        return PatientCell()


class ConsultationCombo(wx.adv.OwnerDrawnComboBox):  # type: ignore[misc]
    """The consultation drop-down, drawn by wx: a coloured mark, then the speciality."""

    def OnDrawItem(self, dc: Any, rect: Any, item: int, flags: int) -> None:
        if item == wx.NOT_FOUND:
            return
        text = self.GetString(item)
        colour = CONSULTATIONS.get(text)
        if colour:
            dc.SetBrush(wx.Brush(wx.Colour(colour)))
            dc.SetPen(wx.Pen(wx.Colour(colour)))
            dc.DrawRectangle(rect.x + 4, rect.y + rect.height // 2 - 5, 10, 10)
        _w, h = dc.GetTextExtent(text)
        dc.DrawText(text, rect.x + 22, rect.y + (rect.height - h) // 2)

    def OnMeasureItem(self, item: int) -> int:
        return OPTION_HEIGHT

    def OnMeasureItemWidth(self, item: int) -> int:
        return -1


class Desk(wx.Frame):  # type: ignore[misc]
    def __init__(self, effects: Effects, layout: Path | None) -> None:
        super().__init__(None, title=TITLE, size=(1100, 700))
        self.effects, self.layout_path, self.last_layout = effects, layout, ""
        self.patient: tuple[str, ...] | None = None
        self.shown: list[tuple[str, ...]] = []
        self.SetMenuBar(self.menus())
        body = wx.Panel(self)
        row = wx.BoxSizer(wx.HORIZONTAL)
        row.Add(self.search_side(body), 1, wx.EXPAND | wx.ALL, 8)
        row.Add(self.form_side(body), 0, wx.EXPAND | wx.TOP | wx.BOTTOM | wx.RIGHT, 8)
        body.SetSizer(row)
        self.banner = wx.InfoBar(self)
        outer = wx.BoxSizer(wx.VERTICAL)
        outer.Add(body, 1, wx.EXPAND)
        outer.Add(self.banner, 0, wx.EXPAND)
        self.SetSizer(outer)
        self.Bind(wx.EVT_CLOSE, lambda _e: self.Destroy())
        self.eyes = wx.Timer(self)
        self.Bind(wx.EVT_TIMER, lambda _e: self.write_layout(), self.eyes)
        self.eyes.Start(200)

    def menus(self) -> wx.MenuBar:
        bar = wx.MenuBar()
        for name in ("Fichier", "Agenda", "Patients", "Aide"):
            menu = wx.Menu()
            menu.Append(wx.ID_ANY, "Planning du jour" if name == "Agenda" else "(vide)")
            bar.Append(menu, name)
        return bar

    # --- the search and its results -----------------------------------------------------------------
    def search_side(self, parent: wx.Window) -> wx.Sizer:
        box = wx.StaticBoxSizer(wx.VERTICAL, parent, "Recherche patient")
        line = wx.BoxSizer(wx.HORIZONTAL)
        line.Add(wx.StaticText(box.GetStaticBox(), label="Nom ou IPP :"), 0, wx.ALIGN_CENTER_VERTICAL | wx.RIGHT, 6)
        self.query = wx.TextCtrl(box.GetStaticBox(), size=(220, -1), style=wx.TE_PROCESS_ENTER)
        self.find = wx.Button(box.GetStaticBox(), label="Chercher")
        line.Add(self.query, 0, wx.RIGHT, 6)
        line.Add(self.find, 0)
        box.Add(line, 0, wx.ALL, 6)
        self.grid = wx.grid.Grid(box.GetStaticBox())
        self.grid.CreateGrid(0, len(COLUMNS))
        self.grid.SetRowLabelSize(0)
        self.grid.SetDefaultRowSize(ROW_HEIGHT)
        self.grid.SetDefaultRenderer(PatientCell())
        self.grid.EnableEditing(False)
        self.grid.EnableDragGridSize(False)
        self.grid.SetSelectionMode(wx.grid.Grid.GridSelectRows)
        for n, (label, width) in enumerate(COLUMNS):
            self.grid.SetColLabelValue(n, label)
            self.grid.SetColSize(n, width)
        box.Add(self.grid, 1, wx.EXPAND | wx.ALL, 6)
        self.count = wx.StaticText(box.GetStaticBox(), label="Saisissez un nom puis « Chercher ».")
        box.Add(self.count, 0, wx.ALL, 6)
        self.query.Bind(wx.EVT_TEXT_ENTER, lambda _e: self.on_search())
        self.find.Bind(wx.EVT_BUTTON, lambda _e: self.on_search())
        self.grid.Bind(wx.grid.EVT_GRID_CELL_LEFT_CLICK, self.on_cell)
        return box

    def on_search(self) -> None:
        q = self.query.GetValue().strip()
        self.shown = [p for p in PATIENTS if q and (p[1].startswith(q.upper()) or p[0] == q)]
        if self.grid.GetNumberRows():
            self.grid.DeleteRows(0, self.grid.GetNumberRows())
        self.grid.AppendRows(len(self.shown))
        for r, p in enumerate(self.shown):
            for c, value in enumerate((p[1], p[2], p[3], p[0])):
                self.grid.SetCellValue(r, c, value)
        self.grid.ClearSelection()
        self.count.SetLabel(f"{len(self.shown)} patient(s) trouvé(s) pour « {q} ».")
        self.effects.add("search", q=q, hits=[p[0] for p in self.shown])

    def on_cell(self, event: wx.grid.GridEvent) -> None:
        event.Skip()
        r = event.GetRow()
        if not 0 <= r < len(self.shown) or self.shown[r] is self.patient:
            return
        p = self.patient = self.shown[r]
        self.SetTitle(f"Consultations externes — {p[1]} {p[2]}")
        self.who.SetLabel(f"Patient : {p[1]} {p[2]} — IPP {p[0]}")
        self.effects.add("open", patient=p[0])

    # --- the appointment form ------------------------------------------------------------------------
    def form_side(self, parent: wx.Window) -> wx.Sizer:
        box = wx.StaticBoxSizer(wx.VERTICAL, parent, "Rendez-vous")
        self.form = box.GetStaticBox()
        self.who = wx.StaticText(self.form, label="Aucun patient sélectionné")
        box.Add(self.who, 0, wx.ALL, 8)
        grid = wx.FlexGridSizer(cols=2, vgap=10, hgap=10)
        self.consultation = ConsultationCombo(
            self.form, choices=[NONE_CHOSEN, *CONSULTATIONS], style=wx.CB_READONLY, size=(260, -1)
        )
        self.consultation.SetSelection(0)
        self.consultation.SetPopupMaxHeight(OPTION_HEIGHT * (len(CONSULTATIONS) + 2))
        self.date = wx.TextCtrl(self.form, size=(120, -1))
        dated = wx.BoxSizer(wx.HORIZONTAL)
        dated.Add(self.date, 0, wx.RIGHT, 6)
        dated.Add(wx.StaticText(self.form, label="(jj/mm/aaaa)"), 0, wx.ALIGN_CENTER_VERTICAL)
        self.transport = wx.CheckBox(self.form, label="Transport sanitaire")
        self.reason = wx.TextCtrl(self.form, size=(340, -1))
        self.referrer = wx.TextCtrl(self.form, size=(220, -1))
        self.save = wx.Button(self.form, label="Enregistrer le rendez-vous")
        for label, widget in (
            ("Consultation :", self.consultation),
            ("Date du rendez-vous :", dated),
            ("", self.transport),
            ("Motif :", self.reason),
            ("Médecin adresseur :", self.referrer),
            ("", self.save),
        ):
            grid.Add(wx.StaticText(self.form, label=label), 0, wx.ALIGN_CENTER_VERTICAL | wx.ALIGN_RIGHT)
            grid.Add(widget, 0, wx.ALIGN_CENTER_VERTICAL)
        box.Add(grid, 0, wx.ALL, 8)
        self.save.Bind(wx.EVT_BUTTON, lambda _e: self.on_save())
        return box

    def on_save(self) -> None:
        chosen = self.consultation.GetValue()
        values: dict[str, Any] = {
            "patient": self.patient[0] if self.patient else None,
            "consultation": chosen if chosen in CONSULTATIONS else "",
            "date": self.date.GetValue(),
            "transport": self.transport.GetValue(),
            "motif": self.reason.GetValue(),
            "adresseur": self.referrer.GetValue(),
        }
        missing = [name for name in ("patient", "consultation", "date") if not values[name]]
        if not missing and not is_date(values["date"]):
            missing.append("date")
        if missing or self.patient is None:
            self.banner.ShowMessage(f"Rendez-vous refusé : champ(s) à corriger : {', '.join(missing)}.", wx.ICON_ERROR)
            self.effects.add("error", missing=missing)
            return
        p = self.patient
        self.banner.ShowMessage(
            f"Rendez-vous enregistré : {p[1]} {p[2]} — {chosen} — le {values['date']}.", wx.ICON_INFORMATION
        )
        self.effects.add("save", **values)
        for entry in (self.date, self.reason, self.referrer):
            entry.SetValue("")  # ready for the next appointment
        self.consultation.SetSelection(0)
        self.transport.SetValue(False)

    # --- where things are, for the scripted person ---------------------------------------------------
    def write_layout(self) -> None:
        if self.layout_path is None or not self.IsShown():
            return
        widgets = {
            "query": self.query,
            "find": self.find,
            "grid": self.grid,
            "consultation": self.consultation,
            "date": self.date,
            "transport": self.transport,
            "reason": self.reason,
            "referrer": self.referrer,
            "save": self.save,
            "form": self.form,
        }
        seen: dict[str, Any] = {name: screen_box(w) for name, w in widgets.items() if w.IsShownOnScreen()}
        seen["rows"] = self.rows()
        seen["options"] = self.options()
        seen["consultation_shown"] = self.consultation.GetValue()
        seen["transport_ticked"] = self.transport.GetValue()
        seen["banner"] = self.banner.IsShown()
        x, y = self.ClientToScreen((0, 0))
        seen["window"] = [x, y, *self.GetClientSize()]
        focus = wx.Window.FindFocus()
        seen["focus"] = next((name for name, w in widgets.items() if focus is not None and focus is w), None)
        text = json.dumps(seen, ensure_ascii=False)
        if text == self.last_layout:
            return
        partial = self.layout_path.with_name(self.layout_path.name + ".tmp")
        partial.write_text(text, "utf-8")
        os.replace(partial, self.layout_path)
        self.last_layout = text

    def rows(self) -> dict[str, list[int]]:
        """Each result row's first-name cell, where the grid draws it on the screen."""
        found: dict[str, list[int]] = {}
        if not self.grid.IsShownOnScreen():
            return found
        window = self.grid.GetGridWindow()
        for r, p in enumerate(self.shown):
            cell = self.grid.CellToRect(r, 1)
            x, y = window.ClientToScreen(self.grid.CalcScrolledPosition(cell.x, cell.y))
            found[p[2]] = [x, y, cell.width, cell.height]
        return found

    def options(self) -> dict[str, list[int]]:
        """The consultation drop-down's open list, option by option (empty while it is closed)."""
        found: dict[str, list[int]] = {}
        if not self.consultation.IsPopupShown():
            return found
        listing = self.consultation.GetPopupControl().GetControl()
        x, y = listing.ClientToScreen((0, 0))
        width = listing.GetClientSize()[0]
        for n in range(self.consultation.GetCount()):
            found[self.consultation.GetString(n)] = [x, y + n * OPTION_HEIGHT, width, OPTION_HEIGHT]
        return found


def screen_box(widget: wx.Window) -> list[int]:
    rect = widget.GetScreenRect()
    return [rect.x, rect.y, rect.width, rect.height]


def is_date(text: str) -> bool:
    try:
        return datetime.strptime(text, "%d/%m/%Y").strftime("%d/%m/%Y") == text
    except ValueError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--effects", type=Path, default=None)
    parser.add_argument("--layout", type=Path, default=None)
    args = parser.parse_args()
    app = wx.App(False)
    desk = Desk(Effects(args.effects), args.layout)
    desk.Show()
    app.MainLoop()


if __name__ == "__main__":
    main()
