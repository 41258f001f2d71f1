"""Failed sign-ins per client address, one budget for every replica (`auth.throttle.FailedSignIns`).

The same budget as the in-memory `SignInThrottle` (`failures` per `window_s`, a token bucket
per address; a valid credential never reaches it; past the budget, the seconds to wait), kept
in one row per address so that N replicas do not allow N times the failures. The bucket is
stored as the instant it is full again (`full_at`, the "theoretical arrival time" of GCRA):
`tokens = capacity - max(0, full_at - now) * rate`. One UPSERT computes the bucket from the row
as it is when the statement takes the row's lock, so two replicas counting the same address at
once both count. A failure over the budget changes nothing (as in memory), only says so.

Only failures touch the database. Time is the server's wall clock (`Clock.now()`), which
replicas share through NTP; a replica whose clock lags never credits an address twice
(`full_at` never moves back).

Bounded: a row whose bucket is full again is the same as no row, so every `PRUNE_EVERY`
failures a replica deletes those, then the least recently failed beyond `max_addresses`; a
flood from many addresses keeps at most `max_addresses + PRUNE_EVERY` rows per replica.
If the database cannot be reached, failures are counted in this replica's memory meanwhile.

On SQLite (one process) bootstrap keeps the in-memory throttle: a failure then costs no write
lock that the operations wait for. The table exists on both backends (one schema, and the
same contract tests).
"""

from __future__ import annotations

import logging
import threading

from rpa_mcp.auth.throttle import MAX_ADDRESSES, SignInThrottle
from rpa_mcp.clock import Clock
from rpa_mcp.store.db import Database, Migrations, postgres_ddl

logger = logging.getLogger(__name__)

_V1 = """
    CREATE TABLE sign_in_failures (
        address TEXT PRIMARY KEY,
        full_at REAL NOT NULL,
        refused INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sign_in_failures_full_at ON sign_in_failures(full_at)
    """
MIGRATIONS = Migrations(sqlite=(_V1,), postgres=(postgres_ddl(_V1),))
PRUNE_EVERY = 100
EPSILON_S = 1e-6  # float rounding of full_at must not refuse the last failure of the budget
MAX_ADDRESS_CHARS = 200  # an address is an IP literal (or "?"); anything longer is cut

# Parameters: address, now + T (a first failure); now, W - T (refused?); now, W - T, now, T, now + T (full_at).
_COUNT = """
    INSERT INTO sign_in_failures(address, full_at, refused) VALUES (?, ?, 0)
    ON CONFLICT(address) DO UPDATE SET
        refused = CASE WHEN sign_in_failures.full_at - ? > ? THEN 1 ELSE 0 END,
        full_at = CASE
            WHEN sign_in_failures.full_at - ? > ? THEN sign_in_failures.full_at
            WHEN sign_in_failures.full_at > ? THEN sign_in_failures.full_at + ?
            ELSE ? END
    RETURNING full_at, refused
    """


class SharedSignInThrottle:
    """Token buckets per address in the database, shared by every replica."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        failures: int,
        window_s: float,
        max_addresses: int = MAX_ADDRESSES,
        prune_every: int = PRUNE_EVERY,
    ) -> None:
        self.db, self.clock, self.window_s = db, clock, window_s
        self.interval = window_s / failures  # the budget one failure costs (s); it comes back at that pace
        self.max_addresses, self.prune_every = max_addresses, prune_every
        self.fallback = SignInThrottle(clock, failures=failures, window_s=window_s, max_addresses=max_addresses)
        self._counted = 0
        self._lock = threading.Lock()
        self._down = False
        db.migrate("sign-in-failures", MIGRATIONS)

    def failed(self, address: str) -> float | None:
        """Count one failed sign-in; the seconds to wait when the address is over its budget, else None."""
        address = address[:MAX_ADDRESS_CHARS]
        now = self.clock.now()
        slack = self.window_s - self.interval + EPSILON_S  # how far ahead full_at may be and still allow one more
        try:
            rows = self.db.query(
                _COUNT, (address, now + self.interval, now, slack, now, slack, now, self.interval, now + self.interval)
            )
        except Exception as exc:  # the database is unreachable: this replica counts alone meanwhile
            if not self._down:
                logger.warning("failed sign-ins are counted per replica until the database answers again (%r)", exc)
            self._down = True
            return self.fallback.failed(address)
        self._down = False
        self._maybe_prune(now)
        row = rows[0]
        if not row["refused"]:
            return None
        return max(EPSILON_S, float(row["full_at"]) - now - (self.window_s - self.interval))

    def _maybe_prune(self, now: float) -> None:
        with self._lock:
            self._counted += 1
            if self._counted % self.prune_every:
                return
        self.prune(now)

    def prune(self, now: float | None = None) -> int:
        """Forget the addresses whose budget is whole again, then the least recently failed beyond
        `max_addresses`; returns how many rows went."""
        now = self.clock.now() if now is None else now
        try:
            with self.db.transaction() as conn:
                gone = conn.execute("DELETE FROM sign_in_failures WHERE full_at <= ?", (now,)).rowcount
                gone += conn.execute(
                    "DELETE FROM sign_in_failures WHERE full_at < "
                    "(SELECT full_at FROM sign_in_failures ORDER BY full_at DESC LIMIT 1 OFFSET ?)",
                    (self.max_addresses - 1,),
                ).rowcount
        except Exception:  # another replica pruning at the same time, say: the next prune will do
            logger.debug("sign-in failures not pruned", exc_info=True)
            return 0
        return max(0, gone)

    def rows(self) -> int:
        row = self.db.query_one("SELECT COUNT(*) AS n FROM sign_in_failures")
        return int(row["n"]) if row else 0
