"""A dialog window too large for the classifier is read closed by its frame's side borders, drawn no more.

Synthetic frames drawn as GTK's file chooser on a 1366x768 screen draws itself (a window of its own over
the program's window of the same colours: its title bar over the program's, a white list over a white
list, its buttons at the bottom, more than 80 % of the screen's width): no dialog is found before nor
after (the validator here has no classifier), and too little changes around the clicked button. The
chooser closed: its side borders are gone, the step is a success. Still open (its buttons replaced by a
progress line, its frame turned inactive): never. Real frames (tuning programs): every answered dialog
whose frame is found stays read open when that frame is put back on the frame after.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from rpa_mcp.validation import Target, Validator, VerdictKind
from rpa_mcp.validation.checkers.dialog_frame import frame_before, frame_gone
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.validation.model import Expected, Observed

W, H = 1366, 768
TITLE_BLUE = (200, 150, 90)  # BGR, the title bars of both windows
FACE = (240, 240, 240)
BORDER = (90, 90, 90)
CHOOSER = (140, 0, 1232, 762)  # x0, y0, x1, y1: the chooser's frame
CANCEL = (1052, 718, 80, 34)
OPEN = (1146, 718, 80, 34)


def _text(image: np.ndarray, text: str, at: tuple[int, int], scale: float = 0.6) -> None:
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, (30, 30, 30), 1, cv2.LINE_AA)


def _program() -> np.ndarray:
    """The program's window alone: a title bar, a grey face, a white list with a few lines."""
    image = np.full((H, W, 3), FACE, np.uint8)
    image[0:24] = TITLE_BLUE
    _text(image, "bilan.po - Poedit", (600, 17), 0.5)
    _text(image, "File   Edit   View", (8, 44), 0.5)
    image[90:690, 0:1040] = 255
    for row, line in enumerate(("Blood test results", "Patient record", "Print the report")):
        _text(image, line, (20, 120 + 24 * row))
    _text(image, "Translated: 2 of 4", (6, 740), 0.5)
    return image


def _button(image: np.ndarray, box: tuple[int, int, int, int], label: str) -> None:
    x, y, w, h = box
    image[y : y + h, x : x + w] = (248, 248, 248)
    cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), (170, 170, 170), 1)
    _text(image, label, (x + 10, y + 23))


def _chooser(image: np.ndarray, *, border: tuple[int, int, int] = BORDER, buttons: bool = True) -> np.ndarray:
    """The chooser over `image`: a frame line, its title written on a title bar of the program's
    colours, a white list over most of it, its footer's buttons (or a progress line in their place)."""
    out = image.copy()
    x0, y0, x1, y1 = CHOOSER
    out[y0:y1, x0:x1] = FACE
    out[0:24, x0:x1] = TITLE_BLUE
    _text(out, "Select translation file", (560, 17), 0.5)
    out[60:690, x0 + 210 : x1 - 1] = 255
    for row, name in enumerate(("abime.po", "bilan.po", "courrier.po")):
        _text(out, name, (x0 + 240, 90 + 24 * row))
    if buttons:
        _button(out, CANCEL, "Cancel")
        _button(out, OPEN, "Open")
    else:
        _text(out, "Opening bilan.po ...", (CANCEL[0] - 120, CANCEL[1] + 23))
    # its frame line on three sides: the window manager placed it against the screen's top, where its title
    # bar lies over the program's
    cv2.polylines(out, [np.array([(x0, y0), (x0, y1 - 1), (x1 - 1, y1 - 1), (x1 - 1, y0)], np.int32)], False, border)
    return out


def _cancel(validator: Validator, before: np.ndarray, after: np.ndarray) -> VerdictKind:
    target = Target("Cancel", CANCEL, (CANCEL[0] + CANCEL[2] // 2, CANCEL[1] + CANCEL[3] // 2))
    return validator.validate("dialog_button", before, after, target).verdict


def test_a_chooser_too_large_for_the_classifier_closed_is_read_closed_by_its_sides(bare_validator: Validator) -> None:
    program = _program()
    before = _chooser(program)
    verdict = bare_validator.validate(
        "dialog_button", before, program, Target("Cancel", CANCEL, (CANCEL[0] + 40, CANCEL[1] + 17))
    )
    assert verdict.verdict is VerdictKind.SUCCESS, verdict.reason
    closed = next(r for r in verdict.evidence if r.signal == "closed")
    assert "side borders" in closed.detail, closed.detail


@pytest.mark.parametrize("still", ["progress", "inactive"])
def test_a_chooser_still_open_keeps_its_sides_and_is_never_read_closed(bare_validator: Validator, still: str) -> None:
    program = _program()
    before = _chooser(program)
    # its buttons replaced by a progress line; or that too, and its frame drawn lighter (another window focused)
    after = _chooser(program, buttons=False, border=(150, 150, 150) if still == "inactive" else BORDER)
    assert _cancel(bare_validator, before, after) is not VerdictKind.SUCCESS


def _context(before: np.ndarray, after: np.ndarray, button: tuple[int, int, int, int]) -> CheckContext:
    return CheckContext("dialog_button", before, after, Target("", button), Expected(), Observed(), ocr=None)  # type: ignore[arg-type]  # no read here


def test_the_chooser_frame_is_found_from_its_footer_and_a_clock_tick_is_no_side_gone() -> None:
    program = _program()
    before = _chooser(program)
    box = frame_before(_context(before, program, CANCEL), CANCEL)
    assert box is not None and abs(box[0] - CHOOSER[0]) <= 5 and abs(box[0] + box[2] - CHOOSER[2]) <= 5
    ticked = before.copy()  # nothing else than the clock's corner changed
    _text(ticked, "10:47", (W - 80, H - 20))
    assert frame_gone(_context(before, ticked, CANCEL), CANCEL) is None


FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "real_programs"
MARGIN = 8  # px round the frame put back (its border lines lie a pixel or two outside the box found)


def _answered() -> list[tuple[Path, dict[str, object]]]:
    found = []
    for manifest in sorted(FOLDER.glob("*/manifest.json")):
        raw = json.loads(manifest.read_text(encoding="utf-8"))
        if raw["split"] == "tuning":
            found += [(manifest.parent, p) for p in raw["pairs"] if p["action"]["type"] == "dialog_button"]
    return found


def test_every_real_frame_found_and_put_back_reads_still_drawn() -> None:
    """On the real answered dialogs of the tuning programs, the frame found from the footer and put back
    on the frame after (the dialog still open, whatever changed around it) is never read gone."""
    framed = 0
    for folder, pair in _answered():
        action = pair["action"]
        assert isinstance(action, dict)
        before, after = (cv2.imread(str(folder / str(pair[k])), cv2.IMREAD_COLOR) for k in ("before", "after"))
        assert before is not None and after is not None
        button = tuple(action["bbox"])
        box = frame_before(_context(before, after, button), button)  # type: ignore[arg-type]
        if box is None:
            continue
        framed += 1
        x, y, w, h = box
        y0, x0 = max(0, y - MARGIN), max(0, x - MARGIN)
        still = after.copy()
        still[y0 : y + h + MARGIN, x0 : x + w + MARGIN] = before[y0 : y + h + MARGIN, x0 : x + w + MARGIN]
        assert frame_gone(_context(before, still, button), button) is None, pair["id"]  # type: ignore[arg-type]
    assert framed >= 100
