"""SQLite backend (WAL, synchronous=FULL): one connection shared by the threads of a process."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rpa_mcp.store.db import CommitHook, Connection, Cursor, Database, IntegrityError, Params, Row, split_statements


class _Conn:
    """The transaction's connection: sqlite3 with the shared IntegrityError."""

    __slots__ = ("_raw",)

    def __init__(self, raw: sqlite3.Connection) -> None:
        self._raw = raw

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        try:
            return self._raw.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        try:
            return self._raw.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc


class SqliteDatabase(Database):
    dialect = "sqlite"

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._raw = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
        self._raw.row_factory = sqlite3.Row
        self._conn = _Conn(self._raw)
        self._lock = threading.RLock()
        self._depth = 0
        self._hooks: list[CommitHook] = []
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=10000"):
            self._raw.execute(f"PRAGMA {pragma}")
        self._raw.execute(
            "CREATE TABLE IF NOT EXISTS schema_versions (area TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )

    def add_commit_hook(self, hook: CommitHook) -> None:
        self._hooks.append(hook)

    @contextmanager
    def transaction(self, *, savepoint: bool = False, pipeline: bool = False) -> Iterator[Connection]:
        """One atomic unit; nested calls join the outer transaction (`savepoint=True`: a failed
        inner block rolls back alone). `pipeline` changes nothing here: statements run in process."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    if not savepoint:
                        yield self._conn
                        return
                    name = f"sp{self._depth}"
                    self._raw.execute(f"SAVEPOINT {name}")
                    try:
                        yield self._conn
                    except BaseException:
                        self._raw.execute(f"ROLLBACK TO {name}")
                        self._raw.execute(f"RELEASE {name}")
                        raise
                    self._raw.execute(f"RELEASE {name}")
                finally:
                    self._depth -= 1
                return
            self._raw.execute("BEGIN IMMEDIATE")
            self._depth = 1
            changes = self._raw.total_changes
            after: list[Callable[[], None]] = []
            try:
                yield self._conn
                if self._hooks and self._raw.total_changes != changes:
                    after = [cb for hook in self._hooks if (cb := hook(self._conn)) is not None]
            except BaseException:
                self._raw.execute("ROLLBACK")
                raise
            else:
                self._raw.execute("COMMIT")
            finally:
                self._depth = 0
            for cb in after:
                cb()

    @contextmanager
    def free_now(self) -> Iterator[bool]:
        """True when no other thread is in a statement or transaction on the connection (the lock
        is then held for the block): a read in WAL mode never waits for the audit writer's
        connection either, so it runs at once."""
        free = self._lock.acquire(blocking=False)
        try:
            yield free
        finally:
            if free:
                self._lock.release()

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        with self._lock:
            rows: list[Row] = self._raw.execute(sql, params).fetchall()
            return rows

    def query_one(self, sql: str, params: Params = ()) -> Row | None:
        with self._lock:
            row: Row | None = self._raw.execute(sql, params).fetchone()
            return row

    def _run_script(self, conn: Connection, script: str) -> None:
        for statement in split_statements(script):
            conn.execute(statement)

    def close(self) -> None:
        with self._lock:
            self._raw.close()
