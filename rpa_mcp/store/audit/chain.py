"""Chaining a batch: the writer's transaction that MACs rows onto the chain's head.

Under the head's lock (`audit_head`, one row) it moves inbox rows (committed with an operation's
write) and queued rows into `audit`, each with `mac = HMAC(key, prev_mac | id | row)`, ids
contiguous from 1; it adds the page views of the batch to their hour's counters and, once an
hour is over, chains each counter as one row (views.py). On PostgreSQL every replica's writer
takes the same lock: one serialised chain. A batch of rows only, on the head this writer left,
is one autocommit statement instead (see `AuditLog`'s notes).
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field
from typing import Any

from rpa_mcp.clock import Clock
from rpa_mcp.store.audit import views
from rpa_mcp.store.audit.schema import ROW_FIELDS, row_mac
from rpa_mcp.store.db import Database

BATCH = 500
_COLUMNS = ("id", *ROW_FIELDS, "prev_mac", "mac")
_SQLITE_INSERT = f"INSERT INTO audit ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"
# The batch as one JSON parameter: a statement whose text never changes (parsed and prepared once), not
# one per row, nor a VALUES list the driver scans for placeholders, nor one array per column (the driver
# dumps each: twice the writer's CPU of this for 5 to 50 rows). JSON numbers and strings come back as
# the same floats and text, which the MACs cover.
_PG_INSERT = (
    f"INSERT INTO audit ({', '.join(_COLUMNS)}) "
    f"SELECT {', '.join(_COLUMNS)} FROM json_populate_recordset(NULL::audit, ?::json)"
)
# A batch on the head this writer chained last, in one autocommit statement (one round trip): the head
# moves only if it is still where this writer left it, and the rows go in only if it moved.
_PG_APPEND = (
    "WITH head AS (UPDATE audit_head SET id = ?, mac = ? WHERE one = 1 AND id = ? AND mac = ? RETURNING 1) "
    + _PG_INSERT
    + " WHERE EXISTS (SELECT 1 FROM head)"
)


@dataclass
class Pending:
    row: dict[str, Any] | None  # None: a flush marker, or the marker of a row committed with a write
    done: threading.Event | None
    error: Exception | None = field(default=None)
    inbox_id: int | None = None  # that row's id in audit_inbox
    attempts: int = 0  # failed batches this row took part in (rows nobody waits for are tried again)
    view: bool = False  # a page view: counted (views.py), chained with the others of its hour
    seal_views: bool = False  # a flush marker that chains every page view counted so far


class Chainer:
    """The writer's side of the database: one batch at a time, from the writer thread only."""

    SWEEP_S = 1.0  # PostgreSQL: how long inbox rows of other processes may wait for this writer to chain them

    def __init__(self, db: Database, key: bytes, clock: Clock) -> None:
        self.db, self.key, self.clock = db, key, clock
        # PostgreSQL: the head this writer chained last, and until when not to append on it without the
        # lock (another replica moved it lately), or to go on without reading the inbox.
        self._known_head: tuple[int, str] | None = None
        self._contended_until = 0.0
        self._swept_at = 0.0
        self._views_sealed_until = 0.0  # page views of the hours before this one are chained (wall clock)

    def chain(self, batch: list[Pending]) -> tuple[int, str] | None:
        """Chain the batch and every inbox row in one transaction; returns the new head.

        The chain keeps the order in which this replica's operations happened: a row committed
        with a write takes the place of its marker in the batch; inbox rows of other replicas
        (or of a stopped process) follow."""
        if self._may_append_on_known_head(batch):
            head = self._append_on_known_head(batch)
            if head is not None:
                return head
        sealing = self._views_to_seal(batch)
        while True:
            # pipelined: the head (locked), the inbox, then the writes and the commit: two round trips
            with self.db.transaction(pipeline=True) as conn:
                head_cursor = conn.execute(
                    "SELECT id, mac FROM audit_head WHERE one = 1 FOR UPDATE"
                    if self.db.dialect == "postgres"
                    else "SELECT id, mac FROM audit_head WHERE one = 1"
                )
                inbox_cursor = conn.execute(
                    f"SELECT id, {', '.join(ROW_FIELDS)} FROM audit_inbox ORDER BY id LIMIT {BATCH}"
                )
                head = head_cursor.fetchone()
                inbox = inbox_cursor.fetchall()
                last_id, prev = int(head["id"]), str(head["mac"])
                waiting = {int(r["id"]): dict(r) for r in inbox}
                rows: list[dict[str, Any]] = []
                views.save(conn, views.count(p.row for p in batch if p.view and p.row is not None))
                for p in batch:
                    if p.view:
                        continue
                    if p.row is not None:
                        rows.append(p.row)
                    elif p.inbox_id is not None and p.inbox_id in waiting:
                        rows.append(waiting.pop(p.inbox_id))  # (absent: another replica chained it already)
                rows.extend(waiting.values())
                if sealing is not None:  # the page views of the hours over, in the chain
                    before = None if math.isinf(sealing) else int(sealing)
                    rows.extend(views.seal(conn, before=before, dialect=self.db.dialect))
                if not rows:
                    self._known_head, self._swept_at = (last_id, prev), self.clock.monotonic()
                    self._views_sealed(sealing)
                    return None
                values = []
                for row in rows:
                    last_id += 1
                    mac = row_mac(self.key, prev, last_id, row)
                    values.append((last_id, *[row[k] for k in ROW_FIELDS], prev, mac))
                    prev = mac
                if self.db.dialect == "postgres":  # one statement of constant text for the batch
                    conn.execute(_PG_INSERT, [_pg_rows(values)])
                else:
                    conn.executemany(_SQLITE_INSERT, values)
                if inbox:
                    conn.execute(
                        f"DELETE FROM audit_inbox WHERE id IN ({', '.join('?' for _ in inbox)})",
                        [r["id"] for r in inbox],
                    )
                conn.execute("UPDATE audit_head SET id = ?, mac = ? WHERE one = 1", (last_id, prev))
            self._views_sealed(sealing)
            batch, sealing = [], None
            self._known_head, self._swept_at = (last_id, prev), self.clock.monotonic()
            if len(inbox) < BATCH:
                return last_id, prev

    def _may_append_on_known_head(self, batch: list[Pending]) -> bool:
        """PostgreSQL: whether the batch may skip the head lock and the inbox: it holds rows only (no
        row committed with a write, no flush), this writer knows the head it left, nobody else moved
        the head lately, and the inbox was read less than `SWEEP_S` ago (rows of other processes)."""
        if self.db.dialect != "postgres" or self._known_head is None:
            return False
        if not batch or any(p.row is None or p.view for p in batch) or self._views_to_seal(batch) is not None:
            return False
        now = self.clock.monotonic()
        return now >= self._contended_until and now - self._swept_at < self.SWEEP_S

    def _views_to_seal(self, batch: list[Pending]) -> float | None:
        """Which page views this batch chains: those counted in the hours before the one returned
        (`inf`: all, somebody asked), or none (None: this hour's were sealed already)."""
        if any(p.seal_views for p in batch):
            return math.inf
        now = self.clock.now()
        return None if now < self._views_sealed_until else views.hour_of(now)

    def _views_sealed(self, sealing: float | None) -> None:
        if sealing is not None:
            self._views_sealed_until = views.hour_of(self.clock.now()) + views.HOUR_S

    def _append_on_known_head(self, batch: list[Pending]) -> tuple[int, str] | None:
        """Chain the batch on the head this writer left, in one statement that moves the head only if
        it is still there (committed on return); None when another writer moved it (nothing written)."""
        assert self._known_head is not None
        start_id, start_mac = last_id, prev = self._known_head
        self._known_head = None  # unknown until this statement says
        values = []
        for p in batch:
            assert p.row is not None
            last_id += 1
            mac = row_mac(self.key, prev, last_id, p.row)
            values.append((last_id, *[p.row[k] for k in ROW_FIELDS], prev, mac))
            prev = mac
        if not self.db.statement(_PG_APPEND, [last_id, prev, start_id, start_mac, _pg_rows(values)]):
            self._contended_until = self.clock.monotonic() + self.SWEEP_S  # the lock and the inbox for a while
            return None
        self._known_head = (last_id, prev)
        return last_id, prev


def _pg_rows(values: list[tuple[Any, ...]]) -> str:
    return json.dumps([dict(zip(_COLUMNS, v, strict=True)) for v in values], separators=(",", ":"))
