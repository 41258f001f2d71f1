"""After any action the AFTER frame is searched for a dialog, whatever the change map looks like.

A dialog that appeared, or one that was already there and swallowed the click, makes the
action a FAILURE / UNEXPECTED_DIALOG (handed to the dialog resolver) — unless the click was on
the dialog itself, or the dialog does not block (policy skip: a "saved" toast).
"""

from __future__ import annotations

import numpy as np
import pytest

from rpa_mcp.agent_sim.desktop import VirtualDesktop
from rpa_mcp.testing import FakeDialogLocator, FakeOcr
from rpa_mcp.validation import DialogHit, FailureCategory, Observed, Target, Validator, Verdict, VerdictKind
from rpa_mcp.validation import context as context_module
from rpa_mcp.validation.matrix import ValidatorMatrix
from tests.validation.helpers import load_pair

LEAVE = DialogHit((735, 76, 450, 170), "browser-leave-site", "B", "pause", "Quitter le site Web ?", 0.97)
TOAST = DialogHit((1556, 126, 339, 58), "easily-toast-saved", "C", "skip", "Enregistré", 1.0)


def test_after_a_tab_switch_the_classifier_looks_at_the_after_frame(matrix: ValidatorMatrix) -> None:
    p = load_pair("p-tab-switch-ok")
    locator = FakeDialogLocator()
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate("switch_tab", p.before, p.after, p.target)
    assert locator.calls >= 1
    assert next(r for r in verdict.evidence if r.signal == "dialog").score == 0.0


def test_a_dialog_on_screen_before_and_after_the_click_swallowed_it(matrix: ValidatorMatrix) -> None:
    # the clicked tab looks active, the frames are identical: without the dialog this reads "already active"
    p = load_pair("p-already-active")
    locator = FakeDialogLocator(before=LEAVE, after=LEAVE)
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate("switch_tab", p.before, p.after, p.target)
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.UNEXPECTED_DIALOG)
    dialog = next(r for r in verdict.evidence if r.signal == "dialog")
    assert dialog.facts["blocking"] is True and "still is" in dialog.detail


def test_without_a_dialog_a_tab_already_active_is_a_success(matrix: ValidatorMatrix, ocr_engine) -> None:
    p = load_pair("p-already-active")
    verdict = Validator(matrix, ocr_engine, dialog_locator=FakeDialogLocator()).validate(
        "switch_tab", p.before, p.after, p.target
    )
    assert verdict.verdict is VerdictKind.SUCCESS and verdict.rule == "already-active"


def test_a_click_inside_the_dialog_was_an_action_on_it(matrix: ValidatorMatrix) -> None:
    p = load_pair("p-already-active")
    inside = Target("Annuler", (900, 190, 90, 36))  # a button of LEAVE
    locator = FakeDialogLocator(before=LEAVE, after=LEAVE)
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate("click_anchor", p.before, p.after, inside)
    dialog = next(r for r in verdict.evidence if r.signal == "dialog")
    assert dialog.score == 0.0 and "was on dialog" in dialog.detail


def test_a_saved_toast_is_no_blocking_dialog(matrix: ValidatorMatrix) -> None:
    p = load_pair("p-save-toast-fr")
    locator = FakeDialogLocator(after=TOAST)
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate("save", p.before, p.after, p.target)
    assert verdict.failure_category is not FailureCategory.UNEXPECTED_DIALOG
    assert next(r for r in verdict.evidence if r.signal == "dialog").score == 0.0


def test_a_confirm_over_the_dimmed_page_is_seen_without_a_classifier(bare_validator: Validator) -> None:
    p = load_pair("p-click-opens-confirm")  # the browser's bars are not dimmed, the page is
    verdict = bare_validator.validate(p.action_type, p.before, p.after, p.target)
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.UNEXPECTED_DIALOG)
    assert next(r for r in verdict.evidence if r.signal == "dialog").facts["source"] == "overlay heuristic"


def test_a_dialog_that_appears_after_a_click_is_classified(matrix: ValidatorMatrix) -> None:
    p = load_pair("p-dialog-closed-fr")  # reversed: the save-changes dialog appears
    hit = DialogHit((760, 430, 400, 160), "notepad-save-changes", "D", "pause", "Bloc-notes", 0.95)
    locator = FakeDialogLocator(after=hit)
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate(
        "click_anchor", p.after, p.before, Target(None, (400, 300, 80, 24))
    )
    assert locator.calls >= 1
    assert verdict.failure_category is FailureCategory.UNEXPECTED_DIALOG


def test_the_change_map_is_computed_once_per_validation(matrix: ValidatorMatrix, monkeypatch) -> None:
    calls: list[int] = []
    real = context_module.compute_change

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(context_module, "compute_change", counted)
    p = load_pair("p-save-toast-fr")
    Validator(matrix, FakeOcr(), dialog_locator=FakeDialogLocator()).validate("save", p.before, p.after, p.target)
    assert len(calls) == 1


