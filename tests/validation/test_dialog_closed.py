"""A dialog answered is closed when its own buttons are gone from where they stood, even if another
dialog of the program (the file chooser that asked, shown again) now stands over its place; a dialog
still open keeps a button where it was and never reads closed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rpa_mcp.testing import FakeDialogLocator
from rpa_mcp.validation import DialogHit, Target, Validator, Verdict, VerdictKind
from rpa_mcp.validation.matrix import ValidatorMatrix
from rpa_mcp.vision.ocr import OcrLine

OVERWRITE, CANCEL = (700, 540, 100, 30), (820, 540, 100, 30)
SHADES = {100: "Overwrite", 60: "Cancel"}  # what the fake OCR reads on a button painted in that grey
PROMPT = DialogHit(
    (600, 400, 400, 200),
    "app-file-overwrite",
    "D",
    "pause",
    "File already exists",
    0.95,
    buttons=(("Overwrite", OVERWRITE), ("Cancel", CANCEL)),
)
CHOOSER = DialogHit((560, 300, 500, 400), "file-save-as", "D", "pause", "Save", 0.9)
CLICK = Target("Cancel", CANCEL, (870, 555))


class ShadeOcr:
    """Reads a button by the grey it is painted in (nothing else on the frames is text)."""

    def read(self, image: np.ndarray) -> list[OcrLine]:
        return []

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        text = SHADES.get(int(image.min()), "")
        return OcrLine(text, (0, 0, image.shape[1], image.shape[0]), 0.99) if text else None

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def _frames() -> tuple[np.ndarray, np.ndarray]:
    """Before: the prompt with its two buttons. After: the chooser shown again over the prompt's place."""
    before = np.full((1080, 1920, 3), 240, np.uint8)
    before[400:600, 600:1000] = 200
    for label, (x, y, w, h) in zip(SHADES.values(), (OVERWRITE, CANCEL), strict=True):
        before[y : y + h, x : x + w] = next(shade for shade, name in SHADES.items() if name == label)
    after = before.copy()
    after[300:700, 560:1060] = 200  # the chooser's face, the prompt's grey: little of the prompt's box changes
    after[360:700:40, 580:1040] = 120  # its file list, one line a row
    return before, after


def _verdict(matrix: ValidatorMatrix, before: np.ndarray, after: np.ndarray, answered: DialogHit) -> Verdict:
    locator = FakeDialogLocator(before=answered, after=CHOOSER)
    return Validator(matrix, ShadeOcr(), dialog_locator=locator).validate("dialog_button", before, after, CLICK)


def test_a_prompt_answered_under_the_chooser_shown_again_is_closed(matrix: ValidatorMatrix) -> None:
    before, after = _frames()
    verdict = _verdict(matrix, before, after, PROMPT)
    assert verdict.verdict is VerdictKind.SUCCESS and verdict.rule == "closed", verdict.reason
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert "dialog in front is another one" in closed.detail


def test_a_prompt_with_a_button_still_in_its_place_is_not_closed(matrix: ValidatorMatrix) -> None:
    before, after = _frames()
    x, y, w, h = OVERWRITE
    after[y : y + h, x : x + w] = before[y : y + h, x : x + w]  # the chooser covers the clicked button only
    verdict = _verdict(matrix, before, after, PROMPT)
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason


def test_a_prompt_still_open_over_the_chooser_is_not_closed(matrix: ValidatorMatrix) -> None:
    before, after = _frames()
    after[400:600, 600:1000] = before[400:600, 600:1000]  # the prompt stayed in front
    verdict = _verdict(matrix, before, after, PROMPT)
    assert verdict.verdict is VerdictKind.FAILURE, verdict.reason


def test_without_the_answered_dialogs_buttons_read_another_dialog_in_front_decides_nothing(
    matrix: ValidatorMatrix,
) -> None:
    before, after = _frames()
    unread = DialogHit(PROMPT.bbox, PROMPT.dialog_id, "D", "pause", PROMPT.title, 0.95)
    verdict = _verdict(matrix, before, after, unread)
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason


def test_the_same_dialog_found_again_is_no_other_dialog_in_front(matrix: ValidatorMatrix) -> None:
    before, after = _frames()
    moved = DialogHit(CHOOSER.bbox, PROMPT.dialog_id, "D", "pause", PROMPT.title, 0.95)
    locator = FakeDialogLocator(before=PROMPT, after=moved)
    verdict = Validator(matrix, ShadeOcr(), dialog_locator=locator).validate("dialog_button", before, after, CLICK)
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert "another one" not in closed.detail and verdict.verdict is not VerdictKind.SUCCESS, verdict.reason


def _framed_box_closed() -> tuple[np.ndarray, np.ndarray]:
    """Before: a dialog of the window's own face, framed by a thin grey line, its Cancel button at its top
    left (GTK 4's file chooser over a hex editor's empty view). After: the window alone."""
    after = np.full((768, 1366, 3), 250, np.uint8)
    before = after.copy()
    before[300:640, 400:1300][[0, -1], :] = 200
    before[300:640, 400:1300][:, [0, -1]] = 200
    x, y, w, h = FRAMED_CANCEL
    before[y : y + h, x : x + w] = 60
    return before, after


FRAMED_CANCEL = (420, 310, 80, 30)


def _unlocated(matrix: ValidatorMatrix, before: np.ndarray, after: np.ndarray) -> Verdict:
    """No dialog located on either frame (no outline the locator closes, as over text touching it)."""
    click = Target("Cancel", FRAMED_CANCEL, (460, 325))
    validator = Validator(matrix, ShadeOcr(), dialog_locator=FakeDialogLocator(before=None, after=None))
    return validator.validate("dialog_button", before, after, click)


def test_a_dialog_of_its_windows_colours_whose_frame_vanished_is_closed(matrix: ValidatorMatrix) -> None:
    before, after = _framed_box_closed()
    verdict = _unlocated(matrix, before, after)
    assert verdict.verdict is VerdictKind.SUCCESS and verdict.rule == "closed", verdict.reason
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert "vanished on all four sides" in closed.detail


def test_a_box_whose_frame_stays_on_one_side_is_no_closed_outline(matrix: ValidatorMatrix) -> None:
    before, after = _framed_box_closed()
    after[300:640, 400] = 200  # its left line still drawn: a panel that slid, not a box that went
    verdict = _unlocated(matrix, before, after)
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert "four sides" not in closed.detail, closed.detail


def test_a_box_whose_frame_vanished_with_a_button_of_its_row_still_there_is_not_closed(
    matrix: ValidatorMatrix,
) -> None:
    """The dialog grew (a wizard's next page): its frame moved on all four sides, but its other button stayed."""
    import cv2

    before, after = _framed_box_closed()
    x, y, w, h = FRAMED_CANCEL
    kept = (x + w + 12, y, w, h)  # another button of its row, framed, left as it was
    for frame in (before, after):
        frame[kept[1] : kept[1] + kept[3], kept[0] : kept[0] + kept[2]] = 225
        cv2.rectangle(frame, kept[:2], (kept[0] + kept[2] - 1, kept[1] + kept[3] - 1), (110, 110, 110), 1)
    verdict = _unlocated(matrix, before, after)
    assert verdict.verdict is not VerdictKind.SUCCESS, verdict.reason
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert "four sides" not in closed.detail, closed.detail
