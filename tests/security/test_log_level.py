"""`logging/setLevel` changes the whole process's log level: an operator's setting, refused to anyone else."""

from __future__ import annotations

import logging

import httpx2
import pytest
from mcp import MCPDeprecationWarning
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from rpa_mcp.entrypoints.app import create_app
from tests.conftest import token_for

pytestmark = pytest.mark.anyio


async def set_level(base: str, token: str, level: str) -> MCPError | None:
    """The error `logging/setLevel` is answered with, if any."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        with pytest.warns(MCPDeprecationWarning):  # the client warns about the 2025 method; the server answers
            try:
                await session.set_logging_level(level)  # type: ignore[arg-type]  # the SDK types it as a Literal
            except MCPError as exc:
                return exc
    return None


@pytest.fixture
def rpa_logger():
    logger = logging.getLogger("rpa_mcp")
    before = logger.level
    logger.setLevel(logging.WARNING)
    yield logger
    logger.setLevel(before)


@pytest.mark.parametrize("role", ["viewer", "agent", "approver"])
async def test_a_caller_who_is_not_an_operator_cannot_change_the_log_level(services, serve, rpa_logger, role):
    base = await serve(create_app(services=services))
    error = await set_level(base, token_for(services, f"who-{role}", role), "debug")
    assert error is not None and error.data == {"code": "forbidden"}
    assert rpa_logger.level == logging.WARNING


async def test_an_operator_changes_the_log_level(services, serve, rpa_logger):
    base = await serve(create_app(services=services))
    assert await set_level(base, token_for(services, "olga", "operator"), "error") is None
    assert rpa_logger.level == logging.ERROR
