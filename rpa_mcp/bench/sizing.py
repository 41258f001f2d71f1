"""`rpa-mcp bench sizing`: how many workstations one server supervises, its CPU and memory.

One real `rpa-mcp serve` process (SQLite, the default) on loopback; W agents in this process
(light HTTP clients: poll with `wait`, receipt, start, result) replay at once, each on its own
machine, a 10-step competence of validated tab switches: every result carries two 1920x1080
PNG screenshots (the demo desktop's record page, then its imaging tab), so each step costs the
server what a real one does (HTTP, decoding, the validator's checkers, the dialog check, the
store, the audit). For W = 1, 4, 8, 16 by default it reports steps per second, the server's
CPU per step (its own /proc counters: what this process spends is apart), its resident memory
at rest and at its peak, and the load average. What follows from it: one core serves about
1000 / (CPU ms per step) steps a second; a workstation replays one step every few seconds.

The machine may be shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2

from rpa_mcp.bench import assets
from rpa_mcp.bench.launch import bench_env, free_port, wait_healthy
from rpa_mcp.testing import FakeClock

SECRET = "bench-sizing-secret-key-long-enough-0123456789"
AUDIT_KEY = "bench-sizing-audit-key-long-enough-0123456789"
AGENT = "bench-sizing-agent-token-0123456789"
HEADERS = {"Authorization": f"Bearer {AGENT}", "X-Replay-Protocol-Version": "2"}
COMPETENCE = "sizing"
TAB = {"label": "Imagerie", "bbox": [318, 8, 236, 32], "window_title": "Edge"}  # the demo desktop's imaging tab


@dataclass
class Server:
    port: int
    proc: subprocess.Popen[bytes]
    operator: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory_mib(self) -> tuple[float, float]:
        """Resident memory now and at its peak (MiB)."""
        status = dict(
            line.split(":", 1) for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines() if ":" in line
        )
        return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


def _workflow(steps: int) -> dict[str, Any]:
    plan = [
        {"index": i, "intent": "Aller sur l'onglet 'Imagerie'", "action_type": "switch_tab", "target": dict(TAB)}
        for i in range(steps)
    ]
    return {"name": COMPETENCE, "domain": "bench", "version": 1, "source": {"machine_id": "bench-0"}, "steps": plan}


@contextlib.asynccontextmanager
async def _server(root: Path, steps: int) -> AsyncIterator[Server]:
    from rpa_mcp.auth.tokens import AccessTokens
    from rpa_mcp.competences import CompetenceStore

    data = root / "data"
    store = CompetenceStore(data / "competences", FakeClock())
    store.save(COMPETENCE, _workflow(steps), machine_id="bench-0")
    store.promote(COMPETENCE)
    port = free_port()
    env = bench_env(data, port, secret=SECRET, audit_key=AUDIT_KEY, agent_token=AGENT)
    operator = AccessTokens([SECRET.encode()], issuer="rpa-mcp", audience="rpa-mcp").mint("bench", ["operator"])
    with open(root / "server.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "rpa_mcp", "serve"], env=env, stdout=log, stderr=log)
    server = Server(port, proc, operator)
    try:
        await wait_healthy(server.base, proc, within=180, log=root / "server.log")
        yield server
    finally:
        proc.terminate()
        proc.wait()


async def _tool(http: httpx2.AsyncClient, server: Server, name: str, args: dict[str, Any]) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {server.operator}"}
    r = await http.post(f"{server.base}/api/v1/tools/{name}", json=args, headers=auth)
    if r.status_code != 200:
        raise RuntimeError(f"{name}: {r.status_code} {r.text[:300]}")
    return dict(r.json())


async def _replay(http: httpx2.AsyncClient, server: Server, machine: str, shots: tuple[str, ...]) -> tuple[int, str]:
    """One workstation's replay, start to end; (steps reported, final state)."""
    proposal = await _tool(http, server, "propose_start_replay", {"competence": COMPETENCE, "machine_id": machine})
    replay_id = (await _tool(http, server, "apply_start_replay", {"token": proposal["token"]}))["replay_id"]
    done = 0
    while True:
        r = await http.get(
            f"{server.base}/api/v1/replay/next", params={"machine_id": machine, "wait": 2}, headers=HEADERS
        )
        if r.status_code == 204:
            state = (await _tool(http, server, "get_replay_status", {"replay_id": replay_id}))["state"]
            if state != "running":
                return done, str(state)
            continue
        r.raise_for_status()
        action = r.json()
        ref = {k: action[k] for k in ("replay_id", "action_id", "attempt_id")}
        await http.post(f"{server.base}/api/v1/replay/receipt", json=ref, headers=HEADERS)
        await http.post(f"{server.base}/api/v1/replay/start", json=ref, headers=HEADERS)
        before, after = shots
        result = {**ref, "machine_id": machine, "success": True, "executed": True, "window_title": "Edge",
                  "actual_position": [436, 24], "screenshot_before": before, "screenshot_after": after}  # fmt: skip
        (await http.post(f"{server.base}/api/v1/replay/result", json=result, headers=HEADERS)).raise_for_status()
        done += 1


