"""Slow and idle clients cannot hold the server: deadlines, connection caps, the open-file limit.

A real server (uvicorn with the connection guard, as `rpa-mcp serve` runs it) on loopback, with
small limits. The hostile sockets come from 127.0.0.2 and the well-behaved client from 127.0.0.1
(two addresses of the loopback network). Nothing here is timed: each test waits for an event
(the server's answer, or its end of the connection) under a generous safety deadline; on uvicorn
alone the idle and slow sockets are never answered and that deadline fails the test.
"""

from __future__ import annotations

import contextlib
import resource
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.abc
import httpx2
import pytest
import uvicorn

from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.entrypoints.http_server import HttpLimits, ensure_open_files, server_config
from rpa_mcp.errors import StartupRefused
from rpa_mcp.testing import loopback_socket
from tests.security.conftest import make_services, operator

pytestmark = pytest.mark.anyio
HOSTILE = "127.0.0.2"
SAFETY_S = 30


@contextlib.asynccontextmanager
async def guarded_server(tmp_path: Any, limits: HttpLimits) -> AsyncIterator[tuple[str, str]]:
    """(base URL, operator token) of the whole app served with `limits` on a loopback port."""
    services = make_services(tmp_path)
    sock = loopback_socket()
    sock.listen(64)  # connections wait in the backlog until the server accepts them: no polling for readiness
    server = uvicorn.Server(server_config(create_app(services=services), limits, lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        try:
            yield f"http://127.0.0.1:{sock.getsockname()[1]}", operator(services)
        finally:
            server.should_exit = True


async def hostile_socket(base: str) -> anyio.abc.SocketStream:
    port = int(base.rsplit(":", 1)[1])
    return await anyio.connect_tcp("127.0.0.1", port, local_host=HOSTILE)


async def read_to_end(stream: anyio.abc.SocketStream) -> bytes:
    """Everything the server sends until it closes its end."""
    received = b""
    with anyio.fail_after(SAFETY_S):
        while True:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return received


async def test_a_connection_that_sends_nothing_is_closed_at_the_idle_deadline(tmp_path):
    async with guarded_server(tmp_path, HttpLimits(idle_timeout_s=0.2)) as (base, _):
        stream = await hostile_socket(base)
        async with stream:
            assert await read_to_end(stream) == b""  # closed without an answer: there was no request


async def test_headers_sent_slowly_are_answered_408_at_the_header_deadline(tmp_path):
    async with guarded_server(tmp_path, HttpLimits(header_timeout_s=0.3)) as (base, _):
        stream = await hostile_socket(base)
        async with stream:
            await stream.send(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
            answer = await read_to_end(stream)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b'"code": "request-timeout"' in answer


async def test_a_body_sent_slowly_is_answered_408_at_the_body_deadline(tmp_path):
    async with guarded_server(tmp_path, HttpLimits(body_timeout_s=0.3)) as (base, token):
        stream = await hostile_socket(base)
        async with stream:
            host = base.removeprefix("http://")
            head = (
                f"POST /api/v1/tools/list_sessions HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            )
            await stream.send(head.encode() + b'{"limit": ')  # 10 of the 1000 bytes announced
            answer = await read_to_end(stream)
    assert answer.startswith(b"HTTP/1.1 408 ")


async def test_connections_over_the_per_address_cap_get_503_and_others_are_still_served(tmp_path):
    limits = HttpLimits(max_connections_per_address=2, idle_timeout_s=SAFETY_S, header_timeout_s=SAFETY_S)
    async with guarded_server(tmp_path, limits) as (base, token), contextlib.AsyncExitStack() as held:
        for _ in range(2):  # idle, and one sending its headers slowly
            await held.enter_async_context(await hostile_socket(base))
        slow = await held.enter_async_context(await hostile_socket(base))
        await slow.send(b"GET /healthz HTTP/1.1\r\n")
        over = await hostile_socket(base)  # accepted after the first two (the backlog is in order)
        async with over:
            answer = await read_to_end(over)
        async with httpx2.AsyncClient(base_url=base, timeout=SAFETY_S) as client:
            health = await client.get("/healthz")
            call = await client.post(
                "/api/v1/tools/list_sessions", json={}, headers={"authorization": f"Bearer {token}"}
            )
    assert answer.startswith(b"HTTP/1.1 503 ")
    assert b"\r\nretry-after: 1\r\n" in answer.lower()
    assert (health.status_code, call.status_code) == (200, 200)


async def test_connections_over_the_total_cap_get_503_whatever_their_address(tmp_path):
    limits = HttpLimits(max_connections=2, idle_timeout_s=SAFETY_S)
    async with guarded_server(tmp_path, limits) as (base, _), contextlib.AsyncExitStack() as held:
        for _ in range(2):
            await held.enter_async_context(await hostile_socket(base))
        async with httpx2.AsyncClient(base_url=base, timeout=SAFETY_S) as client:
            refused = await client.get("/healthz")
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["code"] == "unavailable"


def test_the_soft_open_file_limit_is_raised_to_what_the_caps_need(monkeypatch):
    limits = HttpLimits(max_connections=1000)
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 4096))
    monkeypatch.setattr(resource, "setrlimit", lambda _, value: calls.append(value))
    assert ensure_open_files(limits) == limits.open_files_needed
    assert calls == [(limits.open_files_needed, 4096)]


def test_start_is_refused_when_the_hard_open_file_limit_is_too_low(monkeypatch):
    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 1024))
    monkeypatch.setattr(resource, "setrlimit", lambda *_: pytest.fail("the limit must not change"))
    with pytest.raises(StartupRefused) as refused:
        ensure_open_files(HttpLimits(max_connections=1000))
    assert refused.value.code == "startup-refused"
    assert refused.value.details["open_files_needed"] == HttpLimits(max_connections=1000).open_files_needed
