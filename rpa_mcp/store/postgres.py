"""PostgreSQL backend (psycopg 3 + psycopg_pool): what several replicas share.

Connections come from a pool, in autocommit mode outside a transaction. A transaction is
bound to the thread that opened it (the engine's store calls are synchronous), so reads
inside it see its own writes. SQL is written once with `?` placeholders; `IS ?` becomes
`IS NOT DISTINCT FROM %s`. `lock(conn, key)` is a transaction-scoped advisory lock.
`RPA_STORE_URL` is a libpq URL: TLS options (`sslmode`, `sslrootcert`, ...) pass through;
the password may come apart from it (`RPA_STORE_PASSWORD`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from functools import lru_cache
from typing import Any

import anyio.to_thread
import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.cursor_async import AsyncCursor
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from rpa_mcp.store.db import CommitHook, Connection, Cursor, Database, IntegrityError, Params, Row

_WRITES = ("INSERT", "UPDATE", "DELETE")
_OPEN = (psycopg.pq.TransactionStatus.INTRANS, psycopg.pq.TransactionStatus.INERROR)
_IS_PARAM = re.compile(r"\bIS\s+\?", re.IGNORECASE)


@lru_cache(maxsize=2048)
def translate(sql: str) -> tuple[str, bool]:
    """`?` SQL -> psycopg SQL, and whether the statement writes."""
    out = _IS_PARAM.sub("IS NOT DISTINCT FROM ?", sql).replace("%", "%%").replace("?", "%s")
    return out, sql.lstrip()[:6].upper() in _WRITES


class _Conn:
    __slots__ = ("raw", "wrote")

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw
        self.wrote = False

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        text, writes = translate(sql) if params else (sql, sql.lstrip()[:6].upper() in _WRITES)
        try:
            cur = self.raw.execute(text, params or None)
        except psycopg.errors.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc
        if writes and cur.rowcount:
            self.wrote = True
        return cur

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        text, _ = translate(sql)
        if not rows:
            return None
        try:
            with self.raw.cursor() as cur:
                cur.executemany(text, rows)
        except psycopg.errors.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc
        self.wrote = True
        return None


class _Local(threading.local):
    conn: _Conn | None = None
    depth: int = 0


_SESSION = "SET lock_timeout = '10s'; SET idle_in_transaction_session_timeout = '60s'"


def _configure(conn: psycopg.Connection[Any]) -> None:
    conn.execute(_SESSION)


async def _configure_async(conn: psycopg.AsyncConnection[Any]) -> None:
    await conn.execute(_SESSION)


class _ReadConnection(psycopg.AsyncConnection[Any]):
    """An asyncio connection of the small-read pool, with one cursor kept for its reads (a
    connection serves one read at a time: the pool lends it to one task)."""

    _reads_cursor: AsyncCursor[Any] | None = None

    def reads_cursor(self) -> AsyncCursor[Any]:
        if self._reads_cursor is None:
            self._reads_cursor = self.cursor()
        return self._reads_cursor


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class PostgresDatabase(Database):
    dialect = "postgres"

    def __init__(self, url: str, *, password: str | None = None, pool_size: int = 10) -> None:
        extra = {"password": password} if password else {}
        self.conninfo = make_conninfo(url, **extra)
        shown = conninfo_to_dict(self.conninfo)
        shown.pop("password", None)
        self.path = make_conninfo("", **{k: v for k, v in shown.items() if v is not None})
        self._pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            self.conninfo,
            min_size=1,
            max_size=max(2, pool_size),
            kwargs={"autocommit": True, "row_factory": dict_row},
            configure=_configure,
            open=False,
            name="rpa-store",
        )
        self._pool.open(wait=True, timeout=30)
        self._pool_size = max(2, pool_size)
        self._reads: tuple[asyncio.AbstractEventLoop, AsyncConnectionPool[_ReadConnection]] | None = None
        self._local = _Local()
        self._hooks: list[CommitHook] = []
        with self.transaction() as conn:  # replicas starting together: one creates, the others wait
            self.lock(conn, "schema")
            conn.execute("CREATE TABLE IF NOT EXISTS schema_versions (area TEXT PRIMARY KEY, version INTEGER NOT NULL)")

    def add_commit_hook(self, hook: CommitHook) -> None:
        self._hooks.append(hook)

    @contextmanager
    def transaction(self, *, savepoint: bool = False, pipeline: bool = False) -> Iterator[Connection]:
        """One atomic unit on a pooled connection; nested calls join the outer one (`savepoint=True`:
        a failed inner block rolls back alone).

        `pipeline=True` (outermost only): the statements, BEGIN and COMMIT included, are sent
        without waiting for each other's results; a `fetchone()`/`fetchall()` waits for the
        results up to its statement. So a transaction that reads once, then writes, costs two
        round trips. A statement's error surfaces where its result is read (a fetch, or the end
        of the block). (Every write statement in it counts as a write for the commit hooks.)"""
        local = self._local
        if local.conn is not None:
            local.depth += 1
            try:
                if not savepoint:
                    yield local.conn
                    return
                name = f"sp{local.depth}"
                local.conn.raw.execute(f"SAVEPOINT {name}")
                try:
                    yield local.conn
                except BaseException:
                    local.conn.raw.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    raise
                local.conn.raw.execute(f"RELEASE SAVEPOINT {name}")
            finally:
                local.depth -= 1
            return
        with self._pool.connection() as raw:
            conn = _Conn(raw)
            local.conn, local.depth = conn, 1
            after: list[Callable[[], None]] = []
            try:
                with raw.pipeline() if pipeline else contextlib.nullcontext():
                    raw.execute("BEGIN")
                    yield conn
                    if self._hooks and conn.wrote:
                        after = [cb for hook in self._hooks if (cb := hook(conn)) is not None]
                    raw.execute("COMMIT")
            except BaseException as exc:
                if raw.info.transaction_status in _OPEN:  # (not after a failed COMMIT: it ended the transaction)
                    raw.execute("ROLLBACK")
                if isinstance(exc, psycopg.errors.IntegrityError):  # a pipelined statement's, read late
                    raise IntegrityError(str(exc)) from exc
                raise
            finally:
                local.conn, local.depth = None, 0
        for cb in after:
            cb()

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        text = translate(sql)[0] if params else sql
        if self._local.conn is not None:
            rows: list[Row] = self._local.conn.raw.execute(text, params or None).fetchall()
            return rows
        with self._pool.connection() as raw:
            rows = raw.execute(text, params or None).fetchall()
            return rows

    @asynccontextmanager
    async def async_reads(self) -> AsyncIterator[None]:
        """Small reads (`aquery`) over a pool of asyncio connections, on this event loop, for the
        block: a read is one round trip awaited like any other socket, with no hop to a worker
        thread and back (which cost about half a millisecond per read on a busy 2-core machine)."""
        pool: AsyncConnectionPool[_ReadConnection] = AsyncConnectionPool(
            self.conninfo,
            connection_class=_ReadConnection,
            min_size=1,
            max_size=self._pool_size,
            kwargs={"autocommit": True, "row_factory": dict_row},
            configure=_configure_async,
            open=False,
            name="rpa-store-reads",
        )
        await pool.open(wait=True, timeout=30)
        outer, self._reads = self._reads, (asyncio.get_running_loop(), pool)
        try:
            yield
        finally:
            self._reads = outer
            await pool.close()

    def statement(self, sql: str, params: Params = ()) -> int:
        if self._local.conn is not None:
            raise RuntimeError("statement() runs on its own, never inside a transaction")
        text = translate(sql)[0] if params else sql
        with self._pool.connection() as raw:
            try:
                return raw.execute(text, params or None).rowcount
            except psycopg.errors.IntegrityError as exc:
                raise IntegrityError(str(exc)) from exc

    async def aquery(self, sql: str, params: Params = ()) -> list[Row]:
        reads = self._reads
        if reads is None or reads[0] is not _running_loop() or self._local.conn is not None:
            return await anyio.to_thread.run_sync(self.query, sql, params)
        text = translate(sql)[0] if params else sql
        pool = reads[1]
        # getconn/putconn rather than `pool.connection()`: its async generator and the
        # connection's own context (a COMMIT check) cost about a tenth of a millisecond per read;
        # putconn does what matters (a broken connection or one left mid-statement is replaced).
        raw = await pool.getconn()
        try:
            cursor = await raw.reads_cursor().execute(text, params or None)
            rows: list[Row] = await cursor.fetchall()
        except BaseException:
            with anyio.CancelScope(shield=True):  # a cancelled read still gives its connection back
                await pool.putconn(raw)
            raise
        await pool.putconn(raw)
        return rows

    def lock(self, conn: Connection, key: str) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (key,))

    def _run_script(self, conn: Connection, script: str) -> None:
        conn.execute(script)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection of its own (autocommit): session-level locks, LISTEN."""
        with self._pool.connection() as raw:
            yield raw

    def close(self) -> None:
        self._pool.close()
