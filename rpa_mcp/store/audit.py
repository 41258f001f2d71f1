"""Append-only, hash-chained audit log: an edited or deleted row breaks the chain."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.confirmation.digest import canonical_json, digest
from rpa_mcp.ops.redaction import summarize_args
from rpa_mcp.store.db import Database

MIGRATIONS = (
    """
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        ts REAL NOT NULL,
        actor TEXT NOT NULL,
        via TEXT NOT NULL,
        operation TEXT NOT NULL,
        args_digest TEXT NOT NULL,
        args_summary TEXT NOT NULL,
        outcome TEXT NOT NULL,
        code TEXT,
        duration_ms REAL NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
    CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END
    """,
)
GENESIS = "0" * 64
FIELDS = ("ts", "actor", "via", "operation", "args_digest", "args_summary", "outcome", "code", "duration_ms")


@dataclass(frozen=True)
class AuditCheck:
    ok: bool
    rows: int
    first_bad_id: int | None = None
    reason: str = ""


def _row_hash(prev_hash: str, row: dict[str, Any]) -> str:
    body = canonical_json({k: row[k] for k in FIELDS})
    return hashlib.sha256(f"{prev_hash}|{body}".encode()).hexdigest()


class AuditLog:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock
        self._lock = threading.Lock()
        db.migrate("audit", MIGRATIONS)

    def record(
        self,
        *,
        actor: str,
        operation: str,
        args: Any,
        outcome: str,
        code: str | None = None,
        duration_ms: float = 0.0,
        via: str = "",
    ) -> None:
        row = {
            "ts": round(self.clock.now(), 6),
            "actor": actor,
            "via": via,
            "operation": operation,
            "args_digest": digest(_jsonable(args)),
            "args_summary": summarize_args(args),
            "outcome": outcome,
            "code": code,
            "duration_ms": round(duration_ms, 3),
        }
        with self._lock, self.db.transaction() as conn:
            last = conn.execute("SELECT hash FROM audit ORDER BY id DESC LIMIT 1").fetchone()
            prev = last["hash"] if last else GENESIS
            conn.execute(
                "INSERT INTO audit (ts, actor, via, operation, args_digest, args_summary, outcome, code, duration_ms,"
                " prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (*[row[k] for k in FIELDS], prev, _row_hash(prev, row)),
            )

    def rows(self, *, operation: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM audit", []
        if operation:
            sql, params = sql + " WHERE operation = ?", [operation]
        return [dict(r) for r in self.db.query(sql + " ORDER BY id LIMIT ?", (*params, limit))]

    def verify(self) -> AuditCheck:
        prev, count, expected_id = GENESIS, 0, None
        for row in self.db.query("SELECT * FROM audit ORDER BY id"):
            count += 1
            if expected_id is not None and row["id"] != expected_id:
                return AuditCheck(False, count, row["id"], f"row(s) before id {row['id']} are missing")
            if row["prev_hash"] != prev:
                return AuditCheck(False, count, row["id"], "chain broken: prev_hash does not match")
            if _row_hash(prev, dict(row)) != row["hash"]:
                return AuditCheck(False, count, row["id"], "row content was edited")
            prev, expected_id = row["hash"], row["id"] + 1
        return AuditCheck(True, count)


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return repr(value)
