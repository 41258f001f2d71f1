"""SQLite backend (WAL, synchronous=FULL): one connection shared by the threads of a process."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rpa_mcp.store.db import CommitHook, Connection, Cursor, Database, IntegrityError, Params, Row, split_statements

logger = logging.getLogger(__name__)
BUSY_TIMEOUT_MS = 10_000
CHECKPOINT_WAIT_MS = 250


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


def owner_only(path: Path) -> None:
    """The database and its -wal/-shm files readable by their owner only (0600): they hold what people typed.

    SQLite creates the -wal and -shm files with the mode of the database file, so the database is
    created 0600 before SQLite opens it; files an older version left readable are narrowed.
    """
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    except OSError:
        return  # SQLite reports what it cannot open
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(OSError):  # absent, or another owner's (then theirs to set)
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)


class SqliteDatabase(Database):
    dialect = "sqlite"

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            owner_only(Path(self.path))
        self._raw = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
        self._raw.row_factory = sqlite3.Row
        self._conn = _Conn(self._raw)
        self._lock = threading.RLock()
        self._depth = 0
        self._hooks: list[CommitHook] = []
        self._checkpoint = False  # a scrub's old pages are still in the WAL: checkpoint after the next COMMIT
        for pragma in (
            "journal_mode=WAL",
            "synchronous=FULL",
            "foreign_keys=ON",
            f"busy_timeout={BUSY_TIMEOUT_MS}",
            "secure_delete=ON",  # freed cells and pages are zeroed: a scrubbed secret leaves no copy behind
        ):
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
            if self._checkpoint:
                self._truncate_wal(wait_ms=0)  # owed by an earlier scrub, or by this transaction's
            for cb in after:
                cb()

    def forget_scrubbed(self) -> None:
        with self._lock:
            if self._depth:
                self._checkpoint = True  # the old copies are still needed until the transaction commits
            else:
                self._truncate_wal(wait_ms=CHECKPOINT_WAIT_MS)

    def _truncate_wal(self, *, wait_ms: int) -> None:
        """Copy the WAL into the database and empty it (it held the pages as they were before a scrub).

        It waits at most `wait_ms` for a reader of another connection still on an older snapshot;
        then it is retried, without waiting, after each commit until it succeeds: a scrub never
        stalls its caller long, and a long reader (a backup) never slows the writes."""
        self._raw.execute(f"PRAGMA busy_timeout={wait_ms}")
        try:
            busy = self._raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            self._raw.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self._checkpoint = bool(busy and busy[0])
        if self._checkpoint:
            logger.info("the write-ahead log could not be emptied after a scrub yet: retried after the next commit")

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
