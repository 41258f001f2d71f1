"""The twelve before/after pairs of the shared fixtures, judged as their ground truth says."""

from __future__ import annotations

import base64

import cv2
import numpy as np
import pytest

from rpa_mcp.validation import FailureCategory, Observed, Target, Validator, VerdictKind
from tests.validation.helpers import load_pair, pair_ids


@pytest.mark.parametrize("pair_id", pair_ids())
def test_each_fixture_pair_gets_its_expected_verdict(validator: Validator, pair_id: str) -> None:
    p = load_pair(pair_id)
    verdict = validator.validate(p.action_type, p.before, p.after, p.target)
    assert verdict.verdict.value == p.expected_verdict, verdict.reason
    assert (verdict.failure_category.value if verdict.failure_category else None) == p.expected_category
    assert verdict.evidence, "a verdict always carries the evidence of the checkers that ran"


def test_the_imagerie_step_10_regression_is_wrong_application_with_evidence(validator: Validator) -> None:
    p = load_pair("p-wrong-application")
    verdict = validator.validate("switch_tab", p.before, p.after, Target("Imagerie", p.target.bbox))
    assert verdict.verdict is VerdictKind.FAILURE
    assert verdict.failure_category is FailureCategory.WRONG_APPLICATION
    by_signal = {r.signal: r for r in verdict.evidence}
    assert by_signal["visible_before"].score == 0.0  # the tab was covered where it was clicked
    assert by_signal["change"].passed  # ... and the click changed something else
    assert verdict.crops and all(c.mime_type == "image/png" for c in verdict.crops)


def test_the_agents_observed_title_makes_wrong_application_certain(validator: Validator) -> None:
    p = load_pair("p-wrong-application")
    observed = Observed(
        window_title_before="Dossier patient - MédiDossier - Microsoft Edge",
        window_title_after="Visionneuse PACS — DURAND^ALICE — RX Thorax",
        process_after="PacsViewer.exe",
    )
    verdict = validator.validate("switch_tab", p.before, p.after, p.target, observed=observed)
    assert verdict.failure_category is FailureCategory.WRONG_APPLICATION
    assert verdict.rule == "other-application"
    assert verdict.confidence >= 0.9


def test_clicking_the_tab_that_is_already_active_is_a_success(validator: Validator) -> None:
    p = load_pair("p-tab-switch-ok")
    verdict = validator.validate("switch_tab", p.after, p.after, Target("Imagerie", (318, 8, 236, 32)))
    assert verdict.verdict is VerdictKind.SUCCESS
    assert verdict.rule == "already-active"
    assert "already active" in verdict.reason


def test_wrong_target_names_the_tab_that_became_active(validator: Validator) -> None:
    p = load_pair("p-wrong-tab")
    verdict = validator.validate("switch_tab", p.before, p.after, p.target)
    primary = next(r for r in verdict.evidence if r.signal == "primary")
    assert primary.facts.get("active_tab") == "Biologie"


def test_a_clock_only_change_is_not_a_visual_change(validator: Validator) -> None:
    p = load_pair("p-clock-only")
    verdict = validator.validate("switch_tab", p.before, p.after, p.target)
    change = next(r for r in verdict.evidence if r.signal == "change")
    assert change.score == 0.0 and "clock" in change.detail
    assert verdict.failure_category is FailureCategory.NO_VISUAL_CHANGE


def test_evidence_crops_are_small_pngs_of_regions_never_the_full_frame(validator: Validator) -> None:
    p = load_pair("p-wrong-tab")
    verdict = validator.validate("switch_tab", p.before, p.after, p.target)
    assert 0 < len(verdict.crops) <= 4
    for crop in verdict.crops:
        data = base64.b64decode(crop.data_base64)
        assert len(data) <= 1_000_000
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        assert max(image.shape[:2]) <= 2000
        assert crop.bbox != (0, 0, p.after.shape[1], p.after.shape[0])


def test_a_replay_asks_for_no_crops_of_a_success_and_gets_those_of_a_failure(validator: Validator) -> None:
    ok, wrong = load_pair("p-tab-switch-ok"), load_pair("p-wrong-tab")
    success = validator.validate("switch_tab", ok.before, ok.after, ok.target, crops="unless_success")
    assert success.verdict is VerdictKind.SUCCESS and success.crops == []
    failure = validator.validate("switch_tab", wrong.before, wrong.after, wrong.target, crops="unless_success")
    assert failure.verdict is VerdictKind.FAILURE and failure.crops
    assert validator.validate("switch_tab", ok.before, ok.after, ok.target).crops  # "always", the tool's default
    assert validator.validate("switch_tab", wrong.before, wrong.after, wrong.target, crops="never").crops == []


def test_checkers_run_only_while_the_verdict_is_undecided(validator: Validator) -> None:
    p = load_pair("p-no-change-1366")
    verdict = validator.validate(p.action_type, p.before, p.after, p.target)
    ran = {r.signal for r in verdict.evidence}
    assert "judge" not in ran and "text_after" not in ran and "primary" not in ran
    assert "dialog" in ran  # after any action the frame is searched for a dialog
