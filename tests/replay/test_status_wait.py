"""get_replay_status with wait_s answers at the next step, pause or end, reporting each step as progress."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from rpa_mcp.bootstrap import build_services
from rpa_mcp.entrypoints.app import local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from rpa_mcp.errors import InvalidInput
from rpa_mcp.ops import build_registry
from rpa_mcp.ops.dispatch import dispatch
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeOcr
from tests.replay.kit import FakeAgent, FakeValidator, JumpClock, steps

pytestmark = pytest.mark.anyio
SECRET = "test-secret-key-that-is-long-enough-0123456789"


@pytest.fixture
async def running(tmp_path: Path):
    settings = Settings(data_dir=tmp_path / "data", jwt_secret=SECRET)
    services = build_services(settings, clock=JumpClock(), ocr=FakeOcr(), replay_validator=FakeValidator())
    replay_id = await services.replay.start(steps=steps(3), competence="c", version=1, machine_id="pc-1")
    yield services, replay_id, FakeAgent(services.replay, clock=services.clock)
    services.db.close()


def listening(services: Any, monkeypatch: pytest.MonkeyPatch) -> anyio.Event:
    """An event set once something attaches a change listener (the wait has started listening)."""
    attached = anyio.Event()
    attach = services.notifier.attach

    def spy(listener: Any) -> None:
        attach(listener)
        attached.set()

    monkeypatch.setattr(services.notifier, "attach", spy)
    return attached


async def test_wait_s_answers_at_the_next_step_with_one_progress_notification_for_it(running, monkeypatch):
    services, replay_id, agent = running
    server = build_mcp_server(build_registry(), services, local_caller=local_operator())
    attached = listening(services, monkeypatch)
    progress: list[tuple[float, float | None, str | None]] = []
    answer: dict[str, Any] = {}

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def call(client: Client) -> None:
        answer["result"] = await client.call_tool(
            "get_replay_status", {"replay_id": replay_id, "wait_s": 50}, progress_callback=on_progress
        )

    async with Client(server) as client:
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(call, client)
                await attached.wait()
                assert "result" not in answer  # waiting, not answered
                while "result" not in answer:
                    await agent.step()
                    await anyio.lowlevel.checkpoint()
    status = answer["result"].structured_content
    assert status["state"] == "running" and status["done"] == 1
    assert progress == [(1, 3, "step 1 finished")]


async def test_a_replay_that_is_not_running_is_answered_at_once(running):
    services, replay_id, _agent = running
    await services.replay.cancel(replay_id)
    with anyio.fail_after(5):
        status = await dispatch(
            build_registry(),
            services,
            "get_replay_status",
            {"replay_id": replay_id, "wait_s": 50},
            local_operator(),
            surface="mcp",
        )
    assert status["state"] != "running"


async def test_a_wait_over_50_seconds_is_refused_naming_the_field(running):
    services, replay_id, _agent = running
    with pytest.raises(InvalidInput) as refused:
        await dispatch(
            build_registry(),
            services,
            "get_replay_status",
            {"replay_id": replay_id, "wait_s": 51},
            local_operator(),
            surface="mcp",
        )
    assert refused.value.details["field"] == "wait_s"
