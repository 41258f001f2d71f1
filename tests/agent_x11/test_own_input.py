"""The agent's own input is never taken for a person's, even when a loaded X server makes more of it.

A loaded workstation's X server can be descheduled between a key press the agent sent and its
release: the key then repeats (a new press each repeat interval, the server's autorepeat) until
the release is processed. Those presses were counted as a person's, and a long typing stopped as
a person's takeover though nobody touched anything. A person's own input is still seen at once.
"""

from __future__ import annotations

from rpa_agent.x11.own_input import EXPECTATION_TTL_S, OwnInput
from Xlib import X

A, B, SHIFT = 38, 56, 50


def seen(own: OwnInput, kind: int, detail: int, at: float, *, x: int = 0, y: int = 0, late: float = 0.0) -> bool:
    """Whether `own` takes for the agent's an event the X server processed at `at` (its clock: the
    same as this process's here), read `late` seconds after."""
    return own.is_own(kind, detail, x, y, received=at + late, server_ms=int(at * 1000))


def typed(*keycodes: int) -> list[tuple[int, int, None, None]]:
    events: list[tuple[int, int, None, None]] = []
    for code in keycodes:
        events += [(X.KeyPress, code, None, None), (X.KeyRelease, code, None, None)]
    return events


def test_the_servers_repeats_of_a_key_the_agent_holds_are_the_agents():
    own = OwnInput()
    own.expect(typed(A, B), now=0.0)
    assert seen(own, X.KeyPress, A, 0.1)
    # the server processed the release late: the key repeated meanwhile
    assert all(seen(own, X.KeyPress, A, 0.7 + i / 25) for i in range(10))
    assert seen(own, X.KeyRelease, A, 1.2)
    assert seen(own, X.KeyPress, B, 1.2)
    assert seen(own, X.KeyRelease, B, 1.2)


def test_a_persons_input_while_the_agent_holds_a_key_is_a_persons():
    own = OwnInput()
    own.expect([(X.KeyPress, SHIFT, None, None), *typed(A), (X.KeyRelease, SHIFT, None, None)], now=0.0)
    assert seen(own, X.KeyPress, SHIFT, 0.1)
    assert not seen(own, X.KeyPress, B, 0.2)  # another key
    assert not seen(own, X.MotionNotify, 0, 0.2, x=10, y=10)  # the mouse
    assert not seen(own, X.ButtonPress, 1, 0.2, x=10, y=10)
    assert seen(own, X.KeyPress, A, 0.3)
    assert seen(own, X.KeyRelease, A, 0.3)
    assert seen(own, X.KeyRelease, SHIFT, 0.3)


def test_a_key_the_agent_released_pressed_again_is_a_persons():
    own = OwnInput()
    own.expect(typed(A), now=0.0)
    assert seen(own, X.KeyPress, A, 0.1)
    assert seen(own, X.KeyRelease, A, 0.1)
    assert not seen(own, X.KeyPress, A, 0.2)


def test_a_key_a_person_released_is_no_longer_the_agents_to_repeat():
    own = OwnInput()
    own.expect(typed(A), now=0.0)
    assert seen(own, X.KeyPress, A, 0.1)
    assert not seen(own, X.KeyRelease, B, 0.2)  # not this key: still held
    assert seen(own, X.KeyPress, A, 0.8)  # a repeat
    own = OwnInput()
    own.expect([(X.KeyPress, A, None, None)], now=0.0)  # its release not announced yet
    assert seen(own, X.KeyPress, A, 0.1)
    assert not seen(own, X.KeyRelease, A, 0.2)  # released by someone else
    assert not seen(own, X.KeyPress, A, 0.3)


def test_an_announced_event_the_server_never_produced_stops_blocking_the_later_ones():
    own = OwnInput()
    own.expect([(X.ButtonRelease, 1, None, None)], now=0.0)
    assert not seen(own, X.KeyPress, A, 1.0)
    own.expect(typed(A), now=EXPECTATION_TTL_S + 1)
    assert seen(own, X.KeyPress, A, EXPECTATION_TTL_S + 1.1)


