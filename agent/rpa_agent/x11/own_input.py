"""Which input events of the X server the agent sent itself, and which are a person's.

Before it injects, the agent announces the events it is about to send (`expect`): an event that
matches the oldest pending announcement is the agent's. The X server also makes events of its
own from the agent's: a key held down past the repeat delay (660 ms by default) repeats, as a
new key press each repeat interval, until its release. A press the agent sent is followed by its
release in the same round trip, but a loaded X server can be descheduled between the two:
those repeats are the agent's key, not a person's. Any other event is a person's (`foreign`).
"""

from __future__ import annotations

import threading
from collections import deque

from Xlib import X

Expectation = tuple[int, int, int | None, int | None]  # (event type, detail, x, y)
EXPECTATION_TTL_S = 5.0  # an announced event the server never produced stops blocking the ones after it


class OwnInput:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._expected: deque[tuple[Expectation, float]] = deque()
        self._held: set[int] = set()  # keycodes the agent pressed and has not released yet (as the server saw)

    def expect(self, events: list[Expectation], now: float) -> None:
        with self._lock:
            self._expected.extend((e, now) for e in events)

    def is_own(self, kind: int, detail: int, x: int, y: int, received: float) -> bool:
        """Whether this event (`received`: monotonic seconds) is the agent's own input."""
        with self._lock:
            if kind == X.KeyRelease:
                self._held.discard(detail)  # whoever released it, a later press of it is not a repeat
            if self._announced(kind, detail, x, y, received):
                if kind == X.KeyPress:
                    self._held.add(detail)
                return True
            # the server's autorepeat of a key the agent holds (its release not yet processed)
            return kind == X.KeyPress and detail in self._held

    def _announced(self, kind: int, detail: int, x: int, y: int, received: float) -> bool:
        while self._expected and received - self._expected[0][1] > EXPECTATION_TTL_S:
            self._expected.popleft()
        for i, ((want, want_detail, want_x, want_y), _) in enumerate(self._expected):
            if want != kind:
                if want == X.MotionNotify:
                    continue  # a move to where the pointer already was produces no event
                return False
            if want == X.MotionNotify and (want_x, want_y) != (x, y):
                return False
            if want != X.MotionNotify and want_detail != detail:
                return False
            for _ in range(i + 1):
                self._expected.popleft()
            return True
        return False
