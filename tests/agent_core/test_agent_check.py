"""`rpa-mcp agent-check` passes the agent core over real HTTP, on an in-memory desktop (no display needed)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import anyio
import pytest
import uvicorn
from rpa_agent.core.agent import Agent
from rpa_agent.core.http import Http
from rpa_agent.core.journal import Journal

from rpa_mcp.agent_check import Conformance, conformance_script, judge

from .fakes import FakeDesktop

pytestmark = pytest.mark.anyio
TOKEN = "check-token"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_agent_core_passes_every_clause_of_agent_check_over_real_http(tmp_path: Path) -> None:
    run = Conformance(conformance_script(long_action_s=1.5, pause_hold_s=0.5), token=TOKEN, final_hold_s=0.5)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(run.app(), log_level="warning", lifespan="off"))
    agent = Agent(
        desktop=FakeDesktop(),
        http=Http(url, headers={"Authorization": f"Bearer {TOKEN}"}),
        machine_id="ws-core",
        journal=Journal(tmp_path / "journal.sqlite"),
        say=lambda line: None,
        poll_wait_s=0.5,
        heartbeat_interval_s=0.3,
        settle_ms=0,
    )
    stop = threading.Event()
    thread = threading.Thread(target=agent.run, args=(stop,), daemon=True)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        thread.start()
        with anyio.fail_after(90):
            await run.finished.wait()
        stop.set()
        await anyio.to_thread.run_sync(thread.join, 10)
        server.should_exit = True
    assert [(c.name, c.evidence) for c in judge(run) if not c.passed] == []
