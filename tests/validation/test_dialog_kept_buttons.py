"""A dialog still open but changed is never read closed because the dialog locator misses it after.

Real frames (tests/fixtures/real_programs, tuning programs): the BEFORE frame of an answered prompt, and
as AFTER the same prompt still open with the clicked button relabelled ("Patientez…", a wizard's next
button turned into another) and, for some, an error drawn inside the box above the buttons. The locator
is made to miss the dialog on the AFTER frame. The other buttons of the row stand where they stood:
the step is never a success. The real pairs where the prompt closed stay successes
(tests/validation/test_real_programs.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from rpa_mcp.dialogs.locate.buttons import faces_in
from rpa_mcp.validation import DialogHit, Target, Validator, VerdictKind
from rpa_mcp.validation.matrix import ValidatorMatrix
from rpa_mcp.validation.ports import DialogLocator, ReportedWindows
from rpa_mcp.validation.regions import contains
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrEngine

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs"
# answered prompts of tuning programs with two buttons or more on the clicked one's row
PAIRS = [
    "kwrite-overwrite-click-fr-1920x1080",
    "kwrite-save-changes-click-fr-1366x768",
    "tk-save-changes-click-en-1920x1080",
    "notepad-save-changes-click-en-1920x1080",
    "gvim-save-changes-click-fr-1600x900",
    "texworks-save-changes-click-en-1366x768",
    "mtpaint-overwrite-click-en-1920x1080",
    "gedit-save-changes-click-en-1920x1080",
    "jedit-save-changes-click-en-1920x1080",
]


class MissedAfter:
    """The server's locator on the frame before the click; on the frame after, it sees no dialog."""

    def __init__(self, real: DialogLocator | None, *, before: bool = True) -> None:
        self.real = real
        self.before = before

    def locate(
        self, image: np.ndarray, *, previous: np.ndarray | None = None, windows: ReportedWindows = ()
    ) -> DialogHit | None:
        if previous is not None or not self.before or self.real is None:
            return None  # the frame after (located against the one before), or no locator at all
        return self.real.locate(image, previous=previous, windows=windows)


def _pair(pair_id: str) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    for manifest in FOLDER.glob("*/manifest.json"):
        raw = json.loads(manifest.read_text(encoding="utf-8"))
        for pair in raw["pairs"]:
            if pair["id"] == pair_id:
                assert raw["split"] == "tuning", pair_id
                before, after = (
                    cv2.imread(str(manifest.parent / pair[key]), cv2.IMREAD_COLOR) for key in ("before", "after")
                )
                assert before is not None and after is not None, pair_id
                return before, after, pair
    raise AssertionError(pair_id)


