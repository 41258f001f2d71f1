"""tools/list, in both MCP eras, shows each identity only the tools its roles may call."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.entrypoints.app import create_app
from rpa_mcp.ops import build_registry
from tests.conftest import token_for

pytestmark = pytest.mark.anyio


def expected_for(*roles: str) -> set[str]:
    return {op.name for op in build_registry().for_surface("mcp") if set(roles) & set(op.allowed_roles)}


async def modern_tools(base: str, token: str) -> set[str]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        assert client.protocol_version == "2026-07-28"
        return {t.name for t in (await client.list_tools()).tools}


async def legacy_tools(base: str, token: str) -> set[str]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert session.protocol_version == "2025-11-25"
        return {t.name for t in (await session.list_tools()).tools}


@pytest.mark.parametrize("era", [modern_tools, legacy_tools], ids=["2026-07-28", "2025-11-25"])
async def test_each_role_sees_exactly_the_tools_it_may_call(services, serve, era):
    base = await serve(create_app(services=services))
    seen = {role: await era(base, token_for(services, f"who-{role}", role)) for role in ("viewer", "agent", "operator")}
    assert seen["viewer"] == expected_for("viewer")
    assert seen["agent"] == expected_for("agent")
    assert seen["operator"] == expected_for("operator")
    mutations = {n for n in seen["operator"] if n.startswith(("propose_", "apply_"))}
    assert mutations and not mutations & seen["viewer"] and not mutations & seen["agent"]
    assert "get_catalog" in seen["viewer"] and "shadow_start" not in seen["viewer"]
    assert "shadow_start" in seen["agent"]


async def test_a_tool_hidden_from_a_role_is_still_refused_when_called(services, serve):
    base = await serve(create_app(services=services))
    token = token_for(services, "vic", "viewer")
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("propose_delete_competence", {"name": "x"})
    assert result.is_error and result.meta["rpa/error"]["code"] == "forbidden"
