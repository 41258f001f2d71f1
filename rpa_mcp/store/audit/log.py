"""Append-only audit log, chained with a keyed MAC and checkpointed outside the database.

How a row gets there:
- An operation runs inside `AuditLog.scope(...)`. The first transaction of that operation
  that writes anything also inserts the operation's audit row (table `audit_inbox`), in the
  same commit: a write is never on disk without its row, whatever kills the process.
- Rows of operations that wrote nothing (reads, refusals, errors) are queued in memory and
  committed by one writer thread in batches (group commit); `wait=True` returns once the row
  is on disk, `wait=False` (successful reads) returns at once.
- The same writer chains rows: under the chain's head lock (`audit_head`, one row) it moves
  inbox rows and queued rows into `audit`, each with `mac = HMAC(key, prev_mac | id | row)`,
  ids contiguous from 1. On PostgreSQL every replica's writer takes the same lock, so there
  is one serialised chain; a batch is one pipelined transaction of two round trips (the locked
  head and the inbox; then one `INSERT` of all its rows as one JSON parameter, the inbox `DELETE`,
  the head, `COMMIT`). A batch of rows only, on the head this writer left, is one statement in
  autocommit instead (one round trip): it moves the head only if it is still where this writer
  left it, and inserts the rows only then; when another writer moved it, nothing is written and
  the batch goes the locked way (and so does every batch for `SWEEP_S` after that). The inbox is
  read at least every `SWEEP_S`, so rows of other processes wait at most that long.
- The head (id, mac), itself MACed, is written to a checkpoint file outside the database
  (`RPA_AUDIT_CHECKPOINT`, default `data_dir/audit.head`, with its own fsync): after every
  batch somebody waits for (an error, a mutation, `flush()`, `close()`), and otherwise at most
  every `CHECKPOINT_S` seconds and once the writer has had nothing to do for that long.

What is durable when (the contract): a row committed with an operation's write is on disk
with that write; a row somebody waits for is committed, chained and checkpointed before the
wait returns; a row nobody waits for (a successful read) is committed within `GROUP_S` and
covered by the checkpoint within about `CHECKPOINT_S` more; when its batch fails (the database
away for a moment), it is queued again, first, up to `ATTEMPTS` times `RETRY_S` apart and
more, and only then logged as lost (a caller who waits gets the error at once: its call fails).
A batch that failed after its commit reached the database is written twice, never lost. The
checkpoint only detects a
deleted tail: rows chained since the last checkpoint are protected by the chain and the head
row alone until the next one.

`verify()` detects an edited row (MAC), a deleted or inserted row (ids, prev_mac), re-hashed
rows (no key, no valid MAC) and a deleted tail (the checkpoint names a row that is gone or
differs). The key never enters the database (`RPA_AUDIT_KEY`, or `data_dir/audit.key`).
"""

from __future__ import annotations

import collections
import contextvars
import json
import logging
import secrets
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.confirmation.digest import digest
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops.redaction import summarize_args
from rpa_mcp.store.audit import reading
from rpa_mcp.store.audit.chain import BATCH, Chainer, Pending
from rpa_mcp.store.audit.checkpoint import write_checkpoint
from rpa_mcp.store.audit.key import MIN_KEY_BYTES
from rpa_mcp.store.audit.schema import MIGRATIONS, ROW_FIELDS
from rpa_mcp.store.audit.verify import AuditCheck, verify_chain
from rpa_mcp.store.db import Connection, Database
from rpa_mcp.store.jsoncheck import unauditable

logger = logging.getLogger(__name__)

_NO_ARGS = (digest({}), summarize_args({}))


@dataclass
class AuditScope:
    """One operation in progress: its row, committed with the operation's first write."""

    row: dict[str, Any]
    started: float
    logged: bool = False


_SCOPE: contextvars.ContextVar[AuditScope | None] = contextvars.ContextVar("rpa_audit_scope", default=None)


