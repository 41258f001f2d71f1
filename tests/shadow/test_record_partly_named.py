"""A record chosen by part of who it is (the surname a parameter, the first name shown beside it) is doubted."""

from __future__ import annotations

from typing import Any

from rpa_mcp.replay.service.planning import Planning
from rpa_mcp.shadow.calibration import ASK_BELOW
from rpa_mcp.shadow.ir import templated
from rpa_mcp.shadow.record_names import RECORD_PARTLY_NAMED, missing_name, uncovered
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev
from tests.shadow.test_outcomes_and_identity import _planner

AT = {"window_title": "Lits - Recherche", "app": "javaw.exe", "locale": "fr-FR"}
FIELD = {"name": "Nom", "role": "Edit"}
ROW = {"name": "GAUTHIER Édith", "role": "DataItem"}
OPEN = {"name": "Ouvrir", "role": "Button"}
RECORD = {"window_title": "Lits — GAUTHIER Édith", "app": "javaw.exe", "locale": "fr-FR"}


def demonstrated(shadow: ShadowService) -> list[dict[str, Any]]:
    shadow.ingest(
        [
            ev("click", 1.0, x=300, y=120, element=FIELD, **AT),
            ev("type", 2.0, text="GAUTHIER", element=FIELD, **AT),
            ev("key", 3.0, keys="Enter", element=FIELD, **AT),
            ev("click", 5.0, x=300, y=220, element=ROW, **AT),
            ev("click", 7.0, x=600, y=500, element=OPEN, **AT),
            ev("focus", 7.5, **RECORD),
        ]
    )
    shadow.feedback("s1", "parameterize", step_index=1, name="nom")
    return list(shadow.understanding("s1")["steps"])


def test_a_row_named_by_the_surname_alone_is_doubted_and_asked_first(shadow: ShadowService) -> None:
    search, row, *_ = demonstrated(shadow)
    assert row["identity"] == "GAUTHIER Édith" and search["parameter"]["name"] == "nom"
    assert RECORD_PARTLY_NAMED in row["doubts"] and row["confidence"] < ASK_BELOW
    assert row["index"] in shadow.understanding("s1")["review"]["ask_first"]
    offered = {(s["action"], s["kind"]) for s in row["suggestions"]}
    assert ("validate", RECORD_PARTLY_NAMED) in offered
    # the first name beside the surname, not the whole row: accepted, the record is named in full
    assert any(
        s["action"] == "parameterize" and s["example"] == "Édith" and s["name"] == "prenom" for s in row["suggestions"]
    )
    assert RECORD_PARTLY_NAMED not in search["doubts"]


def test_the_row_made_a_parameter_is_named_in_full_and_not_doubted(shadow: ShadowService) -> None:
    """The row's parameter is its first name (the surname is already one): found and checked by both."""
    demonstrated(shadow)
    row = shadow.feedback("s1", "parameterize", step_index=2, name="prenom")["steps"][1]
    assert row["doubts"] == [] and row["confidence"] > 0.5
    assert row["parameter"]["example"] == "Édith" and "{{prenom}}" in row["intent"]
    ir = shadow.build("s1", "Lits")["workflow_ir"]
    ir_row = ir["steps"][1]
    assert ir_row["identity"] == "{{nom}} {{prenom}}" and "identity_partial" not in ir_row
    assert ir_row["target"]["label"] == ir_row["target"]["by_text"] == "{{nom}} {{prenom}}"
    assert "'{{nom}} {{prenom}}'" in ir_row["intent"]
    assert {p["name"]: p["example"] for p in ir["parameters"]} == {"nom": "GAUTHIER", "prenom": "Édith"}
    planned = Planning.plan(_planner(), ir["steps"], {"nom": "GAUTHIER", "prenom": "Rémi"}, ir["parameters"])
    assert "identity_partial" not in planned[1]["target"]
    assert planned[1]["target"]["label"] == "GAUTHIER Rémi"


def test_a_validated_row_is_not_doubted_and_its_run_goes_on(shadow: ShadowService) -> None:
    demonstrated(shadow)
    row = shadow.feedback("s1", "validate", step_index=2)["steps"][1]
    assert RECORD_PARTLY_NAMED not in row["doubts"] and row["record_confirmed"] is True
    shadow.feedback("s1", "validate")
    ir = shadow.build("s1", "Lits")["workflow_ir"]
    assert ir["steps"][1]["identity_partial"] == ["Édith"] and ir["steps"][1]["identity_confirmed"] is True
    planned = Planning.plan(_planner(), ir["steps"], {"nom": "GAUTHIER"}, ir["parameters"])
    assert "identity_partial" not in planned[1]["target"]


