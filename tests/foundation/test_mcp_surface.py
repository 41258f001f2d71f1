"""The MCP surface over real HTTP (both protocol eras) and its parity with REST."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client, MCPDeprecationWarning
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from rpa_mcp.entrypoints.app import create_app, local_operator
from rpa_mcp.entrypoints.mcp import build_mcp_server
from tests.conftest import token_for
from tests.foundation.helpers import test_registry

pytestmark = pytest.mark.anyio


def _http(token: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)


async def test_modern_client_lists_and_calls_over_http(services, serve):
    base = await serve(create_app(services=services, registry=test_registry()))
    token = token_for(services, "alice", "operator")
    async with _http(token) as http, Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        assert client.protocol_version == "2026-07-28"
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"get_catalog", "read_note", "propose_save_note", "apply_save_note"} <= set(tools)
        assert "save_note" not in tools
        assert tools["read_note"].annotations.read_only_hint is True
        assert tools["apply_save_note"].annotations.read_only_hint is False
        assert all(t.description for t in tools.values()) and all(t.output_schema for t in tools.values())
        result = await client.call_tool("draft_note", {"key": "k", "text": "hello"})
        assert not result.is_error and result.structured_content == {"key": "k", "text": "hello", "version": 1}
        templates = (await client.list_resource_templates()).resource_templates
        assert "rpa://catalog/{name}" in {t.uri_template for t in templates}


async def test_legacy_client_with_session_lists_and_calls_over_http(services, serve):
    base = await serve(create_app(services=services, registry=test_registry()))
    token = token_for(services, "alice", "operator")
    async with (
        _http(token) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert session.protocol_version == "2025-11-25"
        names = {t.name for t in (await session.list_tools()).tools}
        assert "propose_save_note" in names
        result = await session.call_tool("draft_note", {"key": "k", "text": "x"})
        assert result.structured_content["text"] == "x"
        with pytest.warns(MCPDeprecationWarning):  # the client warns; the server still answers
            await session.set_logging_level("debug")


async def test_errors_reach_the_model_with_their_code(services):
    server = build_mcp_server(test_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        missing = await client.call_tool("read_note", {"key": "nope"})
        bad = await client.call_tool("draft_note", {"key": "", "text": "x"})
        extra = await client.call_tool("draft_note", {"key": "k", "text": "x", "evil": 1})
    assert missing.is_error and missing.content[0].text.startswith("[not-found]")
    assert bad.is_error and bad.content[0].text.startswith("[invalid-input] key:")
    assert extra.is_error and "evil" in extra.content[0].text


async def test_prompts_are_served_from_files_with_arguments(services):
    server = build_mcp_server(test_registry(), services, local_caller=local_operator())
    async with Client(server) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    assert all(p.description for p in prompts.values())
