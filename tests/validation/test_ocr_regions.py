"""Checkers read the line that holds the text, not the whole box: a typed text on the line that
changed, a window title on its own line of the title bar (recognition costs by the crop's width)."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.vision.ocr import OcrLine


@dataclass
class RecordingOcr:
    """Answers every recognition with `text` and keeps the shapes of the crops it was given."""

    text: str
    shapes: list[tuple[int, int]] = field(default_factory=list)

    def read(self, image: np.ndarray) -> list[OcrLine]:
        raise AssertionError("no checker runs the text detector")

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        self.shapes.append((image.shape[0], image.shape[1]))
        return OcrLine(self.text, (0, 0, image.shape[1], image.shape[0]), 0.99)

    def read_lines(self, images: list[np.ndarray]) -> list[OcrLine | None]:
        return [self.read_line(image) for image in images]


def write(image: np.ndarray, text: str, x: int, y: int) -> None:
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)


def test_a_typed_text_is_read_on_the_line_of_the_field_that_changed() -> None:
    before = np.full((1080, 1920, 3), 235, np.uint8)
    before[200:420, 300:1000] = 255  # a multi-line field
    write(before, "Patient DURAND Alice", 310, 230)
    after = before.copy()
    write(after, "Allergie penicilline", 310, 290)  # the typed line
    ocr = RecordingOcr("Allergie penicilline")
    ctx = CheckContext(
        "type_text", before, after, Target(None, (300, 200, 700, 220)), Expected(text="Allergie"), Observed(), ocr
    )
    result = ALL_CHECKERS["OcrRoiChecker"].check(ctx, "typed", {"frame": "after", "what": "expected_text"})
    assert result.score == 1.0
    assert len(ocr.shapes) == 1  # one line read, not the field and not the unchanged line
    height, width = ocr.shapes[0]
    assert height < 40 and width < 300
    assert result.crop is not None and 260 <= result.crop.bbox[1] <= 280


def test_a_typed_text_in_a_field_whose_lines_are_not_found_reads_the_field() -> None:
    before = np.full((200, 400, 3), 255, np.uint8)
    after = before.copy()
    after[50:54, 20:200] = 0  # a change that is no text line (a bar)
    ocr = RecordingOcr("nothing")
    ctx = CheckContext("type_text", before, after, Target(None, (10, 40, 300, 30)), Expected(text="x"), Observed(), ocr)
    result = ALL_CHECKERS["OcrRoiChecker"].check(ctx, "typed", {"frame": "after", "what": "expected_text"})
    assert result.score == 0.0 and len(ocr.shapes) == 1
    height, width = ocr.shapes[0]  # the field padded by 3 px is 36 x 306: its ink (the bar) is read
    assert 4 < height <= 14 and 180 <= width <= 190, ocr.shapes


def test_the_title_bar_is_read_on_its_title_line_not_the_whole_strip() -> None:
    frame = np.full((1080, 1920, 3), 245, np.uint8)
    frame[0:32] = 225  # the title bar strip
    write(frame, "Sans titre - Bloc-notes", 820, 22)
    for x in (1780, 1826, 1872):  # window buttons drawn as squares
        cv2.rectangle(frame, (x, 8), (x + 14, 22), (60, 60, 60), 1)
    ocr = RecordingOcr("Sans titre - Bloc-notes")
    ctx = CheckContext(
        "click_anchor",
        frame,
        frame.copy(),
        Target(None, (0, 0, 1920, 32)),
        Expected(window_title="Bloc-notes"),
        Observed(),
        ocr,
    )
    result = ALL_CHECKERS["TitleBarChecker"].check(ctx, "app", {"ocr": True})
    assert result.score == 1.0
    assert len(ocr.shapes) == 1 and ocr.shapes[0][1] < 400  # the title's line, not 1926 px of strip


def test_a_typed_line_below_many_unchanged_lines_is_still_the_one_read() -> None:
    before = np.full((1080, 1920, 3), 235, np.uint8)
    before[100:700, 300:1000] = 255
    for row in range(12):  # a long note already written
        write(before, f"Ligne {row} du compte rendu", 310, 125 + 40 * row)
    after = before.copy()
    write(after, "Conclusion normale", 310, 125 + 40 * 12)
    ocr = RecordingOcr("Conclusion normale")
    ctx = CheckContext(
        "type_text", before, after, Target(None, (300, 100, 700, 600)), Expected(text="Conclusion"), Observed(), ocr
    )
    result = ALL_CHECKERS["OcrRoiChecker"].check(ctx, "typed", {"frame": "after", "what": "expected_text"})
    assert result.score == 1.0 and len(ocr.shapes) == 1
    assert result.crop is not None and result.crop.bbox[1] > 100 + 40 * 11


def test_a_label_small_in_a_tall_tab_is_read_on_its_letters() -> None:
    """The recognizer scales a crop to its own height: a 12 px label in a 32 px tab read whole comes
    out smaller than it could (a generated tab read 'Dossier patin' so, 'Dossier patient' tight)."""
    frame = np.full((1080, 1920, 3), 250, np.uint8)
    frame[8:40, 44:260] = 255  # the active tab
    write(frame, "Dossier patient", 82, 30)
    ocr = RecordingOcr("Dossier patient")
    ctx = CheckContext(
        "switch_tab", frame, frame.copy(), Target("Dossier patient", (44, 8, 216, 32)), Expected(), Observed(), ocr
    )
    result = ALL_CHECKERS["OcrRoiChecker"].check(ctx, "was_there", {"frame": "before", "box": "tab"})
    assert result.score == 1.0
    height, width = ocr.shapes[0]
    assert height <= 24, ocr.shapes  # the letters (about 14 px) and 4 px around them, not the tab's 32
    assert width < 158  # nor the slot between favicon and close cross


def test_an_option_longer_than_the_placeholder_it_replaced_is_read_past_the_old_box() -> None:
    # the drop-down was learned showing "— choose —": the option chosen is wider, its box cuts it
    class CutAtTheBox:
        def __init__(self) -> None:
            self.shapes: list[tuple[int, int]] = []

        def read(self, image: np.ndarray) -> list[OcrLine]:
            raise AssertionError("no checker runs the text detector")

        def read_line(self, image: np.ndarray) -> OcrLine | None:
            self.shapes.append(image.shape[:2])
            text = "lonogramme sanguin" if image.shape[1] >= 130 else "lonogramme sar"
            return OcrLine(text, (0, 0, image.shape[1], image.shape[0]), 0.99)

        def read_lines(self, images: list[np.ndarray]) -> list[OcrLine | None]:
            return [self.read_line(image) for image in images]

    frame = np.full((400, 600, 3), 255, np.uint8)
    target = Target(None, (171, 287, 98, 13))
    ocr = CutAtTheBox()
    ctx = CheckContext("select_option", frame, frame, target, Expected(text="Ionogramme sanguin"), Observed(), ocr)
    result = ALL_CHECKERS["OcrRoiChecker"].check(ctx, "shown", {"frame": "after", "what": "expected_text"})
    assert result.score == 1.0, result.detail
    other = CheckContext("select_option", frame, frame, target, Expected(text="Gaz du sang"), Observed(), CutAtTheBox())
    assert ALL_CHECKERS["OcrRoiChecker"].check(other, "shown", {"frame": "after", "what": "expected_text"}).score == 0.0
