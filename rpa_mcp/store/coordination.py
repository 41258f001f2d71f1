"""What replicas agree on through the database: shared keys, shared rate counters, one leader.

- `shared_key(name)`: a random key created once by whichever replica comes first (signing
  keys when `RPA_JWT_SECRET` is not set); every replica then reads the same bytes.
- `SharedRateLimiter`: mutations (`propose_*`, `apply_*`) are counted in the database per
  identity, operation and minute, so N replicas do not allow N times the limit; other calls
  keep the replica's own token bucket (no database round trip on a read).
- `Leadership`: the watchdog runs on one replica at a time. On PostgreSQL it is a session
  advisory lock held by a dedicated connection: when the leader dies, its connection closes,
  the lock is free, and the next replica to try (every scan interval) takes over. On SQLite
  (one process) the process is always the leader.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import threading
from collections.abc import Callable
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.errors import RateLimited
from rpa_mcp.ops.ratelimit import RateLimiter
from rpa_mcp.store.db import Database, Migrations, postgres_ddl

logger = logging.getLogger(__name__)

_V1 = """
    CREATE TABLE shared_keys (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE rate_counters (
        bucket TEXT NOT NULL,
        window_start BIGINT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (bucket, window_start)
    )
    """
MIGRATIONS = Migrations(sqlite=(_V1,), postgres=(postgres_ddl(_V1),))
LEADER_LOCK = 0x7270615F776400  # "rpa_wd": the watchdog's advisory lock id


class Coordination:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock
        db.migrate("coordination", MIGRATIONS)

    def shared_key(self, name: str, *, nbytes: int = 48) -> bytes:
        """The key `name`, created once for every replica of this database."""
        candidate = secrets.token_urlsafe(nbytes)
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO shared_keys(name, value, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (name, candidate, self.clock.now()),
            )
            row = conn.execute("SELECT value FROM shared_keys WHERE name = ?", (name,)).fetchone()
        return str(row["value"]).encode()

    def count(self, bucket: str, *, window_s: int = 60) -> int:
        """Add one to `bucket` in the current window; returns the window's count."""
        window = int(self.clock.now() // window_s) * window_s
        with self.db.transaction() as conn:
            if self.db.dialect == "postgres":
                conn.execute("SET LOCAL synchronous_commit = off")  # a lost count costs nothing
            row = conn.execute(
                "INSERT INTO rate_counters(bucket, window_start, n) VALUES (?, ?, 1) "
                "ON CONFLICT(bucket, window_start) DO UPDATE SET n = rate_counters.n + 1 RETURNING n",
                (bucket, window),
            ).fetchone()
            if secrets.randbelow(200) == 0:  # now and then: forget windows long gone
                conn.execute("DELETE FROM rate_counters WHERE window_start < ?", (window - 10 * window_s,))
        return int(row["n"])


class SharedRateLimiter:
    """The per-minute limit of mutations across replicas; the local bucket for everything else."""

    def __init__(
        self,
        coordination: Coordination,
        local: RateLimiter,
        *,
        per_minute: int,
        shared: Callable[[str], bool] = lambda op: op.startswith(("propose_", "apply_")),
    ) -> None:
        self.coordination, self.local, self.per_minute, self.shared = coordination, local, per_minute, shared

    def check(self, identity: str, operation: str) -> None:
        if not self.shared(operation):
            self.local.check(identity, operation)
            return
        n = self.coordination.count(f"{operation} by {identity}")
        if n > self.per_minute:
            now = self.coordination.clock.now()
            raise RateLimited(
                f"too many calls of {operation} by {identity} this minute (all replicas); retry later",
                retry_after_s=max(1.0, 60 - math.fmod(now, 60)),
                operation=operation,
            )


class Leadership:
    """Whether this replica runs the watchdog now (asked before each scan)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._conn: Any = None
        self._lock = threading.Lock()

    @property
    def leading(self) -> bool:
        """Whether this replica held the lock at its last scan (no database call)."""
        return self.db.dialect != "postgres" or self._conn is not None

    def is_leader(self) -> bool:
        if self.db.dialect != "postgres":
            return True
        with self._lock:
            try:
                if self._conn is not None and not self._conn.closed:
                    self._conn.execute("SELECT 1")  # still connected: still holding the lock
                    return True
                self._conn = None
                return self._try_acquire()
            except Exception as exc:  # the database went away: leadership is lost with the connection
                logger.warning("watchdog leadership lost: %r", exc)
                self._drop()
                return False

    def _try_acquire(self) -> bool:
        import psycopg

        conn = psycopg.connect(self.db.conninfo, autocommit=True)  # type: ignore[attr-defined]  # postgres only
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (LEADER_LOCK,)).fetchone()
        if row and row[0]:
            self._conn = conn
            logger.info("this replica now runs the watchdog")
            return True
        conn.close()
        return False

    def _drop(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):  # already broken
                self._conn.close()
        self._conn = None

    def release(self) -> None:
        with self._lock:
            self._drop()