async def _round(server: Server, workstations: int, shots: tuple[str, ...]) -> dict[str, Any]:
    outcomes: list[tuple[int, str]] = []
    cpu0, own0, t0 = server.cpu_s(), time.process_time(), time.perf_counter()
    async with httpx2.AsyncClient(timeout=120) as http, anyio.create_task_group() as tg:

        async def one(i: int) -> None:
            outcomes.append(await _replay(http, server, f"ws-{workstations}-{i}", shots))

        for i in range(workstations):
            tg.start_soon(one, i)
    wall, steps = time.perf_counter() - t0, sum(n for n, _ in outcomes)
    return {
        "steps": steps,
        "wall": wall,
        "server_cpu_ms": (server.cpu_s() - cpu0) * 1000 / max(1, steps),
        "agents_cpu_ms": (time.process_time() - own0) * 1000 / max(1, steps),
        "states": sorted({s for _, s in outcomes}),
        "rss": server.memory_mib(),
        "load": os.getloadavg()[0],
    }


async def _run(rounds: list[int], steps: int) -> str:
    frames = assets()
    shots = tuple(base64.b64encode(frames.png(name)).decode() for name in ("dossier.png", "imagerie.png"))
    lines = [
        f"sizing: one `rpa-mcp serve` (SQLite), {os.cpu_count()} cores, W workstations replaying {steps} validated "
        "steps each at once (1920x1080 PNGs before and after every step); agents in this process",
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
    ]
    with tempfile.TemporaryDirectory(prefix="rpa-sizing-") as tmp:
        async with _server(Path(tmp), steps) as server:
            await anyio.sleep(2)  # settled after start-up
            rest = server.memory_mib()[0]
            lines.append(f"server resident memory at rest: {rest:.0f} MiB")
            await _round(server, 1, shots)  # warm-up: first requests, models in memory
            lines.append("   W  steps  wall s  steps/s  server CPU ms/step  agents CPU ms/step  RSS MiB (peak)  load1")
            for w in rounds:
                r = await _round(server, w, shots)
                lines.append(
                    f"{w:4d} {r['steps']:6d} {r['wall']:7.1f} {r['steps'] / r['wall']:8.2f} {r['server_cpu_ms']:19.1f}"
                    f" {r['agents_cpu_ms']:19.1f} {r['rss'][0]:8.0f} ({r['rss'][1]:.0f}) {r['load']:6.2f}"
                    + ("" if r["states"] == ["completed"] else f"  ends: {', '.join(r['states'])}")
                )
    lines.append(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return "\n".join(lines)


def run(argv: list[str]) -> str:
    parser = argparse.ArgumentParser(prog="rpa-mcp bench sizing")
    parser.add_argument("--workstations", default="1,4,8,16", help="comma-separated W of each round")
    parser.add_argument("--steps", type=int, default=10, help="validated steps of each workstation's replay")
    args = parser.parse_args(argv)
    rounds = [int(w) for w in args.workstations.split(",") if w.strip()]
    return anyio.run(_run, rounds, args.steps)
