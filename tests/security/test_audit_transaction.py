"""A write and its audit row are one commit: a non-finite number is refused before anything is
written, and a SIGKILL in the middle of an ingestion burst leaves no batch without its row."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from rpa_mcp.confirmation.digest import digest
from rpa_mcp.ops.shadow import audit_view
from rpa_mcp.store.audit.log import _jsonable
from rpa_mcp.store.db import Database
from tests.integration.conftest import stack  # noqa: F401 - the real app under uvicorn
from tests.integration.test_kill9 import AGENT, SECRET, _env, free_port  # noqa: F401 - free_port: a fixture

pytestmark = pytest.mark.anyio


async def test_an_infinite_timestamp_is_refused_with_its_field_and_nothing_is_stored(stack):  # noqa: F811 - fixture
    async with stack.http() as agent:
        body = '{"session_id": "s-inf", "machine_id": "PC-1", "ts": Infinity, "type": "click", "data": {}}'
        answer = await agent.post(
            "/api/v1/traces/stream/event", content=body, headers={"Content-Type": "application/json"}
        )
    assert answer.status_code in (400, 422), answer.text
    services = stack.services
    assert services.traces.get_session("s-inf") is None
    rows = [r for r in services.audit.rows() if r["operation"] == "ingest_events"]
    assert [(r["outcome"], r["code"]) for r in rows] in ([("error", "invalid-input")], [])  # 400: refused before
    assert services.audit.verify().ok


async def _start(data: Path, port: int) -> subprocess.Popen[bytes]:
    env = _env(data, port) | {"RPA_RATE_LIMIT_PER_MINUTE": "10000000"}
    proc = subprocess.Popen([sys.executable, "-m", "rpa_mcp", "serve"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
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


def _batch(n: int) -> dict:
    return {
        "events": [
            {"session_id": f"s{n % 4}", "machine_id": "PC-1", "ts": 1.8e9 + n + i / 10, "type": "click",
             "event_id": f"b{n}-{i}", "x": i, "y": n}
            for i in range(5)
        ]
    }  # fmt: skip


async def test_sigkill_during_an_ingestion_burst_leaves_no_batch_without_its_audit_row(tmp_path, free_port):  # noqa: F811 - fixture
    data = tmp_path / "data"
    base = f"http://127.0.0.1:{free_port}"
    server = await _start(data, free_port)
    answered: set[int] = set()
    try:
        async with httpx2.AsyncClient(base_url=base, timeout=30, headers={"Authorization": f"Bearer {AGENT}"}) as http:

            async def sender(first: int) -> None:
                for n in range(first, 100_000, 8):
                    try:
                        r = await http.post("/api/v1/traces/stream/event", json=_batch(n))
                    except httpx2.TransportError:
                        return
                    assert r.status_code == 200, r.text
                    answered.add(n)

            async with anyio.create_task_group() as tg:
                for first in range(8):
                    tg.start_soon(sender, first)
                with anyio.fail_after(60):
                    while len(answered) < 150:  # well into the burst
                        await anyio.sleep(0.02)
                server.send_signal(signal.SIGKILL)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()

    db = Database(data / "rpa.sqlite3")
    stored = {int(r["event_id"].split("-")[0][1:]) for r in db.query("SELECT event_id FROM trace_events")}
    assert answered <= stored  # nothing acknowledged was lost
    from rpa_mcp.store.audit import AuditLog, load_audit_key
    from rpa_mcp.testing import FakeClock

    log = AuditLog(db, FakeClock(), key=load_audit_key(None, data), checkpoint=data / "audit.head")
    audited = {r["args_digest"] for r in log.rows(operation="ingest_events", limit=100_000)}
    unaudited = sorted(n for n in stored if digest(_jsonable(audit_view(_batch(n)))) not in audited)
    assert unaudited == []
    assert log.verify().ok
    env = {k: v for k, v in os.environ.items() if not k.startswith("RPA_")} | {"RPA_DATA_DIR": str(data),
                                                                             "RPA_JWT_SECRET": SECRET}  # fmt: skip
    check = subprocess.run(
        [sys.executable, "-m", "rpa_mcp", "audit", "verify"], env=env, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert Path(data / "audit.head").exists()
