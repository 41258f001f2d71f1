"""Append-only, hash-chained audit log: an edited or deleted row breaks the chain."""

from __future__ import annotations

import hashlib
import json
import queue
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
    """Rows are chained and committed by one writer thread, in batches (group commit).

    `record(..., wait=True)` returns once the row is on disk; `wait=False` (successful
    reads) returns at once and the row follows within milliseconds. Readers flush first.
    """

    IDLE_EXIT_S = 1.0

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db, self.clock = db, clock
        # Its own connection on a file database: readers of other tables never wait for its fsync (WAL).
        self._writer_db = db if db.path == ":memory:" else Database(db.path)
        self._queue: queue.Queue[_Pending] = queue.Queue()
        self._lock = threading.Lock()
        self._writer: threading.Thread | None = None
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
        wait: bool = True,
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
        pending = _Pending(row, threading.Event() if wait else None)
        self._queue.put(pending)
        self._ensure_writer()
        if pending.done is not None:
            pending.done.wait()
            if pending.error is not None:
                raise pending.error

    def flush(self) -> None:
        """Return once every row recorded so far is committed."""
        marker = _Pending(None, threading.Event())
        self._queue.put(marker)
        self._ensure_writer()
        assert marker.done is not None
        marker.done.wait()

    def _ensure_writer(self) -> None:
        with self._lock:
            if self._writer is None or not self._writer.is_alive():
                self._writer = threading.Thread(target=self._run, name="audit-writer", daemon=True)
                self._writer.start()

    def _run(self) -> None:
        while True:
            try:
                batch = [self._queue.get(timeout=self.IDLE_EXIT_S)]
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._writer = None
                        return
                continue
            while len(batch) < 500:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            error: Exception | None = None
            try:
                self._commit([p.row for p in batch if p.row is not None])
            except Exception as exc:  # surfaced to every waiting caller of the batch
                error = exc
            for p in batch:
                p.error = error
                if p.done is not None:
                    p.done.set()

    def _commit(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        with self._writer_db.transaction() as conn:
            last = conn.execute("SELECT hash FROM audit ORDER BY id DESC LIMIT 1").fetchone()
            prev = last["hash"] if last else GENESIS
            for row in rows:
                current = _row_hash(prev, row)
                conn.execute(
                    "INSERT INTO audit (ts, actor, via, operation, args_digest, args_summary, outcome, code,"
                    " duration_ms, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (*[row[k] for k in FIELDS], prev, current),
                )
                prev = current

    def rows(self, *, operation: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        self.flush()
        sql, params = "SELECT * FROM audit", []
        if operation:
            sql, params = sql + " WHERE operation = ?", [operation]
        return [dict(r) for r in self.db.query(sql + " ORDER BY id LIMIT ?", (*params, limit))]

    def search(
        self,
        *,
        actor: str | None = None,
        operation: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 200,
    ) -> list[dict[str, Any]]:
        """Newest first: rows whose actor contains `actor`, whose operation contains `operation`, in [since, until]."""
        self.flush()
        where: list[str] = []
        params: list[Any] = []
        if actor:
            where.append("instr(lower(actor), lower(?)) > 0")
            params.append(actor)
        if operation:
            where.append("instr(lower(operation), lower(?)) > 0")
            params.append(operation)
        if since is not None:
            where.append("ts >= ?")
            params.append(since)
        if until is not None:
            where.append("ts <= ?")
            params.append(until)
        sql = "SELECT * FROM audit" + (" WHERE " + " AND ".join(where) if where else "")
        return [dict(r) for r in self.db.query(sql + " ORDER BY id DESC LIMIT ?", (*params, limit))]

    def verify(self) -> AuditCheck:
        self.flush()
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


@dataclass
class _Pending:
    row: dict[str, Any] | None  # None: a flush marker
    done: threading.Event | None
    error: Exception | None = None


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return repr(value)
