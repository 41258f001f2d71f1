"""A native Qt 5 application for measuring learning and replay on software nobody tuned to.

The appointment desk of a hospital's imaging department, in French, in a dense legacy look (the
"Windows" widget style, grey palette, small sans-serif font, a menu bar, a toolbar and a status
bar): a patient search (line edit + button) whose results fill a QTableWidget, and an appointment
form (QFormLayout: each field named by a buddy label beside it) with an indication, an
examination drop-down (QComboBox), an appointment date typed in a text field, a priority chosen
by radio buttons ("Programmé" / "Urgent"), and "Confirmer le RDV", which checks the form and
answers on the status bar. Opening a patient titles the window "Imagerie — RDV — NOM Prénom".

Qt's accessibility bridge to AT-SPI is on (QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1). It runs as a
script under the system Python with PyQt5 (Debian python3-pyqt5), never imported by the server:

    QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 /usr/bin/python3 rpa_mcp/desktop_rig/native/qt_imaging.py --effects e.jsonl

Every effect it undergoes is one JSON line in `--effects` (`seq`, `at`, `kind`, `detail`):
`search` (q, hits), `open` (patient), `save` (every field's value), `error` (missing fields), so
a benchmark counts effects exactly. Standard library and PyQt5 only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from effects_log import Effects  # its sibling module: this script runs under the system Python
from PyQt5.QtGui import QColor, QFont, QPalette
from PyQt5.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QRadioButton,
    QStyleFactory,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

TITLE = "Imagerie — Prise de rendez-vous"
EXAMS = (
    "Scanner thoracique",
    "IRM cérébrale",
    "Échographie abdominale",
    "Radiographie du bassin",
    "Mammographie",
    "Doppler veineux",
)
NONE_CHOSEN = "<sélectionner>"
PATIENTS = (  # file number, NOM, Prénom, date of birth
    ("IM-30411", "LEGRAND", "Aurélie", "04/02/1976"),
    ("IM-30412", "LEGRAND", "Benoît", "21/08/1950"),
    ("IM-30425", "PERRIN", "Gaëlle", "13/05/1988"),
    ("IM-30433", "CARON", "Frédéric", "30/11/1962"),
    ("IM-30434", "CARONI", "Pia", "07/07/1993"),
    ("IM-30446", "MASSON", "Zoé", "18/04/2001"),
    ("IM-30452", "NOËL", "Jérémie", "09/09/1947"),
    ("IM-30468", "BRUN", "Clément", "25/12/1970"),
    ("IM-30471", "ARNAUD", "Cécile", "02/03/1959"),
    ("IM-30489", "BARBIER", "Léon", "16/06/1938"),
)
PRIORITIES = ("Programmé", "Urgent")


class Desk(QMainWindow):  # type: ignore[misc]  # PyQt5 has no stubs here
    def __init__(self, effects: Effects) -> None:
        super().__init__()
        self.effects = effects
        self.patient: tuple[str, str, str, str] | None = None
        self.setWindowTitle(TITLE)
        self.resize(1000, 640)
        menus = self.menuBar()
        for name in ("&Fichier", "É&dition", "&Rendez-vous", "&Planning", "&Aide"):
            menus.addMenu(name)
        tools = self.addToolBar("Outils")
        for name in ("Nouveau", "Imprimer", "Planning du jour", "Quitter"):
            tools.addAction(name)
        body = QWidget()
        self.setCentralWidget(body)
        columns = QHBoxLayout(body)
        columns.addWidget(self._search_side(), 3)
        columns.addWidget(self._form_side(), 2)
        self.statusBar().showMessage("Prêt.")

    # --- the search and its results --------------------------------------------------------------
    def _search_side(self) -> QWidget:
        box = QGroupBox("Recherche patient")
        side = QVBoxLayout(box)
        row = QHBoxLayout()
        label = QLabel("&Nom du patient :")
        self.query = QLineEdit()
        self.query.setPlaceholderText("NOM ou n° de dossier")
        label.setBuddy(self.query)
        self.query.returnPressed.connect(self.on_search)
        button = QPushButton("Rec&hercher")
        button.clicked.connect(self.on_search)
        row.addWidget(label)
        row.addWidget(self.query, 1)
        row.addWidget(button)
        side.addLayout(row)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["N° dossier", "Nom", "Prénom", "Né(e) le"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self.on_pick)
        side.addWidget(self.table, 1)
        self.count = QLabel("Saisissez un nom puis « Rechercher ».")
        side.addWidget(self.count)
        return box

    def on_search(self) -> None:
        q = self.query.text().strip()
        hits = [p for p in PATIENTS if q and (q.upper() in p[1] or q.upper() == p[0])]
        self.table.blockSignals(True)
        self.table.clearSelection()
        self.table.setRowCount(len(hits))
        for n, patient in enumerate(hits):
            for c, value in enumerate(patient):
                self.table.setItem(n, c, QTableWidgetItem(value))
        self.table.blockSignals(False)
        self.count.setText(f"{len(hits)} patient(s) trouvé(s) pour « {q} ».")
        self.effects.add("search", q=q, hits=[p[0] for p in hits])

    def on_pick(self) -> None:
        rows = {index.row() for index in self.table.selectedIndexes()}
        if len(rows) != 1:
            return
        number = self.table.item(rows.pop(), 0).text()
        patient = next(p for p in PATIENTS if p[0] == number)
        if patient == self.patient:
            return
        self.patient = patient
        self.setWindowTitle(f"Imagerie — RDV — {patient[1]} {patient[2]}")
        self.who.setText(f"{patient[1]} {patient[2]} — dossier {patient[0]} — né(e) le {patient[3]}")
        self.statusBar().showMessage(f"Dossier {patient[0]} ouvert.")
        self.effects.add("open", patient=number)

    # --- the appointment form ----------------------------------------------------------------------
    def _form_side(self) -> QWidget:
        box = QGroupBox("Rendez-vous")
        side = QVBoxLayout(box)
        self.who = QLabel("Aucun patient sélectionné")
        side.addWidget(self.who)
        form = QFormLayout()
        self.indication = QLineEdit()
        form.addRow("&Indication clinique :", self.indication)
        self.exam = QComboBox()
        self.exam.addItems([NONE_CHOSEN, *EXAMS])
        form.addRow("E&xamen :", self.exam)
        self.date = QLineEdit()
        self.date.setPlaceholderText("jj/mm/aaaa")
        self.date.setMaxLength(10)
        form.addRow("&Date du RDV :", self.date)
        priority = QWidget()
        choices = QHBoxLayout(priority)
        choices.setContentsMargins(0, 0, 0, 0)
        self.priorities = [QRadioButton(name) for name in PRIORITIES]
        self.priorities[0].setChecked(True)
        for button in self.priorities:
            choices.addWidget(button)
        choices.addStretch(1)
        form.addRow("Priorité :", priority)
        self.room = QLineEdit()
        form.addRow("&Salle :", self.room)
        side.addLayout(form)
        confirm = QPushButton("&Confirmer le RDV")
        confirm.clicked.connect(self.on_save)
        side.addWidget(confirm)
        side.addStretch(1)
        return box

    def on_save(self) -> None:
        exam = self.exam.currentText()
        values = {
            "patient": self.patient[0] if self.patient else None,
            "indication": self.indication.text(),
            "examen": exam if exam in EXAMS else "",
            "date": self.date.text(),
            "priorite": next(b.text() for b in self.priorities if b.isChecked()),
            "salle": self.room.text(),
        }
        missing = [name for name in ("patient", "indication", "examen", "date") if not values[name]]
        if not missing and not _is_date(str(values["date"])):
            missing = ["date"]
        if missing:
            self.statusBar().showMessage("Impossible de confirmer : champ(s) à corriger : " + ", ".join(missing) + ".")
            self.effects.add("error", missing=missing)
            return
        assert self.patient is not None
        self.statusBar().showMessage(f"Rendez-vous confirmé : {self.patient[1]} {self.patient[2]}, {exam}.")
        self.effects.add("save", **values)
        self._clear_form()  # ready for the next appointment

    def _clear_form(self) -> None:
        for entry in (self.indication, self.date, self.room):
            entry.clear()
        self.exam.setCurrentIndex(0)
        self.priorities[0].setChecked(True)


def _is_date(text: str) -> bool:
    try:
        time.strptime(text, "%d/%m/%Y")
    except ValueError:
        return False
    return True


def legacy_look(app: QApplication) -> None:
    """The grey, dense look of a desktop application of the early 2000s."""
    style = QStyleFactory.create("Windows")
    if style is not None:
        app.setStyle(style)
    palette = QPalette()
    for role, colour in (
        (QPalette.Window, "#d4d0c8"),
        (QPalette.Base, "#ffffff"),
        (QPalette.AlternateBase, "#eeeeee"),
        (QPalette.Button, "#d4d0c8"),
        (QPalette.Highlight, "#0a246a"),
        (QPalette.HighlightedText, "#ffffff"),
        (QPalette.WindowText, "#000000"),
        (QPalette.Text, "#000000"),
        (QPalette.ButtonText, "#000000"),
    ):
        palette.setColor(role, QColor(colour))
    app.setPalette(palette)
    app.setFont(QFont("DejaVu Sans", 8))


def main() -> None:
    parser = argparse.ArgumentParser(description="The imaging appointment desk (Qt 5), logging its effects.")
    parser.add_argument("--effects", type=Path, default=None, help="append every effect here (JSON lines)")
    args, rest = parser.parse_known_args()
    app = QApplication([sys.argv[0], *rest])
    legacy_look(app)
    window = Desk(Effects(args.effects))
    window.show()
    sys.exit(app.exec_())


if __name__ == "__main__":
    main()
