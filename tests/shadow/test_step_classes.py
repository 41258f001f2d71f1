"""Each step is classed when the workflow is built; a person changes the class with set_class."""

from __future__ import annotations

import pytest

from rpa_mcp.competences.model import Competence
from rpa_mcp.shadow.classes import classify_step, step_class_of
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Valider", "irreversible"),
        ("Enregistrer la dispensation", "irreversible"),
        ("Signer", "irreversible"),
        ("Envoyer", "irreversible"),
        ("Supprimer", "irreversible"),
        ("Save", "irreversible"),
        ("Submit", "irreversible"),
        ("Delete row", "irreversible"),
        ("Dispense", "irreversible"),
        ("Signes vitaux", "navigation"),
        ("Administration", "navigation"),
        ("Poste de soins", "navigation"),
        ("Patients", "navigation"),
        ("Rechercher", "navigation"),
    ],
)
def test_a_click_is_classed_by_the_words_of_its_label(label: str, expected: str) -> None:
    assert classify_step("click_anchor", label=label) == expected


def test_keys_that_commit_and_the_save_action_are_irreversible_typing_is_input() -> None:
    assert classify_step("keyboard_shortcut", params={"keys": "ctrl+s"}) == "irreversible"
    assert classify_step("save", params={"keys": "ctrl+s"}) == "irreversible"
    assert classify_step("keyboard_shortcut", params={"keys": "ctrl+c"}) == "navigation"
    assert classify_step("type_text", label="Valider") == "input"
    assert classify_step("click_anchor", intent="Enregistrer le dossier") == "irreversible"  # no label: the intent


def test_a_declared_class_wins_and_an_old_step_is_classed_when_read() -> None:
    assert step_class_of({"action_type": "click_anchor", "target": {"label": "Valider"}}) == "irreversible"
    assert step_class_of({"action_type": "click_anchor", "target": "Valider", "step_class": "navigation"}) == (
        "navigation"
    )


def test_a_competence_file_without_classes_still_loads() -> None:
    step = {"index": 1, "intent": "Valider", "action_type": "click_anchor", "target": {"label": "Valider"}}
    loaded = Competence.model_validate({"name": "c", "version": 1, "steps": [step]})
    assert loaded.steps[0].step_class is None and loaded.steps[0].uncheckable is False


@pytest.fixture
def saving(shadow: ShadowService) -> ShadowService:
    shadow.ingest(
        [
            ev("click", 1.0, x=1, y=1, element={"name": "Patients"}),
            ev("click", 2.0, x=1, y=1, element={"name": "Valider"}),
        ]
    )
    return shadow


def test_the_understanding_and_the_built_workflow_show_each_steps_class(saving: ShadowService) -> None:
    steps = saving.understanding("s1")["steps"]
    assert [s["step_class"] for s in steps] == ["navigation", "irreversible"]
    ir = saving.build("s1", "Dispensation")["workflow_ir"]
    assert [(s["step_class"], s["uncheckable"]) for s in ir["steps"]] == [
        ("navigation", False),
        ("irreversible", False),
    ]


def test_set_class_changes_a_steps_class_and_declares_it_uncheckable(saving: ShadowService) -> None:
    result = saving.feedback("s1", "set_class", step_index=1, step_class="irreversible", uncheckable=True)
    assert result["status"] == "feedback_applied"
    ir = saving.build("s1", "Dispensation")["workflow_ir"]
    assert (ir["steps"][0]["step_class"], ir["steps"][0]["uncheckable"]) == ("irreversible", True)


@pytest.mark.parametrize(
    ("args", "reason_part"),
    [
        ({"step_index": 1}, "needs step_class"),
        ({"step_class": "navigation"}, "needs step_index"),
        ({"step_index": 1, "step_class": "dangerous"}, "not a class"),
    ],
)
def test_a_set_class_that_does_not_apply_changes_nothing(saving: ShadowService, args: dict, reason_part: str) -> None:
    before = saving.understanding("s1")["steps"]
    result = saving.feedback("s1", "set_class", **args)
    assert result["status"] == "feedback_rejected" and reason_part in result["reason"]
    assert saving.understanding("s1")["steps"] == before


def test_class_arguments_belong_to_set_class_only(saving: ShadowService) -> None:
    result = saving.feedback("s1", "validate", step_index=1, step_class="input")
    assert result["status"] == "feedback_rejected" and "set_class" in result["reason"]
