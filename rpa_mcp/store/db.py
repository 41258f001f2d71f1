"""The database every repository shares, on SQLite (embedded default) or PostgreSQL (scale-out).

Repositories write plain SQL with `?` placeholders; the PostgreSQL backend translates them
(and `IS ?` into `IS NOT DISTINCT FROM`). Schema steps are per backend (`Migrations`), append
only: never edit a released step. `transaction()` is one atomic unit (SQLite: `BEGIN
IMMEDIATE`, the write lock; PostgreSQL: a pooled connection in a transaction); nested calls
join the outer one. Use it for every read-modify-write so a transition is one conditional
write.

`Database(path)` opens SQLite, like `pathlib.Path` picks its flavour; `open_database(settings)`
picks the backend from `RPA_STORE_URL`.

A commit hook (`add_commit_hook`) runs inside every outermost transaction that wrote
something, just before it commits: the audit log uses it to commit an operation's audit row
with the operation's first write.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import anyio.to_thread

from rpa_mcp.errors import ConfigurationError, SchemaOutdated

if TYPE_CHECKING:
    from rpa_mcp.settings import Settings

Dialect = Literal["sqlite", "postgres"]
Row = Mapping[str, Any]
Params = Sequence[Any] | dict[str, Any]
SQLITE_FILE = "rpa.sqlite3"


class IntegrityError(Exception):
    """A unique or foreign-key constraint refused a write (the same class on both backends)."""


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """What a transaction yields: `execute` (with `?` placeholders) and `executemany`."""

    def execute(self, sql: str, params: Params = ...) -> Cursor: ...
    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any: ...


@dataclass(frozen=True)
class Migrations:
    """One area's schema steps, written once per backend; step N means the same on both."""

    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.sqlite) != len(self.postgres):
            raise ValueError("every schema step needs a SQLite and a PostgreSQL script")

    def steps(self, dialect: Dialect) -> tuple[str, ...]:
        return self.sqlite if dialect == "sqlite" else self.postgres


# Runs inside a transaction that wrote, before COMMIT; may return what to run once it committed.
CommitHook = Callable[[Connection], Callable[[], None] | None]


