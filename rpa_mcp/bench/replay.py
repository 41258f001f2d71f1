"""`rpa-mcp bench replay`: dispatch latency with the long poll, server overhead per step, memory lookups.

Targets: dispatch latency (action ready -> agent has it) well under 100 ms with long
polling; validator overhead over a 46-step workflow <= 11 s in total; memory lookup < 10 ms.

Dispatch latency is measured twice: at the service level (in process), and over real HTTP on
loopback (the app under uvicorn, an agent's `GET /api/v1/replay/next?wait=10` with the static
agent token and the protocol header, timed until the agent holds the parsed JSON). Server and
agent share one event loop and one process, so the HTTP figure includes both sides' CPU.
"""

from __future__ import annotations

import argparse
import base64
import json
import socket
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from rpa_mcp.bench import assets, summary
from rpa_mcp.replay.wire import PROTOCOL_HEADER, ActionResult, ReceiptAck, StartAck
from rpa_mcp.settings import Settings

if TYPE_CHECKING:
    from rpa_mcp.bootstrap import Services

AGENT_TOKEN = "bench-agent-static-token-0123456789"


def _services(data_dir: Path) -> Services:
    from rpa_mcp.bootstrap import build_services

    settings = Settings(
        data_dir=data_dir,
        jwt_secret="bench-secret-key-that-is-long-enough-0123456789",
        api_token=AGENT_TOKEN,
        rate_limit_per_minute=1_000_000,  # back-to-back polls measure latency, not the per-identity limiter
    )
    return build_services(settings)


async def _dispatch_latency(service: Any, n: int) -> list[float]:
    """Time from the wake-up of an enqueue (the action is committed and ready) to the poller holding it."""
    ready: list[float] = []
    out: list[float] = []
    original = service._wake

    def wake(machine_id: str | None) -> None:
        ready.append(time.perf_counter())
        original(machine_id)

    service._wake = wake
    step = [{"index": 0, "intent": "click", "action_type": "wait", "target": None}]
    for i in range(n):
        got: list[float] = []

        async def poll(got: list[float] = got) -> None:
            action = await service.next_action("bench-pc", wait=10, protocol_version=2)
            got.append(time.perf_counter())
            assert action is not None
            await service.cancel(action.replay_id)

        async with anyio.create_task_group() as tg:
            tg.start_soon(poll)
            await anyio.wait_all_tasks_blocked()
            ready.clear()
            await service.start(steps=step, competence=f"bench{i}", version=1, machine_id="bench-pc")
        out.append((got[0] - ready[0]) * 1000)
    service._wake = original
    return out


async def _http_dispatch_latency(services: Any, n: int) -> list[float]:
    """The same measure over real HTTP: uvicorn on 127.0.0.1, the agent long-polling with httpx2."""
    import httpx2
    import uvicorn

    from rpa_mcp.entrypoints.app import create_app

    service = services.replay
    # proto=IPPROTO_TCP as `uvicorn.run(host, port)` gets it from getaddrinfo: asyncio sets TCP_NODELAY only
    # on such sockets; with a bare socket.socket() every response with a body stalls ~40 ms (Nagle + delayed ACK).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(create_app(services=services), log_level="warning", lifespan="on"))
    ready: list[float] = []
    parked = [anyio.Event()]
    original_wake, original_event = service._wake, service._event

    def wake(machine_id: str | None) -> None:
        ready.append(time.perf_counter())
        original_wake(machine_id)

    def event(machine_id: str) -> anyio.Event:  # the poll reached the server and waits for a wake-up
        taken: anyio.Event = original_event(machine_id)
        parked[0].set()
        return taken

    service._wake, service._event = wake, event
    step = [{"index": 0, "intent": "click", "action_type": "wait", "target": None}]
    headers = {"Authorization": f"Bearer {AGENT_TOKEN}", PROTOCOL_HEADER: "2"}
    out: list[float] = []
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            with anyio.fail_after(20):
                while not server.started:
                    await anyio.sleep(0.01)
            async with httpx2.AsyncClient(base_url=base, headers=headers, timeout=30) as client:
                for i in range(n + 3):  # 3 warm-up rounds (connection, first requests)
                    got: list[float] = []

                    async def poll(got: list[float] = got) -> None:
                        params: dict[str, str | int] = {"machine_id": "bench-http", "wait": 10}
                        response = await client.get("/api/v1/replay/next", params=params)
                        assert response.status_code == 200, (response.status_code, response.text[:300])
                        action = response.json()
                        got.append(time.perf_counter())
                        await service.cancel(action["replay_id"])

                    parked[0] = anyio.Event()
                    async with anyio.create_task_group() as polls:
                        polls.start_soon(poll)
                        await parked[0].wait()
                        ready.clear()
                        await service.start(steps=step, competence=f"http{i}", version=1, machine_id="bench-http")
                    if i >= 3:
                        out.append((got[0] - ready[0]) * 1000)
            server.should_exit = True
    finally:
        service._wake, service._event = original_wake, original_event
    return out


