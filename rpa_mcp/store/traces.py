"""SQLite repository of the shadow area: machines, sessions, events, screenshots, observer state.

Every write happens inside `Database.transaction()` (WAL + synchronous=FULL): an event the
agent got a 2xx for is on disk. Screenshots are blobs with opaque server-made ids
(`rpa://screenshots/<id>`), never client file names.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from rpa_mcp.errors import Conflict, NotFound
from rpa_mcp.store.db import Database, Migrations, postgres_ddl

_MACHINES = (
    "SELECT m.machine_id, m.first_seen, m.last_seen, "
    "(SELECT s.session_id FROM trace_sessions s WHERE s.machine_id = m.machine_id AND s.finalized = 0 "
    " ORDER BY s.last_event_at DESC LIMIT 1) AS active_session_id "
    "FROM trace_machines m ORDER BY m.last_seen DESC"
)
_V1 = """
    CREATE TABLE trace_machines (
        machine_id TEXT PRIMARY KEY,
        first_seen REAL NOT NULL,
        last_seen REAL NOT NULL
    );
    CREATE TABLE trace_sessions (
        session_id TEXT PRIMARY KEY,
        machine_id TEXT NOT NULL,
        started_at REAL NOT NULL,
        last_event_at REAL NOT NULL,
        events INTEGER NOT NULL DEFAULT 0,
        finalized INTEGER NOT NULL DEFAULT 0,
        locale TEXT
    );
    CREATE INDEX trace_sessions_machine ON trace_sessions(machine_id, finalized, last_event_at);
    CREATE TABLE trace_events (
        session_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        ts REAL NOT NULL,
        type TEXT NOT NULL,
        event_id TEXT,
        data TEXT NOT NULL,
        facts TEXT NOT NULL,
        received_at REAL NOT NULL,
        PRIMARY KEY (session_id, idx)
    );
    CREATE UNIQUE INDEX trace_events_dedup ON trace_events(session_id, event_id) WHERE event_id IS NOT NULL;
    CREATE TABLE trace_screenshots (
        screenshot_id TEXT PRIMARY KEY,
        session_id TEXT,
        kind TEXT NOT NULL,
        mime TEXT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        created_at REAL NOT NULL,
        data BLOB NOT NULL
    );
    CREATE TABLE shadow_observers (
        session_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE shadow_feedback (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        ts REAL NOT NULL,
        entry TEXT NOT NULL
    );
    CREATE INDEX shadow_feedback_session ON shadow_feedback(session_id, id)
    """
_SEGMENTS = """
    CREATE TABLE shadow_segments (
        session_id TEXT NOT NULL,
        pos INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (session_id, pos)
    )
    """
MIGRATIONS = Migrations(
    sqlite=(
        _V1,
        # The observer's steps become one row each, so an event rewrites only the last ones
        # (the state used to be one JSON document rewritten whole on every batch).
        _SEGMENTS
        + """;
    INSERT INTO shadow_segments(session_id, pos, data)
        SELECT o.session_id, j.key, j.value FROM shadow_observers o, json_each(o.state, '$.segments') j;
    UPDATE shadow_observers SET state = json_remove(state, '$.segments')
    """,
    ),
    postgres=(postgres_ddl(_V1 + ";" + _SEGMENTS), "SELECT 1"),  # segments are rows from the start here
)
# Each save bumps `rev`: a replica notices that another one changed the session since it cached it.
_REV = "ALTER TABLE shadow_observers ADD COLUMN rev INTEGER NOT NULL DEFAULT 0"
MIGRATIONS = Migrations(sqlite=(*MIGRATIONS.sqlite, _REV), postgres=(*MIGRATIONS.postgres, _REV))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class TraceStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("traces", MIGRATIONS)

    def transaction(self) -> AbstractContextManager[Any]:
        return self.db.transaction()

    def lock_session(self, session_id: str) -> None:
        """Inside a transaction: other replicas' writers of this session wait until it ends."""
        with self.db.transaction() as conn:
            self.db.lock(conn, f"shadow:{session_id}")

    def observer_rev(self, session_id: str) -> int:
        """How many times the observer state was saved (0: never)."""
        row = self.db.query_one("SELECT rev FROM shadow_observers WHERE session_id = ?", (session_id,))
        return int(row["rev"]) if row else 0

    # --- machines and sessions ---------------------------------------------------------
    def touch_session(self, session_id: str, machine_id: str, *, now: float, locale: str | None) -> bool:
        """Registers the session and its machine on their first event; True when the session is new."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO trace_machines(machine_id, first_seen, last_seen) VALUES (?, ?, ?) "
                "ON CONFLICT(machine_id) DO UPDATE SET last_seen = excluded.last_seen",
                (machine_id, now, now),
            )
            row = conn.execute("SELECT machine_id FROM trace_sessions WHERE session_id = ?", (session_id,)).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO trace_sessions(session_id, machine_id, started_at, last_event_at, locale) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (session_id, machine_id, now, now, locale),
                )
                return True
            conn.execute("UPDATE trace_sessions SET last_event_at = ? WHERE session_id = ?", (now, session_id))
            return False

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        row = self.db.query_one("SELECT * FROM trace_sessions WHERE session_id = ?", (session_id,))
        return _session(row) if row else None

    def set_session_locale(self, session_id: str, locale: str) -> None:
        self.db.execute("UPDATE trace_sessions SET locale = ? WHERE session_id = ?", (locale, session_id))

    def finalize_session(self, session_id: str) -> None:
        self.db.execute("UPDATE trace_sessions SET finalized = 1 WHERE session_id = ?", (session_id,))

    def list_machines(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.query(_MACHINES)]

    async def list_machines_async(self) -> list[dict[str, Any]]:
        """`list_machines` for the event loop (one row per workstation: a small read)."""
        return [dict(r) for r in await self.db.aquery(_MACHINES)]

    def list_sessions(self, machine_id: str | None = None, active_only: bool = True) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM trace_sessions WHERE 1 = 1", []
        if machine_id is not None:
            sql += " AND machine_id = ?"
            params.append(machine_id)
        if active_only:
            sql += " AND finalized = 0"
        rows = self.db.query(sql + " ORDER BY last_event_at DESC", params)
        return [_session(r) for r in rows]

    # --- events --------------------------------------------------------------------------
    def append_event(
        self,
        session_id: str,
        data: dict[str, Any],
        *,
        ts: float,
        type: str,
        event_id: str | None,
        facts: dict[str, Any],
        now: float,
    ) -> int | None:
        """Stores the event and returns its index in the session; None when `event_id` was seen already."""
        with self.db.transaction() as conn:
            if event_id is not None:
                seen = conn.execute(
                    "SELECT 1 FROM trace_events WHERE session_id = ? AND event_id = ?", (session_id, event_id)
                ).fetchone()
                if seen:
                    return None
            row = conn.execute("SELECT events FROM trace_sessions WHERE session_id = ?", (session_id,)).fetchone()
            if row is None:
                raise NotFound(f"session {session_id!r} is not registered", session_id=session_id)
            idx = int(row["events"])
            conn.execute(
                "INSERT INTO trace_events(session_id, idx, ts, type, event_id, data, facts, received_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, idx, ts, type, event_id, _dumps(data), _dumps(facts), now),
            )
            conn.execute(
                "UPDATE trace_sessions SET events = events + 1, last_event_at = ? WHERE session_id = ?",
                (now, session_id),
            )
            return idx

    def has_event(self, session_id: str, event_id: str) -> bool:
        row = self.db.query_one(
            "SELECT 1 FROM trace_events WHERE session_id = ? AND event_id = ?", (session_id, event_id)
        )
        return row is not None

    def events(self, session_id: str, start: int = 0, end: int | None = None) -> list[dict[str, Any]]:
        """Events `start <= idx < end` in order, each `{"idx", "event", "facts", "received_at"}`."""
        sql = "SELECT idx, data, facts, received_at FROM trace_events WHERE session_id = ? AND idx >= ?"
        params: list[Any] = [session_id, start]
        if end is not None:
            sql += " AND idx < ?"
            params.append(end)
        return [_event(r) for r in self.db.query(sql + " ORDER BY idx", params)]

    def iter_events(self, session_id: str, indexes: list[int]) -> Iterator[dict[str, Any]]:
        if not indexes:
            return iter(())
        return iter(self.events(session_id, min(indexes), max(indexes) + 1))

    def update_facts(self, session_id: str, idx: int, facts: dict[str, Any]) -> None:
        self.db.execute(
            "UPDATE trace_events SET facts = ? WHERE session_id = ? AND idx = ?", (_dumps(facts), session_id, idx)
        )

    # --- screenshots ---------------------------------------------------------------------
    def put_screenshot(
        self, data: bytes, *, session_id: str | None, kind: str, mime: str, width: int, height: int, now: float
    ) -> str:
        screenshot_id = "shot_" + secrets.token_hex(12)
        self.db.execute(
            "INSERT INTO trace_screenshots(screenshot_id, session_id, kind, mime, width, height, created_at, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (screenshot_id, session_id, kind, mime, width, height, now, data),
        )
        return screenshot_id

    def get_screenshot(self, screenshot_id: str) -> bytes:
        row = self.db.query_one("SELECT data FROM trace_screenshots WHERE screenshot_id = ?", (screenshot_id,))
        if row is None:
            raise NotFound(f"no screenshot {screenshot_id!r}", screenshot_id=screenshot_id)
        return bytes(row["data"])

    def screenshot_info(self, screenshot_id: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT screenshot_id, session_id, kind, mime, width, height, created_at FROM trace_screenshots "
            "WHERE screenshot_id = ?",
            (screenshot_id,),
        )
        return dict(row) if row else None

    # --- observer state and feedback -----------------------------------------------------
    def load_observer(self, session_id: str) -> dict[str, Any] | None:
        """The observer's state, its segments (in order) under "segments" and its save count under
        "rev"; None if never saved. One consistent read, even while another replica saves."""
        with self.db.transaction() as conn:
            self.db.lock(conn, f"shadow:{session_id}")
            row = conn.execute("SELECT state, rev FROM shadow_observers WHERE session_id = ?", (session_id,)).fetchone()
            if row is None:
                return None
            state: dict[str, Any] = json.loads(row["state"])
            rows = conn.execute(
                "SELECT data FROM shadow_segments WHERE session_id = ? ORDER BY pos", (session_id,)
            ).fetchall()
        state["segments"] = [json.loads(r["data"]) for r in rows]
        state["rev"] = int(row["rev"])
        return state

    def save_observer(
        self,
        session_id: str,
        state: dict[str, Any],
        *,
        now: float,
        segments: Sequence[dict[str, Any]] = (),
        segments_from: int | None = 0,
        expect_rev: int | None = None,
    ) -> int:
        """Write the state (without its segments) and the segments from position `segments_from` on;
        returns the new `rev`. With `expect_rev`, only if nobody saved since (else Conflict).

        `segments` are the segments at positions `segments_from`, `segments_from + 1`, ...: the
        session has exactly `segments_from + len(segments)` of them afterwards. With
        `segments_from=None` the stored segments are left as they are.
        """
        if "segments" in state or "rev" in state:
            raise ValueError("pass the segments apart from the state (segments=, segments_from=); rev is the store's")
        with self.db.transaction() as conn:
            self.db.lock(conn, f"shadow:{session_id}")
            row = conn.execute(
                "INSERT INTO shadow_observers(session_id, state, updated_at, rev) VALUES (?, ?, ?, 1) "
                "ON CONFLICT(session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at, "
                "rev = shadow_observers.rev + 1 RETURNING rev",
                (session_id, _dumps(state), now),
            ).fetchone()
            rev = int(row["rev"])
            if expect_rev is not None and rev != expect_rev + 1:
                raise Conflict(
                    f"session {session_id!r} was changed by another request meanwhile; send this one again",
                    session_id=session_id,
                )
            if segments_from is None:
                return rev
            if segments_from < 0:
                raise ValueError("segments_from must be >= 0")
            conn.executemany(
                "INSERT INTO shadow_segments(session_id, pos, data) VALUES (?, ?, ?) "
                "ON CONFLICT(session_id, pos) DO UPDATE SET data = excluded.data",
                [(session_id, segments_from + i, _dumps(seg)) for i, seg in enumerate(segments)],
            )
            conn.execute(
                "DELETE FROM shadow_segments WHERE session_id = ? AND pos >= ?",
                (session_id, segments_from + len(segments)),
            )
            return rev

    def add_feedback(self, session_id: str, entry: dict[str, Any], *, now: float) -> None:
        self.db.execute(
            "INSERT INTO shadow_feedback(session_id, ts, entry) VALUES (?, ?, ?)", (session_id, now, _dumps(entry))
        )

    def feedback_history(self, session_id: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT ts, entry FROM shadow_feedback WHERE session_id = ? ORDER BY id", (session_id,))
        return [{"ts": r["ts"], **json.loads(r["entry"])} for r in rows]


def _session(row: Any) -> dict[str, Any]:
    out = dict(row)
    out["finalized"] = bool(out["finalized"])
    return out


def _event(row: Any) -> dict[str, Any]:
    return {
        "idx": row["idx"],
        "event": json.loads(row["data"]),
        "facts": json.loads(row["facts"]),
        "received_at": row["received_at"],
    }
