"""Small store reads run on the event loop only when the store answers at once; else in a worker thread."""

from __future__ import annotations

import threading

import anyio
import pytest

from rpa_mcp.ops.common import small_read
from tests.security.conftest import make_services

pytestmark = pytest.mark.anyio


async def test_a_small_read_runs_on_the_loop_when_the_connection_is_free(tmp_path):
    services = make_services(tmp_path)
    assert await small_read(services, threading.get_ident) == threading.get_ident()
    assert await small_read(services, services.shadow.list_machines) == []


async def test_a_small_read_waits_in_a_worker_thread_while_another_thread_holds_the_connection(tmp_path):
    services = make_services(tmp_path)
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with services.db.transaction():  # e.g. a long write transaction committing with its fsync
            held.set()
            release.wait(timeout=30)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert held.wait(timeout=30)
        ran_on = await small_read(services, threading.get_ident)
        assert ran_on != threading.get_ident()
        with anyio.fail_after(30):  # the loop stays free: the read waits for the lock off the loop
            async with anyio.create_task_group() as tg:
                tg.start_soon(small_read, services, services.shadow.list_machines)
                await anyio.sleep(0)
                release.set()
    finally:
        release.set()
        thread.join(timeout=30)