class AuditLog:
    IDLE_EXIT_S = 1.0
    GROUP_S = 0.02  # how long rows nobody waits for may gather before they are committed
    CHECKPOINT_S = 1.0  # how long the checkpoint may lag behind rows nobody waits for
    ATTEMPTS = 5  # a row nobody waits for: how many batches it may take part in before it is given up
    RETRY_S = 0.2  # the pause before a failed batch's rows are tried again (times the attempt)
    SWEEP_S = Chainer.SWEEP_S  # PostgreSQL: how long inbox rows of other processes may wait to be chained

    def __init__(
        self,
        db: Database,
        clock: Clock,
        *,
        key: bytes | None = None,
        checkpoint: Path | None = None,
        writer_db: Database | None = None,
    ) -> None:
        self.db, self.clock = db, clock
        if key is not None and len(key) < MIN_KEY_BYTES:
            raise ValueError(f"the audit key must be at least {MIN_KEY_BYTES} bytes")
        self.key = key if key is not None else secrets.token_bytes(32)
        self.checkpoint = checkpoint
        db.migrate("audit", MIGRATIONS)
        # Its own connection on a SQLite file: readers of other tables never wait for its fsync (WAL).
        if writer_db is not None:
            self._writer_db = writer_db
        elif db.dialect == "sqlite" and db.path != ":memory:":
            self._writer_db = Database(db.path)
        else:
            self._writer_db = db
        self._pending: collections.deque[Pending] = collections.deque()
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._idle = False  # the writer sleeps until a row comes
        self._closing = False
        self._writer: threading.Thread | None = None
        self._unwritten: tuple[int, str] | None = None  # a head chained but not checkpointed yet (writer only)
        self._checkpointed_at = -self.CHECKPOINT_S
        self._chainer = Chainer(self._writer_db, self.key, clock)
        db.add_commit_hook(self._commit_hook)
        if db.query_one("SELECT 1 AS x FROM audit_inbox LIMIT 1") is not None:
            self.flush()  # rows a stopped process committed but did not chain yet

    # --- an operation's row, committed with its first write ---------------------------------
    @contextmanager
    def scope(
        self, *, actor: str, operation: str, args: Any, via: str, request_id: str, raw: Any = None
    ) -> Iterator[AuditScope]:
        """Open an operation's audit scope (`args`: what the row keeps; `raw`: the arguments as
        received). Input that cannot be audited is refused here, before anything is written."""
        where = unauditable(args if raw is None else raw)
        if where is not None:
            raise InvalidInput(
                f"{where.path}: {where.problem}; send a finite JSON number or a string",
                field=where.path,
            )
        scope = AuditScope(row=self._row(actor, operation, args, via, request_id, "ok", None), started=0.0)
        scope.started = self.clock.monotonic()
        token = _SCOPE.set(scope)
        try:
            yield scope
        finally:
            _SCOPE.reset(token)

    def _commit_hook(self, conn: Connection) -> Any:
        scope = _SCOPE.get()
        if scope is None or scope.logged:
            return None
        row = dict(scope.row, duration_ms=round((self.clock.monotonic() - scope.started) * 1000, 3))
        inserted = conn.execute(
            f"INSERT INTO audit_inbox ({', '.join(ROW_FIELDS)}) VALUES ({', '.join('?' for _ in ROW_FIELDS)}) "
            "RETURNING id",
            [row[k] for k in ROW_FIELDS],
        ).fetchone()

        def committed() -> None:
            scope.logged = True
            self._put(Pending(None, None, inbox_id=int(inserted["id"])))  # chained in its place among the others

        return committed

    def close_scope(
        self, scope: AuditScope, *, outcome: str, code: str | None, duration_ms: float, wait: bool, view: bool = False
    ) -> None:
        """The end of an operation: nothing more when its row committed with its write and it
        succeeded; else its row (or, after a write, a second row with the error) is recorded.
        A page `view` that succeeded and wrote nothing is counted (views.py), not chained alone."""
        if scope.logged and outcome == "ok":
            return
        row = dict(scope.row, outcome=outcome, code=code, duration_ms=round(duration_ms, 3))
        if view and outcome == "ok":
            self._put(Pending(row, None, view=True))
            return
        self._submit(row, wait=wait)

    # --- rows of operations that wrote nothing ----------------------------------------------
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
        request_id: str = "",
    ) -> None:
        row = self._row(actor, operation, args, via, request_id, outcome, code)
        row["duration_ms"] = round(duration_ms, 3)
        self._submit(row, wait=wait)

    def _submit(self, row: dict[str, Any], *, wait: bool) -> None:
        pending = Pending(row, threading.Event() if wait else None)
        self._put(pending)
        if pending.done is not None:
            pending.done.wait()
            if pending.error is not None:
                raise pending.error

    def _row(
        self, actor: str, operation: str, args: Any, via: str, request_id: str, outcome: str, code: str | None
    ) -> dict[str, Any]:
        if isinstance(args, dict) and not args:  # (most reads take no arguments)
            args_digest, args_summary = _NO_ARGS
        else:
            safe = _jsonable(args)
            args_digest, args_summary = digest(safe), summarize_args(safe)
        return {
            "request_id": request_id,
            "ts": round(self.clock.now(), 6),
            "actor": _storable(actor),
            "via": via,
            "operation": _storable(operation),
            "args_digest": args_digest,
            "args_summary": args_summary,
            "outcome": outcome,
            "code": code,
        }

    def flush(self, *, views: bool = False) -> None:
        """Return once every row recorded or committed so far is chained (`views`: and every page
        view counted so far, its hour over or not)."""
        marker = Pending(None, threading.Event(), seal_views=views)
        self._put(marker)
        assert marker.done is not None
        marker.done.wait()
        if marker.error is not None:
            raise marker.error

    def close(self) -> None:
        """Commit and chain what is pending (page views too), write the checkpoint, and let the writer go."""
        self.flush(views=True)
        with self._wakeup:
            writer, self._closing = self._writer, True
            self._wakeup.notify()
        if writer is not None:
            writer.join(timeout=5)

    # --- the writer: group commit and chaining -----------------------------------------------
    def _put(self, pending: Pending) -> None:
        """Queue a row or a marker. Only the first one after an idle spell and the ones somebody
        waits for wake the writer: the others join the next batch without a thread switch each."""
        with self._wakeup:
            self._pending.append(pending)
            if self._writer is None or not self._writer.is_alive():
                self._writer = threading.Thread(target=self._run, name="audit-writer", daemon=True)
                self._writer.start()
            elif self._idle or pending.done is not None:
                self._wakeup.notify()

    def _run(self) -> None:
        while True:
            quiet: tuple[int, str] | None = None
            with self._wakeup:
                if not self._pending:
                    self._idle = True
                    if not self._closing:  # a checkpoint left to write is written after a quiet spell
                        self._wakeup.wait(timeout=self.IDLE_EXIT_S if self._unwritten is None else self.CHECKPOINT_S)
                    self._idle = False
                    if not self._pending:
                        if self._unwritten is None:
                            self._writer = None
                            return
                        quiet, self._unwritten = self._unwritten, None
                if quiet is None:
                    if not any(p.done is not None for p in self._pending):
                        self._wakeup.wait(timeout=self.GROUP_S)  # nobody waits: let the batch grow a little
                    batch = [self._pending.popleft() for _ in range(min(BATCH, len(self._pending)))]
            if quiet is not None:
                self._checkpoint_now(quiet)
                continue
            error: Exception | None = None
            try:
                head = self._chain(batch)
            except Exception as exc:  # surfaced to every waiting caller of the batch
                logger.error("audit batch failed: %r", exc)
                error, head = exc, None
            head = head or self._unwritten
            if head is not None:
                if self.checkpoint_due(batch):
                    self._unwritten = None
                    self._checkpoint_now(head)  # before anyone is told: a flushed log has its checkpoint
                else:
                    self._unwritten = head
            for p in batch:
                p.error = error
                if p.done is not None:
                    p.done.set()
            if error is not None:
                self._requeue(batch)  # after the callers who wait were told

    def _requeue(self, batch: list[Pending]) -> None:
        """After a failed batch: its rows nobody waits for go back to the head of the queue, in
        their order, after a pause (the callers who wait get the error); a row that failed
        `ATTEMPTS` batches is logged and given up. Rows committed with a write stay in the inbox,
        which a later batch chains."""
        again = [p for p in batch if p.row is not None and p.done is None]
        for p in again:
            p.attempts += 1
        lost = [p for p in again if p.attempts >= self.ATTEMPTS]
        for p in lost:
            assert p.row is not None
            logger.error(
                "audit row given up after %d failed batches: %s by %s at %s (%s)",
                p.attempts, p.row["operation"], p.row["actor"], p.row["ts"], p.row["outcome"],
            )  # fmt: skip
        retry = [p for p in again if p.attempts < self.ATTEMPTS]
        if not retry:
            return
        with self._wakeup:
            self._pending.extendleft(reversed(retry))
            if not self._closing:
                self._wakeup.wait(timeout=self.RETRY_S * retry[0].attempts)

    def checkpoint_due(self, batch: list[Pending]) -> bool:
        """Whether the batch just chained is checkpointed now: somebody waits for it, or the
        checkpoint is `CHECKPOINT_S` old (else it waits for the next such batch or a quiet spell)."""
        if any(p.done is not None for p in batch):
            return True
        return self.clock.monotonic() - self._checkpointed_at >= self.CHECKPOINT_S

    def _checkpoint_now(self, head: tuple[int, str]) -> None:
        self._checkpointed_at = self.clock.monotonic()
        self._write_checkpoint(*head)

    def _chain(self, batch: list[Pending]) -> tuple[int, str] | None:
        """Chain the batch and every inbox row in one transaction (chain.py); returns the new head."""
        return self._chainer.chain(batch)

    # --- the checkpoint outside the database ------------------------------------------------------
    def _write_checkpoint(self, row_id: int, mac: str) -> None:
        if self.checkpoint is not None:
            write_checkpoint(self.key, self.checkpoint, row_id, mac)

    # --- reading and verifying ---------------------------------------------------------------------
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
        before_id: int | None = None,
        hide_reads: tuple[str, Collection[str]] | None = None,
    ) -> list[dict[str, Any]]:
        """Newest first (`reading.search`), once every row recorded so far is chained (with the page
        views counted so far, unless they are left out)."""
        self.flush(views=hide_reads is None)
        return reading.search(
            self.db,
            actor=actor,
            operation=operation,
            since=since,
            until=until,
            limit=limit,
            before_id=before_id,
            hide_reads=hide_reads,
        )

    def verify(self, checkpoints: list[Path] | None = None) -> AuditCheck:
        """Check the whole chain, and that it reaches every checkpoint (default: this log's own)."""
        self.flush()
        if checkpoints is not None:
            return verify_chain(self.db, self.key, checkpoints, required=True)
        return verify_chain(self.db, self.key, [self.checkpoint] if self.checkpoint else [], required=False)


def _storable(text: str) -> str:
    """`text` as every backend stores it: PostgreSQL refuses a NUL character in text, and one such
    row (a tool name or a token subject sent with one) would fail its whole batch, every other
    caller's row with it. Each NUL becomes U+FFFD, the replacement character."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str, allow_nan=False))
    except (TypeError, ValueError):
        return repr(value)
