"""Hardening figures, measured on a real server in a child process (`rpa_mcp.bench.server`).

1. Memory of the image probes: 8 sessions each send one near-limit PNG (6320x6320: 116 KB on
   the wire, 120 MB decoded) -> RSS kept afterwards; then 6 concurrent `validate_action` calls
   with that image -> peak RSS growth while they run (VmHWM reset just before).
2. `/healthz` latency while 4 `validate_action` probes with a catastrophic pattern
   (`^(a+)+$` against 400 x 20,000 "a" + "!") are in flight, against idle `/healthz`.
3. Throughput of 16 concurrent ingest clients (batches of 20 events, a 1280x720 screenshot
   every 5th event), events per second and request latency.
4. Slow and idle clients (`rpa_mcp.bench.slow_clients`): 2,000 connections from one address,
   `/healthz` and an authenticated call from another, for each HTTP set-up.
5. Fair image work (`rpa_mcp.bench.image_flood`): one caller floods classify_dialog with
   near-limit images, another's small call is timed.

    rpa-mcp bench hardening [--rest --side 6320 --seconds 10 --connections 2000 --only slow,images]

Figures on a shared machine are noisy: compare within one run (the ratios), not across runs.
"""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import cv2
import httpx2
import numpy as np

from rpa_mcp.bench import image_flood, slow_clients, summary
from rpa_mcp.bench.server import ServerProcess, server_process

MIB = 1024 * 1024
EVIL = "^(a+)+$"


def png(width: int, height: int, value: int = 200) -> bytes:
    ok, buf = cv2.imencode(".png", np.full((height, width, 3), value, np.uint8))
    assert ok
    return buf.tobytes()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def event(session: str, machine: str, index: int, shot: bytes | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "session_id": session,
        "machine_id": machine,
        "ts": time.time() + index * 0.001,
        "type": "focus" if shot is not None or index % 3 else "key",
        "window_title": "Dossier patient",
        "app": "msedge.exe",
        "event_id": f"{session}-{index}",
    }
    if body["type"] == "key":
        body["keys"] = "tab"
    if shot is not None:
        body["screenshot"] = b64(shot)
    return body


async def image_probes(server: ServerProcess, client: httpx2.AsyncClient, side: int) -> list[str]:
    agent = {"authorization": f"Bearer {server.agent_token}"}
    bomb = png(side, side)
    await client.post("/api/v1/traces/stream/event", json=event("warm", "M0", 0, png(64, 48)), headers=agent)
    baseline = server.rss_bytes()

    async def one_session(i: int) -> None:
        r = await client.post("/api/v1/traces/stream/event", json=event(f"s{i}", "M1", 0, bomb), headers=agent)
        r.raise_for_status()

    async with anyio.create_task_group() as group:
        for i in range(8):
            group.start_soon(one_session, i)
    retained = server.rss_bytes() - baseline
    operator = {"authorization": f"Bearer {server.token('operator')}"}
    frame = {"png_base64": b64(bomb)}
    body = {"action_type": "click_anchor", "before": frame, "after": frame}
    server.reset_peak()
    start = server.rss_bytes()
    statuses: list[int] = []

    async def validation() -> None:
        statuses.append((await client.post("/api/v1/validate", json=body, headers=operator)).status_code)

    async with anyio.create_task_group() as group:
        for _ in range(6):
            group.start_soon(validation)
    peak = server.peak_rss_bytes() - start
    return [
        f"image probes ({side}x{side} PNG, {len(bomb) / 1024:.0f} KB, {side * side * 3 / MIB:.0f} MiB decoded):",
        f"  8 sessions, one each:   RSS kept {retained / MIB:7.0f} MiB   (baseline {baseline / MIB:.0f} MiB)",
        f"  6 concurrent validate:  peak RSS growth {peak / MIB:7.0f} MiB   statuses {sorted(set(statuses))}",
    ]


async def _health_ms(client: httpx2.AsyncClient) -> float:
    started = time.perf_counter()
    (await client.get("/healthz")).raise_for_status()
    return (time.perf_counter() - started) * 1000


async def _under_probes(
    server: ServerProcess, client: httpx2.AsyncClient, pattern: str
) -> tuple[list[float], list[float]]:
    """/healthz latencies while 3 waves of 4 validate_action probes with `pattern` run; the probes' times."""
    frame = {"png_base64": b64(png(64, 48))}
    probe = {
        "action_type": "t2a_decision",
        "before": frame,
        "after": frame,
        "expected": {
            "json_schema": {"type": "array", "items": {"type": "string", "pattern": pattern}},
            "output": ["a" * 20_000 + "!"] * 400,
        },
    }
    operator = {"authorization": f"Bearer {server.token('operator')}", "content-type": "application/json"}
    encoded = json.dumps(probe).encode()  # once: encoding 8 MB here would delay this process's own timings
    busy: list[float] = []
    probe_ms: list[float] = []
    in_flight = 0
    done = anyio.Event()

    async def one_probe() -> None:
        nonlocal in_flight
        in_flight += 1
        started = time.perf_counter()
        try:
            (await client.post("/api/v1/validate", content=encoded, headers=operator)).raise_for_status()
        finally:
            in_flight -= 1
            probe_ms.append((time.perf_counter() - started) * 1000)

    async def probes() -> None:
        for _ in range(3):
            async with anyio.create_task_group() as group:
                for _ in range(4):
                    group.start_soon(one_probe)
        done.set()

    async def health() -> None:
        while not done.is_set():
            value = await _health_ms(client)
            if in_flight:
                busy.append(value)

    async with anyio.create_task_group() as group:
        group.start_soon(probes)
        group.start_soon(health)
    return busy, probe_ms


