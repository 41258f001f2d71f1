"""The text lines that appeared after an action are recognised together, each once per validation.

`UnexpectedMessageChecker` reads the new lines of every changed region: they go to the engine in one
call, so its workers share them out (the CPUs work on one validation's lines at once), and a line the
`OutcomeChecker` already read is not recognised again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from rpa_mcp.validation import Expected, Observed, Target
from rpa_mcp.validation.checkers import ALL_CHECKERS
from rpa_mcp.validation.context import CheckContext
from rpa_mcp.vision.ocr import OcrLine

W, H = 1280, 720
PANELS = {  # two messages far apart: two changed regions, two lines each
    (100, 80): ("Demande transmise au laboratoire", "Reference 2026-118"),
    (100, 420): ("Erreur : prelevement obligatoire", "Corrigez puis recommencez"),
}


@dataclass
class CallsOcr:
    """Reads each crop by its place in the frame's panels (its height tells the line) and keeps the calls."""

    texts: list[str]
    calls: list[int] = field(default_factory=list)  # crops per call to the engine

    def read(self, image: np.ndarray) -> list[OcrLine]:
        raise AssertionError("no checker runs the text detector")

    def read_line(self, image: np.ndarray) -> OcrLine | None:
        self.calls.append(1)
        return self._reading(image)

    def read_lines(self, images: Sequence[np.ndarray]) -> list[OcrLine | None]:
        self.calls.append(len(images))
        return [self._reading(image) for image in images]

    def _reading(self, image: np.ndarray) -> OcrLine:
        text = self.texts.pop(0) if self.texts else ""
        return OcrLine(text, (0, 0, image.shape[1], image.shape[0]), 0.99)


def _frames() -> tuple[np.ndarray, np.ndarray]:
    before = np.full((H, W, 3), 246, np.uint8)
    cv2.rectangle(before, (560, 620), (700, 664), (150, 100, 20), -1)
    after = before.copy()
    for (x, y), lines in PANELS.items():
        cv2.rectangle(after, (x, y), (x + 620, y + 110), (255, 255, 255), -1)
        for row, text in enumerate(lines):
            cv2.putText(after, text, (x + 16, y + 40 + 44 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 30), 2)
    return before, after


def _context(ocr: CallsOcr, outcome: str | None = None) -> CheckContext:
    before, after = _frames()
    expected = Expected(outcome_kind="message", outcome_text=outcome) if outcome else Expected()
    target = Target("Valider", (560, 620, 140, 44))
    return CheckContext("click_anchor", before, after, target, expected, Observed(), ocr)


def test_the_new_lines_of_every_changed_region_go_to_the_engine_in_one_call() -> None:
    ocr = CallsOcr([*PANELS[(100, 420)], *PANELS[(100, 80)]])
    ctx = _context(ocr)
    result = ALL_CHECKERS["UnexpectedMessageChecker"].check(ctx, "unexpected", {})
    assert ocr.calls == [4]  # the code before: [1, 1, 1, 1], one line at a time
    assert ctx.ocr_calls == 4
    assert result.score == 1.0 and "Erreur" in str(result.facts.get("message"))


def test_a_line_the_outcome_checker_read_is_not_recognised_again() -> None:
    ocr = CallsOcr([*PANELS[(100, 420)], *PANELS[(100, 80)]])
    ctx = _context(ocr, outcome="Corrigez puis recommencez")
    outcome = ALL_CHECKERS["OutcomeChecker"].check(ctx, "outcome", {})
    unexpected = ALL_CHECKERS["UnexpectedMessageChecker"].check(ctx, "unexpected", {})
    assert outcome.score == 1.0 and unexpected.score == 1.0
    assert sum(ocr.calls) == 4  # each of the four lines recognised once across the two checkers


def test_lines_read_together_read_as_they_did_one_at_a_time() -> None:
    one_by_one = CallsOcr([*PANELS[(100, 420)], *PANELS[(100, 80)]])
    together = _context(CallsOcr(list(one_by_one.texts)))
    alone = _context(one_by_one)
    boxes = [(116, 440, 400, 30), (116, 484, 400, 30), (116, 100, 400, 30), (2000, 10, 40, 30)]
    assert [alone.read_line("after", box) for box in boxes] == together.read_lines("after", boxes)
    assert together.read_lines("after", boxes[:2]) == together.read_lines("after", boxes[:2])  # memoised
    assert together.ocr.calls == [3]  # type: ignore[attr-defined]  # the CallsOcr given above
