"""Identity before selection: a patient's record is chosen by who it is, never by where it was.

The result list is drawn here and read with the real OCR engine; the resolver (which the desktop
agent asks before it clicks) reads the record's line at the hit and compares it with the identity
the person saw, with the run's parameter filled in.
"""

from __future__ import annotations

import cv2
import numpy as np

from rpa_mcp.replay import identity
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.service.planning import record_identity

W, H = 1280, 720
ROW_Y = [200, 250, 300, 350]  # baselines of the result rows
COLUMNS = (100, 330, 520, 760)  # surname, first name, birth date, identifier: one grid cell each
PATIENTS = {
    "MOREL": ("MOREL", "Jean", "12/03/1950", "48213"),
    "FAURE": ("FAURE", "Celine", "02/11/1962", "77120"),
    "DURAND": ("DURAND", "Alice", "30/05/1981", "10457"),
    "MORELLO": ("MORELLO", "Anne", "14/07/1990", "55501"),
}


def result_list(*names: str | None) -> np.ndarray:
    """One row per name, top to bottom; None leaves a row that cannot be read (a grey smear)."""
    img = np.full((H, W, 3), 250, np.uint8)
    cv2.putText(img, "Resultats de la recherche", (80, 140), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (30, 30, 30), 2)
    for y, name in zip(ROW_Y, names, strict=False):
        if name is None:
            cv2.rectangle(img, (90, y - 22), (900, y + 6), (200, 200, 200), -1)
            continue
        for x, cell in zip(COLUMNS, PATIENTS[name], strict=True):
            cv2.putText(img, cell, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 30), 2, cv2.LINE_AA)
    return img


def step(patient: str, row: int = 0, **target: object) -> dict[str, object]:
    """The row chosen in the demonstration (the first one), as the planning hands it to the agent."""
    spec: dict[str, object] = {
        "label": "{{patient}}",
        "rel_x": 140 / W,
        "rel_y": (ROW_Y[row] - 10) / H,
        "resolve_order": ["ocr"],
        **target,
    }
    filled = {k: (v.replace("{{patient}}", patient) if isinstance(v, str) else v) for k, v in spec.items()}
    return {**filled, **record_identity("{{patient}} Jean 12/03/1950", {"patient": patient})}


def test_the_identity_takes_the_runs_value_and_keeps_what_must_be_read() -> None:
    planned = step("DURAND")
    assert planned["identity"] == "DURAND Jean 12/03/1950" and planned["identity_values"] == ["DURAND"]


def test_a_reordered_result_list_resolves_to_the_intended_record(resolver: TargetResolver) -> None:
    res = resolver.resolve(result_list("FAURE", "DURAND", "MOREL"), step("MOREL"))
    assert res.resolved and abs(res.y - (ROW_Y[2] - 10)) <= 14  # the third row, not the recorded first
    assert "MOREL" in res.tried[-1]["identity_read"]
    assert res.tried[-1]["identity_ms"] > 0  # the identity check's own time, for the evidence bundle's phases


def test_another_patient_whose_name_starts_the_same_is_never_selected(resolver: TargetResolver) -> None:
    res = resolver.resolve(result_list("MORELLO", "FAURE"), step("MOREL"))
    assert not res.resolved and res.method == "identity_mismatch"
    assert identity.MISMATCH in (res.reason or "") and "MORELLO" in (res.reason or "")


def test_the_intended_patient_absent_with_another_at_the_recorded_position_is_not_resolved(
    resolver: TargetResolver,
) -> None:
    res = resolver.resolve(result_list("FAURE", "DURAND"), step("MOREL"))
    assert not res.resolved and res.x is None


def test_a_position_given_by_another_method_is_never_used_for_a_record(resolver: TargetResolver) -> None:
    """The accessibility tree (or a remembered spot) points at the first row: it holds another patient. A
    position never chooses a record: its rows are read, and the one that reads it is chosen."""
    spec = step("MOREL", uia={"x": 140, "y": ROW_Y[0] - 10, "score": 0.99}, resolve_order=["uia"])
    res = resolver.resolve(result_list("FAURE", "MOREL"), spec)
    assert res.tried[0] == {"method": "uia", "found": False}
    assert res.resolved and res.method == "hybrid_text_direct" and abs(res.y - (ROW_Y[1] - 10)) <= 14


def test_another_patient_at_the_only_position_given_is_never_clicked(resolver: TargetResolver) -> None:
    spec = step("MOREL", uia={"x": 140, "y": ROW_Y[0] - 10, "score": 0.99}, resolve_order=["uia"])
    res = resolver.resolve(result_list("FAURE", "DURAND"), spec)
    assert not res.resolved and res.x is None


def test_an_unreadable_row_with_another_patient_there_is_never_selected(resolver: TargetResolver) -> None:
    spec = step("MOREL", uia={"x": 140, "y": ROW_Y[0] - 10, "score": 0.99}, resolve_order=["uia"])
    res = resolver.resolve(result_list(None, "FAURE"), spec)
    assert not res.resolved and res.x is None


