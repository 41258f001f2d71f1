"""`rpa-mcp serve` started by a benchmark on a free port, and waited for until it answers /healthz.

The sizing and replicas benchmarks start their servers this way (each has its own secrets); the
server's preflight is off (a benchmark starts replays itself) and its rate limit out of reach.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import anyio
import httpx2

from rpa_mcp.testing import loopback_socket


def free_port() -> int:
    """A loopback port nothing listens on now."""
    sock = loopback_socket()
    port = int(sock.getsockname()[1])
    sock.close()
    return port


def bench_env(data: Path, port: int, *, secret: str, audit_key: str, agent_token: str) -> dict[str, str]:
    """This process's environment without its RPA_* settings, plus a benchmark server's."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RPA_")} | {
        "RPA_DATA_DIR": str(data),
        "RPA_PORT": str(port),
        "RPA_JWT_SECRET": secret,
        "RPA_AUDIT_KEY": audit_key,
        "RPA_API_TOKEN": agent_token,
        "RPA_APPROVAL": "token",
        "RPA_REPLAY_PREFLIGHT": "false",  # a benchmark starts its replays before its agents poll
        "RPA_RATE_LIMIT_PER_MINUTE": "10000000",
        "RPA_LOG_LEVEL": "WARNING",
    }


async def wait_healthy(base: str, proc: subprocess.Popen[bytes], *, within: float, log: Path) -> None:
    """Return once `base`/healthz answers 200; RuntimeError if the server exits first, TimeoutError after `within` s."""
    async with httpx2.AsyncClient(timeout=2) as client:
        with anyio.fail_after(within):
            while True:
                with contextlib.suppress(httpx2.TransportError):
                    if (await client.get(f"{base}/healthz")).status_code == 200:
                        return
                if proc.poll() is not None:
                    raise RuntimeError(f"a server exited at start-up; see {log}")
                await anyio.sleep(0.1)