class Database:
    """Base of both backends; `Database(path)` gives a `SqliteDatabase`."""

    dialect: Dialect
    path: str  # the SQLite file, ":memory:", or a PostgreSQL URL without its password
    auto_upgrade: bool = True

    def __new__(cls, *args: Any, **kwargs: Any) -> Database:
        if cls is Database:
            from rpa_mcp.store.sqlite import SqliteDatabase

            return super().__new__(SqliteDatabase)
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover - the subclasses' own
        raise TypeError("Database is abstract; use Database(path) or open_database(settings)")

    # --- the backend's part ------------------------------------------------------------------
    def transaction(self, *, savepoint: bool = False, pipeline: bool = False) -> AbstractContextManager[Connection]:
        """One atomic unit (see the module docstring). `pipeline=True` asks a networked backend to
        send the statements without waiting for each result: read results only where needed."""
        raise NotImplementedError

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def add_commit_hook(self, hook: CommitHook) -> None:
        raise NotImplementedError

    def lock(self, conn: Connection, key: str) -> None:
        """Serialise transactions on `key` until this one ends (a no-op where writes are serialised anyway)."""

    def forget_scrubbed(self) -> None:
        """Secrets were just overwritten: leave no older copy in the files the backend keeps (SQLite: the
        write-ahead log is checkpointed and truncated once the transaction commits; freed space is zeroed
        as it is freed, `secure_delete`). PostgreSQL keeps old row versions until VACUUM: nothing to do
        from here (docs/operations.md)."""

    def free_now(self) -> AbstractContextManager[bool]:
        """Whether a short read may run on the calling thread without waiting: yields True when
        nothing else uses the store at this instant, and keeps it so for the block. PostgreSQL:
        never (a query is a network round trip, and a pooled connection may have to be waited for)."""
        return contextlib.nullcontext(False)

    def async_reads(self) -> AbstractAsyncContextManager[None]:
        """For the block, `aquery` may answer on the running event loop without a worker thread
        (PostgreSQL: a pool of asyncio connections of its own, opened on this loop). The app's
        lifespan holds it; outside it `aquery` still works, through a worker thread."""
        return _nothing()

    async def aquery(self, sql: str, params: Params = ()) -> list[Row]:
        """A small read for the event loop: a few rows of a small table (one row per workstation),
        never a scan of events. Answered on the loop when the store can do so without blocking it
        (SQLite: its connection free at this instant; PostgreSQL: inside `async_reads()`, over an
        asyncio connection), else in a worker thread: the loop never waits for a lock or the network."""
        with self.free_now() as free:
            if free:
                return self.query(sql, params)
        return await anyio.to_thread.run_sync(self.query, sql, params)

    # --- shared ----------------------------------------------------------------------------
    def query_one(self, sql: str, params: Params = ()) -> Row | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def execute(self, sql: str, params: Params = ()) -> int:
        """One write statement in its own transaction (or the current one); returns the row count."""
        with self.transaction() as conn:
            return conn.execute(sql, params).rowcount

    def statement(self, sql: str, params: Params = ()) -> int:
        """One write statement that is atomic alone (a CTE that checks and writes), committed before
        it returns; returns its row count. PostgreSQL: sent alone in autocommit, one round trip with
        no `BEGIN`/`COMMIT` of its own and no commit hooks, refused inside an open transaction.
        SQLite: `execute` (nothing to save in process)."""
        return self.execute(sql, params)

    def ping(self) -> bool:
        try:
            return self.query_one("SELECT 1 AS ok") is not None
        except Exception:
            return False

    def versions(self) -> dict[str, int]:
        return {r["area"]: int(r["version"]) for r in self.query("SELECT area, version FROM schema_versions")}

    def migrate(self, area: str, migrations: Migrations) -> int:
        """Bring `area` to the code's version (when `auto_upgrade`), else refuse an older schema."""
        steps = migrations.steps(self.dialect)
        done = self.versions().get(area, 0)
        if done == len(steps):
            return done
        if done > len(steps):
            raise SchemaOutdated(
                f"the database's {area!r} schema is version {done}, newer than this server's {len(steps)}: "
                "run a server at least as new as the one that upgraded it",
                area=area,
            )
        if not self.auto_upgrade:
            raise SchemaOutdated(
                f"the database's {area!r} schema is version {done}, this server needs {len(steps)}: "
                "run `rpa-mcp db upgrade` (with the same RPA_STORE_URL / RPA_DATA_DIR), then start again",
                area=area,
            )
        with self.transaction() as conn:
            self.lock(conn, "schema")
            row = conn.execute("SELECT version FROM schema_versions WHERE area = ?", (area,)).fetchone()
            done = int(row["version"]) if row else 0
            for script in steps[done:]:
                self._run_script(conn, script)
            conn.execute(
                "INSERT INTO schema_versions(area, version) VALUES (?, ?) "
                "ON CONFLICT(area) DO UPDATE SET version = excluded.version",
                (area, len(steps)),
            )
        return len(steps)

    def is_empty(self) -> bool:
        """No area was ever installed: a new database, which the server may initialise itself."""
        return not self.versions()

    def _run_script(self, conn: Connection, script: str) -> None:
        raise NotImplementedError


def open_database(settings: Settings, *, auto_upgrade: bool | None = None) -> Database:
    """The backend `RPA_STORE_URL` names: empty = SQLite under `RPA_DATA_DIR`.

    `auto_upgrade=None`: a new, empty database is initialised; an existing one must already
    be at the code's schema (else `SchemaOutdated` names `rpa-mcp db upgrade`).
    """
    url = settings.store_url.get_secret_value().strip() if settings.store_url else ""
    db: Database
    if not url or url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:///").removeprefix("sqlite:") if url else ""
        db = Database(Path(path) if path else settings.data_dir / SQLITE_FILE)
    elif url.startswith(("postgresql://", "postgres://")):
        from rpa_mcp.store.postgres import PostgresDatabase

        password = settings.store_password.get_secret_value() if settings.store_password else None
        db = PostgresDatabase(url, password=password, pool_size=settings.store_pool_size)
    else:
        raise ConfigurationError(
            "RPA_STORE_URL must be empty (SQLite under RPA_DATA_DIR), sqlite:///path or postgresql://user@host:port/db",
            field="RPA_STORE_URL",
        )
    db.auto_upgrade = db.is_empty() if auto_upgrade is None else auto_upgrade
    return db


@contextlib.asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield


def split_statements(script: str) -> list[str]:
    """Split a SQLite script on the semicolons that end a complete statement (triggers keep theirs)."""
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


def iter_rows(rows: Sequence[Row]) -> Iterator[dict[str, Any]]:
    for row in rows:
        yield dict(row)


_PG_TYPES = (
    ("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    ("INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (" REAL", " DOUBLE PRECISION"),
    (" BLOB", " BYTEA"),
)


def postgres_ddl(sqlite_ddl: str) -> str:
    """The PostgreSQL text of a SQLite `CREATE TABLE/INDEX` script that uses only portable SQL
    (column types aside): REAL -> DOUBLE PRECISION, BLOB -> BYTEA, rowid keys -> identity."""
    out = sqlite_ddl
    for old, new in _PG_TYPES:
        out = out.replace(old, new)
    return out
