"""An editor's column of line numbers is no part of the text typed in it; a number alone still is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from rpa_mcp.validation import Expected, Target, Validator, VerdictKind
from rpa_mcp.validation.gutter import find_gutter, leading_cluster

SENTENCE = "The patient was told the results"
PITCH = 24  # px between lines
TOP = 20


def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for candidate in (
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
    ):
        if Path(candidate).is_file():
            return ImageFont.truetype(candidate, 16)
    return ImageFont.load_default(16)


def _editor(lines: list[str], *, numbers: bool, rule: bool = False) -> np.ndarray:
    """An editor's text area (BGR): each line's number right-aligned in a gutter left of the text."""
    image = Image.new("RGB", (700, 160), "white")
    draw = ImageDraw.Draw(image)
    font = _font()
    for i, text in enumerate(lines):
        y = TOP + i * PITCH
        if numbers:
            draw.text((30, y), str(i + 1), font=font, fill="gray", anchor="ra")
        draw.text((42, y), text, font=font, fill="black")
    if rule:
        draw.line([(36, 0), (36, 159)], fill="gray", width=1)
    return np.ascontiguousarray(np.asarray(image)[:, :, ::-1])


def _line(i: int) -> tuple[int, int, int, int]:
    return (20, TOP + i * PITCH - 4, 660, PITCH)


def test_a_column_of_consecutive_numbers_is_a_gutter() -> None:
    image = _editor(["Bilan sanguin du 12/03", SENTENCE, "Suite"], numbers=True)
    gutter = find_gutter(image, _line(1))
    assert gutter is not None and gutter.above and gutter.below
    assert 38 <= (gutter.lead.text_x or 0) <= 44  # the text starts right of the numbers


def test_a_rule_between_the_numbers_and_the_text_separates_them() -> None:
    image = _editor(["Bilan sanguin du 12/03", SENTENCE], numbers=True, rule=True)
    lead = leading_cluster(image, (0, TOP + PITCH - 4, 680, PITCH))
    assert lead is not None and lead.end <= 32 and (lead.text_x or 0) >= 38


def test_a_number_alone_is_no_gutter() -> None:
    image = _editor(["", "2 " + SENTENCE], numbers=False)
    assert find_gutter(image, _line(1)) is None


def _typed(validator: Validator, before: np.ndarray, after: np.ndarray, expected: str) -> tuple[str, str | None]:
    target = Target(None, (22, TOP + PITCH - 6, 640, PITCH + 4), (300, TOP + PITCH + 8))
    verdict = validator.validate("type_text", before, after, target, Expected(text=expected))
    category = verdict.failure_category.value if verdict.failure_category else None
    return verdict.verdict.value, category


def test_a_sentence_typed_beside_its_line_number_reads_in_full(validator: Validator) -> None:
    before = _editor(["Bilan sanguin du 12/03", ""], numbers=True)
    after = _editor(["Bilan sanguin du 12/03", SENTENCE], numbers=True)
    assert _typed(validator, before, after, SENTENCE) == (VerdictKind.SUCCESS.value, None)


def test_a_number_left_in_the_field_is_still_a_mismatch(validator: Validator) -> None:
    before = _editor(["", "2"], numbers=False)  # no column: the "2" is text left before the typing
    after = _editor(["", "2 " + SENTENCE], numbers=False)
    assert _typed(validator, before, after, SENTENCE) == (VerdictKind.FAILURE.value, "TEXT_MISMATCH")
