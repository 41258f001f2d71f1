"""Sessions of the approval web page (area "web").

The browser cookie holds a random session id; the database keeps only its sha256, so a
copy of the database does not let anyone take over a session. The access token a person
pasted to sign in is never stored. Each session has its own CSRF secret.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass

from rpa_mcp.clock import Clock
from rpa_mcp.store.db import Database, Migrations, postgres_ddl

_V1 = """
    CREATE TABLE web_sessions (
        id_sha256 TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        roles_json TEXT NOT NULL,
        auth TEXT NOT NULL,
        csrf_secret TEXT NOT NULL,
        created_at REAL NOT NULL,
        last_seen REAL NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX web_sessions_expiry ON web_sessions(expires_at)
    """
# A session is an identity (issuer, subject). The sessions open before this step may have been opened
# with an access token (an LLM client's): they end, and people sign in again.
_V2 = """
    DELETE FROM web_sessions;
    ALTER TABLE web_sessions ADD COLUMN issuer TEXT NOT NULL DEFAULT ''
    """
MIGRATIONS = Migrations(sqlite=(_V1, _V2), postgres=(postgres_ddl(_V1), _V2))


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class WebSession:
    subject: str
    roles: frozenset[str]
    auth: str  # console (a console credential) | oidc (the identity provider)
    csrf_secret: bytes
    created_at: float
    expires_at: float
    issuer: str = ""  # with subject, who the person is


class WebSessionStore:
    """Absolute lifetime `ttl_s`; a session unused for `idle_s` ends too."""

    def __init__(self, db: Database, clock: Clock, *, ttl_s: float = 8 * 3600, idle_s: float = 30 * 60) -> None:
        self.db, self.clock, self.ttl_s, self.idle_s = db, clock, ttl_s, idle_s
        db.migrate("web", MIGRATIONS)

    def create(self, subject: str, roles: frozenset[str], auth: str, *, issuer: str = "") -> str:
        """A new session for `subject` of `issuer`; returns its id (for the cookie only)."""
        now = self.clock.now()
        session_id = secrets.token_urlsafe(32)
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM web_sessions WHERE expires_at < ? OR last_seen < ?", (now, now - self.idle_s))
            conn.execute(
                "INSERT INTO web_sessions VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    _hash(session_id),
                    subject,
                    json.dumps(sorted(roles)),
                    auth,
                    secrets.token_hex(32),
                    now,
                    now,
                    now + self.ttl_s,
                    issuer,
                ),
            )
        return session_id

    def get(self, session_id: str | None) -> WebSession | None:
        """The live session for this id (its idle timer restarts), or None."""
        if not session_id or len(session_id) > 200:
            return None
        now = self.clock.now()
        key = _hash(session_id)
        with self.db.transaction() as conn:
            row = conn.execute("SELECT * FROM web_sessions WHERE id_sha256 = ?", (key,)).fetchone()
            if row is None:
                return None
            if row["expires_at"] < now or row["last_seen"] < now - self.idle_s:
                conn.execute("DELETE FROM web_sessions WHERE id_sha256 = ?", (key,))
                return None
            conn.execute("UPDATE web_sessions SET last_seen = ? WHERE id_sha256 = ?", (now, key))
        return WebSession(
            subject=row["subject"],
            roles=frozenset(json.loads(row["roles_json"])),
            auth=row["auth"],
            csrf_secret=bytes.fromhex(row["csrf_secret"]),
            created_at=row["created_at"],
            expires_at=row["expires_at"],
            issuer=row["issuer"],
        )

    def delete(self, session_id: str | None) -> None:
        if session_id:
            self.db.execute("DELETE FROM web_sessions WHERE id_sha256 = ?", (_hash(session_id),))
