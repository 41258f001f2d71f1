"""X server time on this machine's clock, and the frame a recorded input is sent with (no desktop needed)."""

from __future__ import annotations

import time

from rpa_agent.port import Frame
from rpa_agent.x11.clock import RESOLUTION_S, WRAP, ServerClock, delta_ms
from rpa_agent.x11.recorder import (
    IDLE_FRAME_EVERY_S,
    KEEP_FRAMES,
    QUICK_EVERY_S,
    QUICK_S,
    SETTLE_EVERY_S,
    SETTLE_S,
    FrameKeeper,
)


class NoScreen:
    def grab(self) -> Frame:  # pragma: no cover - the keeper's thread is not started here
        raise AssertionError("not grabbed in these tests")


def test_the_server_time_maps_to_the_earliest_moment_it_can_have_been_stamped():
    clock = ServerClock()
    assert not clock.known and clock.monotonic(1000) is None
    # the server's clock reads 5000 ms when this machine's reads 100.0 s; round trips of 30 and 2 ms
    # (and a stamp may be a few milliseconds older than its moment: the bound allows for that too)
    clock.observe(5030, sent=100.0)  # sent at 100.0, stamped at 100.030: the bound is 30 ms early
    assert abs(clock.monotonic(6030) - (101.0 - RESOLUTION_S)) < 1e-9
    clock.observe(7002, sent=102.0)  # a quicker round trip tightens the bound
    assert abs(clock.monotonic(6030) - (101.028 - RESOLUTION_S)) < 1e-9
    clock.observe(9500, sent=104.0)  # a slower one does not loosen it
    assert abs(clock.monotonic(6030) - (101.028 - RESOLUTION_S)) < 1e-9
    for stamp in (5030, 7002, 9500):  # never later than the real moment
        assert clock.monotonic(stamp) <= 100.0 + (stamp - 5000) / 1000


def test_the_32_bit_wrap_of_x_time_is_crossed():
    clock = ServerClock()
    clock.observe(WRAP - 500, sent=50.0 + RESOLUTION_S)
    assert abs(clock.monotonic(500) - 51.0) < 1e-9  # one second later, after the wrap
    assert abs(clock.monotonic(WRAP - 1500) - 49.0) < 1e-9


def test_wall_time_follows_the_same_offset():
    clock = ServerClock()
    assert abs(clock.wall(123) - time.time()) < 60  # not read yet: now
    clock.observe(10_000, sent=time.monotonic())
    assert abs(clock.wall(10_000) - time.time()) < 60
    assert abs((clock.wall(12_000) - clock.wall(10_000)) - 2.0) < 0.01


def frame(value: int) -> Frame:
    return Frame(2, 2, bytes([value % 256]) * 16)


def test_an_input_is_sent_with_the_screen_shown_before_it_not_one_grabbed_after():
    keeper = FrameKeeper(NoScreen())  # type: ignore[arg-type]
    assert keeper.before(10.0) is None
    keeper.keep(frame(1), 1.0)
    keeper.keep(frame(2), 2.0)  # the page as the person saw it
    keeper.keep(frame(3), 3.5)  # grabbed after the click (the link already navigated)
    assert keeper.before(3.0).pixels[0] == 2
    assert keeper.before(4.0).pixels[0] == 3


def test_a_screen_that_did_not_change_keeps_the_moment_it_was_first_seen():
    keeper = FrameKeeper(NoScreen())  # type: ignore[arg-type]
    keeper.keep(frame(1), 1.0)
    keeper.keep(frame(2), 2.0)
    keeper.keep(frame(2), 3.0)  # the same screen grabbed again
    assert keeper.before(2.5).pixels[0] == 2
    assert keeper.before(1.5).pixels[0] == 1
    for i in range(3, 3 + 2 * KEEP_FRAMES):
        keeper.keep(frame(i), float(i + 1))
    assert keeper.before(1.5) is None  # only the last few frames are held
    assert keeper.before(100.0).pixels[0] == 2 + 2 * KEEP_FRAMES


def test_a_stamp_just_after_the_wrap_is_later() -> None:
    assert delta_ms(5, WRAP - 5) == 10
    assert delta_ms(WRAP - 5, 5) == -10
    assert delta_ms(7, 7) == 0


def test_the_screen_is_grabbed_very_often_just_after_an_input_then_less():
    keeper = FrameKeeper(NoScreen())  # type: ignore[arg-type]
    before = time.monotonic()
    keeper.input_seen(False)
    after = time.monotonic()
    assert keeper.every(before) == QUICK_EVERY_S  # results drawn now are in a frame before the next click
    assert keeper.every(after + QUICK_S + 0.01) == SETTLE_EVERY_S
    assert keeper.every(after + SETTLE_S + 0.01) == IDLE_FRAME_EVERY_S
