"""A Tk application for measuring learning and replay on software nobody tuned to, by vision alone.

The nominative dispensing desk of a hospital pharmacy, in French, in a dense legacy look (grey
classic theme, sunken fields, small sans-serif font): a patient search (entry + button), the
prescriptions found in a ttk.Treeview, and a dispensing form whose entries are named by a label
beside them, a packaging drop-down (read-only ttk.Combobox), a dispensing date, an "urgent" check
button, and "Valider", which checks the form and answers in a banner inside the window.

Tk exposes no accessibility tree (no AT-SPI): what a platform learns of it, it learns from the
screen. It runs as a script under a Python with tkinter (Debian python3-tk), never imported by
the server:

    python3 rpa_mcp/desktop_rig/native/tk_dispensation.py --effects effects.jsonl --layout layout.json

Every effect it undergoes is one JSON line in `--effects` (`seq`, `at`, `kind`, `detail`):
`search` (q, hits), `open` (patient), `save` (every field's value), `error` (missing fields).
`--layout` is kept up to date with where the widgets are on the screen (the scripted person's
eyes only: a person sees where things are; the platform never reads it). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import tkinter as tk
from pathlib import Path
from tkinter import ttk
from typing import Any

from effects_log import Effects  # its sibling module: this script runs under the system Python

TITLE = "Pharmacie — Dispensation nominative"
PACKAGINGS = ("Boîte", "Flacon", "Ampoule", "Sachet", "Unité")
NONE_CHOSEN = "— choisir —"
PATIENTS = (  # IPP, NOM, Prénom, ward, prescription
    ("500311", "DUBOIS", "Marcel", "Cardiologie", "ORD-7741"),
    ("500312", "DUBOIS", "Josiane", "Gériatrie", "ORD-7752"),
    ("500327", "LEROY", "Thérèse", "Pneumologie", "ORD-7760"),
    ("500334", "MOREAU", "Kévin", "Orthopédie", "ORD-7768"),
    ("500335", "MOREAUX", "Lucie", "Neurologie", "ORD-7769"),
    ("500349", "SIMON", "Agnès", "Médecine interne", "ORD-7781"),
    ("500352", "LAURENT", "Jérôme", "Cardiologie", "ORD-7790"),
    ("500366", "MICHEL", "Françoise", "Gériatrie", "ORD-7802"),
    ("500371", "GARNIER", "Raphaël", "Pneumologie", "ORD-7815"),
    ("500388", "ROUX", "Maëlle", "Orthopédie", "ORD-7823"),
)
FONT = ("DejaVu Sans", 9)
GREY = "#c8c8c8"


class Dispensation:
    def __init__(self, root: tk.Tk, effects: Effects, layout: Path | None) -> None:
        self.root, self.effects, self.layout_path = root, effects, layout
        self.patient: tuple[str, ...] | None = None
        self.last_layout = ""
        root.title(TITLE)
        root.geometry("1100x720")
        root.configure(background=GREY)
        style = ttk.Style(root)
        style.theme_use("classic")
        style.configure(".", font=FONT, background=GREY)
        style.configure("Treeview", font=FONT, rowheight=20, background="#ffffff", fieldbackground="#ffffff")
        style.configure("Treeview.Heading", font=(FONT[0], 9, "bold"))
        heading = tk.Label(
            root, text="PHARMACIE CENTRALE — Dispensation nominative", anchor="w", font=(FONT[0], 11, "bold"),
            background="#1f3a68", foreground="#ffffff", padx=8, pady=4,
        )  # fmt: skip
        heading.pack(side="top", fill="x")
        body = tk.Frame(root, background=GREY, padx=8, pady=6)
        body.pack(side="top", fill="both", expand=True)
        self.widgets: dict[str, tk.Widget] = {}
        self._search(body)
        self._form(body)
        root.after(250, self._write_layout)

    # --- the search and its results --------------------------------------------------------------
    def _search(self, body: tk.Frame) -> None:
        row = tk.Frame(body, background=GREY)
        row.pack(side="top", fill="x")
        tk.Label(row, text="Patient (nom ou IPP) :", font=FONT, background=GREY).pack(side="left")
        self.query = tk.Entry(row, width=24, font=FONT, relief="sunken", borderwidth=2)
        self.query.pack(side="left", padx=4)
        self.query.bind("<Return>", lambda _e: self.on_search())
        find = tk.Button(row, text="Chercher", font=FONT, command=self.on_search, padx=6, pady=0)
        find.pack(side="left", padx=4)
        self.count = tk.Label(row, text="", font=FONT, background=GREY, anchor="w")
        self.count.pack(side="left", padx=12)
        columns = ("ipp", "nom", "prenom", "service", "ordonnance")
        self.table = ttk.Treeview(body, columns=columns, show="headings", height=8, selectmode="browse")
        for name, title, width in zip(
            columns, ("IPP", "Nom", "Prénom", "Service", "Ordonnance"), (80, 140, 140, 160, 110), strict=True
        ):
            self.table.heading(name, text=title, anchor="w")
            self.table.column(name, width=width, anchor="w", stretch=False)
        self.table.pack(side="top", fill="x", pady=6)
        self.table.bind("<<TreeviewSelect>>", lambda _e: self.on_pick())
        self.widgets.update(query=self.query, find=find, table=self.table)

    def on_search(self) -> None:
        q = self.query.get().strip()
        hits = [p for p in PATIENTS if q and (q.upper() in p[1] or q == p[0])]
        self.table.delete(*self.table.get_children())
        for patient in hits:
            self.table.insert("", "end", iid=patient[0], values=patient)
        self.count.configure(text=f"{len(hits)} ordonnance(s) pour « {q} »")
        self.effects.add("search", q=q, hits=[p[0] for p in hits])

    def on_pick(self) -> None:
        chosen = self.table.selection()
        if not chosen:
            return
        patient = next(p for p in PATIENTS if p[0] == chosen[0])
        if patient == self.patient:
            return
        self.patient = patient
        self.root.title(f"Pharmacie — {patient[1]} {patient[2]}")
        self.who.configure(text=f"{patient[1]} {patient[2]} — IPP {patient[0]} — {patient[3]} — {patient[4]}")
        self.banner.configure(text="", background=GREY)
        self.effects.add("open", patient=patient[0])

    # --- the dispensing form -----------------------------------------------------------------------
    def _form(self, body: tk.Frame) -> None:
        frame = tk.LabelFrame(body, text=" Dispensation ", font=FONT, background=GREY, padx=8, pady=6)
        frame.pack(side="top", fill="x", anchor="w")
        self.who = tk.Label(frame, text="Aucun patient sélectionné", font=FONT, background=GREY, anchor="w")
        self.who.grid(row=0, column=0, columnspan=4, sticky="w", pady=(0, 6))
        self.drug = self._entry(frame, 1, 0, "Médicament :", 28)
        self.quantity = self._entry(frame, 1, 2, "Quantité :", 6)
        tk.Label(frame, text="Conditionnement :", font=FONT, background=GREY).grid(row=2, column=0, sticky="e")
        self.packaging = ttk.Combobox(frame, values=(NONE_CHOSEN, *PACKAGINGS), state="readonly", width=16)
        self.packaging.set(NONE_CHOSEN)
        self.packaging.grid(row=2, column=1, sticky="w", padx=4, pady=3)
        self.date = self._entry(frame, 2, 2, "Date de délivrance :", 11)
        self.urgent = tk.BooleanVar(value=False)
        check = tk.Checkbutton(frame, text="Délivrance urgente", variable=self.urgent, font=FONT, background=GREY)
        check.grid(row=3, column=1, sticky="w", pady=3)
        save = tk.Button(frame, text="Valider", font=FONT, command=self.on_save, padx=10)
        save.grid(row=4, column=1, sticky="w", pady=6)
        self.banner = tk.Label(frame, text="", font=FONT, background=GREY, anchor="w", padx=6, pady=4)
        self.banner.grid(row=5, column=0, columnspan=4, sticky="we")
        self.widgets.update(
            drug=self.drug, quantity=self.quantity, packaging=self.packaging, date=self.date, urgent=check, save=save
        )

    def _entry(self, frame: tk.Widget, row: int, column: int, label: str, width: int) -> tk.Entry:
        tk.Label(frame, text=label, font=FONT, background=GREY).grid(row=row, column=column, sticky="e", padx=(8, 0))
        entry = tk.Entry(frame, width=width, font=FONT, relief="sunken", borderwidth=2)
        entry.grid(row=row, column=column + 1, sticky="w", padx=4, pady=3)
        return entry

    def on_save(self) -> None:
        packaging = self.packaging.get()
        values = {
            "patient": self.patient[0] if self.patient else None,
            "medicament": self.drug.get(),
            "quantite": self.quantity.get(),
            "conditionnement": packaging if packaging in PACKAGINGS else "",
            "date": self.date.get(),
            "urgent": self.urgent.get(),
        }
        missing = [
            name for name in ("patient", "medicament", "quantite", "conditionnement", "date") if not values[name]
        ]
        if not missing and not _is_date(str(values["date"])):
            missing = ["date"]
        if missing:
            self.banner.configure(
                text="ERREUR — champ(s) manquant(s) ou invalide(s) : " + ", ".join(missing), background="#f2c6c0"
            )
            self.effects.add("error", missing=missing)
            return
        assert self.patient is not None
        self.banner.configure(
            text=f"Dispensation enregistrée : {self.patient[1]} {self.patient[2]}, {values['medicament']}.",
            background="#c9e7c0",
        )
        self.effects.add("save", **values)
        for entry in (self.drug, self.quantity, self.date):
            entry.delete(0, "end")
        self.packaging.set(NONE_CHOSEN)
        self.urgent.set(False)

    # --- where things are, for the scripted person ------------------------------------------------------
    def _write_layout(self) -> None:
        try:
            self._layout_once()
        finally:
            self.root.after(200, self._write_layout)

    def _layout_once(self) -> None:
        if self.layout_path is None:
            return
        boxes: dict[str, Any] = {name: _box(w) for name, w in self.widgets.items()}
        tx, ty = self.table.winfo_rootx(), self.table.winfo_rooty()
        rows = {}
        for item in self.table.get_children():
            cell = self.table.bbox(item, "prenom")
            if cell:
                rows[self.table.set(item, "prenom")] = [tx + cell[0], ty + cell[1], cell[2], cell[3]]
        boxes["rows"] = rows
        boxes["options"] = self._options()
        boxes["window"] = [self.root.winfo_rootx(), self.root.winfo_rooty(), self.root.winfo_width(),
                           self.root.winfo_height()]  # fmt: skip
        text = json.dumps(boxes, ensure_ascii=False, sort_keys=True)
        if text != self.last_layout:
            assert self.layout_path is not None
            partial = self.layout_path.with_suffix(".tmp")
            partial.write_text(text, "utf-8")
            os.replace(partial, self.layout_path)
            self.last_layout = text

    def _options(self) -> dict[str, list[int]]:
        """The packaging drop-down's open list, option by option (empty while it is closed)."""
        popdown = str(self.root.tk.call("ttk::combobox::PopdownWindow", str(self.packaging)))
        if not int(self.root.tk.call("winfo", "ismapped", popdown)):
            return {}
        listbox, call = f"{popdown}.f.l", self.root.tk.call  # Tk's own widgets: no Python object
        lx, ly, width = (int(call("winfo", what, listbox)) for what in ("rootx", "rooty", "width"))
        out = {}
        for index in range(int(call(listbox, "size"))):
            box = [int(v) for v in self.root.tk.splitlist(call(listbox, "bbox", index))]
            if box:
                out[str(call(listbox, "get", index))] = [lx + box[0], ly + box[1], max(box[2], width - 8), box[3]]
        return out


def _box(widget: tk.Widget) -> list[int]:
    return [widget.winfo_rootx(), widget.winfo_rooty(), widget.winfo_width(), widget.winfo_height()]


def _is_date(text: str) -> bool:
    try:
        time.strptime(text, "%d/%m/%Y")
    except ValueError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(
        description="The pharmacy dispensing desk (Tk), logging its effects as JSON lines."
    )
    parser.add_argument("--effects", type=Path, default=None, help="append every effect here (JSON lines)")
    parser.add_argument("--layout", type=Path, default=None, help="keep where the widgets are on screen here (JSON)")
    args = parser.parse_args()
    root = tk.Tk(className="Pharmacie")
    Dispensation(root, Effects(args.effects), args.layout)
    root.mainloop()


if __name__ == "__main__":
    main()
