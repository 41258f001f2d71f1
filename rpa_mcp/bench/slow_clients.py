"""Slow and idle clients against a real server in a child process, under a system service's open-file limit.

N connections from 127.0.0.2 (one address): half send nothing, half send a request head one
line every 4 s; a connection the server closes or refuses is opened again 1 s later, until the flood ends.
Meanwhile a well-behaved client on 127.0.0.1 opens a new connection for each `/healthz` and
each authenticated call (`POST /api/v1/tools/list_sessions`), as a monitoring probe would. The
server's open sockets are counted from /proc.

The same flood runs against each HTTP set-up: uvicorn with its defaults ("plain"), uvicorn with
its own limits (limit_concurrency, timeout_keep_alive: "options") and `rpa-mcp serve`'s guarded
protocol ("guarded"); the child starts with a soft open-file limit of 1024 (a system service's).
All traffic stays on loopback; every loop is bounded by the flood's duration.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import anyio
import httpx2

from rpa_mcp.bench import summary
from rpa_mcp.bench.server import ServerProcess, server_process

HOSTILE = "127.0.0.2"
LINE_EVERY_S = 4.0
PROBE_TIMEOUT_S = 5.0
REOPEN_AFTER_S = 1.0  # a closed or refused connection is opened again after this (the servers' Retry-After)
SERVICE_OPEN_FILES = 1024


def raise_own_open_files(need: int) -> None:
    """This (client) process holds every hostile socket: its soft limit up to what it needs, within the hard."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need if hard == resource.RLIM_INFINITY else min(need, hard), hard))


def open_sockets(pid: int) -> int:
    count = 0
    for name in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:")
        except OSError:
            continue
    return count


class Flood:
    """Counts of the hostile side: open now, at most, refused with 503, closed by the server.

    asyncio's own streams with numeric addresses: no name look-up in worker threads (anyio's
    `connect_tcp` resolves `local_host` in the thread pool, which 2,000 connections would fill,
    delaying the probes' own connections in this process, not the server).
    """

    def __init__(self, port: int, until: float) -> None:
        self.port, self.until = port, until
        self.errors: Counter[str] = Counter()
        self.open = self.most_open = self.opened = self.refused = self.closed_by_server = self.failed_connects = 0

    def _left(self) -> float:
        return max(0.0, self.until - time.monotonic())

    async def connection(self, index: int) -> None:
        slow = index % 2 == 1
        while self._left() > 0:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", self.port, local_addr=(HOSTILE, 0)), self._left() + 0.1
                )
            except (OSError, TimeoutError) as exc:
                self.failed_connects += 1
                self.errors[type(exc).__name__] += 1
                await anyio.sleep(REOPEN_AFTER_S)
                continue
            self.opened += 1
            self.open += 1
            self.most_open = max(self.most_open, self.open)
            try:
                await self._hold(reader, writer, slow)
            finally:
                self.open -= 1
                writer.close()
            await anyio.sleep(REOPEN_AFTER_S)

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, slow: bool) -> None:
        lines = [b"GET /healthz HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n"] + [b"X-Slow: %d\r\n" % i for i in range(1000)]
        with anyio.move_on_after(self._left()):
            for line in lines if slow else []:
                try:
                    writer.write(line)
                    await writer.drain()
                except OSError:
                    self.closed_by_server += 1
                    return
                with anyio.move_on_after(LINE_EVERY_S):
                    await self._answered(reader)
                    return
            if not slow:
                await self._answered(reader)

    async def _answered(self, reader: asyncio.StreamReader) -> None:
        """Wait for the server's answer or its end of the connection."""
        try:
            data = await reader.read(65536)
        except OSError:
            data = b""
        if data.startswith(b"HTTP/1.1 503"):
            self.refused += 1
        else:
            self.closed_by_server += 1


async def probe(client: httpx2.AsyncClient, path: str, **kwargs: object) -> tuple[float | None, int]:
    started = time.perf_counter()
    try:
        if path == "/healthz":
            r = await client.get(path, timeout=PROBE_TIMEOUT_S)
        else:
            r = await client.post(path, timeout=PROBE_TIMEOUT_S, **kwargs)  # type: ignore[arg-type]  # json, headers
    except (httpx2.HTTPError, OSError):
        return None, 0
    return (time.perf_counter() - started) * 1000, r.status_code