def test_validating_all_steps_at_once_confirms_no_partly_named_record(shadow: ShadowService) -> None:
    """A build needs every step validated: that alone never says a person looked at this record."""
    demonstrated(shadow)
    row = shadow.feedback("s1", "validate")["steps"][1]
    assert RECORD_PARTLY_NAMED in row["doubts"] and row["confidence"] < ASK_BELOW
    ir = shadow.build("s1", "Lits")["workflow_ir"]
    assert ir["steps"][1]["identity_partial"] == ["Édith"] and "identity_confirmed" not in ir["steps"][1]
    planned = Planning.plan(_planner(), ir["steps"], {"nom": "GAUTHIER"}, ir["parameters"])
    assert planned[1]["target"]["identity_partial"] == ["Édith"]


def test_a_run_of_an_unconfirmed_partly_named_row_never_places_it_unattended(shadow: ShadowService) -> None:
    demonstrated(shadow)
    ir = shadow.build("s1", "Lits")["workflow_ir"]
    row = ir["steps"][1]
    assert row["identity"] == "{{nom}} {{*}}" and row["identity_partial"] == ["Édith"]
    assert "identity_confirmed" not in row
    planned = Planning.plan(_planner(), ir["steps"], {"nom": "GAUTHIER"}, ir["parameters"])
    assert planned[1]["target"]["identity_partial"] == ["Édith"]


def test_words_are_uncovered_only_when_a_parameter_names_part_of_the_record() -> None:
    assert uncovered("GAUTHIER Édith", ["GAUTHIER"]) == ["Édith"]
    assert uncovered("GAUTHIER Édith", ["gauthier", "Edith"]) == []
    assert uncovered("Édith", ["Édith"]) == []  # a first name alone, itself the parameter
    assert uncovered("GAUTHIER Édith", []) == []  # chosen exactly as shown: the demonstrated patient only
    assert uncovered("FAURE Céline 02/11/1962", ["FAURE"]) == ["Céline", "02/11/1962"]


def test_a_demonstrated_word_left_as_it_was_is_unchecked_too() -> None:
    """'FAURE 02/11/1962' with the surname a parameter: a run checks FAURE alone, the birth date never."""
    step = {"identity": "FAURE 02/11/1962", "identity_confirmed": True, "expected": {}, "target": {}}
    (built,) = templated([step], [{"name": "nom", "example": "FAURE"}])
    assert built["identity"] == "{{nom}} 02/11/1962" and built["identity_partial"] == ["02/11/1962"]
    assert built["identity_confirmed"] is True
    alone = {"identity": "FAURE", "identity_confirmed": True, "expected": {}, "target": {}}
    (whole,) = templated([alone], [{"name": "nom", "example": "FAURE"}])
    assert "identity_partial" not in whole and "identity_confirmed" not in whole


def test_the_rest_of_the_name_is_the_name_words_beside_the_covered_ones() -> None:
    assert missing_name("GAUTHIER Édith — née le 04/02/1944 — IPP 900311", ["GAUTHIER"]) == "Édith"
    assert missing_name("Édith GAUTHIER", ["GAUTHIER"]) == "Édith"
    assert missing_name("FAURE Céline 02/11/1962", ["FAURE"]) == "Céline"
    assert missing_name("GAUTHIER Édith", []) is None  # no parameter names any of it
    assert missing_name("GAUTHIER — 900311", ["GAUTHIER"]) is None  # nothing name-like beside it


def test_a_surname_s_following_name_that_is_another_parameter_is_left_to_it() -> None:
    step = {"identity": "GAUTHIER Édith", "expected": {}, "target": {"label": "GAUTHIER Édith"}}
    params = [{"name": "nom", "example": "GAUTHIER"}, {"name": "prenom", "example": "Édith"}]
    (built,) = templated([step], params)
    assert built["identity"] == "{{nom}} {{prenom}}" and "identity_partial" not in built
    assert built["target"]["label"] == "{{nom}} {{prenom}}"
