"""Small store reads (`Database.aquery`) never make the event loop wait for a lock or the network.

SQLite answers on the loop when its connection is free at that instant, else in a worker
thread; PostgreSQL answers over asyncio connections inside `async_reads()` (the app's
lifespan), else in a worker thread. Either way the rows are those of `query`.
"""

from __future__ import annotations

import threading

import anyio
import anyio.to_thread
import pytest

from rpa_mcp.store.db import Database
from rpa_mcp.store.traces import TraceStore

pytestmark = pytest.mark.anyio


def _sqlite_with_thread_ids(tmp_path) -> Database:
    db = Database(tmp_path / "reads.sqlite3")
    db._raw.create_function("thread_id", 0, threading.get_ident)  # which thread ran the statement
    return db


async def test_a_small_read_runs_on_the_loop_when_the_connection_is_free(tmp_path):
    db = _sqlite_with_thread_ids(tmp_path)
    try:
        rows = await db.aquery("SELECT thread_id() AS ran_on")
        assert rows[0]["ran_on"] == threading.get_ident()
    finally:
        db.close()


async def test_a_small_read_waits_in_a_worker_thread_while_another_thread_holds_the_connection(tmp_path):
    db = _sqlite_with_thread_ids(tmp_path)
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with db.transaction():  # e.g. a long write transaction committing with its fsync
            held.set()
            release.wait(timeout=30)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert held.wait(timeout=30)
        ran_on: list[int] = []

        async def read() -> None:
            ran_on.append((await db.aquery("SELECT thread_id() AS ran_on"))[0]["ran_on"])

        with anyio.fail_after(30):  # the loop stays free: the read waits for the lock off the loop
            async with anyio.create_task_group() as tg:
                tg.start_soon(read)
                await anyio.sleep(0)
                release.set()
        assert ran_on and ran_on[0] != threading.get_ident()
    finally:
        release.set()
        thread.join(timeout=30)
        db.close()


async def test_on_postgres_small_reads_inside_async_reads_take_no_worker_thread(pg_url, monkeypatch):
    from rpa_mcp.store.postgres import PostgresDatabase

    db = PostgresDatabase(pg_url)
    traces = TraceStore(db)
    traces.touch_session("s1", "m1", now=1.0, locale=None)
    hops: list[object] = []
    real_run_sync = anyio.to_thread.run_sync

    async def counting_run_sync(fn, *args, **kwargs):
        hops.append(fn)
        return await real_run_sync(fn, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting_run_sync)
    try:
        assert await traces.list_machines_async() == traces.list_machines()  # outside: a worker thread
        assert len(hops) == 1
        async with db.async_reads():
            async with anyio.create_task_group() as tg:  # concurrent reads share the pool
                for _ in range(4):
                    tg.start_soon(traces.list_machines_async)
            rows = await db.aquery("SELECT machine_id FROM trace_machines WHERE machine_id = ?", ("m1",))
            assert [dict(r) for r in rows] == [{"machine_id": "m1"}]
            assert await traces.list_machines_async() == traces.list_machines()
        assert len(hops) == 1
    finally:
        db.close()


async def test_on_postgres_cancelled_small_reads_give_their_connections_back(pg_url):
    from rpa_mcp.store.postgres import PostgresDatabase

    db = PostgresDatabase(pg_url, pool_size=2)
    try:
        async with db.async_reads():
            for _ in range(5):  # more cancelled reads than the pool holds connections
                async with anyio.create_task_group() as tg:
                    tg.start_soon(db.aquery, "SELECT pg_sleep(2)")
                    for _ in range(3):
                        await anyio.sleep(0)  # the read is somewhere between checkout and its reply
                    tg.cancel_scope.cancel()
            with anyio.fail_after(60):  # a leaked connection would leave the pool empty: PoolTimeout
                assert [dict(r) for r in await db.aquery("SELECT 1 AS ok")] == [{"ok": 1}]
    finally:
        db.close()
