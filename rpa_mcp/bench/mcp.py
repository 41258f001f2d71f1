"""MCP tool-call overhead: a read-only tool of ours vs a bare MCPServer echo tool.

Both servers run under uvicorn on 127.0.0.1 in this process, are called with the SDK's
client over Streamable HTTP (2026-07-28 era), with 1 and with 8 concurrent clients. The
clients of both sides connect once; then the calls alternate between the two servers in
blocks (bare, ours, ours, bare, ...), so that whatever else the machine does hits both sides
alike. The figure that matters is the ratio ours / bare within this run: of the medians and
p99s over all calls, and per block pair (median and interquartile range of the block ratios).
`cpu` is this process's CPU time per call (the SDK clients and both servers live here; the
database server's own CPU is not in it).
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
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
from rpa_mcp.entrypoints.app import create_app, freeze_startup_heap
from rpa_mcp.errors import InvalidInput
from rpa_mcp.settings import Settings
from rpa_mcp.testing import loopback_socket

BLOCK_CALLS = 40  # calls per block and side: a block pair takes well under a second


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
    """`n` calls of `tool` by `concurrency` clients that connect for them (milliseconds each)."""
    async with _clients(url, token, tool, args, concurrency) as side:
        return await side.block(n)


@dataclass
class _Side:
    """Connected clients of one server, calling one tool."""

    clients: list[Client]
    tool: str
    args: dict[str, Any]

    async def block(self, n: int) -> list[float]:
        """`n` calls spread over the clients, all clients at once (milliseconds each)."""
        out: list[float] = []

        async def worker(client: Client, count: int) -> None:
            for _ in range(count):
                start = time.perf_counter()
                result = await client.call_tool(self.tool, self.args)
                out.append((time.perf_counter() - start) * 1000)
                assert not result.is_error, result.content

        async with anyio.create_task_group() as tg:
            for client in self.clients:
                tg.start_soon(worker, client, n // len(self.clients))
        return out


@contextlib.asynccontextmanager
async def _clients(url: str, token: str | None, tool: str, args: dict[str, Any], count: int) -> AsyncIterator[_Side]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for _ in range(count):
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
            client = await stack.enter_async_context(Client(streamable_http_client(url, http_client=http)))
            await client.call_tool(tool, args)  # warm-up
            clients.append(client)
        yield _Side(clients, tool, args)


@dataclass
class Interleaved:
    """What `interleaved` measured: every call of each side, the ratio of the medians of each
    block pair, and this process's CPU time per call of each side (clients and servers alike)."""

    bare: list[float]
    ours: list[float]
    ratios: list[float]
    cpu_bare_ms: float
    cpu_ours_ms: float


async def interleaved(bare: _Side, ours: _Side, n: int, block: int) -> Interleaved:
    """`n` calls per side in alternating blocks of `block` calls (bare-ours, then ours-bare, ...),
    after one block per side that is not counted (pools grow to the concurrency, caches fill)."""
    for side in (bare, ours):
        await side.block(block)
    got: dict[int, list[float]] = {id(bare): [], id(ours): []}
    cpu = {id(bare): 0.0, id(ours): 0.0}
    ratios: list[float] = []
    for i in range(max(1, n // block)):
        pair: dict[int, list[float]] = {}
        for side in (bare, ours) if i % 2 == 0 else (ours, bare):
            started = time.process_time()
            pair[id(side)] = await side.block(block)
            cpu[id(side)] += time.process_time() - started
            got[id(side)] += pair[id(side)]
        ratios.append(statistics.median(pair[id(ours)]) / statistics.median(pair[id(bare)]))
    per_call = {key: 1000 * seconds / max(1, len(got[key])) for key, seconds in cpu.items()}
    return Interleaved(got[id(bare)], got[id(ours)], ratios, per_call[id(bare)], per_call[id(ours)])


async def _run(n: int, store_url: str | None, runs: int = 1) -> str:
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
            f"ours on {backend}: {tool} (auth + role check + rate limit + audit row + output validation); bare: echo;"
            f" calls alternate in blocks of {BLOCK_CALLS} per side"
        ]
        async with serving(ours_app) as ours_url, serving(bare_app()) as bare_url:
            for concurrency in (1, 8):
                async with (
                    _clients(bare_url, None, "echo", {"text": "hi"}, concurrency) as bare_side,
                    _clients(ours_url, token, tool, args, concurrency) as ours_side,
                ):
                    freeze_startup_heap()  # as `rpa-mcp serve` does once it is built (both servers live here)
                    every = [await interleaved(bare_side, ours_side, n, BLOCK_CALLS) for _ in range(runs)]
                for i, got in enumerate(every):
                    who = f"  {concurrency} client(s)" + (f" run {i + 1}" if runs > 1 else "")
                    ratio = statistics.median(got.ours) / statistics.median(got.bare)
                    tail = _p99(got.ours) / _p99(got.bare)
                    q1, mid, q3 = _quartiles(got.ratios)
                    lines.append(f"{who}  bare  {summary(got.bare)}  cpu {got.cpu_bare_ms:.2f} ms/call")
                    lines.append(f"{who}  ours  {summary(got.ours)}  cpu {got.cpu_ours_ms:.2f} ms/call")
                    lines.append(
                        f"{who}  ratio ours/bare: median {ratio:.2f}, p99 {tail:.2f};"
                        f" per block pair median {mid:.2f} (IQR {q1:.2f}-{q3:.2f}, {len(got.ratios)} pairs)"
                    )
                if runs > 1:
                    lines.append(f"  {concurrency} client(s)  {over_runs(every)}")
        services.db.close()
        return "\n".join(lines)


def over_runs(runs: list[Interleaved]) -> str:
    """The median over runs of each run's ratios (ours / bare, of the medians and of the p99s), with
    each run's: one run's figure moves with what the machine does meanwhile, the median of several
    back to back much less."""
    medians = [statistics.median(r.ours) / statistics.median(r.bare) for r in runs]
    tails = [_p99(r.ours) / _p99(r.bare) for r in runs]
    listed = ", ".join(f"{m:.2f}/{t:.2f}" for m, t in zip(medians, tails, strict=True))
    return (
        f"over {len(runs)} runs: ratio ours/bare median {statistics.median(medians):.2f},"
        f" p99 {statistics.median(tails):.2f} (each run median/p99: {listed})"
    )


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def run(argv: list[str]) -> str:
    """`rpa-mcp bench mcp [--rest N] [--runs K] [sqlite|postgres ...]`: both backends by default; N
    calls per side and client count (default 200), in alternating blocks, K times back to back on the
    same servers and clients (default 1); with K > 1 the median of the runs' ratios is printed too."""
    import contextlib
    import os
    import secrets

    runs = 1
    if "--runs" in argv:
        at = argv.index("--runs")
        value = argv[at + 1] if at + 1 < len(argv) else ""
        if not value.isdigit() or not 1 <= int(value) <= 50:
            raise InvalidInput(f"--runs takes a number of runs from 1 to 50, not {value!r}", field="--runs")
        runs = int(value)
        argv = [*argv[:at], *argv[at + 2 :]]
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
            out.append(anyio.run(_run, n, url, runs))
    return "\n".join(out)
