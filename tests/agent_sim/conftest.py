"""Fixtures: the incident desktop, and an agent harness wired to the fake server in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from rpa_mcp.agent_sim import VirtualDesktop
from rpa_mcp.agent_sim.fixtures import ImageResolver

from .fake_server import FakeReplayServer, Harness, RecordingSleep


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def incident_spec() -> Any:
    return VirtualDesktop.load("incident").spec


@pytest.fixture
def desktop(incident_spec: Any) -> VirtualDesktop:
    return VirtualDesktop(incident_spec, ImageResolver.default())


@pytest.fixture
async def harness(desktop: VirtualDesktop, tmp_path: Path) -> AsyncIterator[Harness]:
    server = FakeReplayServer()
    transport = httpx2.ASGITransport(app=server.app())
    async with httpx2.AsyncClient(transport=transport, base_url="http://rpa.test") as client:
        h = Harness(server, client, desktop, tmp_path / "agent.journal.sqlite", RecordingSleep())
        try:
            yield h
        finally:
            for journal in h.journals:
                journal.close()
