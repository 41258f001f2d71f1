"""What a read-only MCP tool call sends to PostgreSQL: its one read, and nothing else on the call path.

The replica runs for real (uvicorn, the SDK's client over Streamable HTTP, a bearer token); every
connection of its small-read pool is traced at the protocol level (libpq's trace of the messages
it sends and receives), so what is counted is what went on the wire: no `BEGIN`/`COMMIT`, no
`SET` or reset per checkout, no connection check, no re-preparation, one round trip per call.
The audit rows go through the writer's own connections, off the call path (counted elsewhere:
`docs/decisions/postgres-call-path.md`).
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.settings import Settings
from rpa_mcp.store import postgres
from tests.conftest import SECRET, token_for

pytestmark = pytest.mark.anyio
WARM_UP = 20  # the driver prepares a statement on its fifth use on a connection
CALLS = 30


class _Traces:
    """The small-read pool's connections, each traced to a file of its own while `on`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.conns: list[Any] = []
        self.files: list[Any] = []
        self.on = False

    def add(self, conn: Any) -> None:
        self.conns.append(conn)
        if self.on:
            self._trace(conn)

    def start(self) -> None:
        self.on = True
        for conn in self.conns:
            self._trace(conn)

    def stop(self) -> collections.Counter[str]:
        """Untrace (libpq flushes its trace) and count the messages by direction and type."""
        self.on = False
        for conn in self.conns:
            if not conn.closed:
                conn.pgconn.untrace()
        counts: collections.Counter[str] = collections.Counter()
        for file in self.files:
            file.close()
            for line in Path(file.name).read_text().splitlines():
                fields = line.split("\t")
                if len(fields) >= 3:
                    counts[f"{fields[0]} {fields[2]}"] += 1
        return counts

    def _trace(self, conn: Any) -> None:
        from psycopg import pq

        file = open(self.folder / f"conn{len(self.files)}.trace", "w")  # noqa: SIM115 - closed by stop()
        self.files.append(file)
        conn.pgconn.trace(file.fileno())
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)


@pytest.fixture
def replica(pg_url, tmp_path, monkeypatch) -> Any:
    """A replica's services on a fresh database, its small-read connections traced (closed after
    the server that uses them: request this fixture before `serve`)."""
    traces = _Traces(tmp_path)
    configure = postgres._configure_async

    async def traced(conn: Any) -> None:
        await configure(conn)
        traces.add(conn)

    monkeypatch.setattr(postgres, "_configure_async", traced)
    settings = Settings(
        data_dir=tmp_path / "data", jwt_secret=SECRET, audit_key="a" * 48, store_url=pg_url, rate_limit_per_minute=10**6
    )
    services = build_services(settings)
    yield settings, services, traces
    services.db.close()


async def test_a_read_only_mcp_call_is_one_statement_in_one_round_trip(replica, serve):
    settings, services, traces = replica
    base = await serve(create_app(settings, services=services))
    token = token_for(services, "nurse-alice", "operator")
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        for _ in range(WARM_UP):
            assert not (await client.call_tool("list_machines", {})).is_error
        traces.start()
        for _ in range(CALLS):
            assert not (await client.call_tool("list_machines", {})).is_error
        sent = traces.stop()
    services.audit.flush()
    assert len(services.audit.rows(operation="list_machines")) == WARM_UP + CALLS  # every call audited
    assert traces.conns  # the reads went over the asyncio pool
    assert sent["F Bind"] == CALLS and sent["F Execute"] == CALLS  # one statement per call, already prepared
    assert sent["F Sync"] == CALLS and sent["B ReadyForQuery"] == CALLS  # one round trip per call
    assert sent["F Parse"] == 0 and sent["F Query"] == 0  # nothing re-parsed; no BEGIN, COMMIT, SET, RESET
