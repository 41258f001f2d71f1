"""Failed sign-ins, throttled per client address without ever refusing a valid credential.

Behind a reverse proxy every user shares one address: a lockout of the address would let
anyone (or one person's typos) lock everyone out. So the credential is always checked first,
a valid one always passes, and only failures are counted: each address has a budget of
`failures` per `window_s` (a token bucket); past it, its further failures are answered 429
with Retry-After instead of 401. The credentials themselves are unguessable by construction
(signing keys of at least 32 bytes, a static agent token of at least 24 characters), so the
throttle bounds what failures cost the server and says clearly that something is wrong.

At most `max_addresses` addresses are tracked (least recently failed forgotten first), so a
flood from many addresses cannot grow memory.

`SignInThrottle` keeps the buckets in the process's memory: right for one process (SQLite).
Replicas share one budget per address through the database (`store.sign_in_failures`), else N
replicas would allow N times the failures. Either may be a database round trip, so the HTTP
surfaces count a failure with `count_failure`, off the event loop and a few at a time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Protocol

import anyio
import anyio.to_thread

from rpa_mcp.clock import Clock

MAX_ADDRESSES = 10_000
# Failures counted at once in worker threads: a flood of bad credentials from many addresses
# waits here instead of taking the threads (and store connections) that operations need.
COUNTING = anyio.CapacityLimiter(4)


class FailedSignIns(Protocol):
    """Where failed sign-ins are counted (in memory, or shared by the replicas)."""

    def failed(self, address: str) -> float | None:
        """Count one failed sign-in; the seconds to wait when the address is over its budget, else None."""
        ...


async def count_failure(throttle: FailedSignIns, address: str) -> float | None:
    """`throttle.failed(address)` from async code, without blocking the event loop."""
    return await anyio.to_thread.run_sync(throttle.failed, address, limiter=COUNTING)


class SignInThrottle:
    """Token buckets per address in this process's memory."""

    def __init__(self, clock: Clock, *, failures: int, window_s: float, max_addresses: int = MAX_ADDRESSES) -> None:
        self.clock, self.capacity, self.window_s = clock, float(failures), window_s
        self.rate = failures / window_s  # budget regained per second
        self.max_addresses = max_addresses
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # address -> (tokens, at)
        self._lock = threading.Lock()

    def _tokens(self, address: str, now: float) -> float:
        tokens, at = self._buckets.get(address, (self.capacity, now))
        return min(self.capacity, tokens + (now - at) * self.rate)

    def failed(self, address: str) -> float | None:
        """Count one failed sign-in; the seconds to wait when the address is over its budget, else None."""
        now = self.clock.monotonic()
        with self._lock:
            tokens = self._tokens(address, now)
            over = tokens < 1.0
            self._buckets[address] = (tokens if over else tokens - 1.0, now)
            self._buckets.move_to_end(address)
            while len(self._buckets) > self.max_addresses:
                self._buckets.popitem(last=False)
        return (1.0 - tokens) / self.rate if over else None
