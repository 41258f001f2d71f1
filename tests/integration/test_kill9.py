"""A real `rpa-mcp serve` killed with SIGKILL mid-replay loses nothing (a server crash mid-action).

The agent has received and started an action when the server dies; after a restart on the same
data dir the replay, the in-flight attempt and the audit chain are all there, the agent's late
report is accepted for that attempt, and the action is never handed out a second time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from rpa_mcp.competences import CompetenceStore
from rpa_mcp.testing import FakeClock, loopback_socket
from tests.integration.test_confirmation_http import IR

pytestmark = pytest.mark.anyio
SECRET = "kill9-secret-key-that-is-long-enough-0123456789"
AGENT = "kill9-agent-token-0123456789"
HEADERS_V2 = {"Authorization": f"Bearer {AGENT}", "X-Replay-Protocol-Version": "2"}


def _env(data: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPA_")}
    env |= {
        "RPA_DATA_DIR": str(data),
        "RPA_PORT": str(port),
        "RPA_REPLAY_PREFLIGHT": "false",  # the replay starts before the agent's first poll here
        "RPA_JWT_SECRET": SECRET,
        "RPA_API_TOKEN": AGENT,
        "RPA_APPROVAL": "token",
        "RPA_WATCHDOG_ENABLED": "false",
    }
    return env


@pytest.fixture
def free_port() -> Iterator[int]:
    sock = loopback_socket()
    port = sock.getsockname()[1]
    sock.close()
    yield port


async def _start(data: Path, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "rpa_mcp", "serve"],
        env=_env(data, port),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    async with httpx2.AsyncClient(timeout=2) as client:
        with anyio.fail_after(60):
            while True:  # an external process: poll its health endpoint until it answers
                try:
                    if (await client.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200:
                        return proc
                except httpx2.TransportError:
                    pass
                assert proc.poll() is None, "the server exited"
                await anyio.sleep(0.1)


async def test_sigkill_mid_replay_loses_nothing(tmp_path, free_port):
    data = tmp_path / "data"
    CompetenceStore(data / "competences", FakeClock()).save("Admission patient", IR, machine_id="PC-1")
    base = f"http://127.0.0.1:{free_port}"
    from rpa_mcp.auth.tokens import AccessTokens

    operator = AccessTokens([SECRET.encode()], issuer="rpa-mcp", audience="rpa-mcp").mint("alice", ["operator"])
    server = await _start(data, free_port)
    try:
        async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
            auth = {"Authorization": f"Bearer {operator}"}
            proposal = (
                await http.post(
                    "/api/v1/tools/propose_start_replay",
                    headers=auth,
                    json={"competence": "Admission patient", "machine_id": "PC-1"},
                )
            ).json()
            started = await http.post(
                "/api/v1/tools/apply_start_replay", headers=auth, json={"token": proposal["token"]}
            )
            assert started.status_code == 200, started.text
            replay_id = started.json()["replay_id"]
            polled = await http.get("/api/v1/replay/next", params={"machine_id": "PC-1", "wait": 5}, headers=HEADERS_V2)
            action = polled.json()
            ref = {k: action[k] for k in ("replay_id", "action_id", "attempt_id")}
            assert (await http.post("/api/v1/replay/receipt", json=ref, headers=HEADERS_V2)).json()[
                "status"
            ] == "accepted"
            assert (await http.post("/api/v1/replay/start", json=ref, headers=HEADERS_V2)).json()["proceed"] is True
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()

    server = await _start(data, free_port)
    try:
        async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
            auth = {"Authorization": f"Bearer {operator}"}
            again = await http.get("/api/v1/replay/next", params={"machine_id": "PC-1", "wait": 0}, headers=HEADERS_V2)
            assert again.status_code == 204  # the started action is not handed out a second time
            report = await http.post(
                "/api/v1/replay/result", headers=HEADERS_V2, json={**ref, "success": True, "window_title": "DxCare"}
            )
            assert report.json()["status"] == "accepted"
            status = await http.post("/api/v1/tools/get_replay_status", headers=auth, json={"replay_id": replay_id})
            body = status.json()
            assert body["state"] == "paused" and body["pause_reason"] == "UNVERIFIED"  # no screenshots: never a success
            attempts = [a for a in body["actions"] if a["action_id"] == ref["action_id"]]
            assert len(attempts) == 1
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    check = subprocess.run(
        [sys.executable, "-m", "rpa_mcp", "audit", "verify"], env=_env(data, free_port), capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout
