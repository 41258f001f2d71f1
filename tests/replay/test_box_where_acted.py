"""The box the validator reads follows the target clicked when the screen moved since the recording."""

from __future__ import annotations

from rpa_mcp.replay.service.evidence import box_where_acted

LINK = {"bbox": [675, 392, 177, 32]}


def test_a_click_at_the_recorded_spot_keeps_the_recorded_box():
    assert box_where_acted(LINK, [763, 408]) == [675, 392, 177, 32]


def test_a_target_that_barely_moved_keeps_its_box_widened_to_where_it_is_now():
    assert box_where_acted(LINK, [773, 406]) == [675, 390, 187, 34]


def test_a_window_moved_since_the_recording_moves_the_box_with_the_target():
    assert box_where_acted(LINK, [763 + 180, 408 + 90]) == [675 + 180, 392 + 90, 177, 32]


def test_no_box_or_no_point_changes_nothing():
    assert box_where_acted({}, [10, 10]) is None
    assert box_where_acted(LINK, None) == [675, 392, 177, 32]
