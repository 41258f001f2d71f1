"""Fixtures of the replay tests (the kit itself is tests/replay/kit.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from rpa_mcp.replay.service import ReplayService
from tests.replay.kit import FakeAgent, JumpClock, make_service, make_services


@pytest.fixture
def services(tmp_path: Path) -> SimpleNamespace:
    return make_services(tmp_path)


@pytest.fixture
def service(services: SimpleNamespace) -> ReplayService:
    return make_service(services)


@pytest.fixture
def clock(services: SimpleNamespace) -> JumpClock:
    return services.clock


@pytest.fixture
def agent(service: ReplayService, clock: JumpClock) -> FakeAgent:
    return FakeAgent(service, clock=clock)