def test_answering_a_dialog_that_makes_a_saved_toast_appear_closed_it(validator: Validator) -> None:
    # the demo's save: « Confirmer » of the modal, then the page shows the « Enregistré » toast top right
    desktop = VirtualDesktop.load("incident", start="observation")
    desktop.press("ctrl+s")
    before, title = desktop.frame(), desktop.window_title
    button = (1094, 502, 100, 34)
    desktop.click(button[0] + 50, button[1] + 17)
    verdict = validator.validate(
        "dialog_button",
        before,
        desktop.frame(),
        Target("Confirmer", button, (button[0] + 50, button[1] + 17)),
        observed=Observed(window_title_before=title, window_title_after=desktop.window_title),
    )
    assert verdict.verdict is VerdictKind.SUCCESS and verdict.rule == "closed"
    assert "'easily-toast-saved' elsewhere" in next(r for r in verdict.evidence if r.signal == "closed").detail


def test_a_dialog_that_opened_where_the_click_landed_is_its_effect_not_its_target(matrix: ValidatorMatrix) -> None:
    """A leave-site prompt opens over the link that asked to leave: the click was not on the dialog."""
    p = load_pair("p-already-active")
    inside = Target("Retour à la recherche", (900, 190, 90, 36))  # under where LEAVE then appears
    locator = FakeDialogLocator(after=LEAVE)
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate("click_anchor", p.before, p.after, inside)
    dialog = next(r for r in verdict.evidence if r.signal == "dialog")
    assert dialog.score >= 0.8 and "appeared" in dialog.detail
    assert verdict.failure_category is FailureCategory.UNEXPECTED_DIALOG


def _message_box_over_its_chooser() -> tuple[np.ndarray, np.ndarray]:
    """A file chooser (left) and its message box (right, with focus); after OK, the box is gone and
    the chooser's title bar turns active: the only change in the chooser's box."""
    before = np.full((768, 1366, 3), 40, np.uint8)
    before[0:380, 0:560] = 220  # the chooser
    before[0:20, 0:560] = 160  # its title bar, inactive
    after = before.copy()
    before[330:430, 600:760] = 235  # the message box
    before[395:420, 660:710] = 200  # its OK button
    after[0:20, 0:560] = 90  # the chooser's title bar, active again
    return before, after


MESSAGE = DialogHit((600, 330, 160, 100), "app-error", "D", "pause", "", 0.9)  # the box answered with OK


def answered_ok(matrix: ValidatorMatrix, before: np.ndarray, after: np.ndarray, found_after: DialogHit) -> Verdict:
    """The verdict of OK clicked in MESSAGE, with `found_after` the dialog the classifier finds after."""
    locator = FakeDialogLocator(before=MESSAGE, after=found_after)
    return Validator(matrix, FakeOcr(), dialog_locator=locator).validate(
        "dialog_button", before, after, Target("OK", (660, 395, 50, 25), (685, 407))
    )


def test_a_dialog_beneath_the_answered_one_did_not_replace_it(matrix: ValidatorMatrix) -> None:
    before, after = _message_box_over_its_chooser()
    verdict = answered_ok(matrix, before, after, DialogHit((0, 0, 560, 380), "file-open", "D", "pause", "Open", 0.9))
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason
    assert next(r for r in verdict.evidence if r.signal == "new_dialog").score == 0.0


@pytest.mark.parametrize(
    "prompt",
    [
        DialogHit((800, 200, 500, 320), "app-confirm-delete", "D", "pause", "Delete", 0.9),  # beside the box's place
        DialogHit((560, 300, 320, 180), "app-confirm-delete", "D", "pause", "Delete", 0.9),  # over the click
    ],
    ids=["beside", "over-the-click"],
)
def test_a_prompt_drawn_after_the_answered_one_closed_is_a_new_dialog(
    matrix: ValidatorMatrix, prompt: DialogHit
) -> None:
    before, after = _message_box_over_its_chooser()
    x, y, w, h = prompt.bbox
    after[y : y + h, x : x + w] = 250
    verdict = answered_ok(matrix, before, after, prompt)
    assert (verdict.verdict, verdict.failure_category) == (VerdictKind.FAILURE, FailureCategory.UNEXPECTED_DIALOG)


def test_a_chooser_under_the_click_that_the_answered_box_lay_over_did_not_replace_it(
    matrix: ValidatorMatrix,
) -> None:
    before = np.full((768, 1366, 3), 40, np.uint8)
    before[0:500, 0:800] = 220  # the chooser, under the click too
    after = before.copy()
    before[330:430, 600:760] = 120  # its message box
    before[395:420, 660:710] = 60  # the OK button
    verdict = answered_ok(matrix, before, after, DialogHit((0, 0, 800, 500), "file-open", "D", "pause", "Open", 0.9))
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason
