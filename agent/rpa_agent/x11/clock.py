"""X server time (the milliseconds every input and property change is stamped with) on this
machine's clocks.

The server's clock is read by a round trip: a request sent at monotonic time `sent` produces an
event the server stamps `server_ms`, so that stamp was made at or after `sent`. The tightest of
these bounds is kept (both clocks are monotonic and do not drift apart; a stamp may be up to
`RESOLUTION_S` older than the moment it was made, which the bound allows for), which makes
`monotonic(t)` never later than the real moment of `t`: a screenshot finished before it was
certainly taken before the input stamped `t`, however late the input reached this process.
"""

from __future__ import annotations

import threading
import time

WRAP = 1 << 32  # X time is a 32-bit count of milliseconds
RESOLUTION_S = 0.005  # a stamp is whole milliseconds of a clock that may be read coarsely: that much early


def delta_ms(later: int, earlier: int) -> int:
    """`later - earlier` across the 32-bit wrap (49.7 days)."""
    delta = (later - earlier) % WRAP
    return delta - WRAP if delta >= WRAP // 2 else delta


class ServerClock:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ref: tuple[int, float] | None = None  # (server ms, monotonic at or before that stamp)

    @property
    def known(self) -> bool:
        return self._ref is not None

    def observe(self, server_ms: int, sent: float) -> None:
        """The server stamped `server_ms` on something this process asked for at monotonic `sent`."""
        with self._lock:
            earliest = sent - RESOLUTION_S
            if self._ref is None:
                self._ref = (server_ms, earliest)
                return
            ref_ms, ref_mono = self._ref
            if earliest > ref_mono + delta_ms(server_ms, ref_ms) / 1000:
                self._ref = (server_ms, earliest)

    def monotonic(self, server_ms: int) -> float | None:
        """The earliest time.monotonic() at which the server can have stamped `server_ms`."""
        with self._lock:
            if self._ref is None:
                return None
            ref_ms, ref_mono = self._ref
        return ref_mono + delta_ms(server_ms, ref_ms) / 1000

    def wall(self, server_ms: int) -> float:
        """Epoch seconds of `server_ms` (now, when the clock has not been read yet)."""
        moment = self.monotonic(server_ms)
        if moment is None:
            return time.time()
        return time.time() - (time.monotonic() - moment)
