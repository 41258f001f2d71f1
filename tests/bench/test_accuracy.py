"""`rpa-mcp bench accuracy`: its sections, the segmentation figures among them, and the pairs it cannot score."""

from __future__ import annotations

import pytest

from rpa_mcp.bench import accuracy, segmentation
from rpa_mcp.bench.scoring import DialogScores, VerdictScores, target_on_frame


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


def test_the_timings_are_printed_as_cpu_and_as_wall_time() -> None:
    dialogs = DialogScores(ms_1080=[150.0, 140.0, 160.0], wall_ms_1080=[95.0, 90.0, 99.0])
    shown = accuracy._dialog_metrics(dialogs)
    assert shown["resolve_dialog over MCP, 1080p, CPU median"] == "150 ms"
    assert shown["  the same, wall time"] == "95 ms"
    verdicts = VerdictScores(ms_box_1080=[130.0], wall_ms_box_1080=[80.0], wall_ms_nobox_1080=[120.0, 124.0])
    assert accuracy._verdict_metrics(verdicts)["  wall time, box / no box"] == "80 ms / 122 ms"
