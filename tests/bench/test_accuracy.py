"""`rpa-mcp bench accuracy`: its sections, the segmentation figures among them, and the pairs it cannot score."""

from __future__ import annotations

import pytest

from rpa_mcp.bench import accuracy, segmentation
from rpa_mcp.bench.scoring import target_on_frame


def test_the_segmentation_figures_of_both_halves_are_a_section(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [{"metric": "step precision", "tuning": "1.00 (3/3)", "evaluation": "0.50 (1/2)", "target": "≥ 0.90"}]
    monkeypatch.setattr(segmentation, "accuracy_rows", lambda: rows)
    titles = [title for title, _ in accuracy.SECTIONS]
    assert any(title.startswith("segmentation") for title in titles)
    section = dict(accuracy.SECTIONS)[next(t for t in titles if t.startswith("segmentation"))]
    text = accuracy.format_section("segmentation", section())
    assert "tuning" in text and "evaluation" in text
    assert "1.00 (3/3)" in text and "0.50 (1/2)" in text


def test_a_real_column_is_printed_only_when_a_row_has_one() -> None:
    plain = accuracy.format_section("x", [{"metric": "m", "tuning": "1", "evaluation": "2", "target": ""}])
    real = accuracy.format_section("x", [{"metric": "m", "tuning": "—", "evaluation": "—", "target": "", "real": "3"}])
    assert "real" not in plain.splitlines()[1] and "real" in real.splitlines()[1]


@pytest.mark.parametrize(
    ("point", "bbox", "ok"),
    [
        ((347, 899), None, True),
        ((347, 915), None, False),
        (None, (280, 894, 135, 42), False),
        (None, (10, 10, 5, 5), True),
    ],
)
def test_a_pair_whose_click_lies_off_the_frame_is_not_scored(point, bbox, ok) -> None:
    assert target_on_frame(point, bbox, (1600, 900)) is ok
