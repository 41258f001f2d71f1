"""Revoked token subjects: every access token of a subject issued up to its revocation is refused.

`rpa-mcp revoke SUBJECT` (a workstation's `ws-...`, a person, a scraper) writes one row; a token
of that subject minted afterwards (a re-enrolment) is accepted again. The rows live in the
database, so every replica refuses the same tokens; each process re-reads the (small) table at
most every `refresh_s` seconds, so a revocation takes effect within that delay without a read per
request.
"""

from __future__ import annotations

import threading

from rpa_mcp.clock import Clock
from rpa_mcp.store.db import Database, Migrations, postgres_ddl

_V1 = """
    CREATE TABLE token_revocations (
        subject TEXT PRIMARY KEY,
        revoked_at REAL NOT NULL,
        revoked_by TEXT NOT NULL DEFAULT ''
    )
    """
MIGRATIONS = Migrations(sqlite=(_V1,), postgres=(postgres_ddl(_V1),))
REFRESH_S = 5.0


class TokenRevocations:
    def __init__(self, db: Database, clock: Clock, *, refresh_s: float = REFRESH_S) -> None:
        self.db, self.clock, self.refresh_s = db, clock, refresh_s
        self._known: dict[str, float] = {}
        self._read_at: float | None = None
        self._lock = threading.Lock()

    def revoke(self, subject: str, *, by: str = "") -> float:
        """Refuse from now on every token of `subject` issued until now; returns that instant."""
        now = self.clock.now()
        self.db.execute(
            "INSERT INTO token_revocations(subject, revoked_at, revoked_by) VALUES (?, ?, ?) "
            "ON CONFLICT(subject) DO UPDATE SET revoked_at = excluded.revoked_at, revoked_by = excluded.revoked_by",
            (subject, now, by),
        )
        with self._lock:
            self._known[subject] = now
        return now

    def listed(self) -> dict[str, float]:
        """Every revoked subject and its instant, read now."""
        rows = self.db.query("SELECT subject, revoked_at FROM token_revocations ORDER BY subject")
        return {str(row["subject"]): float(row["revoked_at"]) for row in rows}

    def revoked_at(self, subject: str) -> float | None:
        """When `subject`'s tokens were revoked (None: never), as of at most `refresh_s` ago."""
        now = self.clock.now()
        with self._lock:
            stale = self._read_at is None or now - self._read_at >= self.refresh_s
        if stale:
            known = self.listed()
            with self._lock:
                self._known, self._read_at = known, now
        with self._lock:
            return self._known.get(subject)
