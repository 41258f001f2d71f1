"""A bounded adversarial run against a real server process: every attack of this folder, mixed with
normal traffic, for a fixed number of rounds (well under a minute).

Checked, without timing anything: every answer is a 4xx for an attack and a 2xx for normal
traffic (never a 5xx), `/healthz` answers every time it is asked while the attacks run (with a
generous per-request deadline a stalled event loop would miss), the internal service an SSRF
probe points at is never contacted, and the resident memory stays within a generous budget.
"""

from __future__ import annotations

import base64
import http.server
import threading
import time
from collections import Counter
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.bench.server import ServerProcess, server_process
from tests.security.conftest import png

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
MIB = 1024 * 1024
ROUNDS = 4
HEALTH_DEADLINE_S = 15.0  # a request to /healthz that takes longer than this fails the run
RSS_BUDGET = 900 * MIB  # growth over the idle server: frame budget + image work + sessions, generously
LIMITS = {
    "RPA_MAX_IMAGE_PIXELS": str(16_000_000),
    "RPA_FRAME_CACHE_BYTES": str(64 * MIB),
    "RPA_IMAGE_WORK_SLOTS": "2",
    "RPA_MCP_SESSIONS_PER_IDENTITY": "4",
    "RPA_MCP_MAX_SESSIONS": "64",
    "RPA_MAX_BODY_BYTES": str(8 * MIB),
}
JSON = {"content-type": "application/json"}
MCP = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
HOSTILE_BODIES = [
    b"[" * 50_000 + b"]" * 50_000,
    b'{"name": "\xff"}',
    b'{"name": ' + b"9" * 5000 + b"}",
    b'{"ts": Infinity}',
    b'{"name": "dialogs", "x": ' + b'{"a": ' * 900 + b"1" + b"}" * 900 + b"}",
]


