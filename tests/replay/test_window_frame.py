"""A target recorded in its window is looked for in that window's frame when it moved or was resized."""

from __future__ import annotations

from rpa_mcp.replay.occlusion import StackedWindow
from rpa_mcp.replay.window_frame import in_window_frame

TITLE = "Pharmacie - Dispensation"
SCREEN = (1920, 1080)
# recorded: the window at (100, 100), 1024x768; a field at (300, 250) (near its top-left) and an
# OK button at (1050, 800) (near its bottom-right)
FIELD = {"x_pct": 300 / 1920, "y_pct": 250 / 1080, "window_box": [100, 100, 1024, 768], "screen": [1920, 1080],
         "window_title": TITLE, "bbox": [280, 240, 60, 20]}  # fmt: skip
OK = FIELD | {"x_pct": 1050 / 1920, "y_pct": 800 / 1080}


def point(spec: dict[str, object]) -> tuple[int, int]:
    return round(float(spec["rel_x"]) * 1920), round(float(spec["rel_y"]) * 1080)  # type: ignore[arg-type]


def test_a_moved_window_carries_its_targets_along() -> None:
    moved = [StackedWindow(TITLE, "chromium", (700, 250, 1024, 768))]
    assert point(in_window_frame(FIELD, moved, SCREEN)) == (900, 400)
    assert "bbox" not in in_window_frame(FIELD, moved, SCREEN)


def test_a_resized_window_keeps_each_target_at_its_nearest_edges() -> None:
    maximised = [StackedWindow(TITLE, "chromium", (0, 0, 1920, 1080))]
    assert point(in_window_frame(FIELD, maximised, SCREEN)) == (200, 150)  # from the top-left
    assert point(in_window_frame(OK, maximised, SCREEN)) == (1920 - 74, 1080 - 68)  # from the bottom-right


def test_nothing_changes_when_the_window_stayed_or_is_not_reported() -> None:
    assert in_window_frame(FIELD, [StackedWindow(TITLE, "chromium", (100, 100, 1024, 768))], SCREEN) == FIELD
    assert in_window_frame(FIELD, [StackedWindow("Autre", "x", (0, 0, 800, 600))], SCREEN) == FIELD
    without_box = {k: v for k, v in FIELD.items() if k != "window_box"}
    assert in_window_frame(without_box, [StackedWindow(TITLE, "c", (0, 0, 800, 600))], SCREEN) == without_box
