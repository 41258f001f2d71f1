"""Which input events of the X server the agent sent itself, and which are a person's.

Before it injects, the agent announces the events it is about to send (`expect`): an event that
matches the oldest pending announcement is the agent's. The X server also makes events of its
own from the agent's: a key held down past the repeat delay (660 ms by default) repeats, as a
new key press each repeat interval, until its release. A press the agent sent is followed by its
release in the same round trip, but a loaded X server can be descheduled between the two:
those repeats are the agent's key, not a person's, for `EXPECTATION_TTL_S` after its press (a release
the server's feed never delivered must not hide a person pressing that key later). Any other event
is a person's (`foreign`).

An announcement the server never turned into an event stops blocking the ones after it once it is
older than `EXPECTATION_TTL_S` at the moment the server processed the event compared (its X server
time), not the moment this process read it: a record thread behind on a loaded machine reads the
agent's own events late, and they are still the agent's however late they are read.
"""

from __future__ import annotations

import threading
from collections import deque

from Xlib import X

Expectation = tuple[int, int, int | None, int | None]  # (event type, detail, x, y)
EXPECTATION_TTL_S = 5.0  # an announced event the server never produced stops blocking the ones after it
SERVER_TIME_WRAP = 1 << 32  # X server time: milliseconds, 32 bits


class OwnInput:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._expected: deque[tuple[Expectation, float]] = deque()
        self._held: dict[int, float] = {}  # keycodes the agent pressed and has not released yet: when pressed
        self._reference: tuple[int, float] | None = None  # (server ms, monotonic s) of the promptest event read

    def expect(self, events: list[Expectation], now: float) -> None:
        with self._lock:
            self._expected.extend((e, now) for e in events)

    def is_own(self, kind: int, detail: int, x: int, y: int, received: float, server_ms: int) -> bool:
        """Whether this event is the agent's own input (`received`: monotonic seconds when this
        process read it; `server_ms`: the X server's time of the event)."""
        with self._lock:
            if kind == X.KeyRelease:
                self._held.pop(detail, None)  # whoever released it, a later press of it is not a repeat
            processed = self._processed_at(server_ms, received)
            while self._expected and processed - self._expected[0][1] > EXPECTATION_TTL_S:
                self._expected.popleft()
            own = self._announced(kind, detail, x, y, skipping=False)
            pressed = self._held.get(detail)
            if not own and kind == X.KeyPress and pressed is not None and processed - pressed <= EXPECTATION_TTL_S:
                return True  # the server's autorepeat of a key the agent holds (its release not yet processed)
            own = own or self._announced(kind, detail, x, y, skipping=True)
            if own and kind == X.KeyPress:
                self._held[detail] = processed
            return own

    def _processed_at(self, server_ms: int, received: float) -> float:
        """When the server processed an event, on this process's monotonic clock: its server time
        from the event read with the least delay (the X server's clock is monotonic too)."""
        if self._reference is not None:
            ref_ms, ref_at = self._reference
            delta_ms = (server_ms - ref_ms + SERVER_TIME_WRAP // 2) % SERVER_TIME_WRAP - SERVER_TIME_WRAP // 2
            processed = ref_at + delta_ms / 1000
            if processed <= received:
                return processed
        self._reference = (server_ms, received)  # read sooner after it happened than any before
        return received

    def _announced(self, kind: int, detail: int, x: int, y: int, *, skipping: bool) -> bool:
        """Whether the event is the oldest pending announcement (moves to where the pointer already was
        produce no event: passed over). `skipping`: or a later one, the announcements before it
        dropped: events RECORD never delivered (seen on a loaded server) must not make every later
        event of the agent a person's. A person's event taken for a later announcement is not hidden:
        the agent's own events it passed over, when they come, are counted as a person's."""
        for i, ((want, want_detail, want_x, want_y), _) in enumerate(self._expected):
            same = want == kind and ((want_x, want_y) == (x, y) if want == X.MotionNotify else want_detail == detail)
            if same:
                for _ in range(i + 1):
                    self._expected.popleft()
                return True
            if not skipping and want != X.MotionNotify:
                return False
        return False
