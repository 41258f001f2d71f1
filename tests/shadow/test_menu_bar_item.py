"""A click on a menu bar no accessibility tree names is named by the item under it, not by the whole bar
the text detector read as one line; a line that is no menu bar keeps its whole text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from rpa_mcp.shadow.click_facts import ClickFacts
from rpa_mcp.vision.budget import FrameCache
from rpa_mcp.vision.images import encode_png
from rpa_mcp.vision.ocr import OcrLine

FONT = cv2.FONT_HERSHEY_SIMPLEX
WINDOW = [200, 100, 900, 600]  # screen px: the window the click was made in
BASELINE = 130  # its menu bar's text, 30 px below its top


@dataclass
class Reader:
    """The detector reads the whole line under the click; a crop recognised alone reads what is drawn there."""

    line: OcrLine
    words: list[tuple[str, int, int]]  # (text, left, right) in frame pixels
    origin: tuple[int, int] = (0, 0)
    crops: list[np.ndarray] | None = None

    def read(self, image: np.ndarray) -> list[OcrLine]:
        x, y, w, h = self.line.bbox
        return [OcrLine(self.line.text, (x - self.origin[0], y - self.origin[1], w, h), self.line.score)]

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        self.crops = [*(self.crops or []), image]
        return None

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        return [self.read_line(i) for i in images]


class PartReader(Reader):
    def __init__(self, line: OcrLine, words: list[tuple[str, int, int]], frame: np.ndarray) -> None:
        super().__init__(line, words)
        self.frame = frame

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        # the crop is found in the frame on the line's rows: the words whose ink it holds are what it reads
        row = self.frame[self.line.bbox[1] : self.line.bbox[1] + image.shape[0]]
        for left in range(row.shape[1] - image.shape[1] + 1):
            if np.array_equal(row[:, left : left + image.shape[1]], image):
                inside = [t for t, a, b in self.words if a >= left and b <= left + image.shape[1]]
                return OcrLine(" ".join(inside), (0, 0, image.shape[1], image.shape[0]), 0.97) if inside else None
        return None


def screen(
    words: list[str], *, baseline: int = BASELINE, gap: int = 22
) -> tuple[np.ndarray, list[tuple[str, int, int]]]:
    frame = np.full((1080, 1920, 3), 236, np.uint8)
    x, drawn = WINDOW[0] + 10, []
    for word in words:
        cv2.putText(frame, word, (x, baseline), FONT, 0.5, (20, 20, 20), 1, cv2.LINE_AA)
        (w, _), _ = cv2.getTextSize(word, FONT, 0.5, 1)
        drawn.append((word, x, x + w))
        x += w + gap
    return frame, drawn


class Shots:
    def __init__(self, frame: np.ndarray, facts: dict[str, Any]) -> None:
        x, y, w, h = facts["anchor_box"]
        self.png = encode_png(frame[y : y + h, x : x + w])

    def get_screenshot(self, ref: str) -> bytes:
        return self.png


def click_on(frame: np.ndarray, drawn: list[tuple[str, int, int]], word: str, baseline: int = BASELINE) -> Any:
    _text, left, right = next(d for d in drawn if d[0] == word)
    cx, cy = (left + right) // 2, baseline - 5
    facts: dict[str, Any] = {
        "shot": "before",
        "anchor": "anchor",
        "anchor_box": [cx - 150, cy - 40, 300, 80],
        "anchor_offset": [150, 40],
        "window_box": WINDOW,
        "screen": [1920, 1080],
        "frame_size": [1920, 1080],
    }
    line = OcrLine(
        " ".join(w for w, _, _ in drawn), (drawn[0][1] - 2, baseline - 16, drawn[-1][2] - drawn[0][1] + 4, 22), 0.95
    )
    reader = PartReader(line, drawn, frame)
    reader.origin = (facts["anchor_box"][0], facts["anchor_box"][1])
    frames = FrameCache(10**8)
    frames.put("before", frame)
    clicks = ClickFacts(traces=Shots(frame, facts), ocr=reader, frames=frames, max_pixels=10**8)  # type: ignore[arg-type]
    return clicks.ocr_at(facts)


def test_a_click_on_a_menu_bar_is_named_by_the_item_under_it() -> None:
    frame, drawn = screen(["Fichier", "Edition", "Affichage", "Aide"])
    found = click_on(frame, drawn, "Affichage")
    assert found is not None and found["text"] == "Affichage"
    left, right = next((a, b) for t, a, b in drawn if t == "Affichage")
    x, _y, w, _h = found["bbox"]
    assert abs(x - left) <= 2 and abs(x + w - right) <= 2


def test_a_line_further_down_the_window_keeps_its_whole_text() -> None:
    frame, drawn = screen(["Fichier", "Edition", "Affichage", "Aide"], baseline=BASELINE + 300)
    found = click_on(frame, drawn, "Affichage", baseline=BASELINE + 300)
    assert found is not None and found["text"] == "Fichier Edition Affichage Aide"


def test_a_row_with_an_identifier_and_two_controls_side_by_side_are_no_menu_bar() -> None:
    frame, drawn = screen(["DUBOIS", "Marcel", "12/03/1950"])
    assert click_on(frame, drawn, "Marcel")["text"] == "DUBOIS Marcel 12/03/1950"
    frame, drawn = screen(["Programme", "Urgent"])
    assert click_on(frame, drawn, "Urgent")["text"] == "Programme Urgent"


def test_a_sentence_with_word_spaces_is_one_part() -> None:
    frame, drawn = screen(["Le", "patient", "est", "sorti"], gap=6)
    assert click_on(frame, drawn, "est")["text"] == "Le patient est sorti"
