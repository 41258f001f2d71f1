"""Validator anti-patterns (a tab judged by a global perceptual hash, a success on the title bar alone, a
click that changed nothing taken as done, a dialog judged on the whole frame), each pinned by a test."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rpa_mcp.settings import shipped_dir
from rpa_mcp.validation import Expected, FailureCategory, Observed, Target, Validator, VerdictKind, check_matrix
from rpa_mcp.validation.checkers.pixels import phash
from rpa_mcp.validation.context import DiffSettings, compute_change
from rpa_mcp.validation.matrix import MATRIX_FILE
from tests.validation.helpers import load_pair


def _raw() -> dict:
    return yaml.safe_load((shipped_dir("catalog") / MATRIX_FILE).read_text(encoding="utf-8"))


# 1. A global pHash to judge a tab switch ------------------------------------------------------
def test_a_tab_switch_is_not_judged_by_a_global_phash(validator: Validator) -> None:
    p = load_pair("p-wrong-tab")
    assert phash(p.before) - phash(p.after) >= 6  # a global pHash says "the screen changed: success"
    verdict = validator.validate("switch_tab", p.before, p.after, p.target)
    assert verdict.failure_category is FailureCategory.WRONG_TARGET
    phashes = [r for r in verdict.evidence if r.checker == "PhashChecker"]
    assert all("content_below_target" in r.detail for r in phashes)


def test_the_matrix_refuses_a_global_phash_for_a_tab_action(tmp_path: Path) -> None:
    raw = _raw()
    raw["actions"]["switch_tab"]["signals"]["secondary"]["params"]["region"] = "full"
    (tmp_path / MATRIX_FILE).write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert "global pHash" in check_matrix(tmp_path)[0]


# 2. The title bar alone for a single-page web app -----------------------------------------------
def test_a_matching_title_does_not_make_a_single_page_app_tab_switch_succeed(validator: Validator) -> None:
    same = "MédiDossier - Microsoft Edge"  # a SPA keeps its title whatever the tab shows
    observed = Observed(window_title_before=same, window_title_after=same)
    for pair_id, category in (
        ("p-clock-only", FailureCategory.NO_VISUAL_CHANGE),
        ("p-wrong-tab", FailureCategory.WRONG_TARGET),
    ):
        p = load_pair(pair_id)
        verdict = validator.validate("switch_tab", p.before, p.after, p.target, observed=observed)
        assert next(r for r in verdict.evidence if r.signal == "app").passed
        assert verdict.verdict is VerdictKind.FAILURE and verdict.failure_category is category


def test_the_matrix_refuses_a_success_on_the_title_bar_alone(tmp_path: Path) -> None:
    raw = _raw()
    raw["actions"]["switch_tab"]["rules"].insert(0, {"id": "title", "when": {"app": ">=0.5"}, "verdict": "SUCCESS"})
    (tmp_path / MATRIX_FILE).write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert "title bar alone" in check_matrix(tmp_path)[0]


def test_the_matrix_refuses_a_success_judged_before_the_front_windows_title(tmp_path: Path) -> None:
    raw = _raw()
    rules = raw["actions"]["switch_tab"]["rules"]
    rules.insert(0, rules.pop(next(i for i, r in enumerate(rules) if r["id"] == "already-active")))
    (tmp_path / MATRIX_FILE).write_text(yaml.safe_dump(raw), encoding="utf-8")
    problem = check_matrix(tmp_path)[0]
    assert "'already-active' gives SUCCESS before rule 'other-application'" in problem


@pytest.mark.parametrize("action", ["scroll", "wait_for_element", "extract_text"])
def test_an_action_without_input_target_judged_in_another_window_is_wrong_application(
    validator: Validator, action: str
) -> None:
    # What moved, showed the label or was read came from the window in front: not the expected one.
    p = load_pair("p-tab-switch-ok")
    observed = Observed(
        window_title_before="Visionneuse PACS — RX Thorax", window_title_after="Visionneuse PACS — RX Thorax"
    )
    expected = Expected(
        window_title="Dossier patient - MédiDossier", text="Imagerie", output="Imagerie", has_output=True
    )
    verdict = validator.validate(action, p.before, p.after, p.target, expected, observed)
    assert verdict.verdict is VerdictKind.FAILURE and verdict.failure_category is FailureCategory.WRONG_APPLICATION
    same = Observed(
        window_title_before="Dossier patient - MédiDossier", window_title_after="Dossier patient - MédiDossier"
    )
    assert validator.validate(action, p.before, p.after, p.target, expected, same).rule != "other-application"


def test_a_target_looking_right_in_another_window_is_wrong_application(validator: Validator) -> None:
    # The window that came in front shows a control like the target where the agent clicked: the box
    # looks like the active tab, but the front window's title says the click went to another application.
    p = load_pair("p-tab-switch-ok")
    observed = Observed(
        window_title_before="Visionneuse PACS — DURAND^ALICE — RX Thorax",
        window_title_after="Visionneuse PACS — DURAND^ALICE — RX Thorax",
        process_after="PacsViewer.exe",
    )
    expected = Expected(window_title="Dossier patient - MédiDossier - Microsoft Edge")
    target = Target("Imagerie", (318, 8, 236, 32))
    verdict = validator.validate("switch_tab", p.after, p.after, target, expected, observed)
    assert verdict.verdict is VerdictKind.FAILURE and verdict.failure_category is FailureCategory.WRONG_APPLICATION
    assert verdict.rule == "other-application"


# 3. success=true because coordinates were sent ----------------------------------------------------
def test_a_click_whose_coordinates_were_sent_but_changed_nothing_fails(validator: Validator) -> None:
    p = load_pair("p-no-change-1366")
    for action in ("click_anchor", "double_click_anchor", "right_click_anchor", "drag_drop_anchor",
                   "toggle_checkbox", "keyboard_shortcut", "key_press", "new_tab", "save", "switch_tab",
                   "close_tab", "dialog_button"):  # fmt: skip
        verdict = validator.validate(action, p.before, p.after, p.target)
        assert verdict.verdict is VerdictKind.FAILURE, (action, verdict.reason)


# 4. A global SSIM to judge a dialog closing --------------------------------------------------------
def test_a_dialog_closing_is_judged_in_its_region_not_on_the_whole_frame(validator: Validator) -> None:
    closed, still = load_pair("p-dialog-closed-fr"), load_pair("p-dialog-still-open-en")
    for p in (closed, still):
        changed = compute_change(p.before, p.after, DiffSettings()).changed_pixels
        assert changed / (p.after.shape[0] * p.after.shape[1]) < 0.02  # globally "nearly identical"
    assert (
        validator.validate("dialog_button", closed.before, closed.after, closed.target).verdict is VerdictKind.SUCCESS
    )
    verdict = validator.validate("dialog_button", still.before, still.after, still.target)
    assert verdict.failure_category is FailureCategory.DIALOG_STILL_OPEN  # though some pixels changed


def test_the_matrix_refuses_a_dialog_closing_judged_globally(tmp_path: Path) -> None:
    raw = _raw()
    raw["actions"]["dialog_button"]["signals"]["closed"]["params"] = {"region": "full"}
    (tmp_path / MATRIX_FILE).write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert "judged in its region" in check_matrix(tmp_path)[0]