async def healthz_under_patterns(server: ServerProcess, client: httpx2.AsyncClient) -> list[str]:
    idle = [await _health_ms(client) for _ in range(200)]
    benign, benign_probe = await _under_probes(server, client, "^a+!$")  # the same work, a harmless pattern
    evil, evil_probe = await _under_probes(server, client, EVIL)

    def line(values: list[float]) -> str:
        return summary(values) if values else "no answer while probes were in flight"

    ratio = statistics.median(evil) / statistics.median(benign) if evil and benign else float("nan")
    return [
        "/healthz while validate_action probes run (8 MB outputs, 4 at a time, 3 waves):",
        f"  idle:                     {line(idle)}",
        f"  under ^a+!$ probes:       {line(benign)}   probe median {statistics.median(benign_probe):.0f} ms",
        f"  under ^(a+)+$ probes:     {line(evil)}   probe median {statistics.median(evil_probe):.0f} ms",
        f"  healthz median, catastrophic / harmless pattern: {ratio:.2f}",
    ]


async def ingest_throughput(server: ServerProcess, client: httpx2.AsyncClient, seconds: float) -> list[str]:
    agent = {"authorization": f"Bearer {server.agent_token}"}
    shot = png(1280, 720, 180)
    latencies: list[float] = []
    counted = 0
    deadline = time.perf_counter() + seconds

    async def agent_loop(n: int) -> None:
        nonlocal counted
        index = 0
        while time.perf_counter() < deadline:
            batch = [
                event(f"ingest-{n}", f"PC-{n}", index + i, shot if (index + i) % 5 == 0 else None) for i in range(20)
            ]
            index += 20
            started = time.perf_counter()
            r = await client.post("/api/v1/traces/stream/event", json={"events": batch}, headers=agent)
            r.raise_for_status()
            latencies.append((time.perf_counter() - started) * 1000)
            counted += r.json()["accepted"]

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for n in range(16):
            group.start_soon(agent_loop, n)
    elapsed = time.perf_counter() - started
    return [
        "16 concurrent ingest clients (batches of 20 events, a 1280x720 screenshot every 5th):",
        f"  {counted / elapsed:8.0f} events/s over {elapsed:.1f} s ({counted} events)",
        f"  per batch: {summary(latencies)}",
    ]


async def measure(args: argparse.Namespace) -> str:
    side, seconds, only = args.side, args.seconds, set(args.only.split(","))
    lines: list[str] = []
    if "slow" in only:
        lines += await slow_clients.measure(args.connections, args.flood_seconds, args.http.split(","))
    if "images" in only:
        lines += await image_flood.measure(args.flooder_calls)
    if "memory" not in only:
        return "\n".join(lines)
    with tempfile.TemporaryDirectory() as tmp:
        limits = {
            "RPA_MAX_IMAGE_PIXELS": str(max(40_000_000, side * side)),
            "RPA_IMAGE_WORK_QUEUE_PER_IDENTITY": "16",  # one identity's 8 and 6 calls at once: memory, not fairness
        }
        with server_process(Path(tmp) / "server", env=limits) as server:
            async with httpx2.AsyncClient(base_url=server.base, timeout=600) as client:
                (await client.get("/healthz")).raise_for_status()
                lines += await image_probes(server, client, side)
                lines += await healthz_under_patterns(server, client)
                lines += await ingest_throughput(server, client, seconds)
    return "\n".join(lines)


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench hardening")
    parser.add_argument("--side", type=int, default=6320, help="side of the near-limit PNG (default 6320)")
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of the ingest run (default 10)")
    parser.add_argument(
        "--only", default="memory,slow,images", help="sections: memory (1-3), slow (4), images (5); default all"
    )
    parser.add_argument("--connections", type=int, default=2000, help="slow/idle connections (default 2000)")
    parser.add_argument("--flood-seconds", type=float, default=20.0, help="duration of the slow-client flood")
    parser.add_argument("--http", default="plain,options,guarded", help="HTTP set-ups to compare (default all)")
    parser.add_argument("--flooder-calls", type=int, default=6, help="concurrent calls of the image flooder")
    args = parser.parse_args(argv)
    return anyio.run(measure, args)
