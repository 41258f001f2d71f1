"""The agent's durable intent journal and its dedup cache (standard library: sqlite3).

Every attempt the agent receives is written `RECEIVED` before anything else, `STARTED`
before the first input is injected and `DONE` with its result once executed. Each write is
one SQLite transaction (WAL, `synchronous=FULL`: fsynced before the call returns), so after
a crash or a restart the agent knows, for every `action_id + attempt_id`, whether it may
still execute it (RECEIVED), must never execute it again and cannot tell the outcome
(STARTED), or only has to re-send the stored result (DONE). Results not yet acknowledged by
the server stay in the journal (`reported = 0`) and are re-sent: the journal is the outbox.
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

State = Literal["RECEIVED", "STARTED", "DONE"]
DEDUP_CAPACITY = 50
IMAGE_FIELDS = ("screenshot_before", "screenshot_after")
FORGET_AFTER_S = 86_400.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    key         TEXT PRIMARY KEY,
    replay_id   TEXT NOT NULL,
    action_id   TEXT NOT NULL,
    attempt_id  TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('RECEIVED', 'STARTED', 'DONE')),
    not_after   REAL NOT NULL,
    result      TEXT,
    reported    INTEGER NOT NULL DEFAULT 0,
    seq         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_action ON journal (action_id);
CREATE INDEX IF NOT EXISTS journal_outbox ON journal (state, reported);
"""


def attempt_key(action_id: str, attempt_id: str) -> str:
    return f"{action_id}\x1f{attempt_id}"


@dataclass(frozen=True)
class JournalEntry:
    key: str
    replay_id: str
    action_id: str
    attempt_id: str
    state: State
    not_after: float
    result: dict[str, Any] | None
    reported: bool


class Journal:
    """`path` is a file (durable) or ":memory:" (tests that do not restart)."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.executescript(_SCHEMA)
        row = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
        self._seq = int(row[0])

    def close(self) -> None:
        self._conn.close()

    # --- reads ----------------------------------------------------------------------------
    def get(self, action_id: str, attempt_id: str) -> JournalEntry | None:
        row = self._conn.execute("SELECT * FROM journal WHERE key = ?", (attempt_key(action_id, attempt_id),))
        return _entry(row.fetchone())

    def attempts_of(self, action_id: str) -> list[JournalEntry]:
        rows = self._conn.execute("SELECT * FROM journal WHERE action_id = ? ORDER BY seq", (action_id,))
        return [e for e in map(_entry, rows.fetchall()) if e is not None]

    def unreported(self) -> list[JournalEntry]:
        rows = self._conn.execute("SELECT * FROM journal WHERE state = 'DONE' AND reported = 0 ORDER BY seq")
        return [e for e in map(_entry, rows.fetchall()) if e is not None]

    def recent_done(self, limit: int = DEDUP_CAPACITY) -> list[JournalEntry]:
        rows = self._conn.execute("SELECT * FROM journal WHERE state = 'DONE' ORDER BY seq DESC LIMIT ?", (limit,))
        return [e for e in map(_entry, reversed(rows.fetchall())) if e is not None]

    def entries(self) -> list[JournalEntry]:
        rows = self._conn.execute("SELECT * FROM journal ORDER BY seq")
        return [e for e in map(_entry, rows.fetchall()) if e is not None]

    # --- writes (each one fsynced before returning) ------------------------------------------
    def received(self, replay_id: str, action_id: str, attempt_id: str, not_after: float) -> None:
        self._seq += 1
        self._conn.execute(
            "INSERT OR IGNORE INTO journal (key, replay_id, action_id, attempt_id, state, not_after, seq) "
            "VALUES (?, ?, ?, ?, 'RECEIVED', ?, ?)",
            (attempt_key(action_id, attempt_id), replay_id, action_id, attempt_id, not_after, self._seq),
        )

    def started(self, action_id: str, attempt_id: str) -> None:
        self._conn.execute(
            "UPDATE journal SET state = 'STARTED' WHERE key = ? AND state = 'RECEIVED'",
            (attempt_key(action_id, attempt_id),),
        )

    def done(self, action_id: str, attempt_id: str, result: dict[str, Any]) -> None:
        self._seq += 1
        self._conn.execute(
            "UPDATE journal SET state = 'DONE', result = ?, reported = 0, seq = ? WHERE key = ?",
            (json.dumps(result), self._seq, attempt_key(action_id, attempt_id)),
        )

    def reported(self, action_id: str, attempt_id: str) -> None:
        """The server acknowledged the result: its screenshots are no longer needed here (a re-sent copy
        can only be a duplicate), and entries long past their deadline are forgotten."""
        key = attempt_key(action_id, attempt_id)
        row = self._conn.execute("SELECT result, not_after FROM journal WHERE key = ?", (key,)).fetchone()
        with self._conn:
            if row is not None and row[0]:
                self._conn.execute(
                    "UPDATE journal SET reported = 1, result = ? WHERE key = ?",
                    (json.dumps(without_images(row[0])), key),
                )
            else:
                self._conn.execute("UPDATE journal SET reported = 1 WHERE key = ?", (key,))
            if row is not None:  # never execute after not_after: an entry a day past it protects nothing
                self._conn.execute(
                    "DELETE FROM journal WHERE reported = 1 AND not_after < ?", (float(row[1]) - FORGET_AFTER_S,)
                )


def ran(entry: JournalEntry) -> bool:
    """The attempt may have injected input: started, or done with `executed`."""
    return entry.state == "STARTED" or (
        entry.state == "DONE" and entry.result is not None and bool(entry.result.get("executed"))
    )


def person_retry_allows(attempts: list[JournalEntry], retry_of: str | None) -> bool:
    """A person answered `retry` after seeing attempt `retry_of`: may a new attempt run again?

    Only when this agent journaled `retry_of` and no attempt it received after it ran (the person's
    consent covers what they saw, never an attempt that ran since). `attempts`: the action's journal
    entries in journal order.
    """
    ids = [e.attempt_id for e in attempts]
    if not retry_of or retry_of not in ids:
        return False
    return not any(ran(e) for e in attempts[ids.index(retry_of) + 1 :])


def without_images(result: str | dict[str, Any]) -> dict[str, Any]:
    """A result without its screenshots (what is kept once the server has it)."""
    data: dict[str, Any] = json.loads(result) if isinstance(result, str) else dict(result)
    for field in IMAGE_FIELDS:
        data.pop(field, None)
    return data


def _entry(row: tuple[Any, ...] | None) -> JournalEntry | None:
    if row is None:
        return None
    key, replay_id, action_id, attempt_id, state, not_after, result, reported, _seq = row
    return JournalEntry(
        key, replay_id, action_id, attempt_id, state, not_after, json.loads(result) if result else None, bool(reported)
    )


class DedupCache:
    """LRU of the last `capacity` executed attempts (key `action_id + attempt_id`) -> result."""

    def __init__(self, capacity: int = DEDUP_CAPACITY) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def get(self, action_id: str, attempt_id: str) -> dict[str, Any] | None:
        key = attempt_key(action_id, attempt_id)
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, action_id: str, attempt_id: str, result: dict[str, Any]) -> None:
        key = attempt_key(action_id, attempt_id)
        self._items[key] = result
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