class _Internal(http.server.BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self) -> None:
        type(self).hits += 1
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Run:
    def __init__(self, server: ServerProcess, client: httpx2.AsyncClient, internal: str) -> None:
        self.server, self.client, self.internal = server, client, internal
        self.operator = {"authorization": f"Bearer {server.token('operator', subject='olga')}"}
        self.agent = {"authorization": f"Bearer {server.agent_token}"}
        self.bound = {"authorization": f"Bearer {server.token('agent', subject='pc1', machines=['PC-1'])}"}
        self.flooder = {"authorization": f"Bearer {server.token('viewer', subject='flooder')}"}
        self.attacks: Counter[int] = Counter()
        self.normal: Counter[int] = Counter()
        self.health_answers = 0
        self.rss_peak = 0
        self.small = b64(png(320, 200))
        self.bomb = b64(png(4000, 4000))

    async def attack(self, method: str, path: str, **kwargs: Any) -> None:
        r = await self.client.request(method, path, **kwargs)
        self.attacks[r.status_code] += 1

    async def ordinary(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        r = await self.client.request(method, path, **kwargs)
        self.normal[r.status_code] += 1
        return r

    def probe(self, schema: dict[str, Any], output: Any) -> dict[str, Any]:
        frame = {"png_base64": self.small}
        return {
            "action_type": "t2a_decision",
            "before": frame,
            "after": frame,
            "expected": {"json_schema": schema, "output": output},
        }

    async def attacks_round(self, n: int) -> None:
        for _ in range(25):
            await self.attack(
                "POST", "/api/v1/tools/get_catalog", json={"name": "x"}, headers={"authorization": "Bearer x"}
            )
        for body in HOSTILE_BODIES:
            await self.attack("POST", "/api/v1/tools/get_catalog", content=body, headers={**JSON, **self.operator})
            await self.attack("POST", "/mcp", content=body, headers={**MCP, **self.operator})
        await self.attack(
            "POST", "/api/v1/validate", json=self.probe({"$ref": self.internal}, 1), headers=self.operator
        )
        await self.attack(
            "POST", "/api/v1/validate", json=self.probe({"$ref": "file:///etc/passwd"}, 1), headers=self.operator
        )
        pattern = {"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}}
        r = await self.client.post(
            "/api/v1/validate", json=self.probe(pattern, ["a" * 20_000 + "!"] * 100), headers=self.operator
        )
        self.attacks[r.status_code] += 1  # a verdict (200, FAILURE) in linear time: the probe must finish
        for i in range(4):
            bomb = {
                "session_id": f"bomb-{n}-{i}",
                "machine_id": "PC-9",
                "ts": time.time(),
                "type": "focus",
                "window_title": "x",
                "screenshot": self.bomb,
            }
            await self.attack("POST", "/api/v1/traces/stream/event", json=bomb, headers=self.agent)
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "f", "version": "1"},
            },
        }
        for _ in range(20):
            await self.attack("POST", "/mcp", json=initialize, headers={**MCP, **self.flooder})
        other = {"session_id": "victim", "machine_id": "PC-2", "ts": time.time(), "type": "focus", "window_title": "x"}
        await self.attack("POST", "/api/v1/traces/stream/event", json=other, headers=self.bound)

        async def chunks() -> Any:
            yield b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "'
            for _ in range(10):
                yield b"x" * MIB
            yield b'"}}'

        await self.attack("POST", "/mcp", content=chunks(), headers={**MCP, **self.operator})

    async def normal_round(self, n: int) -> None:
        for i in range(10):
            events = [
                {
                    "session_id": "ward-3",
                    "machine_id": "PC-1",
                    "ts": time.time() + k * 0.001,
                    "type": "focus",
                    "window_title": f"Dossier {n}-{i}-{k}",
                    "app": "msedge.exe",
                    "event_id": f"e-{n}-{i}-{k}",
                    **({"screenshot": self.small} if k == 0 else {}),
                }
                for k in range(5)
            ]
            await self.ordinary("POST", "/api/v1/traces/stream/event", json={"events": events}, headers=self.bound)
            await self.ordinary("POST", "/api/v1/tools/get_catalog", json={"name": "dialogs"}, headers=self.operator)
            await self.ordinary("POST", "/api/v1/tools/list_sessions", json={}, headers=self.operator)
        async with (
            httpx2.AsyncClient(headers=self.operator, timeout=120) as http,
            Client(streamable_http_client(f"{self.server.base}/mcp", http_client=http)) as mcp,
        ):
            listed = {t.name for t in (await mcp.list_tools()).tools}
            result = await mcp.call_tool("get_catalog", {"name": "dialogs"})
            self.normal[200 if "get_catalog" in listed and not result.is_error else 599] += 1

    async def watch(self, done: anyio.Event) -> None:
        while not done.is_set():
            with anyio.fail_after(HEALTH_DEADLINE_S):
                r = await self.client.get("/healthz")
            assert r.status_code == 200
            self.health_answers += 1
            self.rss_peak = max(self.rss_peak, self.server.rss_bytes())
            with anyio.move_on_after(0.2):
                await done.wait()


async def test_attacks_mixed_with_normal_traffic_never_stall_or_bloat_a_real_server(tmp_path):
    _Internal.hits = 0
    internal = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Internal)
    threading.Thread(target=internal.serve_forever, daemon=True).start()
    try:
        with server_process(tmp_path / "server", **LIMITS) as server:
            async with httpx2.AsyncClient(base_url=server.base, timeout=120) as client:
                assert (await client.get("/healthz")).status_code == 200
                run = Run(server, client, f"http://127.0.0.1:{internal.server_address[1]}/internal")
                baseline = server.rss_bytes()
                done = anyio.Event()

                async def traffic() -> None:
                    for n in range(ROUNDS):
                        async with anyio.create_task_group() as group:
                            group.start_soon(run.attacks_round, n)
                            group.start_soon(run.normal_round, n)
                    done.set()

                async with anyio.create_task_group() as group:
                    group.start_soon(traffic)
                    group.start_soon(run.watch, done)
    finally:
        internal.shutdown()
        internal.server_close()
    print(
        f"attacks {dict(run.attacks)}; normal {dict(run.normal)}; healthz answered {run.health_answers} times; "
        f"RSS peak growth {(run.rss_peak - baseline) / MIB:.0f} MiB"
    )
    assert not [s for s in run.attacks if s >= 500], run.attacks
    assert set(run.normal) <= {200, 202}, run.normal
    assert run.health_answers >= ROUNDS
    assert _Internal.hits == 0
    assert run.rss_peak - baseline < RSS_BUDGET
