"""Token-bucket rate limits per (identity, operation), on the Clock port."""

from __future__ import annotations

import threading

from rpa_mcp.clock import Clock
from rpa_mcp.errors import RateLimited


class RateLimiter:
    def __init__(self, clock: Clock, *, per_minute: int, burst: int | None = None) -> None:
        self.clock = clock
        self.rate = per_minute / 60.0
        self.capacity = float(burst if burst is not None else max(1, per_minute // 6))
        self._buckets: dict[tuple[str, str], tuple[float, float]] = {}
        self._lock = threading.Lock()

    def check(self, identity: str, operation: str) -> None:
        now = self.clock.monotonic()
        with self._lock:
            tokens, last = self._buckets.get((identity, operation), (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens < 1.0:
                self._buckets[(identity, operation)] = (tokens, now)
                raise RateLimited(
                    f"too many calls of {operation} by {identity}; retry later",
                    retry_after_s=(1.0 - tokens) / self.rate,
                    operation=operation,
                )
            self._buckets[(identity, operation)] = (tokens - 1.0, now)
