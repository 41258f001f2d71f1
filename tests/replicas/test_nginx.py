"""The shipped nginx configuration (docs/deploy/nginx.conf) in front of three real replicas:
an agent and an LLM client that only know the balancer's address drive a replay to its end,
and keep working when one replica is killed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import anyio
import httpx2
import pytest

from rpa_mcp.agent_sim import Journal, ReferenceAgent, VirtualDesktop
from rpa_mcp.replay import model as m
from tests.integration.test_replay_http import MACHINE
from tests.replicas.conftest import AGENT, CYCLE, Cluster, kill

pytestmark = pytest.mark.anyio
CONF = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "nginx.conf"


def _nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        reason = "nginx is not installed (apt-get install nginx-light)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must provide it")
        pytest.skip(reason)
    return found


def render(cluster: Cluster, port: int) -> str:
    """The deployment file with the compose service names replaced by the test's loopback ports."""
    text = CONF.read_text()
    for i, replica in enumerate(cluster.replicas, start=1):
        text = text.replace(f"server rpa{i}:8765", f"server 127.0.0.1:{replica.port}")
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    assert not re.search(r"rpa\d:8765", text)
    return text


@pytest.fixture
async def balancer(cluster, tmp_path):
    binary = _nginx()
    port = cluster.public_port  # the replicas' RPA_PUBLIC_URL: the Host and Origin they accept
    prefix = tmp_path / "nginx"
    (prefix / "logs").mkdir(parents=True)
    (prefix / "site.conf").write_text(render(cluster, port))
    (prefix / "nginx.conf").write_text(
        ("user root;\n" if os.geteuid() == 0 else "")  # the workers write request bodies in the test's folder
        + f"pid {prefix}/nginx.pid;\nerror_log {prefix}/logs/error.log warn;\nworker_processes 1;\n"
        "events { worker_connections 256; }\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {prefix}/body;\n  proxy_temp_path {prefix}/proxy;\n"
        f"  include {prefix}/site.conf;\n}}\n"
    )
    checked = subprocess.run([binary, "-t", "-p", str(prefix), "-c", str(prefix / "nginx.conf")], capture_output=True,
                             text=True)  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    proc = subprocess.Popen([binary, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"])
    base = f"http://127.0.0.1:{port}"
    async with httpx2.AsyncClient(timeout=2) as client:
        with anyio.fail_after(30):
            while True:
                try:
                    if (await client.get(f"{base}/nginx-health")).status_code == 200:
                        break
                except httpx2.TransportError:
                    pass
                await anyio.sleep(0.05)
    yield base
    proc.send_signal(signal.SIGQUIT)
    proc.wait()


async def test_through_nginx_a_replay_completes_and_survives_the_death_of_a_replica(cluster, balancer, tmp_path):
    operator = {"Authorization": f"Bearer {cluster.operator_token()}"}
    async with (
        httpx2.AsyncClient(base_url=balancer, timeout=60, headers=operator) as llm,
        httpx2.AsyncClient(base_url=balancer, timeout=60) as agent_http,
    ):
        health = await llm.get("/healthz")
        assert health.status_code == 200 and health.json()["backend"] == "postgres"
        agent = ReferenceAgent(agent_http, VirtualDesktop.load("incident"), machine_id=MACHINE,
                               journal=Journal(tmp_path / "j.sqlite3"), token=AGENT, poll_wait_s=2)  # fmt: skip

        async def replay() -> dict:
            args = {"competence": CYCLE["name"], "machine_id": MACHINE}
            proposal = (await llm.post("/api/v1/tools/propose_start_replay", json=args)).json()
            started = await llm.post("/api/v1/tools/apply_start_replay", json={"token": proposal["token"]})
            assert started.status_code == 200, started.text
            replay_id = started.json()["replay_id"]
            for _ in range(50):
                status = (await llm.post("/api/v1/tools/get_replay_status", json={"replay_id": replay_id})).json()
                if status["state"] != m.RUNNING:
                    return status
                await agent.poll_once()
            raise AssertionError("the replay did not end")

        first = await replay()
        assert first["state"] == m.COMPLETED, (first["pause_reason"], first["pause_detail"])
        kill(cluster.replicas[1])  # nginx sends the next requests to the two others
        second = await replay()
        assert second["state"] == m.COMPLETED, second
        assert [e.label for e in agent.desktop.agent_inputs()] == ["Imagerie", "Dossier patient"] * 2
