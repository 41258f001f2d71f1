"""The box the validator reads follows the target clicked when the screen moved since the recording."""

from __future__ import annotations

from rpa_mcp.replay.service.evidence import box_to_read, box_where_acted

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


COMBO = {"bbox": [1278, 142, 622, 20], "x_pct": 0.676, "y_pct": 0.1407}  # clicked 20 px inside its left edge


def test_a_drop_down_is_read_around_the_click_joined_with_its_recorded_box():
    # a drop-down learned by vision may keep its label's box: moved by the click's offset it reads elsewhere
    assert box_to_read("select_option", COMBO, [1297, 152], (1920, 1080)) == box_where_acted(COMBO, [1297, 152])


def test_other_clicks_are_read_around_the_click_and_typed_text_in_its_field():
    assert box_to_read("click_anchor", LINK, [763 + 180, 408 + 90], (1920, 1080)) == box_where_acted(
        LINK, [763 + 180, 408 + 90]
    )
    assert box_to_read("type_text", COMBO, [1297, 152], (1920, 1080)) == [1278, 142, 622, 20]
    assert box_to_read("press_key", {"bbox": [1, 2, 3, 4]}, None, (1920, 1080)) == [1, 2, 3, 4]
