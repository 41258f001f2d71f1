"""MCP tool-call overhead: a read-only tool of ours vs a bare MCPServer echo tool.

Both servers run under uvicorn on 127.0.0.1 in this process, are called with the SDK's
client over Streamable HTTP (2026-07-28 era), sequentially and with 8 concurrent clients.
The figure that matters is the ratio ours / bare, measured in the same run.
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.routing import Mount

from rpa_mcp.bench import summary
from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.settings import Settings
from rpa_mcp.testing import loopback_socket


def bare_app() -> Starlette:
    server = MCPServer("bare", log_level="WARNING")

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    inner = server.streamable_http_app(streamable_http_path="/mcp")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    return Starlette(routes=[Mount("/", app=inner)], lifespan=lifespan)


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    sock = loopback_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        while not server.started:
            await anyio.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        server.should_exit = True


async def _calls(url: str, token: str | None, tool: str, args: dict[str, Any], n: int, concurrency: int) -> list[float]:
    out: list[float] = []
    headers = {"Authorization": f"Bearer {token}"} if token else {}

    async def worker(count: int) -> None:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            await client.call_tool(tool, args)  # warm-up
            for _ in range(count):
                start = time.perf_counter()
                result = await client.call_tool(tool, args)
                out.append((time.perf_counter() - start) * 1000)
                assert not result.is_error, result.content

    async with anyio.create_task_group() as tg:
        for _ in range(concurrency):
            tg.start_soon(worker, n // concurrency)
    return out


async def _run(n: int, store_url: str | None) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp), jwt_secret="b" * 48, audit_key="a" * 48, rate_limit_per_minute=10**7,
            store_url=store_url,
        )  # fmt: skip
        services = build_services(settings)
        token = services.access_tokens.mint("bench", ["operator"])
        ours_app = create_app(settings, services=services)
        tool, args = "list_machines", dict[str, Any]()
        backend = "PostgreSQL" if store_url else "SQLite"
        lines = [
            f"ours on {backend}: {tool} (auth + role check + rate limit + audit row + output validation); bare: echo"
        ]
        async with serving(ours_app) as ours_url, serving(bare_app()) as bare_url:
            for concurrency in (1, 8):
                bare = await _calls(bare_url, None, "echo", {"text": "hi"}, n, concurrency)
                ours = await _calls(ours_url, token, tool, args, n, concurrency)
                ratio = statistics.median(ours) / statistics.median(bare)
                lines.append(f"  {concurrency} client(s)  bare  {summary(bare)}")
                lines.append(f"  {concurrency} client(s)  ours  {summary(ours)}")
                tail = _p99(ours) / _p99(bare)
                lines.append(f"  {concurrency} client(s)  ratio ours/bare: median {ratio:.2f}, p99 {tail:.2f}")
        services.db.close()
        return "\n".join(lines)


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def run(argv: list[str]) -> str:
    """`rpa-mcp bench mcp [--rest N] [sqlite|postgres ...]`: both backends by default."""
    import contextlib
    import os
    import secrets

    n = next((int(a) for a in argv if a.isdigit()), 200)
    backends = [a for a in argv if a in ("sqlite", "postgres")] or ["sqlite", "postgres"]
    out = []
    with contextlib.ExitStack() as stack:
        for backend in backends:
            url = None
            if backend == "postgres":
                from rpa_mcp.pgcluster import create_database, throwaway_cluster

                cluster = os.environ.get("RPA_BENCH_PG_URL") or stack.enter_context(throwaway_cluster())
                url = create_database(cluster, "bench_mcp_" + secrets.token_hex(4))
            out.append(anyio.run(_run, n, url))
    return "\n".join(out)
