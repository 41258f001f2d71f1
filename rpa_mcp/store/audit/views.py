"""Console page views: one audit row per person, page and hour, with the number of views.

A supervisor's console reads the same pages all day (and each open live page re-reads every few
seconds): one chained row per read would bury the decisions. A page view (a successful read
through the console) is counted instead, in `audit_views`, per person, operation, arguments and
UTC hour; the writer adds the counts in the transaction of its next batch. Once the hour is over
(or when somebody asks to see page views, or at shutdown), each counter becomes one row of the
chain, in the place of the reads it stands for: same person, operation and `via`, outcome `ok`,
`ts` the last view, and as arguments `{"views": n, "first": ..., "last": ..., "arguments": ...}`
(the page's own arguments: which record was read stays known). What security review asks —
who read what, when to the hour, how often — is kept; every single timestamp is not.

Counters of the open hour are in the database (committed like any read's row, within the
writer's group commit) but not chained yet: the chain protects them from their sealing on.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rpa_mcp.confirmation.digest import digest
from rpa_mcp.ops.redaction import summarize_args
from rpa_mcp.store.db import Connection

HOUR_S = 3600
KEY = ("actor", "via", "operation", "args_digest", "hour")
_COLUMNS = (*KEY, "args_summary", "request_id", "first_ts", "last_ts", "views", "duration_ms")
_UPSERT = (
    f"INSERT INTO audit_views ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)}) "
    f"ON CONFLICT ({', '.join(KEY)}) DO UPDATE SET views = audit_views.views + excluded.views, "
    "last_ts = CASE WHEN excluded.last_ts > audit_views.last_ts THEN excluded.last_ts ELSE audit_views.last_ts END, "
    "duration_ms = audit_views.duration_ms + excluded.duration_ms"
)


def hour_of(ts: float) -> int:
    """The start of the UTC hour `ts` falls in (epoch seconds)."""
    return int(ts // HOUR_S) * HOUR_S


@dataclass
class ViewCount:
    """The views of one page by one person in one hour, as counted so far."""

    actor: str
    via: str
    operation: str
    args_digest: str
    hour: int
    args_summary: str
    request_id: str
    first_ts: float
    last_ts: float
    views: int
    duration_ms: float

    def values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, c) for c in _COLUMNS)


def count(rows: Iterable[Mapping[str, Any]]) -> list[ViewCount]:
    """Audit rows of page views folded into one count per person, page and hour."""
    counts: dict[tuple[Any, ...], ViewCount] = {}
    for row in rows:
        ts = float(row["ts"])
        key = (row["actor"], row["via"], row["operation"], row["args_digest"], hour_of(ts))
        found = counts.get(key)
        if found is None:
            counts[key] = ViewCount(
                *key, row["args_summary"], row["request_id"], ts, ts, 1, float(row["duration_ms"])
            )  # fmt: skip
        else:
            found.views += 1
            found.first_ts, found.last_ts = min(found.first_ts, ts), max(found.last_ts, ts)
            found.duration_ms += float(row["duration_ms"])
    return list(counts.values())


def save(conn: Connection, counts: list[ViewCount]) -> None:
    """Add the counts to the hour's counters (one statement per person, page and hour)."""
    if counts:
        conn.executemany(_UPSERT, [c.values() for c in counts])


def seal(conn: Connection, *, before: int | None, dialect: str) -> list[dict[str, Any]]:
    """The counters of the hours before `before` (None: all), as audit rows to chain; they leave
    `audit_views` in the same transaction."""
    sql, params = f"SELECT {', '.join(_COLUMNS)} FROM audit_views", []
    if before is not None:
        sql, params = sql + " WHERE hour < ?", [before]
    sql += " ORDER BY last_ts" + (" FOR UPDATE" if dialect == "postgres" else "")
    found = [ViewCount(**dict(r)) for r in conn.execute(sql, params).fetchall()]
    if found:
        where = " AND ".join(f"{k} = ?" for k in KEY)
        conn.executemany(f"DELETE FROM audit_views WHERE {where}", [c.values()[: len(KEY)] for c in found])
    return [_row(c) for c in found]


def _row(c: ViewCount) -> dict[str, Any]:
    args = {"views": c.views, "first": _iso(c.first_ts), "last": _iso(c.last_ts), "arguments": _parsed(c.args_summary)}
    return {
        "request_id": c.request_id,
        "ts": c.last_ts,
        "actor": c.actor,
        "via": c.via,
        "operation": c.operation,
        "args_digest": digest({"views": c.views, "first": c.first_ts, "last": c.last_ts, "arguments": c.args_digest}),
        "args_summary": summarize_args(args, max_len=600),
        "outcome": "ok",
        "code": None,
        "duration_ms": round(c.duration_ms, 3),
    }


def views_of(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """A chained row's page views (`views`, `first`, `last`), or None for any other row (for display)."""
    summary = str(row.get("args_summary") or "")
    if row.get("via") != "web" or not summary.startswith('{"views": '):
        return None
    found = _parsed(summary)
    if not isinstance(found, dict) or not {"views", "first", "last", "arguments"} <= found.keys():
        return None
    return {k: found[k] for k in ("views", "first", "last")}


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds")


def _parsed(summary: str) -> Any:
    try:
        return json.loads(summary)
    except ValueError:
        return summary  # (a summary cut at its length limit)
