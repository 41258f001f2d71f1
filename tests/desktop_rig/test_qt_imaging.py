"""The imaging appointment desk (the Qt 5 application `rpa-mcp bench apps --app qt` measures on), off screen.

The application runs under the system Python with PyQt5 on Qt's offscreen platform; a small driver
works its widgets as the clerk would and the effects log is read back here.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from rpa_mcp.bench.app_specs import QT
from rpa_mcp.desktop_rig import imaging
from tests.agent_x11.conftest import require_packages

DRIVER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from PyQt5.QtWidgets import QApplication
import qt_imaging as qt

app = QApplication(["qt_imaging"])
desk = qt.Desk(qt.Effects(Path(sys.argv[2])))
steps = json.loads(sys.argv[3])
for step in steps:
    kind = step["do"]
    if kind == "search":
        desk.query.setText(step["q"])
        desk.on_search()
    elif kind == "pick":
        rows = [r for r in range(desk.table.rowCount()) if desk.table.item(r, 2).text() == step["first"]]
        desk.table.selectRow(rows[0])
    elif kind == "fill":
        desk.indication.setText(step["indication"])
        desk.exam.setCurrentText(step["exam"])
        desk.date.setText(step["date"])
        desk.priorities[1].setChecked(step["urgent"])
    elif kind == "save":
        desk.on_save()
print(json.dumps({"title": desk.windowTitle(), "status": desk.statusBar().currentMessage(),
                  "patients": qt.PATIENTS, "exams": qt.EXAMS}))
"""


def require_qt() -> None:
    require_packages("the Qt application", imaging.missing())


def drive(effects: Path, *steps: dict[str, object]) -> dict[str, object]:
    require_qt()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "LANG": "C.UTF-8"}
    done = subprocess.run(
        [imaging.SYSTEM_PYTHON, "-c", DRIVER, str(imaging.SCRIPT.parent), str(effects), json.dumps(list(steps))],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def logged(effects: Path) -> list[tuple[str, dict[str, object]]]:
    return [(e["kind"], e["detail"]) for e in map(json.loads, effects.read_text("utf-8").splitlines())]


BOOKING = {
    "do": "fill",
    "indication": "Œdème du mollet",
    "exam": "Doppler veineux",
    "date": "05/12/2026",
    "urgent": True,
}


def test_a_search_a_row_and_a_complete_form_are_logged_once_each_with_every_value(tmp_path: Path):
    effects = tmp_path / "imaging.jsonl"
    answer = drive(
        effects, {"do": "search", "q": "caron"}, {"do": "pick", "first": "Frédéric"}, BOOKING, {"do": "save"}
    )
    assert logged(effects) == [
        ("search", {"q": "caron", "hits": ["IM-30433", "IM-30434"]}),  # the name containing the query too
        ("open", {"patient": "IM-30433"}),
        (
            "save",
            {
                "patient": "IM-30433",
                "indication": "Œdème du mollet",
                "examen": "Doppler veineux",
                "date": "05/12/2026",
                "priorite": "Urgent",
                "salle": "",
            },
        ),
    ]
    assert answer["title"] == "Imagerie — RDV — CARON Frédéric"
    assert str(answer["status"]).startswith("Rendez-vous confirmé")


@pytest.mark.parametrize(
    ("change", "missing"),
    [({"exam": "<sélectionner>"}, ["examen"]), ({"date": "5 déc."}, ["date"]), ({"indication": ""}, ["indication"])],
)
def test_an_incomplete_appointment_is_refused_and_nothing_is_saved(tmp_path: Path, change, missing):
    effects = tmp_path / "imaging.jsonl"
    answer = drive(
        effects,
        {"do": "search", "q": "BRUN"},
        {"do": "pick", "first": "Clément"},
        {**BOOKING, **change},
        {"do": "save"},
    )
    assert [kind for kind, _ in logged(effects)] == ["search", "open", "error"]
    assert logged(effects)[-1] == ("error", {"missing": missing})
    assert str(answer["status"]).startswith("Impossible de confirmer")


def test_every_benchmark_variant_names_a_patient_row_and_an_exam_the_application_has(tmp_path: Path):
    answer = drive(tmp_path / "imaging.jsonl")
    rows = {(p[1], p[2], p[0]) for p in answer["patients"]}  # type: ignore[attr-defined]
    for query, row, number, _indication, exam, _date in QT.variants:
        assert (query, row, number) in rows and exam in answer["exams"]  # type: ignore[operator]
    assert {kind for kind, _label, _value in imaging.EXPECTED_STEPS} >= {"select_option", "set_checked"}
    assert max(QT.parameters) < len(imaging.EXPECTED_STEPS)
