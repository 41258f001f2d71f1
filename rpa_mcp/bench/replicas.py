"""`rpa-mcp bench replicas`: the replay transport on SQLite (one process) and on PostgreSQL
with one and with three replicas, in one run.

Every server is a real `rpa-mcp serve` process on loopback. Agents are light HTTP clients in
this process (poll with `wait`, receipt, start, result) that pick a random replica for every
request, as a round-robin balancer would; the workflow is made of `wait` steps, so the figures
are the transport's and the store's, not the validator's. Reported:

- cross-replica dispatch: the agent's poll parked on replica B, its report of the previous
  action sent to replica A; time from A's answer to B's answer carrying the next action (it can
  be below zero: B may answer before A's answer is back), and from sending the report;
- a 46-step replay, start to completed;
- 20 concurrent replays on 20 machines: actions per second;
- where the time goes: CPU seconds per action of the servers, of PostgreSQL's processes (the
  database time per action) and of this process (the agents), and commits per action.

PostgreSQL is a throwaway cluster (`rpa_mcp.pgcluster`) unless `RPA_BENCH_PG_URL` names one.
The machine is shared: compare the rows of one run, not runs between them.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2

from rpa_mcp.bench import summary
from rpa_mcp.bench.launch import bench_env, free_port, wait_healthy
from rpa_mcp.testing import FakeClock

SECRET = "bench-replicas-secret-key-long-enough-0123456789"
AUDIT_KEY = "bench-replicas-audit-key-long-enough-0123456789"
AGENT = "bench-replicas-agent-token-0123456789"
HEADERS = {"Authorization": f"Bearer {AGENT}", "X-Replay-Protocol-Version": "2"}
COMPETENCES = {"steps46": 46, "steps20": 20, "steps2": 2}


@dataclass
class Server:
    port: int
    proc: subprocess.Popen[bytes]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Setup:
    name: str
    servers: list[Server]
    pg_url: str | None
    operator: str
    rng: random.Random = field(default_factory=lambda: random.Random(1))

    def any(self) -> Server:
        return self.rng.choice(self.servers)


def _screenshot() -> str:
    """A small screen, the same before and after: a `wait` changes nothing, and the validator sees that."""
    import base64

    import cv2
    import numpy as np

    image = np.full((120, 160, 3), 200, np.uint8)
    cv2.putText(image, "Bench", (20, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2)
    ok, png = cv2.imencode(".png", image)
    assert ok
    return base64.b64encode(png.tobytes()).decode("ascii")


SHOT = _screenshot()


def _workflow(name: str, n: int) -> dict[str, Any]:
    steps = [{"index": i, "intent": f"Wait {i}", "action_type": "wait", "params": {"seconds": 0}} for i in range(n)]
    return {"name": name, "domain": "bench", "version": 1, "source": {"machine_id": "bench-0"}, "steps": steps}


def _prepare(data: Path) -> None:
    from rpa_mcp.competences import CompetenceStore

    store = CompetenceStore(data / "competences", FakeClock())
    for name, n in COMPETENCES.items():
        store.save(name, _workflow(name, n), machine_id="bench-0")
        store.promote(name)


@contextlib.asynccontextmanager
async def _servers(root: Path, n: int, pg_url: str | None) -> AsyncIterator[list[Server]]:
    servers: list[Server] = []
    try:
        for i in range(n):
            data = root / f"r{i}"
            _prepare(data)  # SQLite reads these files; PostgreSQL replicas get them imported below
            port = free_port()
            env = bench_env(data, port, secret=SECRET, audit_key=AUDIT_KEY, agent_token=AGENT)
            if pg_url:
                env["RPA_STORE_URL"] = pg_url
                if i == 0:
                    for command in (["db", "upgrade"], ["competences", "import", str(data / "competences")]):
                        subprocess.run([sys.executable, "-m", "rpa_mcp", *command], env=env, check=True,
                                       capture_output=True)  # fmt: skip
            with open(root / f"r{i}.log", "ab") as log:
                proc = subprocess.Popen([sys.executable, "-m", "rpa_mcp", "serve"], env=env, stdout=log, stderr=log)
            servers.append(Server(port, proc))
            await wait_healthy(
                servers[-1].base, proc, within=120, log=root / f"r{i}.log"
            )  # one at a time: the first sets a new database up
        yield servers
    finally:
        for s in servers:
            s.proc.terminate()
        for s in servers:
            s.proc.wait()


# --- the two sides --------------------------------------------------------------------------------
async def _act(http: httpx2.AsyncClient, setup: Setup, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """propose_<name> then apply_<name>, each on a random replica (token approval)."""
    auth = {"Authorization": f"Bearer {setup.operator}"}
    proposal = await http.post(f"{setup.any().base}/api/v1/tools/propose_{name}", json=args, headers=auth)
    if proposal.status_code != 200:
        raise RuntimeError(f"propose_{name}: {proposal.status_code} {proposal.text[:300]}")
    answer = await http.post(
        f"{setup.any().base}/api/v1/tools/apply_{name}", json={"token": proposal.json()["token"]}, headers=auth
    )
    if answer.status_code != 200:
        raise RuntimeError(f"apply_{name}: {answer.status_code} {answer.text[:300]}")
    return dict(answer.json())


async def _start(http: httpx2.AsyncClient, setup: Setup, competence: str, machine: str) -> str:
    started = await _act(http, setup, "start_replay", {"competence": competence, "machine_id": machine})
    return str(started["replay_id"])


async def _poll(http: httpx2.AsyncClient, server: Server, machine: str, wait: float = 10) -> dict[str, Any] | None:
    r = await http.get(
        f"{server.base}/api/v1/replay/next", params={"machine_id": machine, "wait": wait}, headers=HEADERS
    )
    if r.status_code == 204:
        return None
    r.raise_for_status()
    return dict(r.json())


async def _ack_and_report(http: httpx2.AsyncClient, setup: Setup, action: dict[str, Any], machine: str) -> float:
    """Receipt, start, result (each to a random replica); returns when the result was sent."""
    ref = {k: action[k] for k in ("replay_id", "action_id", "attempt_id")}
    await http.post(f"{setup.any().base}/api/v1/replay/receipt", json=ref, headers=HEADERS)
    await http.post(f"{setup.any().base}/api/v1/replay/start", json=ref, headers=HEADERS)
    sent = time.perf_counter()
    result = {**ref, "machine_id": machine, "success": True, "executed": True, "window_title": "Bench",
              "screenshot_before": SHOT, "screenshot_after": SHOT}  # fmt: skip
    r = await http.post(f"{setup.any().base}/api/v1/replay/result", json=result, headers=HEADERS)
    r.raise_for_status()
    return sent


async def _run_replay(http: httpx2.AsyncClient, setup: Setup, competence: str, machine: str) -> int:
    """One agent drives one replay to its end; returns the actions it handled."""
    replay_id = await _start(http, setup, competence, machine)
    done = 0
    while True:
        action = await _poll(http, setup.any(), machine, wait=2)
        if action is None:
            status = await http.post(
                f"{setup.any().base}/api/v1/tools/get_replay_status",
                json={"replay_id": replay_id},
                headers={"Authorization": f"Bearer {setup.operator}"},
            )
            state = status.json()["state"]
            if state != "running":
                if state != "completed":
                    raise RuntimeError(f"replay {replay_id} ended {state}: {status.json().get('pause_reason')}")
                return done
            continue
        await _ack_and_report(http, setup, action, machine)
        done += 1


async def _cross_dispatch(http: httpx2.AsyncClient, setup: Setup, samples: int) -> tuple[list[float], list[float]]:
    """Parked poll on B, report on A: A answered -> B answered, and report sent -> B answered."""
    after_answer: list[float] = []
    after_send: list[float] = []
    machine = "bench-x"
    a, b = setup.servers[0], setup.servers[-1]
    while len(after_answer) < samples:
        await _start(http, setup, "steps46", machine)
        action = await _poll(http, b, machine)
        for _ in range(45):
            assert action is not None
            got: list[tuple[float, dict[str, Any] | None]] = []

            async def parked(got: list[tuple[float, dict[str, Any] | None]] = got) -> None:
                nxt = await _poll(http, b, machine)
                got.append((time.perf_counter(), nxt))

            ref = {k: action[k] for k in ("replay_id", "action_id", "attempt_id")}
            await http.post(f"{a.base}/api/v1/replay/receipt", json=ref, headers=HEADERS)
            await http.post(f"{a.base}/api/v1/replay/start", json=ref, headers=HEADERS)
            async with anyio.create_task_group() as tg:
                tg.start_soon(parked)  # started: a poll now waits for the next action
                await anyio.sleep(0.05)  # the poll is parked on B
                sent = time.perf_counter()
                body = {**ref, "machine_id": machine, "success": True, "executed": True, "window_title": "Bench",
                        "screenshot_before": SHOT, "screenshot_after": SHOT}  # fmt: skip
                r = await http.post(f"{a.base}/api/v1/replay/result", json=body, headers=HEADERS)
                answered = time.perf_counter()
                r.raise_for_status()
            at, action = got[0]
            after_answer.append((at - answered) * 1000)
            after_send.append((at - sent) * 1000)
            if action is None or len(after_answer) >= samples:
                break
        if action is not None:  # the samples are taken: end this replay
            await http.post(
                f"{setup.any().base}/api/v1/tools/cancel_replay",
                json={"replay_id": action["replay_id"]},
                headers={"Authorization": f"Bearer {setup.operator}"},
            )
    return after_answer, after_send


# --- where the time goes -------------------------------------------------------------------------
def _cpu_of(pids: list[int]) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _postgres_pids() -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if Path(entry, "comm").read_text().strip() == "postgres":
                    out.append(int(entry.name))
    return out


def _commits(pg_url: str | None) -> int:
    if not pg_url:
        return 0
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").fetchone()
    return int(row[0]) if row else 0


@contextlib.contextmanager
def _metered(setup: Setup, out: dict[str, float]) -> Iterator[None]:
    servers = [s.proc.pid for s in setup.servers]
    pg = _postgres_pids() if setup.pg_url else []
    before = (_cpu_of(servers), _cpu_of(pg), time.process_time(), _commits(setup.pg_url), time.perf_counter())
    yield
    after = (_cpu_of(servers), _cpu_of(pg), time.process_time(), _commits(setup.pg_url), time.perf_counter())
    out.update(
        server_cpu=after[0] - before[0],
        db_cpu=after[1] - before[1],
        client_cpu=after[2] - before[2],
        commits=after[3] - before[3],
        wall=after[4] - before[4],
    )


async def _measure(setup: Setup, samples: int) -> list[str]:
    lines = [f"{setup.name}:"]
    async with httpx2.AsyncClient(timeout=60) as http:
        after_answer, after_send = await _cross_dispatch(http, setup, samples)
        lines.append(f"  dispatch, report answered on A -> next action on B: {summary(after_answer)}")
        lines.append(f"  dispatch, report sent to A     -> next action on B: {summary(after_send)}")
        started = time.perf_counter()
        n = await _run_replay(http, setup, "steps46", "bench-46")
        lines.append(f"  46-step replay: {time.perf_counter() - started:.2f} s ({n} actions)")
        meter: dict[str, float] = {}
        with _metered(setup, meter):
            async with anyio.create_task_group() as tg:
                counts: list[int] = []

                async def one(i: int) -> None:
                    counts.append(await _run_replay(http, setup, "steps20", f"bench-c{i}"))

                for i in range(20):
                    tg.start_soon(one, i)
        actions = sum(counts)
        lines.append(
            f"  20 concurrent replays: {actions} actions in {meter['wall']:.2f} s = {actions / meter['wall']:.1f}/s"
        )
        per = 1000 / actions
        lines.append(
            f"  per action: servers {meter['server_cpu'] * per:.2f} ms CPU, database {meter['db_cpu'] * per:.2f} ms CPU"
            f" ({meter['commits'] / actions:.1f} commits), agents (this process) {meter['client_cpu'] * per:.2f} ms CPU"
        )
    return lines


async def _run(samples: int) -> str:
    from rpa_mcp.auth.tokens import AccessTokens
    from rpa_mcp.pgcluster import create_database, throwaway_cluster

    operator = AccessTokens([SECRET.encode()], issuer="rpa-mcp", audience="rpa-mcp").mint("bench", ["operator"])
    lines = [f"cpu cores: {os.cpu_count()}; agents: light HTTP clients in this process"]
    with contextlib.ExitStack() as stack:
        cluster = os.environ.get("RPA_BENCH_PG_URL") or stack.enter_context(throwaway_cluster())
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rpa-bench-")))
        for name, n, backend in (("SQLite, 1 process", 1, "sqlite"), ("PostgreSQL, 1 replica", 1, "pg"),
                                 ("PostgreSQL, 3 replicas", 3, "pg")):  # fmt: skip
            url = create_database(cluster, "bench_" + secrets.token_hex(4)) if backend == "pg" else None
            async with _servers(root / name.split(",")[0].lower() / str(n), n, url) as servers:
                lines += await _measure(Setup(name, servers, url, operator), samples)
    return "\n".join(lines)


def run(argv: list[str]) -> str:
    samples = int(argv[0]) if argv and argv[0].isdigit() else 40
    return anyio.run(_run, samples)
