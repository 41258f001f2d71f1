"""Events in: validation naming the field, registration, storage, screenshots."""

from __future__ import annotations

import base64

import cv2
import numpy as np
import pytest

from rpa_mcp.errors import InvalidInput, NotFound
from rpa_mcp.shadow.service import ShadowService
from tests.shadow.conftest import ev


def png_b64(width: int = 64, height: int = 48) -> str:
    ok, buf = cv2.imencode(".png", np.full((height, width, 3), 200, np.uint8))
    assert ok
    return base64.b64encode(buf.tobytes()).decode()


def test_a_click_without_coordinates_is_refused_naming_the_field(shadow: ShadowService) -> None:
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([ev("click", 1.0, y=3)])
    assert err.value.code == "invalid-input"
    assert err.value.details["field"] == "events[0].x"


@pytest.mark.parametrize(
    ("event", "field"),
    [
        (ev("wiggle", 1.0), "events[0].type"),
        (ev("click", 1.0, x="left", y=2), "events[0].x"),
        (ev("key", 1.0), "events[0].keys"),
        (ev("type", 1.0), "events[0].text"),
        (ev("focus", 1.0), "events[0].window_title"),
        (ev("click", 1.0, x=1, y=2, element={"name": 5}), "events[0].element.name"),
        ({"machine_id": "PC-1", "ts": 1.0, "type": "scroll"}, "events[0].session_id"),
        ({**ev("scroll", 0), "ts": -4}, "events[0].ts"),
        (ev("scroll", 1.0, session="../etc"), "events[0].session_id"),
    ],
)
def test_a_bad_event_is_refused_with_the_field_that_is_wrong(shadow: ShadowService, event: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([event])
    assert err.value.details["field"] == field


@pytest.mark.parametrize(
    ("ts", "seconds"),
    [
        (1_764_000_000, 1_764_000_000.0),
        (1_764_000_000.25, 1_764_000_000.25),
        (1_764_000_000_250, 1_764_000_000.25),
        ("2026-11-29T22:09:56.806Z", 1_795_990_196.806),
        ("2026-11-29T23:09:56.806+01:00", 1_795_990_196.806),
        (" 1764000000 ", 1_764_000_000.0),
    ],
)
def test_an_event_time_is_read_as_seconds_milliseconds_or_iso_with_a_zone(
    shadow: ShadowService, ts: object, seconds: float
) -> None:
    shadow.ingest([{**ev("scroll", 0), "ts": ts}])
    assert shadow.events("s1")[0]["ts"] == pytest.approx(seconds, abs=1e-6)


@pytest.mark.parametrize(
    "ts",
    [
        float("nan"),
        float("inf"),
        float("-inf"),
        "NaN",
        "-Infinity",
        1.0,
        0,
        946_684_799,  # 1999-12-31T23:59:59Z
        4_102_444_800,  # 2100-01-01T00:00:00Z
        4_102_444_800_000,  # the same in milliseconds
        10**400,
        "2026-11-29T22:09:56.806",  # no zone: local time of which machine?
        "1999-12-31T23:00:00Z",
        "yesterday",
        True,
        None,
        [1_764_000_000],
    ],
)
def test_an_absurd_event_time_is_refused_naming_ts(shadow: ShadowService, ts: object) -> None:
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([{**ev("scroll", 0), "ts": ts}])
    assert err.value.details["field"] == "events[0].ts"
    assert shadow.list_machines() == []


def test_a_batch_with_one_bad_event_stores_nothing(shadow: ShadowService) -> None:
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([ev("focus", 1.0, window_title="A"), ev("click", 2.0)])
    assert err.value.details["field"] == "events[1].x"
    assert shadow.list_machines() == []


def test_the_first_event_registers_the_session_and_its_machine(shadow: ShadowService) -> None:
    result = shadow.ingest([ev("focus", 1.0, window_title="Bloc-notes", app="notepad.exe")])
    assert result["accepted"] == 1
    assert result["sessions"][0]["new_session"] is True
    machines = shadow.list_machines()
    assert [(m["machine_id"], m["active_session_id"]) for m in machines] == [("PC-1", "s1")]
    sessions = shadow.list_sessions("PC-1")
    assert sessions[0]["session_id"] == "s1" and sessions[0]["events"] == 1 and sessions[0]["finalized"] is False
    assert shadow.ingest([ev("scroll", 2.0)])["sessions"][0]["new_session"] is False


def test_unknown_fields_are_kept_with_the_event(shadow: ShadowService) -> None:
    shadow.ingest([ev("focus", 1.0, window_title="A", agent_version="1.8.2", monitor={"index": 2})])
    stored = shadow.events("s1")[0]
    assert stored["agent_version"] == "1.8.2" and stored["monitor"] == {"index": 2}


def test_a_screenshot_is_stored_once_and_readable_by_its_id(shadow: ShadowService) -> None:
    shadow.ingest([ev("screenshot", 1.0, screenshot=png_b64())])
    ref = shadow.events("s1")[0]["screenshot_ref"]
    assert ref.startswith("rpa://screenshots/shot_")
    data = shadow.traces.get_screenshot(ref.removeprefix("rpa://screenshots/"))
    assert data.startswith(b"\x89PNG")
    assert "screenshot" not in shadow.events("s1")[0]


def test_reading_an_unknown_screenshot_is_not_found(shadow: ShadowService) -> None:
    with pytest.raises(NotFound) as err:
        shadow.traces.get_screenshot("shot_nope")
    assert err.value.code == "not-found"


def test_a_screenshot_that_is_not_base64_is_refused(shadow: ShadowService) -> None:
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([ev("screenshot", 1.0, screenshot="%%%not-base64%%%")])
    assert err.value.code == "image-rejected"
    assert err.value.details["field"] == "events[0].screenshot"


def test_a_screenshot_over_the_pixel_limit_is_refused(make_service) -> None:
    shadow = make_service(max_pixels=1000)
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([ev("screenshot", 1.0, screenshot=png_b64(64, 48))])
    assert err.value.code == "image-rejected"
    assert shadow.list_machines() == []


def test_a_screenshot_ref_must_name_an_uploaded_screenshot(shadow: ShadowService) -> None:
    with pytest.raises(InvalidInput) as err:
        shadow.ingest([ev("screenshot", 1.0, screenshot_ref="rpa://screenshots/shot_unknown")])
    assert err.value.details["field"] == "events[0].screenshot_ref"


def test_a_resent_event_is_stored_once(shadow: ShadowService) -> None:
    first = shadow.ingest([ev("focus", 1.0, window_title="A", event_id="e-1")])
    again = shadow.ingest([ev("focus", 1.0, window_title="A", event_id="e-1")])
    assert (first["accepted"], again["accepted"], again["duplicates"]) == (1, 0, 1)
    assert len(shadow.events("s1")) == 1
