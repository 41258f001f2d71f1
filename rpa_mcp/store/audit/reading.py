"""Reading the audit log: a page of rows by who, what and when, newest first."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rpa_mcp.store.db import Database


def search(
    db: Database,
    *,
    actor: str | None = None,
    operation: str | None = None,
    since: float | None = None,
    until: float | None = None,
    limit: int = 200,
    before_id: int | None = None,
    hide_reads: tuple[str, Collection[str]] | None = None,
) -> list[dict[str, Any]]:
    """Newest first: rows whose actor contains `actor`, whose operation contains `operation`, in [since, until].

    `before_id` pages back (rows older than that id); `hide_reads=(via, operations)` leaves out the
    successful reads made through `via` (the console's page views), which stay in the log.
    """
    where: list[str] = []
    params: list[Any] = []
    if actor:
        where.append("lower(actor) LIKE ? ESCAPE '!'")
        params.append(_contains(actor))
    if operation:
        where.append("lower(operation) LIKE ? ESCAPE '!'")
        params.append(_contains(operation))
    if since is not None:
        where.append("ts >= ?")
        params.append(since)
    if until is not None:
        where.append("ts <= ?")
        params.append(until)
    if before_id is not None:
        where.append("id < ?")
        params.append(before_id)
    if hide_reads is not None and hide_reads[1]:
        via, reads = hide_reads[0], sorted(hide_reads[1])
        where.append(f"NOT (via = ? AND outcome = 'ok' AND operation IN ({', '.join('?' for _ in reads)}))")
        params.extend([via, *reads])
    sql = "SELECT * FROM audit" + (" WHERE " + " AND ".join(where) if where else "")
    return [dict(r) for r in db.query(sql + " ORDER BY id DESC LIMIT ?", (*params, limit))]


def _contains(text: str) -> str:
    """A LIKE pattern (escape character `!`) matching values that contain `text`, case-insensitively."""
    escaped = text.lower().replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return f"%{escaped}%"
