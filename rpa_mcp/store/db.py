"""SQLite database shared by every repository, with per-area migrations.

Each area's repository module declares `MIGRATIONS: tuple[str, ...]` (SQL scripts, append
only: never edit a released step) and calls `db.migrate("<area>", MIGRATIONS)` when it is
built. `transaction()` takes the write lock (`BEGIN IMMEDIATE`): use it for every
read-modify-write so a transition is one conditional write.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class Database:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=10000"):
            self._conn.execute(f"PRAGMA {pragma}")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_versions (area TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )

    def migrate(self, area: str, steps: Sequence[str]) -> int:
        """Apply the steps of `area` not applied yet; returns the area's version."""
        with self.transaction() as conn:
            row = conn.execute("SELECT version FROM schema_versions WHERE area = ?", (area,)).fetchone()
            done = row["version"] if row else 0
            for script in steps[done:]:
                for statement in split_statements(script):
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_versions(area, version) VALUES (?, ?) "
                "ON CONFLICT(area) DO UPDATE SET version = excluded.version",
                (area, len(steps)),
            )
        return len(steps)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic unit; nested calls join the outer transaction."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
            finally:
                self._depth = 0

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> int:
        """One write statement in its own transaction; returns the row count."""
        with self.transaction() as conn:
            return conn.execute(sql, params).rowcount

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Row | None:
        with self._lock:
            row: sqlite3.Row | None = self._conn.execute(sql, params).fetchone()
            return row

    def ping(self) -> bool:
        return self.query_one("SELECT 1 AS ok") is not None

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def split_statements(script: str) -> list[str]:
    """Split a SQL script on the semicolons that end a complete statement (triggers keep theirs)."""
    statements, buffer = [], ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \n\t;"):
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip(" \n\t;"):
        statements.append(buffer.strip())
    return statements
