"""Three real `rpa-mcp serve` processes on one PostgreSQL database, and a load balancer's view
of them (each request to a random live replica, the next one when a replica is gone)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from rpa_mcp.auth.console_credentials import ConsoleCredentials
from rpa_mcp.auth.tokens import AccessTokens
from rpa_mcp.competences import CompetenceStore
from rpa_mcp.testing import FakeClock, loopback_socket
from tests.integration.test_replay_http import BACK_TO_DOSSIER, IMAGERIE, MACHINE, workflow

SECRET = "replicas-secret-key-that-is-long-enough-0123456789"
AUDIT_KEY = "replicas-audit-key-that-is-long-enough-0123456789"
AGENT = "replicas-agent-token-0123456789"
LOCKOUT_FAILURES = 6  # failed sign-ins per address, for all the replicas together
CYCLE = workflow("Imagerie aller-retour", IMAGERIE, BACK_TO_DOSSIER)  # ends where it starts: replays chain


@dataclass
class Replica:
    index: int
    port: int
    data: Path
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


@dataclass
class Cluster:
    url: str
    replicas: list[Replica]
    public_port: int  # where a load balancer in front of the replicas listens (their RPA_PUBLIC_URL)
    rng: random.Random = field(default_factory=lambda: random.Random(5))
    clients: list[httpx2.AsyncClient] = field(default_factory=list)  # closed at teardown

    def client(self, **kwargs: Any) -> httpx2.AsyncClient:
        http = httpx2.AsyncClient(timeout=60, **kwargs)
        self.clients.append(http)
        return http

    def operator_token(self) -> str:
        return AccessTokens([SECRET.encode()], issuer="rpa-mcp", audience="rpa-mcp").mint("alice", ["operator"])

    def console_credential(self) -> str:
        """Alice's credential for the console's sign-in (an access token is refused there)."""
        return ConsoleCredentials([SECRET.encode()], issuer="rpa-mcp", audience="rpa-mcp").mint("alice", ["operator"])

    def live(self) -> list[Replica]:
        return [r for r in self.replicas if r.alive]

    async def health(self, replica: Replica) -> dict[str, Any]:
        async with httpx2.AsyncClient(timeout=5) as client:
            return dict((await client.get(f"{replica.base}/healthz")).json())

    async def leader(self) -> Replica:
        """The replica whose watchdog runs (waits until one has taken the watchdog lock)."""
        with anyio.fail_after(60):
            while True:
                for replica in self.live():
                    if (await self.health(replica))["watchdog"] == "leader":
                        return replica
                await anyio.sleep(0.1)


class AnyReplica(httpx2.AsyncBaseTransport):
    """A round-robin balancer in the client: a random live replica per request, the next one
    when the chosen replica refuses the connection (it died)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        candidates = self.cluster.live() or self.cluster.replicas
        order = self.cluster.rng.sample(candidates, len(candidates))
        request.headers["host"] = f"127.0.0.1:{self.cluster.public_port}"  # the public name, as a balancer forwards it
        for i, replica in enumerate(order):
            request.url = request.url.copy_with(port=replica.port)
            try:
                return await self.inner.handle_async_request(request)
            except httpx2.ConnectError:
                if i == len(order) - 1:
                    raise
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self.inner.aclose()


def _env(url: str, data: Path, port: int, public_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPA_")}
    return env | {
        "RPA_STORE_URL": url,
        "RPA_DATA_DIR": str(data),
        "RPA_PORT": str(port),
        "RPA_PUBLIC_URL": f"http://127.0.0.1:{public_port}",  # as behind a load balancer
        "RPA_JWT_SECRET": SECRET,
        "RPA_AUDIT_KEY": AUDIT_KEY,
        "RPA_API_TOKEN": AGENT,
        "RPA_APPROVAL": "token",
        "RPA_REPLAY_PREFLIGHT": "false",  # replays start before the agents poll here
        "RPA_WATCHDOG_SCAN_INTERVAL_S": "0.5",
        "RPA_WATCHDOG_ORPHAN_TIMEOUT_S": "4",
        "RPA_RATE_LIMIT_PER_MINUTE": "100000",
        "RPA_AUTH_LOCKOUT_FAILURES": str(LOCKOUT_FAILURES),
        "RPA_AUTH_LOCKOUT_S": "86400",  # failed sign-ins: a budget that does not come back during a test
    }


async def start(replica: Replica) -> None:
    with open(replica.data.parent / f"replica{replica.index}.log", "ab") as log:  # the child keeps its own fd
        replica.proc = subprocess.Popen(
            [sys.executable, "-m", "rpa_mcp", "serve"], env=replica.env, stdout=log, stderr=log
        )
    async with httpx2.AsyncClient(timeout=2) as client:
        with anyio.fail_after(90):
            while True:  # an external process: poll its health endpoint until it answers
                try:
                    if (await client.get(f"{replica.base}/healthz")).status_code == 200:
                        return
                except httpx2.TransportError:
                    pass
                assert replica.alive, f"replica {replica.index} exited; see its log"
                await anyio.sleep(0.1)


def kill(replica: Replica, sig: int = signal.SIGKILL) -> None:
    if replica.proc is not None and replica.proc.poll() is None:
        replica.proc.send_signal(sig)
        replica.proc.wait()


def free_port() -> int:
    sock = loopback_socket()
    port: int = sock.getsockname()[1]
    sock.close()
    return port


@pytest.fixture
async def cluster(pg_url: str, tmp_path: Path) -> AsyncIterator[Cluster]:
    replicas = []
    # The competence is written as YAML files, then imported into the shared database.
    store = CompetenceStore(tmp_path / "import", FakeClock())
    store.save(CYCLE["name"], CYCLE, machine_id=MACHINE)
    store.promote(CYCLE["name"])
    public_port = free_port()
    for i in range(3):
        data = tmp_path / f"replica{i}"
        port = free_port()
        replicas.append(Replica(i, port, data, _env(pg_url, data, port, public_port)))
    cluster = Cluster(pg_url, replicas, public_port)
    for command in (["db", "upgrade"], ["competences", "import", str(tmp_path / "import")]):
        done = subprocess.run([sys.executable, "-m", "rpa_mcp", *command], env=replicas[0].env, capture_output=True,
                              text=True)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    try:
        async with anyio.create_task_group() as tg:
            for replica in replicas:
                tg.start_soon(start, replica)
        yield cluster
    finally:
        for http in cluster.clients:
            await http.aclose()
        for replica in replicas:
            kill(replica, signal.SIGTERM)
