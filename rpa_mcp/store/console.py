"""What the console keeps between two requests (area "console-logins" and "console-tokens").

- Sign-ins in progress at the identity provider: between the redirect to the provider and
  its callback, the server keeps the PKCE verifier, the nonce and where to go back, under
  the sha256 of the `state` value (which travels in the URL and in a short-lived cookie).
  A record is taken exactly once and expires quickly.
- Proposals a person made from the console that wait for someone else's approval: the
  confirmation token is kept for that person (and only them) until it is applied or expires,
  since the console, not a model, holds it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from rpa_mcp.clock import Clock
from rpa_mcp.store.db import Database, Migrations, postgres_ddl

_LOGINS_V1 = """
    CREATE TABLE console_logins (
        state_sha256 TEXT PRIMARY KEY,
        code_verifier TEXT NOT NULL,
        nonce TEXT NOT NULL,
        next TEXT NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX console_logins_expiry ON console_logins(expires_at)
    """
MIGRATIONS = Migrations(sqlite=(_LOGINS_V1,), postgres=(postgres_ddl(_LOGINS_V1),))


def _hash(state: str) -> str:
    return hashlib.sha256(state.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PendingLogin:
    code_verifier: str
    nonce: str
    next: str


class PendingLogins:
    def __init__(self, db: Database, clock: Clock, *, ttl_s: float = 600.0) -> None:
        self.db, self.clock, self.ttl_s = db, clock, ttl_s
        db.migrate("console-logins", MIGRATIONS)

    def add(self, state: str, login: PendingLogin) -> None:
        now = self.clock.now()
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM console_logins WHERE expires_at < ?", (now,))
            conn.execute(
                "INSERT INTO console_logins VALUES (?,?,?,?,?)",
                (_hash(state), login.code_verifier, login.nonce, login.next, now + self.ttl_s),
            )

    def take(self, state: str | None) -> PendingLogin | None:
        """The sign-in started with this state, removed so it cannot be used twice; None if unknown or expired."""
        if not state or len(state) > 200:
            return None
        key = _hash(state)
        with self.db.transaction() as conn:
            row = conn.execute("SELECT * FROM console_logins WHERE state_sha256 = ?", (key,)).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM console_logins WHERE state_sha256 = ?", (key,))
        if row["expires_at"] < self.clock.now():
            return None
        return PendingLogin(code_verifier=row["code_verifier"], nonce=row["nonce"], next=row["next"])


_TOKENS_V1 = """
    CREATE TABLE console_tokens (
        jti TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        operation TEXT NOT NULL,
        token TEXT NOT NULL,
        expires_at REAL NOT NULL
    )
    """
TOKEN_MIGRATIONS = Migrations(sqlite=(_TOKENS_V1,), postgres=(postgres_ddl(_TOKENS_V1),))


class ProposalTokens:
    """Confirmation tokens of console proposals waiting for another person's approval."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock
        db.migrate("console-tokens", TOKEN_MIGRATIONS)

    def keep(self, jti: str, *, subject: str, operation: str, token: str, expires_at: float) -> None:
        now = self.clock.now()
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM console_tokens WHERE expires_at < ?", (now,))
            conn.execute("DELETE FROM console_tokens WHERE jti = ?", (jti,))
            conn.execute("INSERT INTO console_tokens VALUES (?,?,?,?,?)", (jti, subject, operation, token, expires_at))

    def token_for(self, jti: str, subject: str) -> tuple[str, str] | None:
        """(operation, token) of this person's kept proposal, if it has not expired."""
        row = self.db.query_one("SELECT * FROM console_tokens WHERE jti = ? AND subject = ?", (jti, subject))
        if row is None or row["expires_at"] < self.clock.now():
            return None
        return str(row["operation"]), str(row["token"])

    def forget(self, jti: str) -> None:
        self.db.execute("DELETE FROM console_tokens WHERE jti = ?", (jti,))
