"""Build: the workflow IR that shadow_build returns, and the clear refusals."""

from __future__ import annotations

import pytest

from rpa_mcp.errors import InvalidInput, PreconditionFailed
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev, play


def test_the_imagerie_demo_builds_a_workflow_ir(shadow: ShadowService) -> None:
    sid, _ = play(shadow, "open_record_imagerie")
    shadow.stop(sid)
    shadow.feedback(sid, "validate")
    built = shadow.build(sid, "Ouvrir l'imagerie d'un patient", domain="dossier_patient")
    assert built["status"] == "workflow_built"
    ir = built["workflow_ir"]
    assert ir["name"] == "Ouvrir l'imagerie d'un patient" and ir["domain"] == "dossier_patient"
    assert ir["source"] == {"session_id": sid, "machine_id": "DESKTOP-DOM01"}
    assert ir["version"] == 1 and ir["created_at"].endswith("Z")
    keys = {
        "index",
        "intent",
        "action_type",
        "target",
        "params",
        "expected_window_before",
        "expected_window_after",
        "success_strict",
        "wait_after_ms",
        "expected_modals",
        "expected",
        "step_class",
        "uncheckable",
        "expected_outcome",
        "identity",
    }
    assert all(set(step) == keys for step in ir["steps"])
    tab = ir["steps"][-1]
    assert tab["index"] == 3 and tab["action_type"] == "switch_tab" and tab["success_strict"] is True
    assert tab["target"]["by_text"] == "Imagerie" and tab["target"]["anchor_ref"].startswith("rpa://screenshots/")
    assert tab["expected_window_after"] == "PACS Web - Imagerie - DURAND Alice - Microsoft Edge"
    assert ir["steps"][1]["params"] == {"text": "DURAND Alice", "submit_key": "enter"}


def test_requiring_validation_with_nothing_validated_is_a_clear_error(shadow: ShadowService) -> None:
    shadow.ingest([ev("click", 1.0, x=1, y=1, element={"name": "A"}), ev("click", 2.0, x=90, y=1)])
    with pytest.raises(PreconditionFailed) as err:
        shadow.build("s1", "w", require_all_validated=True)
    assert err.value.code == "precondition-failed"
    assert err.value.details["reason"] == "nothing_validated"
    shadow.feedback("s1", "validate", step_index=1)
    with pytest.raises(PreconditionFailed) as err:
        shadow.build("s1", "w", require_all_validated=True)
    assert err.value.details["unvalidated"] == [2]
    shadow.feedback("s1", "correct", step_index=2, new_intent="Fermer")
    assert shadow.build("s1", "w", require_all_validated=True)["status"] == "workflow_built"


def test_without_required_validation_proposed_steps_are_built(shadow: ShadowService) -> None:
    shadow.ingest([ev("click", 1.0, x=1, y=1, element={"name": "A"})])
    assert len(shadow.build("s1", "w")["workflow_ir"]["steps"]) == 1


def test_building_a_session_without_steps_is_refused(shadow: ShadowService) -> None:
    shadow.ingest([ev("focus", 1.0, window_title="A")])
    shadow.start("s1")
    with pytest.raises(PreconditionFailed):
        shadow.build("s1", "w")


def test_a_blank_name_is_refused(shadow: ShadowService) -> None:
    shadow.ingest([ev("click", 1.0, x=1, y=1)])
    with pytest.raises(InvalidInput) as err:
        shadow.build("s1", "  ")
    assert err.value.details["field"] == "name"
