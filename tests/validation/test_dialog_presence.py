"""The dialogs classifier (~250-450 ms a frame) runs only when there is a reason to.

A reason: the action may open a dialog (matrix `classifier: always`), or the change map holds a
modal-like region (a compact changed rectangle with a new straight outline, or a dimmed page).
"""

from __future__ import annotations

import numpy as np
import pytest

from rpa_mcp.testing import FakeDialogLocator, FakeOcr
from rpa_mcp.validation import DialogHit, Expected, FailureCategory, Observed, Target, Validator
from rpa_mcp.validation import context as context_module
from rpa_mcp.validation.checkers.dialogs import modal_candidate
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.matrix import ValidatorMatrix
from tests.validation.helpers import load_pair

MODAL = DialogHit((685, 400, 470, 168), "notepad-save-changes", "D", "pause", "Bloc-notes", 0.95)


def page(height: int = 1080, width: int = 1920) -> np.ndarray:
    frame = np.full((height, width, 3), 245, np.uint8)
    frame[300:700:40, 200:1700] = 60  # lines of text
    return frame


def with_dialog(frame: np.ndarray) -> np.ndarray:
    out = frame.copy()
    out[400:568, 685:1155] = 255
    out[400, 685:1155] = out[567, 685:1155] = 90  # a window outline drawn on top
    out[400:568, 685] = out[400:568, 1154] = 90
    out[530:552, 1060:1140] = 200  # a button
    return out


def ctx(before: np.ndarray, after: np.ndarray) -> CheckContext:
    return CheckContext("click_anchor", before, after, Target(), Expected(), Observed(), FakeOcr())


def test_a_new_outlined_rectangle_is_a_modal_candidate() -> None:
    before = page()
    assert modal_candidate(ctx(before, with_dialog(before))) is not None


def test_a_page_change_and_a_card_whose_content_changed_are_not() -> None:
    before = page()
    navigated = before.copy()
    navigated[150:1000, 0:1920] = 200
    assert modal_candidate(ctx(before, navigated)) is None
    card = with_dialog(before)
    refreshed = card.copy()
    refreshed[440:500, 720:1100] = 30  # the card's content changed, its outline was already there
    assert modal_candidate(ctx(card, refreshed)) is None


def test_a_tab_switch_does_not_run_the_classifier(matrix: ValidatorMatrix) -> None:
    p = load_pair("p-tab-switch-ok")
    locator = FakeDialogLocator(after=MODAL)
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate("switch_tab", p.before, p.after, p.target)
    assert locator.calls == 0
    dialog = next(r for r in verdict.evidence if r.signal == "dialog")
    assert "classifier not run" in dialog.detail


def test_a_dialog_that_appears_after_a_click_is_still_classified(matrix: ValidatorMatrix) -> None:
    p = load_pair("p-dialog-closed-fr")  # reversed: the save-changes dialog appears
    locator = FakeDialogLocator(after=MODAL)
    verdict = Validator(matrix, FakeOcr(), dialog_locator=locator).validate(
        "click_anchor", p.after, p.before, Target(None, (400, 300, 80, 24))
    )
    assert locator.calls >= 1
    assert verdict.failure_category is FailureCategory.UNEXPECTED_DIALOG


@pytest.mark.parametrize("action", ["save", "dialog_button"])
def test_actions_that_may_open_a_dialog_always_ask_the_classifier(matrix: ValidatorMatrix, action: str) -> None:
    before = page()
    after = before.copy()
    after[100:110, 100:400] = 0
    locator = FakeDialogLocator()
    Validator(matrix, FakeOcr(), dialog_locator=locator).validate(
        action, before, after, Target("OK", (90, 90, 320, 30))
    )
    assert locator.calls >= 1


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