def test_a_record_without_parameters_must_be_read_whole() -> None:
    fixed = {"identity": "FAURE Celine", "identity_values": []}
    assert identity.check("FAURE Celine 02/11/1962", fixed).ok
    assert not identity.check("FAURE Jean 01/01/1940", fixed).ok


def rows_with_open_buttons(*names: str) -> np.ndarray:
    """Surname, first name and, far to their right, the same label ('Ouvrir') on every row: only the row
    says whose record it opens."""
    img = np.full((H, W, 3), 250, np.uint8)
    for y, name in zip(ROW_Y, names, strict=False):
        for x, cell in zip((100, 330, 1000), (*PATIENTS[name][:2], "Ouvrir"), strict=True):
            cv2.putText(img, cell, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 30), 2, cv2.LINE_AA)
    return img


def open_step(patient: str) -> dict[str, object]:
    """'Ouvrir' on the first row in the demonstration, the record's identity kept with it."""
    spec = {"label": "Ouvrir", "rel_x": 1040 / W, "rel_y": (ROW_Y[0] - 10) / H, "resolve_order": ["ocr"]}
    return {**spec, **record_identity("{{patient}}", {"patient": patient})}


def test_a_label_repeated_on_every_row_is_taken_on_the_intended_records_line(resolver: TargetResolver) -> None:
    res = resolver.resolve(rows_with_open_buttons("FAURE", "DURAND", "MOREL"), open_step("MOREL"))
    assert res.resolved and abs(res.y - (ROW_Y[2] - 10)) <= 14, res  # the third row's button, not the first's
    assert res.x > 980


def test_a_repeated_label_on_other_patients_lines_only_is_an_identity_mismatch(resolver: TargetResolver) -> None:
    res = resolver.resolve(rows_with_open_buttons("FAURE", "DURAND", "MORELLO"), open_step("MOREL"))
    assert not res.resolved and res.method == "identity_mismatch", res


def tight_rows(*names: str) -> np.ndarray:
    """A native list's rows: identifier, surname, first name, birth date close together (one OCR line a row)."""
    img = np.full((H, W, 3), 250, np.uint8)
    for y, name in zip(ROW_Y, names, strict=False):
        surname, first, born, ident = PATIENTS[name]
        cv2.putText(
            img, f"{ident}  {surname}  {first}  {born}", (40, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 30), 2
        )
    return img


def test_a_record_chosen_by_one_cell_of_a_row_read_as_one_line_is_resolved_on_its_row(
    resolver: TargetResolver,
) -> None:
    spec = {"label": "{{prenom}}", "rel_x": 330 / W, "rel_y": (ROW_Y[0] - 10) / H, "resolve_order": ["ocr"]}
    planned = {
        **{k: v.replace("{{prenom}}", "Alice") if isinstance(v, str) else v for k, v in spec.items()},
        **record_identity("{{prenom}}", {"prenom": "Alice"}),
    }
    res = resolver.resolve(tight_rows("FAURE", "DURAND", "MOREL"), planned)
    assert res.resolved and abs(res.y - (ROW_Y[1] - 10)) <= 14, res  # DURAND Alice's row, not the recorded first
    assert "Alice" in res.tried[-1]["identity_read"]
    absent = resolver.resolve(tight_rows("FAURE", "MOREL"), planned)
    assert not absent.resolved  # nobody called Alice on the list: never another row


def test_a_row_clicked_far_from_its_name_is_judged_where_the_row_is_and_clicked_on_the_name(
    resolver: TargetResolver,
) -> None:
    # The person chose MOREL's row by clicking right of its last cell: the row (read as one line) is where
    # the click was; the name's cell, where the click goes, is a third of the screen from it.
    planned = step("MOREL", rel_x=600 / W)
    res = resolver.resolve(tight_rows("FAURE", "DURAND", "MOREL"), planned)
    assert res.resolved, res
    assert abs(res.y - (ROW_Y[2] - 10)) <= 14 and res.x < COLUMNS[1], (res.x, res.y)  # MOREL's name, its row


def test_a_dense_grid_row_read_with_its_cells_run_together_still_names_its_patient() -> None:
    # a Tk grid's row: the OCR read its cells without the spaces between them
    kevin = {"identity": "Kévin", "identity_values": ["Kévin"]}
    assert identity.check("500334MOREAUKévinOrthopédieORD-7768", kevin).ok
    assert not identity.check("500335MOREAUXLucieNeurologieORD-7769", kevin).ok
    # capitals run together stay one word: BERNARD is not PETITBERNARD's row
    assert not identity.check("500141PETITBERNARDAnne", {"identity": "BERNARD", "identity_values": ["BERNARD"]}).ok
    assert identity.check("500141PETITBERNARDAnne", {"identity": "Anne", "identity_values": ["Anne"]}).ok
    assert not identity.check("500141 JeanneMarie", {"identity": "Anne", "identity_values": ["Anne"]}).ok
