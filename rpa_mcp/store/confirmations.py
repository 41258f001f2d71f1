"""SQLite repository of proposals (confirmation tokens and approval records)."""

from __future__ import annotations

import json

from rpa_mcp.confirmation.ports import ProposalRecord
from rpa_mcp.ops.redaction import redact
from rpa_mcp.store.db import Database, Migrations, Row, postgres_ddl

_V1 = """
    CREATE TABLE proposals (
        jti TEXT PRIMARY KEY,
        operation TEXT NOT NULL,
        risk TEXT NOT NULL,
        subject TEXT NOT NULL,
        args_json TEXT NOT NULL,
        args_digest TEXT NOT NULL,
        binding_digest TEXT NOT NULL,
        summary TEXT NOT NULL,
        details_json TEXT NOT NULL,
        diff TEXT,
        approval_mode TEXT NOT NULL,
        approval_status TEXT NOT NULL,
        approver TEXT,
        decided_at REAL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        consumed_at REAL
    );
    CREATE INDEX proposals_pending ON proposals(approval_status, expires_at)
    """
# Who proposed is an identity (issuer, subject), and where: only a proposal made in the console is
# approved by its proposer's own answer. Older rows have neither (an empty issuer matches no caller).
_V2 = """
    ALTER TABLE proposals ADD COLUMN issuer TEXT NOT NULL DEFAULT '';
    ALTER TABLE proposals ADD COLUMN via TEXT NOT NULL DEFAULT ''
    """
MIGRATIONS = Migrations(sqlite=(_V1, _V2), postgres=(postgres_ddl(_V1), _V2))


class SqliteProposalRepository:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("confirmations", MIGRATIONS)

    def insert(self, r: ProposalRecord) -> None:
        self.db.execute(
            "INSERT INTO proposals VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                r.jti,
                r.operation,
                r.risk,
                r.subject,
                json.dumps(r.args, ensure_ascii=False),
                r.args_digest,
                r.binding_digest,
                r.summary,
                json.dumps(r.details, ensure_ascii=False, default=str),
                r.diff,
                r.approval_mode,
                r.approval_status,
                r.approver,
                r.decided_at,
                r.created_at,
                r.expires_at,
                r.consumed_at,
                r.issuer,
                r.via,
            ),
        )

    def get(self, jti: str) -> ProposalRecord | None:
        row = self.db.query_one("SELECT * FROM proposals WHERE jti = ?", (jti,))
        return _record(row) if row else None

    def decide(self, jti: str, *, status: str, approver: str, at: float) -> bool:
        """Pending -> approved/rejected (once); a rejected proposal's secret values are scrubbed at once."""
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT args_json FROM proposals WHERE jti = ? AND approval_status = 'pending'", (jti,)
            ).fetchone()
            if row is None:
                return False
            args = row["args_json"] if status != "rejected" else _scrubbed(row["args_json"])
            changed = conn.execute(
                "UPDATE proposals SET approval_status = ?, approver = ?, decided_at = ?, args_json = ? "
                "WHERE jti = ? AND approval_status = 'pending'",
                (status, approver, at, args, jti),
            ).rowcount
        if changed == 1 and args != row["args_json"]:
            self.db.forget_scrubbed()
        return bool(changed == 1)

    def consume(self, jti: str, *, at: float) -> bool:
        """Mark used (one winner) and scrub secret values from the stored arguments: no longer needed."""
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT args_json FROM proposals WHERE jti = ? AND consumed_at IS NULL", (jti,)
            ).fetchone()
            if row is None:
                return False
            scrubbed = _scrubbed(row["args_json"])
            changed = conn.execute(
                "UPDATE proposals SET consumed_at = ?, args_json = ? WHERE jti = ? AND consumed_at IS NULL",
                (at, scrubbed, jti),
            ).rowcount
        if changed == 1 and scrubbed != row["args_json"]:
            self.db.forget_scrubbed()
        return bool(changed == 1)

    def scrub_expired(self, *, after: float, before: float) -> int:
        """Scrub the secret values of the proposals that expired unused in [after, before); how many changed.

        The sweep passes the end of its previous window as `after`, so each row is read once.
        """
        changed = 0
        with self.db.transaction() as conn:
            rows = conn.execute(
                "SELECT jti, args_json FROM proposals WHERE consumed_at IS NULL AND expires_at >= ? AND expires_at < ?",
                (after, before),
            ).fetchall()
            for row in rows:
                scrubbed = _scrubbed(row["args_json"])
                if scrubbed != row["args_json"]:
                    changed += conn.execute(
                        "UPDATE proposals SET args_json = ? WHERE jti = ?", (scrubbed, row["jti"])
                    ).rowcount
        if changed:
            self.db.forget_scrubbed()
        return changed

    def pending(self, *, now: float) -> list[ProposalRecord]:
        rows = self.db.query(
            "SELECT * FROM proposals WHERE approval_status = 'pending' AND expires_at >= ? AND consumed_at IS NULL "
            "ORDER BY created_at",
            (now,),
        )
        return [_record(r) for r in rows]


def _scrubbed(args_json: str) -> str:
    """Stored arguments with their secret values replaced by the redaction mark."""
    return json.dumps(redact(json.loads(args_json)), ensure_ascii=False)


def _record(row: Row) -> ProposalRecord:
    return ProposalRecord(
        jti=row["jti"],
        operation=row["operation"],
        risk=row["risk"],
        subject=row["subject"],
        args=json.loads(row["args_json"]),
        args_digest=row["args_digest"],
        binding_digest=row["binding_digest"],
        summary=row["summary"],
        details=json.loads(row["details_json"]),
        diff=row["diff"],
        approval_mode=row["approval_mode"],
        approval_status=row["approval_status"],
        approver=row["approver"],
        decided_at=row["decided_at"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        consumed_at=row["consumed_at"],
        issuer=row["issuer"],
        via=row["via"],
    )