def test_the_agents_events_read_long_after_the_server_processed_them_are_the_agents():
    # a long typing: the record thread falls behind on a loaded machine and reads the last keys
    # more than the expiry after the agent announced them; the server processed them at once
    own = OwnInput()
    own.expect(typed(A), now=100.0)
    assert seen(own, X.KeyPress, A, 100.01)
    assert seen(own, X.KeyRelease, A, 100.01)
    own.expect(typed(B, A), now=100.5)
    late = EXPECTATION_TTL_S + 2
    assert seen(own, X.KeyPress, B, 100.51, late=late)
    assert seen(own, X.KeyRelease, B, 100.51, late=late)
    assert seen(own, X.KeyPress, A, 100.52, late=late)
    assert seen(own, X.KeyRelease, A, 100.52, late=late)


def test_a_persons_input_read_late_is_still_a_persons():
    own = OwnInput()
    own.expect(typed(A), now=100.0)
    assert seen(own, X.KeyPress, A, 100.01)
    assert not seen(own, X.KeyPress, B, 100.02, late=EXPECTATION_TTL_S + 2)
    assert not seen(own, X.MotionNotify, 0, 100.03, x=5, y=5, late=EXPECTATION_TTL_S + 2)
    assert seen(own, X.KeyRelease, A, 100.04, late=EXPECTATION_TTL_S + 2)


def test_an_announced_event_never_produced_expires_by_the_servers_time_of_the_event_compared():
    own = OwnInput()
    assert not seen(own, X.MotionNotify, 0, 100.0, x=1, y=1)  # a person's: the clocks are related
    own.expect([(X.ButtonRelease, 1, None, None)], now=100.0)
    assert not seen(own, X.KeyPress, A, 101.0)  # a person's key while the release is awaited
    own.expect(typed(A), now=100.0 + EXPECTATION_TTL_S + 1)
    # read late, but processed by the server after the stale announcement's expiry
    assert seen(own, X.KeyPress, A, 100.0 + EXPECTATION_TTL_S + 1.1, late=3.0)


def test_the_servers_time_wraps_around():
    own = OwnInput()
    own.expect(typed(A, B), now=100.0)
    assert own.is_own(X.KeyPress, A, 0, 0, received=100.01, server_ms=(1 << 32) - 5)
    assert own.is_own(X.KeyRelease, A, 0, 0, received=100.02, server_ms=(1 << 32) - 4)
    late = EXPECTATION_TTL_S + 2
    assert own.is_own(X.KeyPress, B, 0, 0, received=100.03 + late, server_ms=25)
    assert own.is_own(X.KeyRelease, B, 0, 0, received=100.03 + late, server_ms=26)


C, ORD_A, E, L, M, DOT, SPACE, T = 54, 38, 26, 46, 58, 60, 65, 28  # keycodes of "calme. t" on a US map


def test_the_agents_events_after_some_recording_never_delivered_are_the_agents():
    # seen under load: RECORD delivered the press of "l" in "calme" but neither its release nor "m";
    # every later key of the agent was counted as a person's until the announcements expired
    own = OwnInput()
    own.expect(typed(C, ORD_A, L, M, E, DOT, SPACE, T), now=100.0)
    assert seen(own, X.KeyPress, C, 100.01)
    assert seen(own, X.KeyRelease, C, 100.01)
    assert seen(own, X.KeyPress, ORD_A, 100.01)
    assert seen(own, X.KeyRelease, ORD_A, 100.01)
    assert seen(own, X.KeyPress, L, 100.01)
    assert all(seen(own, kind, code, 100.02) for code in (E, DOT, SPACE, T) for kind in (X.KeyPress, X.KeyRelease))


def test_a_persons_key_taken_for_a_later_announcement_still_counts_as_a_persons_input():
    own = OwnInput()
    own.expect(typed(C, ORD_A, L), now=100.0)
    assert seen(own, X.KeyPress, L, 100.01)  # the person's "l", before the agent's "c"
    # the agent's own keys it passed over are counted as a person's: the takeover is seen
    assert not seen(own, X.KeyPress, C, 100.02)


def test_a_key_whose_release_never_came_is_a_persons_once_no_repeat_could_last_that_long():
    own = OwnInput()
    own.expect(typed(A), now=0.0)
    assert seen(own, X.KeyPress, A, 0.1)  # its release is never delivered by the server's feed
    assert seen(own, X.KeyPress, A, 0.8)  # a repeat while it may still be held
    assert not seen(own, X.KeyPress, A, 0.1 + EXPECTATION_TTL_S + 1)  # a person pressing it, long after
