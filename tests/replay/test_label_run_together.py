"""A label the detector ran together with a neighbouring control's text ("Programme Urgent": two radio buttons
side by side read as one line) is found in the small first look by its own part of the line, cut at the wide
gap between the two controls; a label inside a phrase with ordinary word spacing, or a part that reads more
than the label, is never cut out."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from rpa_mcp.replay.label_runs import label_part
from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from rpa_mcp.vision.images import BBox
from rpa_mcp.vision.ocr import OcrLine

W, H = 1920, 1080
FONT = cv2.FONT_HERSHEY_SIMPLEX
BASELINE = 606  # the words' baseline on the screen: the line's box is y 590–614 (ink 15 px high)
LINE_Y, LINE_H = 590, 24


@dataclass
class Word:
    text: str
    left: int
    right: int


def draw(screen: np.ndarray, parts: list[tuple[str, int] | tuple[None, int]]) -> list[Word]:
    """Words drawn at their x (None: a radio button's round mark centred there); the words' ink spans."""
    words = []
    for text, x in parts:
        if text is None:
            cv2.circle(screen, (x, BASELINE - 5), 6, (90, 90, 90), 1, cv2.LINE_AA)
            continue
        cv2.putText(screen, text, (x, BASELINE), FONT, 0.5, (20, 20, 20), 1, cv2.LINE_AA)
        width = cv2.getTextSize(text, FONT, 0.5, 1)[0][0]
        words += [Word(text, x, x + width)]
    return words


@dataclass
class DrawnOcr:
    """The detector reads every word drawn as one line (`line`); recognition alone of a crop reads the words
    wholly inside it (a round mark reads nothing). Crops recognised alone are kept."""

    screen: np.ndarray
    words: list[Word]
    line: tuple[str, BBox]
    read_alone: list[str] = field(default_factory=list)

    def _origin(self, image: np.ndarray) -> tuple[int, int]:
        offset = image.ctypes.data - self.screen.ctypes.data
        return (offset % self.screen.strides[0]) // self.screen.strides[1], offset // self.screen.strides[0]

    def read(self, image: np.ndarray) -> list[OcrLine]:
        x0, y0 = self._origin(image)
        text, (x, y, w, h) = self.line
        if x < x0 or x + w > x0 + image.shape[1] or y < y0 or y + h > y0 + image.shape[0]:
            return []
        return [OcrLine(text, (x - x0, y - y0, w, h), 0.98)]

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        x0, _ = self._origin(image)
        inside = [w.text for w in self.words if w.left >= x0 and w.right <= x0 + image.shape[1]]
        self.read_alone.append(" ".join(inside))
        return OcrLine(" ".join(inside), (0, 0, image.shape[1], image.shape[0]), 0.97) if inside else None


def screen_with(parts: list[tuple[str, int] | tuple[None, int]]) -> tuple[np.ndarray, DrawnOcr]:
    screen = np.full((H, W, 3), 240, np.uint8)
    words = draw(screen, parts)
    left = min(w.left for w in words) - 24  # the first mark inside the box, as a detector boxes it
    box = (left, LINE_Y, max(w.right for w in words) + 4 - left, LINE_H)
    return screen, DrawnOcr(screen, words, (" ".join(w.text for w in words), box))


# two radio buttons: "Programme", and "Urgent" whose mark stands 15 px after "Programme" (a word space: 6 px)
RADIOS: list[tuple[str, int] | tuple[None, int]] = [(None, 930), ("Programme", 945), (None, 1049), ("Urgent", 1063)]
URGENT = {"label": "Urgent", "rel_x": 1000 / W, "rel_y": 600 / H, "resolve_order": ["ocr"]}


def test_a_label_run_together_with_the_next_controls_text_is_its_own_part_of_the_line() -> None:
    screen, ocr = screen_with(RADIOS)
    urgent = ocr.words[1]
    part = label_part(screen, OcrLine(*ocr.line, 0.98), ocr.line[1], "Urgent", ocr)
    assert part is not None and part.text == "Urgent" and part.score == 0.97
    x, y, w, h = part.bbox
    assert 1040 <= x <= 1044 and abs(x + w - urgent.right) <= 2  # from its mark's ink to the label's last column
    assert (y, h) == (LINE_Y, LINE_H)
    assert ocr.read_alone == ["Urgent"]  # one crop recognised: the part where the label's characters fall


def test_a_label_inside_a_phrase_with_ordinary_word_spacing_is_not_cut_out() -> None:
    screen, ocr = screen_with([("Non urgent", 960)])
    assert label_part(screen, OcrLine(*ocr.line, 0.98), ocr.line[1], "Urgent", ocr) is None
    assert ocr.read_alone == []  # no wide gap: nothing recognised


def test_a_part_that_reads_more_than_the_label_is_not_taken() -> None:
    # "Non urgent" is one control's text, set apart from "Programme" by a wide gap: its part is not the label
    screen, ocr = screen_with([("Programme", 900), ("Non urgent", 1020)])
    assert label_part(screen, OcrLine(*ocr.line, 0.98), ocr.line[1], "Urgent", ocr) is None
    assert ocr.read_alone == ["Non urgent"]


def test_a_line_of_small_letters_only_gives_no_height_to_cut_it_against() -> None:
    # "ou" and "non" 10 px apart: wide against the small letters' height (~8 px), not against the text's
    screen, ocr = screen_with([("ou", 960), ("non", 989)])
    assert ocr.words[1].left - ocr.words[0].right >= 8
    assert label_part(screen, OcrLine(*ocr.line, 0.98), ocr.line[1], "non", ocr) is None
    assert ocr.read_alone == []


def resolver(ocr: DrawnOcr) -> TargetResolver:
    thresholds = load_thresholds(shipped_dir("catalog") / "thresholds.yaml")
    return TargetResolver(ocr=ocr, memory=None, thresholds=thresholds, vlm=NoVlmLocator())


def test_the_first_look_takes_the_labels_part_of_a_line_read_with_its_neighbour() -> None:
    screen, ocr = screen_with(RADIOS)
    res = resolver(ocr).resolve(screen, URGENT)
    assert res.resolved and res.tried[-1].get("first_look") is True  # the wider regions are not read
    assert res.box is not None and res.box[0] >= 1040 and res.x is not None
    assert res.box[0] <= res.x <= ocr.words[1].right and res.score == 0.97  # scored as the label alone


def test_the_first_look_leaves_a_phrase_holding_the_label_to_the_search() -> None:
    screen, ocr = screen_with([("Non urgent", 960)])
    res = resolver(ocr).resolve(screen, URGENT)
    assert "first_look" not in (res.tried[-1] if res.tried else {})
    assert not res.resolved or (res.score or 0) < 0.97  # at most the line's lowered score, as before
