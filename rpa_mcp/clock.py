"""Time is a port: leases, TTLs and watchdogs take a `Clock`; tests use `testing.FakeClock`."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Wall-clock seconds since the epoch (timestamps shown to people, token claims)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never jumps (deadlines, leases)."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()
