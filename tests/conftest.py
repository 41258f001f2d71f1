"""Shared fixtures: settings on a temp data dir, services, in-process MCP client, real HTTP server."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock, loopback_socket

SECRET = "test-secret-key-that-is-long-enough-0123456789"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} is not installed (apt-get install chromium); this test drives a real browser"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must provide it")
    pytest.skip(reason)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", jwt_secret=SECRET, api_token="agent-static-token-0123456789")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def services(settings: Settings, clock: FakeClock, shared_ocr: Any) -> Services:
    return build_services(settings, clock=clock, ocr=shared_ocr)


@pytest.fixture(scope="session")
def shared_ocr() -> Any:
    """One real OCR engine for the whole run (built lazily on first use)."""
    from rpa_mcp.vision.ocr import RapidOcrEngine

    return RapidOcrEngine()


def token_for(services: Services, subject: str, *roles: str, ttl_s: int = 3600) -> str:
    return str(services.access_tokens.mint(subject, list(roles), ttl_s=ttl_s, now=services.clock.now()))


@pytest.fixture
async def serve() -> AsyncIterator[Callable[..., Any]]:
    """serve(app) -> base URL of uvicorn on 127.0.0.1:<free port>; stopped at teardown."""
    async with anyio.create_task_group() as tg:
        servers: list[uvicorn.Server] = []

        async def start(app: Any) -> str:
            sock = loopback_socket()
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
            servers.append(server)
            tg.start_soon(server.serve, [sock])
            with anyio.fail_after(20):
                while not server.started:
                    await anyio.sleep(0.01)
            return f"http://127.0.0.1:{sock.getsockname()[1]}"

        yield start
        for s in servers:
            s.should_exit = True
