"""Shared fixtures: settings on a temp data dir, services, in-process MCP client, real HTTP server."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from hypothesis import settings as hypothesis_settings

from rpa_mcp.bootstrap import Services, build_services
from rpa_mcp.settings import Settings
from rpa_mcp.testing import FakeClock, loopback_socket

# Property tests explore new examples on a developer's machine; in CI they run the same examples every time
# (no example database): a red CI is reproducible from its log, a counterexample found locally is fixed and
# kept as a test of its own.
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI") == "true":
    hypothesis_settings.load_profile("ci")

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
    # A replay's preflight (workstation connected, first step on screen) has its own tests
    # (tests/replay/test_preflight.py) and runs in the demo; here no agent polls before a proposal.
    return Settings(
        data_dir=tmp_path / "data",
        jwt_secret=SECRET,
        api_token="agent-static-token-0123456789",
        replay_preflight=False,
    )


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
    """An access token (for /mcp and /api/v1)."""
    return str(services.access_tokens.mint(subject, list(roles), ttl_s=ttl_s, now=services.clock.now()))


def console_credential_for(services: Services, subject: str, *roles: str, ttl_s: int = 3600) -> str:
    """A person's console credential (for the console's sign-in, development)."""
    return services.console_credentials.mint(subject, list(roles), ttl_s=ttl_s, now=services.clock.now())


@pytest.fixture
async def serve() -> AsyncIterator[Callable[..., Any]]:
    """serve(app) -> base URL of uvicorn on 127.0.0.1:<free port>; stopped at teardown.

    Each server installs its own SIGINT/SIGTERM handlers and restores the previous ones when it
    stops; two servers stopping out of order leave a dead server's handler installed, and
    sse-starlette (under the MCP SDK) then ends every later SSE stream of the process at once.
    The handlers in force before the first server are put back at teardown.
    """
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
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
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


# --- PostgreSQL: a throwaway cluster (RPA_TEST_PG_URL from .ci/run, or started here) ---------
@pytest.fixture(scope="session")
def pg_cluster() -> Any:
    url = os.environ.get("RPA_TEST_PG_URL")
    if url:
        yield url
        return
    from rpa_mcp.pgcluster import pg_bin, throwaway_cluster

    if pg_bin() is None:
        reason = "PostgreSQL server binaries are not installed (apt-get install postgresql)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must provide them")
        pytest.skip(reason)
    with throwaway_cluster() as started:
        yield started


@pytest.fixture
def pg_url(pg_cluster: str) -> Any:
    """A fresh, empty database for one test."""
    import secrets

    from rpa_mcp.pgcluster import create_database, drop_database

    name = "t_" + secrets.token_hex(6)
    yield create_database(pg_cluster, name)
    drop_database(pg_cluster, name)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A Database on each backend (the store contract runs on both)."""
    from rpa_mcp.store.db import Database

    if request.param == "sqlite":
        db = Database(tmp_path / "contract.sqlite3")
    else:
        from rpa_mcp.store.postgres import PostgresDatabase

        db = PostgresDatabase(request.getfixturevalue("pg_url"))
    yield db
    db.close()
