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


def typed(*keycodes: int) -> list[tuple[int, int, None, None]]:
    events: list[tuple[int, int, None, None]] = []
    for code in keycodes:
        events += [(X.KeyPress, code, None, None), (X.KeyRelease, code, None, None)]
    return events


def test_the_servers_repeats_of_a_key_the_agent_holds_are_the_agents():
    own = OwnInput()
    own.expect(typed(A, B), now=0.0)
    assert own.is_own(X.KeyPress, A, 0, 0, received=0.1)
    # the server processed the release late: the key repeated meanwhile
    assert all(own.is_own(X.KeyPress, A, 0, 0, received=0.7 + i / 25) for i in range(10))
    assert own.is_own(X.KeyRelease, A, 0, 0, received=1.2)
    assert own.is_own(X.KeyPress, B, 0, 0, received=1.2)
    assert own.is_own(X.KeyRelease, B, 0, 0, received=1.2)


def test_a_persons_input_while_the_agent_holds_a_key_is_a_persons():
    own = OwnInput()
    own.expect([(X.KeyPress, SHIFT, None, None), *typed(A), (X.KeyRelease, SHIFT, None, None)], now=0.0)
    assert own.is_own(X.KeyPress, SHIFT, 0, 0, received=0.1)
    assert not own.is_own(X.KeyPress, B, 0, 0, received=0.2)  # another key
    assert not own.is_own(X.MotionNotify, 0, 10, 10, received=0.2)  # the mouse
    assert not own.is_own(X.ButtonPress, 1, 10, 10, received=0.2)
    assert own.is_own(X.KeyPress, A, 0, 0, received=0.3)
    assert own.is_own(X.KeyRelease, A, 0, 0, received=0.3)
    assert own.is_own(X.KeyRelease, SHIFT, 0, 0, received=0.3)


def test_a_key_the_agent_released_pressed_again_is_a_persons():
    own = OwnInput()
    own.expect(typed(A), now=0.0)
    assert own.is_own(X.KeyPress, A, 0, 0, received=0.1)
    assert own.is_own(X.KeyRelease, A, 0, 0, received=0.1)
    assert not own.is_own(X.KeyPress, A, 0, 0, received=0.2)


def test_a_key_a_person_released_is_no_longer_the_agents_to_repeat():
    own = OwnInput()
    own.expect(typed(A), now=0.0)
    assert own.is_own(X.KeyPress, A, 0, 0, received=0.1)
    assert not own.is_own(X.KeyRelease, B, 0, 0, received=0.2)  # not this key: still held
    assert own.is_own(X.KeyPress, A, 0, 0, received=0.8)  # a repeat
    own = OwnInput()
    own.expect([(X.KeyPress, A, None, None)], now=0.0)  # its release not announced yet
    assert own.is_own(X.KeyPress, A, 0, 0, received=0.1)
    assert not own.is_own(X.KeyRelease, A, 0, 0, received=0.2)  # released by someone else
    assert not own.is_own(X.KeyPress, A, 0, 0, received=0.3)


def test_an_announced_event_the_server_never_produced_stops_blocking_the_later_ones():
    own = OwnInput()
    own.expect([(X.ButtonRelease, 1, None, None)], now=0.0)
    assert not own.is_own(X.KeyPress, A, 0, 0, received=1.0)
    own.expect(typed(A), now=EXPECTATION_TTL_S + 1)
    assert own.is_own(X.KeyPress, A, 0, 0, received=EXPECTATION_TTL_S + 1.1)
