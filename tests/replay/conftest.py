"""Fixtures of the replay tests (the kit itself is tests/replay/kit.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from rpa_mcp.replay.resolve import TargetResolver
from rpa_mcp.replay.service import ReplayService
from rpa_mcp.replay.thresholds import load_thresholds
from rpa_mcp.replay.unconfigured import NoVlmLocator
from rpa_mcp.settings import shipped_dir
from tests.replay.kit import FakeAgent, JumpClock, make_service, make_services


@pytest.fixture
def resolver(shared_ocr: object) -> TargetResolver:
    """The server's target resolver with the suite's RapidOCR engine and the shipped thresholds, no memory."""
    return TargetResolver(
        ocr=shared_ocr,  # type: ignore[arg-type]  # the suite's RapidOCR engine
        memory=None,
        thresholds=load_thresholds(shipped_dir("catalog") / "thresholds.yaml"),
        vlm=NoVlmLocator(),
    )


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