async def run_flood(port: int, connections: int, seconds: float) -> dict[str, object]:
    """The hostile side (in its own process: its event loop must not delay the probes' timings)."""
    hostile = Flood(port, time.monotonic() + seconds)
    async with anyio.create_task_group() as group:
        for index in range(connections):
            group.start_soon(hostile.connection, index)
    return {
        "opened": hostile.opened,
        "most_open": hostile.most_open,
        "refused": hostile.refused,
        "closed_by_server": hostile.closed_by_server,
        "failed_connects": hostile.failed_connects,
        "errors": dict(hostile.errors),
    }


async def flood(server: ServerProcess, connections: int, seconds: float) -> list[str]:
    port = int(server.base.rsplit(":", 1)[1])
    token = server.token("operator")
    limits = httpx2.Limits(max_keepalive_connections=0)  # a new connection per probe
    call: dict[str, object] = {"json": {}, "headers": {"authorization": f"Bearer {token}"}}
    probes: list[tuple[str, str, dict[str, object]]] = [
        ("healthz", "/healthz", {}),
        ("call", "/api/v1/tools/list_sessions", call),
    ]
    async with httpx2.AsyncClient(base_url=server.base, limits=limits) as client:
        (await client.get("/healthz", timeout=60)).raise_for_status()
        quiet: dict[str, list[float]] = {"healthz": [], "call": []}
        for _ in range(20):  # the same probes before the flood: this machine's noise
            for name, path, kwargs in probes:
                took, _ = await probe(client, path, **kwargs)
                quiet[name].append(took if took is not None else PROBE_TIMEOUT_S * 1000)
        attacker = await anyio.open_process(
            [sys.executable, "-m", "rpa_mcp.bench.slow_clients", str(port), str(connections), str(seconds)],
            stderr=None,
        )
        until = time.monotonic() + seconds
        health: list[float] = []
        calls: list[float] = []
        unanswered = {"healthz": 0, "call": 0}
        statuses: set[int] = set()
        most_sockets = 0
        async with attacker:
            await anyio.sleep(min(3.0, seconds / 3))  # the flood builds up before the first probe
            while time.monotonic() < until:
                most_sockets = max(most_sockets, open_sockets(server.pid))
                for name, path, kwargs in probes:
                    took, status = await probe(client, path, **kwargs)
                    statuses.add(status)
                    if took is None or status != 200:
                        unanswered[name] += 1
                    else:
                        (health if name == "healthz" else calls).append(took)
                await anyio.sleep(0.2)
            assert attacker.stdout is not None
            report = json.loads((await attacker.stdout.receive(65536)).decode() or "{}")
            await attacker.wait()
    log = server.log()

    def line(values: list[float], missing: int) -> str:
        return (summary(values) if values else "no answer") + f"   unanswered {missing}"

    return [
        f"  hostile: {connections} at once, {report.get('opened')} opened over {seconds:.0f} s, at most "
        f"{report.get('most_open')} open; {report.get('refused')} refused 503, {report.get('closed_by_server')} "
        f"closed by the server, {report.get('failed_connects')} connects failed {report.get('errors')}",
        f"  server sockets open at most: {most_sockets}   'Invalid file descriptor' in its log: "
        f"{log.count('Invalid file descriptor')}",
        f"  quiet, before the flood: /healthz {summary(quiet['healthz'])}; call {summary(quiet['call'])}",
        f"  /healthz (new connection each):  {line(health, unanswered['healthz'])}",
        f"  authenticated list_sessions:     {line(calls, unanswered['call'])}   statuses {sorted(statuses)}",
    ]


async def measure(connections: int, seconds: float, setups: list[str]) -> list[str]:
    lines = [
        f"{connections} slow/idle connections from {HOSTILE} for {seconds:.0f} s; server soft open-file limit "
        f"{SERVICE_OPEN_FILES} at start; probes from 127.0.0.1:"
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for setup in setups:
            with server_process(Path(tmp) / setup, http=setup, open_files=SERVICE_OPEN_FILES) as server:
                lines.append(f" {setup}:")
                lines += await flood(server, connections, seconds)
    return lines


def loopback_alias_works() -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((HOSTILE, 0))
        except OSError:
            return False
    return True


def main(argv: list[str]) -> int:
    """The attacker's process: `python -m rpa_mcp.bench.slow_clients PORT CONNECTIONS SECONDS`."""
    port, connections, seconds = int(argv[0]), int(argv[1]), float(argv[2])
    raise_own_open_files(connections + 512)
    print(json.dumps(anyio.run(run_flood, port, connections, seconds)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
