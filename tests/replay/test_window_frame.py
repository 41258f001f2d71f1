"""A target recorded in its window is looked for in that window's frame when it moved or was resized."""

from __future__ import annotations

from rpa_mcp.replay.occlusion import StackedWindow
from rpa_mcp.replay.search_regions import (
    ANCHORED_KEY,
    SCALED_KEY,
    SCROLLED_KEY,
    WINDOW_KEY,
    recorded_position,
    search_regions,
)
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


def test_nothing_moves_when_the_window_stayed_or_is_not_reported() -> None:
    # the window's box as it stands now is said beside the target, the recorded point unchanged
    stayed = in_window_frame(FIELD, [StackedWindow(TITLE, "chromium", (100, 100, 1024, 768))], SCREEN)
    assert stayed == FIELD | {WINDOW_KEY: [100, 100, 1024, 768]}
    assert in_window_frame(FIELD, [StackedWindow("Autre", "x", (0, 0, 800, 600))], SCREEN) == FIELD
    without_box = {k: v for k, v in FIELD.items() if k != "window_box"}
    known = in_window_frame(without_box, [StackedWindow(TITLE, "c", (0, 0, 800, 600))], SCREEN)
    assert known == without_box | {WINDOW_KEY: [0, 0, 800, 600]}


def test_a_resized_window_also_keeps_each_target_at_its_share_of_the_window() -> None:
    # a layout that shares the window out (columns in proportion) moves its controls in proportion
    maximised = [StackedWindow(TITLE, "chromium", (0, 0, 1920, 1080))]
    scaled = in_window_frame(OK, maximised, SCREEN)[SCALED_KEY]
    assert (round(scaled[0] * 1920), round(scaled[1] * 1080)) == (round(950 * 1920 / 1024), round(700 * 1080 / 768))
    moved = in_window_frame(FIELD, [StackedWindow(TITLE, "chromium", (700, 250, 1024, 768))], SCREEN)
    assert (round(moved[SCALED_KEY][0] * 1920), round(moved[SCALED_KEY][1] * 1080)) == point(moved)  # same size


def test_a_target_with_no_point_is_looked_for_in_its_window_not_the_whole_screen() -> None:
    # a record chosen by who it is has no recorded point: its rows are in its window, wherever it stands
    record = {"label": "Marie", "window_title": TITLE}
    spec = in_window_frame(record, [StackedWindow(TITLE, "chromium", (300, 160, 1280, 800))], SCREEN)
    assert search_regions((1080, 1920, 3), None, spec, (640, 320)) == [(300, 160, 1280, 800)]
    partly_off = record | {WINDOW_KEY: [1500, 900, 1280, 800]}
    assert search_regions((1080, 1920, 3), None, partly_off, (640, 320)) == [(1500, 900, 420, 180)]
    assert search_regions((1080, 1920, 3), None, record, (640, 320)) == [(0, 0, 1920, 1080)]  # no window known


# a web page's button below the middle of its maximised window, the window resized to 1280x760 at (0, 0): the
# page keeps it at its distance from the window's top-left corner, not from the nearest (bottom) edge
PAGE_BUTTON = {"x_pct": 146 / 1920, "y_pct": 571 / 1080, "window_box": [0, 0, 1920, 1080], "screen": [1920, 1080],
               "window_title": TITLE}  # fmt: skip


def test_a_resized_window_also_keeps_each_target_at_its_distance_from_the_top_left_corner() -> None:
    resized = in_window_frame(PAGE_BUTTON, [StackedWindow(TITLE, "chromium", (0, 0, 1280, 760))], SCREEN)
    assert point(resized) == (146, 760 - 509)  # from the nearest edges: the bottom one
    anchored = resized[ANCHORED_KEY]
    assert (round(anchored[0] * 1920), round(anchored[1] * 1080)) == (146, 571)  # where the page keeps it
    regions = search_regions((1080, 1920, 3), (resized["rel_x"], resized["rel_y"]), resized, (640, 320))
    assert len(regions) == 4 and any(y <= 571 <= y + h and x <= 146 <= x + w for x, y, w, h in regions[2:])
    moved = in_window_frame(PAGE_BUTTON, [StackedWindow(TITLE, "chromium", (200, 0, 1920, 1080))], SCREEN)
    assert ANCHORED_KEY not in moved  # the same size: the nearest edges and the top-left corner agree


def scrolled(spec: dict[str, object]) -> list[tuple[int, int]]:
    return [(round(x * 1920), round(y * 1080)) for x, y in spec[SCROLLED_KEY]]  # type: ignore[attr-defined]


def test_a_scrolled_page_is_also_searched_where_the_scroll_took_the_recorded_point() -> None:
    # the agent scrolled the content up by 300 px to bring the target in: it is also looked for 300 px higher
    stayed = [StackedWindow(TITLE, "chromium", (100, 100, 1024, 768))]
    spec = in_window_frame(OK, stayed, SCREEN, scrolled=-300)
    assert scrolled(spec) == [(1050, 500)] and spec["y_pct"] == OK["y_pct"]  # the recorded point stays
    assert scrolled(in_window_frame(OK, [], SCREEN, scrolled=-300)) == [(1050, 500)]  # no window reported
    moved = in_window_frame(OK, [StackedWindow(TITLE, "chromium", (700, 250, 1024, 768))], SCREEN, scrolled=-300)
    assert scrolled(moved) == [(1650, 650)]  # carried into the moved window, then up by the scroll
    assert SCROLLED_KEY not in in_window_frame(OK, stayed, SCREEN, scrolled=0)
    regions = search_regions((1080, 1920, 3), recorded_position(spec), spec, (640, 320))
    assert any(y <= 500 <= y + h and x <= 1050 <= x + w for x, y, w, h in regions[2:])


def test_a_target_below_a_shorter_window_is_looked_for_where_the_scroll_brought_it() -> None:
    # the page's button at y 571 of the maximised window, the window now 400 px tall: off view below; the
    # agent scrolled the content up by 250 px: it shows at 571 - 250 = 321
    short = [StackedWindow(TITLE, "chromium", (0, 0, 1280, 400))]
    assert round(in_window_frame(PAGE_BUTTON, short, SCREEN)[ANCHORED_KEY][1] * 1080) == 399  # clamped: the edge
    assert scrolled(in_window_frame(PAGE_BUTTON, short, SCREEN, scrolled=-250))[1] == (146, 321)