def _relabelled(before: np.ndarray, button: BBox, text: str = "Patientez") -> np.ndarray:
    """The BEFORE frame with the clicked button's label painted over in its face's colour and another one
    written on it: the dialog otherwise as it was."""
    after = before.copy()
    x, y, w, h = button
    face = before[y + 4 : y + h - 4, x + 4 : x + w - 4].reshape(-1, 3)
    colours, counts = np.unique(face, axis=0, return_counts=True)
    after[y + 4 : y + h - 4, x + 4 : x + w - 4] = colours[int(np.argmax(counts))]
    cv2.putText(after, text, (x + 6, y + h // 2 + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (40, 40, 40), 1, cv2.LINE_AA)
    return after


def _with_error(after: np.ndarray, button: BBox, dialog: BBox) -> np.ndarray:
    """An error drawn inside the dialog just above its row of buttons, as wide as the clicked one's surroundings."""
    x, y, w, h = button
    shown = after.copy()
    top, left, right = (
        max(dialog[1], y - 2 * h),
        max(dialog[0] + 4, x - 2 * h),
        min(dialog[0] + dialog[2] - 4, x + w + 2 * h),
    )
    shown[top : y - 6, left:right] = (205, 205, 250)
    cv2.putText(shown, "Erreur : fichier verrouille", (left + 8, y - 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 170), 1)
    return shown


def _target(pair: dict[str, Any]) -> Target:
    action = pair["action"]
    return Target(action["label"], tuple(action["bbox"]), tuple(action["point"]))


@pytest.fixture(scope="module")
def missed(validator: Validator, matrix: ValidatorMatrix, ocr_engine: OcrEngine) -> Validator:
    return Validator(matrix, ocr_engine, dialog_locator=MissedAfter(validator.dialog_locator))


@pytest.fixture(scope="module")
def blind(matrix: ValidatorMatrix, ocr_engine: OcrEngine) -> Validator:
    """A locator that finds the dialog neither before nor after."""
    return Validator(matrix, ocr_engine, dialog_locator=MissedAfter(None))


@pytest.mark.parametrize("pair_id", PAIRS)
def test_a_button_relabelled_in_a_dialog_still_open_is_not_a_success(missed: Validator, pair_id: str) -> None:
    before, _after, pair = _pair(pair_id)
    target = _target(pair)
    assert target.bbox is not None
    verdict = missed.validate("dialog_button", before, _relabelled(before, target.bbox), target)
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert closed.score == 0.0 and "still open" in closed.detail, closed.detail


@pytest.mark.parametrize("pair_id", PAIRS)
@pytest.mark.parametrize("locator", ["missed", "blind"])
def test_an_error_drawn_in_a_dialog_still_open_is_not_a_success(
    request: pytest.FixtureRequest, validator: Validator, locator: str, pair_id: str
) -> None:
    before, _after, pair = _pair(pair_id)
    target = _target(pair)
    assert target.bbox is not None and validator.dialog_locator is not None
    dialog = validator.dialog_locator.locate(before)
    assert dialog is not None
    after = _with_error(_relabelled(before, target.bbox, "Terminer"), target.bbox, dialog.bbox)
    verdict = request.getfixturevalue(locator).validate("dialog_button", before, after, target)
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason


@pytest.mark.parametrize("pair_id", PAIRS)
def test_the_same_prompts_closed_are_successes_with_the_locator_missing_after(missed: Validator, pair_id: str) -> None:
    before, after, pair = _pair(pair_id)
    verdict = missed.validate("dialog_button", before, after, _target(pair))
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason


# answered prompts of tuning programs whose clicked button is the only face of its row (one button, or the
# others drawn flat): no other button to keep, the clicked one's own face says the dialog is open
SINGLE = [
    "tk-error-click-en-1920x1080",
    "notepad-file-not-found-click-en-1920x1080",
    "jedit-read-error-click-fr-1600x900",
    "gpsprune-file-not-found-click-en-1366x768",
    "texworks-file-not-found-click-fr-1600x900",
    "writer-file-not-found-click-en-1920x1080",
    "ghex-error-click-en-1920x1080",
    "fluid-file-not-found-click-en-1366x768",
    "mtpaint-save-failed-click-en-1920x1080",
    "epiphany-alert-click-en-1920x1080",
]


def _face(before: np.ndarray, button: BBox) -> BBox:
    """The clicked button's face in the frame (the target's box may hold a margin around it)."""
    _x, y, _w, h = button
    band = (0, max(0, y - h), before.shape[1], 3 * h)
    faces = [f for f in faces_in(before, band) if contains(f, button) and f[3] <= 2 * h]
    assert faces, button
    return min(faces, key=lambda f: f[2] * f[3])


@pytest.mark.parametrize("pair_id", SINGLE)
def test_a_lone_button_relabelled_in_a_dialog_still_open_is_not_a_success(missed: Validator, pair_id: str) -> None:
    before, _after, pair = _pair(pair_id)
    target = _target(pair)
    assert target.bbox is not None
    x, y, w, h = _face(before, target.bbox)
    after = _relabelled(before, (x, y + h // 4 - 4, w, h - 2 * (h // 4) + 8), "Wait")  # the label's middle half
    verdict = missed.validate("dialog_button", before, after, target)
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert closed.score == 0.0 and "still open" in closed.detail, closed.detail


@pytest.mark.parametrize("pair_id", SINGLE)
def test_the_same_lone_button_prompts_closed_are_successes_with_the_locator_missing_after(
    missed: Validator, pair_id: str
) -> None:
    before, after, pair = _pair(pair_id)
    verdict = missed.validate("dialog_button", before, after, _target(pair))
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason


@pytest.mark.parametrize("pair_id", ["poedit-open-click-en-1366x768", "poedit-save-as-click-en-1366x768"])
def test_a_button_that_went_from_the_taskbar_clocks_corner_is_not_kept(validator: Validator, pair_id: str) -> None:
    # GTK's chooser at 1366x768 has its accept button in the corner where the change map ignores a taskbar
    # clock: that button went with the chooser, so it is no button of a dialog still open
    before, after, pair = _pair(pair_id)
    verdict = validator.validate("dialog_button", before, after, _target(pair))
    assert verdict.failure_category is None or verdict.failure_category.value != "DIALOG_STILL_OPEN", verdict.reason
    # the same face kept as it was is still one: the dialog open, its Cancel relabelled
    still = _relabelled(before, tuple(pair["action"]["bbox"]))
    kept = validator.validate("dialog_button", before, still, _target(pair))
    assert kept.verdict is not VerdictKind.SUCCESS, kept.reason