async def _replay_overhead(service: Any, before_b64: str, after_b64: str, steps: int) -> dict[str, Any]:
    plan = [
        {"index": i, "intent": "Click 'Imagerie'", "action_type": "switch_tab",
         "target": {"label": "Imagerie", "bbox": [318, 8, 236, 32], "window_title": "Edge"}}
        for i in range(steps)
    ]  # fmt: skip
    validator = service.supervisor.validator
    validate_ms: list[float] = []
    original = validator.validate

    def timed(*a: Any, **k: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return original(*a, **k)
        finally:
            validate_ms.append((time.perf_counter() - t0) * 1000)

    validator.validate = timed  # measured where the engine calls it
    rid = await service.start(steps=plan, competence="bench46", version=1, machine_id="bench-46")
    per_step: list[float] = []
    report_ms: list[float] = []
    pauses = 0
    t_all = time.perf_counter()
    for _ in range(steps * 3):
        t0 = time.perf_counter()
        a = await service.next_action("bench-46", wait=0, protocol_version=2)
        if a is None:
            replay = service.store.get_replay(rid)
            if replay["state"] == "paused":
                pauses += 1
                await service.answer(rid, "skip")
                continue
            break
        ref = {"replay_id": a.replay_id, "action_id": a.action_id, "attempt_id": a.attempt_id}
        await service.receipt(ReceiptAck(**ref))
        await service.started(StartAck(**ref))
        t1 = time.perf_counter()
        await service.report(
            ActionResult(
                **ref,
                success=True,
                actual_position=[436, 24],
                window_title="Edge",
                screenshot_before=before_b64,
                screenshot_after=after_b64,
            )
        )
        t2 = time.perf_counter()
        per_step.append((t2 - t0) * 1000)
        report_ms.append((t2 - t1) * 1000)
    total = time.perf_counter() - t_all
    if validator is not None:
        validator.validate = original
    verdicts = [a["outcome"] for a in service.store.actions(rid)]
    return {
        "per_step": per_step,
        "report": report_ms,
        "validate": validate_ms,
        "engine": [s - v for s, v in zip(per_step, validate_ms, strict=False)],
        "total_s": total,
        "pauses": pauses,
        "state": service.store.get_replay(rid)["state"],
        "outcomes": {v: verdicts.count(v) for v in set(verdicts)},
    }


def _memory(service: Any, n: int, repeat: int) -> tuple[list[float], list[float]]:
    mem = service.memory
    for i in range(n):
        spec = {"label": f"Bouton {i}"}
        for _ in range(2):
            mem.record_success("bench-pc", f"Fenetre {i % 50}", spec, [10 + i % 1000, 20])
    hits, misses = [], []
    for i in range(repeat):
        t0 = time.perf_counter()
        assert mem.lookup("bench-pc", f"Fenetre {i % 50}", {"label": f"Bouton {i % n}"}) is not None
        hits.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        mem.lookup("bench-pc", "Inconnue", {"label": f"Absent {i}"})
        misses.append((time.perf_counter() - t0) * 1000)
    return hits, misses


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench replay")
    parser.add_argument("--polls", type=int, default=100, help="dispatch latency samples")
    parser.add_argument("--steps", type=int, default=46, help="steps of the supervised replay")
    parser.add_argument("--memory", type=int, default=1000, help="remembered targets")
    args = parser.parse_args(argv)
    frames = assets()
    before = base64.b64encode(frames.png("dossier.png")).decode()
    after = base64.b64encode(frames.png("imagerie.png")).decode()
    lines = ["replay benchmark (in-process, service level, SQLite WAL + synchronous=FULL on a temp dir)", ""]
    with tempfile.TemporaryDirectory() as tmp:
        services = _services(Path(tmp) / "data")
        service = services.replay
        services.validator.warm_up()

        async def main() -> tuple[list[float], list[float], dict[str, Any]]:
            lat = await _dispatch_latency(service, args.polls)
            http = await _http_dispatch_latency(services, args.polls)
            over = await _replay_overhead(service, before, after, args.steps)
            return lat, http, over

        latency, http_latency, overhead = anyio.run(main)
        hits, misses = _memory(service, args.memory, 500)
        services.db.close()
    lines.append(f"dispatch latency, long poll (ready -> agent has it)   {summary(latency)}  target << 100 ms")
    lines.append(f"  same over real HTTP (uvicorn, loopback)         {summary(http_latency)}  target << 100 ms")
    lines.append(f"{args.steps}-step supervised replay (validator on, record -> Imagerie tab, 1920x1080 PNGs):")
    lines.append(f"  server time per step (poll+acks+report)   {summary(overhead['per_step'])}")
    lines.append(f"  report (decode+validate+commit)           {summary(overhead['report'])}")
    if overhead["validate"]:
        lines.append(f"  of which validator.validate               {summary(overhead['validate'])}")
        lines.append(f"  engine alone (step minus validator)       {summary(overhead['engine'])}")
    lines.append(
        f"  total {overhead['total_s']:.2f} s for {args.steps} steps (target <= 11 s of validator "
        f"overhead); final state {overhead['state']}; outcomes {json.dumps(overhead['outcomes'])}; "
        f"pauses answered {overhead['pauses']}"
    )
    lines.append(f"memory lookup, hit ({args.memory} targets)    {summary(hits)}  target < 10 ms")
    lines.append(f"memory lookup, miss                        {summary(misses)}")
    return "\n".join(lines)
